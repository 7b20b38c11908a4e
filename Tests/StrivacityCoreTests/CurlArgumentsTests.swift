// `strivacity curl`'s allow-list: every way curl 7.88 can be told to send the request (and the
// token) somewhere other than the URLs it returns, refused; the options it lets through, parsed
// as curl parses them.
import Testing

@testable import StrivacityCore

@Suite struct CurlArgumentsTests {
  static let url = "https://api.example.com/v1/me"

  /// The refusal's message, or nil when the arguments were admitted.
  func refusal(_ arguments: [String]) -> String? {
    do {
      _ = try CurlArguments.parse(arguments)
      return nil
    } catch {
      return error.description
    }
  }

  // MARK: admitted

  @Test func plainRequest() throws {
    let parsed = try CurlArguments.parse(["-sS", Self.url])
    #expect(parsed == CurlArguments(urls: [Self.url], arguments: ["-sS", Self.url]))
  }

  @Test(arguments: [
    ["-sSfo", "out", url],
    ["-sSo", "out", url],
    ["-XPOST", url],
    ["-X", "POST", url],
    ["-H", "A: b", url],
    ["-HA:b", url],
    ["-dfoo", url],
    ["-sS", "-d", "foo", url],
    // -o takes the rest of its cluster: sS is the file name, not two flags.
    ["-osS", url],
    [url, "-#", "-LiIvNOJ46g", "--compressed", "-G", "--http1.1", "--http2", "--fail-with-body"],
    ["--silent", "--show-error", "--fail", "--include", "--head", "--verbose", "--location", "--get", url],
    ["--no-buffer", "--remote-name", "--remote-header-name", "--ipv4", "--ipv6", "--progress-bar", "--globoff", url],
    ["--data-raw", "@x", "--data-binary", "@f", "--data-urlencode", "a=b c", "--json", "{\"a\":1}", url],
    ["-F", "f=@file", "--form-string", "s=@x", "-w", "%{http_code}\n", "-A", "agent/1", "-m", "5", url],
    ["--connect-timeout", "2", "--retry", "3", "--retry-delay", "1", "--retry-max-time", "9", url],
    ["-T", "file", "-b", "a=b", "-c", "jar", "-r", "0-9", "-e", "https://elsewhere.example/", url],
    ["--max-filesize", "1M", "--limit-rate", "10k", "-D", "-", "--dump-header", "h.txt", url],
    ["-D-", "-o-", "-w@fmt", url],
  ])
  func clustersAndValuesParseAsCurlDoes(_ arguments: [String]) throws {
    let parsed = try CurlArguments.parse(arguments)
    #expect(parsed.urls == [Self.url])
    #expect(parsed.arguments == arguments)
  }

  @Test(arguments: [
    // Values are never options or URLs, whatever they look like.
    ["-d", "https://evil.example/", url],
    ["-H", "--connect-to", url],
    ["-H", "X-K: -K", url],
    ["-o", "-K", url],
    ["--data", "--url", url],
    ["-d", "--", url],
    ["-d", "-", url],
    ["-e", "https://evil.example/", url],
    ["-A", "http:/evil.example", url],
    ["-w", "--next", url],
    ["-dhttps://evil.example/", url],
    ["-T", "{a,b}", url],
  ])
  func optionValuesAreNeitherOptionsNorURLs(_ arguments: [String]) throws {
    #expect(try CurlArguments.parse(arguments).urls == [Self.url])
  }

  @Test func everyURLIsReturnedInOrder() throws {
    let arguments = [
      "https://a.example/1", "-o", "x", "--url", "https://b.example:8443/2", "-sS", "http://127.0.0.1:8080/3",
      "--url", "https://a.example/1",
    ]
    let parsed = try CurlArguments.parse(arguments)
    #expect(
      parsed.urls == [
        "https://a.example/1", "https://b.example:8443/2", "http://127.0.0.1:8080/3", "https://a.example/1",
      ])
    #expect(parsed.arguments == arguments)
  }

  @Test func urlOptionIsAURL() throws {
    #expect(try CurlArguments.parse(["--url", Self.url]).urls == [Self.url])
    #expect(try CurlArguments.parse(["--url", Self.url, "-sS"]).arguments == ["--url", Self.url, "-sS"])
    for bad in ["evil.example", "http:/evil.example", "https://{a,b}.example/", "ftp://evil.example/", "-K"] {
      let message = refusal(["--url", bad])
      #expect(message?.hasPrefix("curl option --url value") == true, "\(bad)")
    }
    #expect(refusal([Self.url, "--url"])?.contains("needs a value") == true)
  }

  @Test(arguments: [
    "https://api.example.com", "HTTPS://API.Example.COM/v1?q=1#frag", "Http://localhost:8080/x", "http://127.0.0.1/",
    "https://[::1]:8443/x", "http://[::1]/", "https://[2001:db8::1]/a", "https://[::ffff:127.0.0.1]/",
    "https://a_b.example/",
    "https://example.com:443/%7Bx%7D?a=%20#f", "https://example.com?q=a@b", "https://example.com/@user",
    "https://h.example:65535",
  ])
  func urlsThatPass(_ url: String) throws {
    #expect(try CurlArguments.parse([url]).urls == [url])
  }

  // MARK: refused

  @Test(arguments: [
    // Scheme-less, half-written and other schemes.
    ["api.example.com/v1/me"], ["api.example.com"], ["localhost:8080/x"], ["//api.example.com/"],
    ["http:/evil.example/"],
    ["https:evil.example"], ["https:/evil.example"], ["file:///etc/passwd"], ["ftp://evil.example/"], ["gopher://x/"],
    ["scp://evil.example/"], ["telnet://evil.example"], [""], ["--url", "evil.example"],
    // Config files, more transfers, config-file semantics.
    ["-K", "file", url], ["-K", "-", url], ["-Kfile", url], ["-sSK", "file", url], ["--config", "f", url], ["-:", url],
    ["--next", url], ["-q", url], ["--disable", url],
    // Where the connection goes.
    ["--connect-to", "::evil.example:443", url], ["--resolve", "api.example.com:443:192.0.2.1", url],
    ["-x", "http://evil.example:8080", url], ["-xhttp://evil.example", url], ["--proxy", "evil.example", url],
    ["--proxy-header", "X: y", url], ["--proxy1.0", "evil", url], ["-p", url], ["--preproxy", "socks5://evil", url],
    ["--socks5", "evil:1080", url], ["--socks5-hostname", "evil:1080", url], ["--socks4a", "evil", url],
    ["--unix-socket", "/run/evil.sock", url], ["--abstract-unix-socket", "evil", url],
    ["--doh-url", "https://evil/dns", url],
    ["--dns-servers", "192.0.2.1", url], ["--interface", "tun0", url], ["--local-port", "1000", url],
    ["--alt-svc", "f", url],
    ["--noproxy", "*", url], ["--request-target", "http://evil/", url],
    // Globs (strivacity curl also passes --globoff).
    ["https://{good,evil}.example/"], ["https://api.example.com/{a,b}"], ["https://[a-z].example/"],
    ["https://api.example.com/x[1-9]"], ["--no-globoff", url],
    // Redirects, credentials, TLS, protocols, the token written out.
    ["--location-trusted", url], ["-u", "a:b", url], ["--user", "a:b", url], ["--oauth2-bearer", "t", url],
    ["-n", url],
    ["--netrc", url], ["--netrc-file", "f", url], ["--netrc-optional", url], ["-E", "c.pem", url], ["-k", url],
    ["-sSk", url], ["--insecure", url], ["--proxy-insecure", url], ["--cacert", "ca.pem", url],
    ["--capath", "/d", url],
    ["--proto", "=all", url], ["--proto-redir", "all", url], ["--proto-default", "ftp", "x"], ["--trace", "t", url],
    ["--trace-ascii", "-", url], ["--stderr", "f", url], ["--libcurl", "f.c", url],
    // - and --.
    ["-", url], ["--", url], [url, "--", "-x"],
    // Request line and header smuggling.
    ["-H", "@headers.txt", url], ["-H", "Host: evil.example", url], ["-H", "host :evil.example", url],
    ["-HHost;", url],
    ["-H", ": no name", url], ["-H", "X: a\r\nHost: evil.example", url], ["-A", "a\r\nHost: evil.example", url],
    ["-X", "GET /x HTTP/1.1\r\nHost: evil.example\r\n\r\nGET", url], ["-X", "GET http://evil.example/", url],
    ["-X", "", url],
    // Anything unknown.
    ["--foo", url], ["-Z", url], ["-0", url], ["--parallel", url], ["--path-as-is", url], ["-C", "-", url],
  ])
  func bypassesAreRefused(_ arguments: [String]) {
    #expect(refusal(arguments) != nil)
  }

  @Test(arguments: [
    ["--conf", "f", url], ["--confi", "f", url], ["--connect-t", "::evil:443", url], ["--res", "a:443:192.0.2.1", url],
    ["--sil", url], ["--silen", url], ["--loc", url], ["--location-t", url], ["--head=x", url], ["--header=A: b", url],
    ["--url=https://api.example.com/", "x"], ["--no-silent", url], ["--no-sil", url], ["--SILENT", url],
    ["--Url", url],
    ["---silent", url], ["--", url],
  ])
  func abbreviationsAndOtherSpellingsAreRefused(_ arguments: [String]) {
    #expect(refusal(arguments) != nil)
  }

  @Test(arguments: [
    "https://user@api.example.com/", "https://api.example.com@evil.example/", "https://a:b@api.example.com/",
    "https://api.example.com:443@evil.example/", "https://api.example.com\\@evil.example/",
    "https://api.example.com\\evil",
    "https://api.example.com/a\\b", "https://api.example.com /", "https://api.example.com/a b",
    "https://api.example.com/\t",
    "https://api.example.com/\n", "https://api.example.com/\r", "https://api.example.com/\u{07}",
    "https://api.example.com/\u{7F}",
    "https://api.example.com/\u{85}", "https://api.example.com/\u{A0}", "https://api.example.com/\u{2028}",
    "https://api.example.com/\u{202E}", "https://\u{0430}pi.example.com/", "https://\u{212A}ey.example/",
    "https://api.example.com/caf\u{E9}", "https://api.example.com:99999/", "https://api.example.com:0/",
    "https://api.example.com:/", "https://api.example.com:+443/", "https://api.example.com:44a/",
    "https://api%2eexample.com/",
    "https://[::1%25eth0]/", "https:///api.example.com/", "https://[::1/", "https://[::1]x/", "https://[example.com]/",
    "https://api.example.com]/", "https://api.example.com/{x}", "https://api.example.com/}",
    "https://api.example.com/?q=[1]",
    "https://api.example.com/#[x]", "https://api.example.com!/", "https://api.example.com;evil/", "https://", "http://",
    "https://:443/",
  ])
  func urlsThatAreRefused(_ url: String) {
    #expect(refusal([url]) != nil, "\(url)")
    #expect(refusal(["--url", url]) != nil, "\(url)")
  }

  @Test(arguments: [[], ["-sS"], ["-o", "https://api.example.com/"], ["-d", "https://api.example.com/", "-v"]])
  func aURLIsRequired(_ arguments: [String]) {
    let message = refusal(arguments)
    #expect(message?.hasPrefix("no URL given") == true)
    #expect(message?.contains("https://") == true)
  }

  @Test(arguments: [["-o"], ["-sSo"], [url, "-H"], [url, "--data"], [url, "-X"]])
  func aMissingValueIsRefused(_ arguments: [String]) {
    #expect(refusal(arguments)?.contains("needs a value") == true)
  }

  // MARK: messages

  @Test func messagesNameTheArgumentAndSayWhatToDo() {
    #expect(
      refusal(["--connect-to", "::evil:443", Self.url])
        == "curl option \"--connect-to\" is not passed by strivacity curl (it could send the token elsewhere); "
        + "use `strivacity token --format curl | curl -K - …` for full control")
    #expect(
      refusal(["-sSk", Self.url])?.hasPrefix(
        "curl option \"-k\" (in \"-sSk\") is not passed by strivacity curl (it weakens TLS)") == true)
    #expect(refusal(["-Kfile", Self.url])?.hasPrefix("curl option \"-K\" (in \"-Kfile\") is not passed") == true)
    #expect(
      refusal(["-k", Self.url])?.hasPrefix("curl option \"-k\" is not passed by strivacity curl (it weakens TLS)")
        == true)
    #expect(refusal(["--proxy-cacert", "f", Self.url])?.contains("it could send the token elsewhere") == true)
    #expect(refusal(["--location-trusted", Self.url])?.contains("redirect") == true)
    #expect(refusal(["--sil", Self.url])?.contains("write options in full, e.g. --silent") == true)
    #expect(refusal(["--conf", "f", Self.url])?.contains("not on strivacity curl's allow-list") == true)
    #expect(refusal(["--header=A: b", Self.url])?.contains("write --header VALUE") == true)
    #expect(refusal(["api.example.com/v1"])?.contains("write the full https:// URL") == true)
    #expect(refusal(["http:/api.example.com/v1"])?.contains("write the full https:// URL") == true)
    #expect(refusal(["ftp://api.example.com/"])?.contains("not an http(s) URL") == true)
    #expect(refusal(["https://u@api.example.com/"])?.contains("user info") == true)
    #expect(refusal(["https://{a,b}.example/"])?.contains("glob") == true)
    #expect(refusal(["https://a.example/[1-2]"])?.contains("glob") == true)
    #expect(refusal(["https://a.example\\b"])?.contains("backslash") == true)
    #expect(refusal(["https://a.example/ x"])?.contains("percent-encode") == true)
    #expect(refusal(["-", Self.url])?.contains("-d @-") == true)
    #expect(refusal(["--", Self.url])?.contains("\"--\" is refused") == true)
    #expect(
      refusal(["-sSo"]) == "curl option \"-o\" (in \"-sSo\") needs a value: give it as the next argument (-o VALUE)")
    #expect(refusal(["-H", "Host: evil.example", Self.url])?.contains("Host header") == true)
    #expect(refusal(["-H", "@h.txt", Self.url])?.contains("inline") == true)
    #expect(refusal(["-X", "GET /", Self.url])?.contains("HTTP method") == true)
  }

  @Test(arguments: [
    ["https://api.example.com/\n\u{1B}]52;c;aGk=\u{07}"], ["-\u{1B}[2J", url], ["--x\r\nfake: line", url],
    ["\u{202E}moc.elpmaxe//:sptth"], ["-H", "X: a\r\nHost: evil", url],
    ["https://" + String(repeating: "a", count: 500) + "\n/"],
    ["-X", "GET\u{85}x", url], ["-s\u{1B}", url], ["--url", "https://a.example/\u{2029}"],
  ])
  func messagesAreOneLineWithoutRawControlCharacters(_ arguments: [String]) throws {
    let message = try #require(refusal(arguments))
    #expect(!message.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) })
    #expect(message.count < 400)
  }

  /// Header, cookie and query values may be secrets: refusals name them, never quote them.
  @Test func refusalsNeverQuoteValuesThatMayBeSecrets() throws {
    for arguments in [
      ["-H", "X-Api-Key: s3cr3t\r\nX: y", Self.url], ["-H", "@/home/u/s3cr3t-headers", Self.url],
      ["-b", "session=s3cr3t\n", Self.url], ["-A", "s3cr3t\u{1}", Self.url],
      ["https://api.example.com/x?access_token=s3cr3t&\\"], ["--url", "https://u@api.example.com/?key=s3cr3t"],
      // User info, credentials attached to their option, a header without a colon.
      ["https://alice:s3cr3t@api.example.com/"], ["--url", "https://alice:s3cr3t@api.example.com/"],
      ["-ualice:s3cr3t", Self.url], ["-sSualice:s3cr3t", Self.url], ["--oauth2-bearer=s3cr3t", Self.url],
      ["-H", "X-Api-Key s3cr3t\n", Self.url],
      // Values attached to options that carry headers, bodies, cookies and proxies.
      ["--header=X-Api-Key: s3cr3t", Self.url], ["--data=password=s3cr3t", Self.url],
      ["--cookie=session=s3cr3t", Self.url],
      ["-sxhttp://u:s3cr3t@proxy", Self.url],
    ] {
      let message = try #require(refusal(arguments), "\(arguments)")
      #expect(!message.contains("s3cr3t"), "\(message)")
    }
    #expect(try #require(refusal(["-H", "X-Api-Key: s3cr3t\n", Self.url])).contains("\"X-Api-Key\""))
  }

  @Test func longArgumentsAreTruncated() throws {
    let long = "evil.example/" + String(repeating: "x", count: 1000)
    let message = try #require(refusal([long]))
    #expect(message.contains("\"evil.example/" + String(repeating: "x", count: 47) + "…\""))
    #expect(!message.contains(String(repeating: "x", count: 48)))
    #expect(try #require(refusal(["\u{1B}[2J"])).contains("\"^[[2J\""))
  }

  // MARK: the table

  @Test func allowListIsConsistent() {
    let longs = CurlArguments.allowList.map(\.long)
    let shorts = CurlArguments.allowList.compactMap(\.short)
    #expect(Set(longs).count == longs.count)
    #expect(Set(shorts).count == shorts.count)
    #expect(longs.allSatisfy { $0.hasPrefix("--") && !$0.contains("=") })
    for option in CurlArguments.allowList {
      #expect(CurlArguments.refusedBecause[option.long] == nil, "\(option.long)")
      if let short = option.short { #expect(CurlArguments.refusedBecause["-\(short)"] == nil, "-\(short)") }
    }
    // Nothing that reads a config, adds a transfer, reroutes, or weakens TLS slipped in.
    for refused in [
      "-K", "--config", "-:", "--next", "-x", "--proxy", "-k", "--insecure", "-u", "--location-trusted", "-q",
    ] {
      #expect(!longs.contains(refused) && !shorts.map { "-\($0)" }.contains(refused))
    }
  }

  /// What decides whether `strivacity curl` may send a request again.
  @Test func knowsWhatCannotBeSentTwice() throws {
    let url = "https://api.example.com/x"
    for stdin in [["-d", "@-"], ["--data-binary", "@-"], ["--json", "@-"], ["-T", "-"], ["-F", "f=@-"], ["-d@-"]] {
      #expect(try CurlArguments.parse(stdin + [url]).readsStandardInput, "\(stdin)")
    }
    for replayable in [["-d", "@file"], ["-d", "a=@-"], ["-T", "file"], ["-F", "f=@x"], ["-H", "x: @-"]] {
      #expect(try !CurlArguments.parse(replayable + [url]).readsStandardInput, "\(replayable)")
    }
    #expect(try CurlArguments.parse(["-sSD", "h.txt", url]).dumpsHeaders)
    #expect(try CurlArguments.parse(["-sLf", url]).followsRedirects)
    #expect(try !CurlArguments.parse([url]).followsRedirects)
  }

  @Test func readsTheFinalResponseHead() {
    var dump = HeaderDump(followsRedirects: true)
    let r1 = dump.append(Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 302 Found\r\nLocation: /b\r\n\r\n".utf8))
    #expect(!r1)
    let r2 = dump.append(
      Array("HTTP/2 403\r\nwww-authenticate: Bearer error=x \r\nWWW-Authenticate:  Basic\r\n\r\n".utf8))
    #expect(r2)
    let r3 =
      dump.finish() == ResponseHead(status: 403, wwwAuthenticate: ["Bearer error=x", "Basic"], redirects: ["/b"])
    #expect(r3)
    var unfollowed = HeaderDump(followsRedirects: false)
    let r4 = unfollowed.append(Array("HTTP/1.1 302 Found\nLocation: /b\n\n".utf8))
    #expect(r4)
    let r5 = unfollowed.finish()
    #expect(r5?.status == 302)
    var huge = HeaderDump(followsRedirects: false)
    let r6 = huge.append([UInt8](repeating: 0x41, count: HeaderDump.maxBytes + 1))
    #expect(r6)
    let r7 = huge.finish()
    #expect(r7 == nil)
    var cut = HeaderDump(followsRedirects: false)
    let r8 = cut.append(Array("HTTP/1.1 401 x\r\n".utf8))
    #expect(!r8)
    let r9 = cut.finish()
    #expect(r9 == nil)
  }

  /// curl's -v lines relayed by strivacity curl: the token and the proxy's credentials redacted,
  /// in HTTP/1's form and HTTP/2's, whatever the case; other lines untouched.
  @Test func verboseLinesLoseTheirCredentials() {
    #expect(
      CurlArguments.redactingCredentials("> Authorization: Bearer eyJ.abc.def")
        == "> Authorization: [redacted by strivacity]")
    #expect(
      CurlArguments.redactingCredentials("> Proxy-Authorization: Basic YWxpY2U6czNjcmV0\r")
        == "> Proxy-Authorization: [redacted by strivacity]")
    #expect(
      CurlArguments.redactingCredentials("* h2h3 [authorization: Bearer eyJ.abc]")
        == "* h2h3 [authorization: [redacted by strivacity]]")
    #expect(CurlArguments.redactingCredentials("> GET /orders HTTP/1.1") == "> GET /orders HTTP/1.1")
    #expect(CurlArguments.redactingCredentials("< www-authenticate: Bearer") == "< www-authenticate: Bearer")
  }
}

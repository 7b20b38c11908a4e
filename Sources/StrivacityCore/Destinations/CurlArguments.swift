// `strivacity curl`'s arguments as data: an allow-list parser, so that every URL curl will
// contact is known before the token is handed over. Pure: no I/O.

/// curl's arguments for `strivacity curl`, admitted by an allow-list. The rules:
///
/// - Only the options in `allowList` pass, in their short and long spelling, written exactly.
///   No abbreviations (curl 7.88 takes `--conf` for `--config`), no `--option=value` (curl has
///   no such syntax), no `--no-…` forms but `--no-buffer`. Every other option is refused, among
///   them all that can add a URL or read options from a file (`-K/--config`, `-:/--next`,
///   `-q/--disable`), change
///   where the connection goes (`--connect-to`, `--resolve`, `-x/--proxy` and every `--proxy…`,
///   `--preproxy`, `--socks…`, `--unix-socket`, `--abstract-unix-socket`, `--doh-url`,
///   `--dns-…`, `--interface`, `--local-port`, `--alt-svc`), send the token to redirect targets
///   (`--location-trusted`), add other credentials (`-u/--user`, `--oauth2-bearer`,
///   `-n/--netrc…`, `-E/--cert`), change TLS verification (`-k/--insecure`, `--proxy-insecure`,
///   `--cacert`, `--capath`), turn URL globbing back on or change protocols (`--no-globoff`,
///   `--proto…`), or write the request headers, token included, to a file (`--trace`,
///   `--trace-ascii`, `--stderr`, `--libcurl`).
/// - Short options may be clustered (`-sSf`, `-sSo out`, `-XPOST`, `-Hfoo:bar`): an option that
///   takes a value takes the rest of the cluster, or the next argument when the cluster ends
///   with it.
/// - An option's value is the next argument whatever it looks like (`-d --url`, `-H -K`), and is
///   never taken as an option or a URL, except `--url`'s, which is a URL checked like any other.
///   An option without its value is refused.
/// - Values that become the request line or headers are checked: `-X` must be an HTTP method
///   name (an RFC 9110 token); `-H`, `-A`, `-e`, `-b` and `-r` values have no control
///   characters; `-H` takes no `Host` header (it could route the request, token included, to
///   another site behind the same server) and no `@file` (a file's headers cannot be checked).
/// - Every other argument is a URL, and must be an absolute `http://` or `https://` URL (the
///   scheme in any case) of printable ASCII: no whitespace, control or non-ASCII characters
///   (percent-encode them; write host names as `xn--…`), no backslash, no user info (`@` before
///   the host), a host of letters, digits, `.`, `-` and `_` or an IPv6 literal in brackets, an
///   optional numeric port, and no glob characters: `{` and `}` nowhere, `[` and `]` only around
///   an IPv6 host (strivacity curl also passes `--globoff`). `host/path`, `http:/host`, `file:`,
///   `ftp:`… are refused: write the full `https://` URL.
/// - `-` and `--` are refused: `-` is neither an option curl knows nor a URL, and after `--` curl
///   takes option-looking arguments as URLs, which no URL here needs (each starts with `http`).
/// - At least one URL is required.
/// - A refusal is one line that names the argument (at most 60 characters, control characters
///   made visible) and says what to do instead. For anything beyond these rules, use
///   `strivacity token --format curl | curl -K - …`.
///
/// The allow-list (checked against curl 7.88.1's `curl --help all`):
///
/// - flags: `-s/--silent`, `-S/--show-error`, `-f/--fail`, `--fail-with-body`, `-i/--include`,
///   `-I/--head`, `-v/--verbose`, `-L/--location`, `--compressed`, `-G/--get`,
///   `-N/--no-buffer`, `-O/--remote-name`, `-J/--remote-header-name`, `-4/--ipv4`, `-6/--ipv6`,
///   `--http1.1`, `--http2`, `-#/--progress-bar`, `-g/--globoff`.
/// - one value: `-X/--request`, `-H/--header`, `-d/--data`, `--data-raw`, `--data-binary`,
///   `--data-urlencode`, `--json`, `-F/--form`, `--form-string`, `-o/--output`,
///   `-w/--write-out`, `-A/--user-agent`, `-m/--max-time`, `--connect-timeout`, `--retry`,
///   `--retry-delay`, `--retry-max-time`, `-T/--upload-file`, `-b/--cookie`, `-c/--cookie-jar`,
///   `-r/--range`, `-e/--referer`, `--max-filesize`, `--limit-rate`, `-D/--dump-header`.
/// - one URL: `--url`.
///
/// `-v` shows the request headers on curl's standard error (never in a file: `--trace` and
/// `--stderr` are refused), relayed by strivacity with the token and the proxy's credentials
/// redacted (`redactingCredentials`). `-L` follows redirects without the token: curl
/// drops the Authorization header when a redirect leaves the origin.
public struct CurlArguments: Sendable, Equatable {
  /// The URLs curl will request (each an absolute http(s) URL, as given).
  public var urls: [String]
  /// The arguments to hand to curl after strivacity's own (unchanged order; URLs included).
  public var arguments: [String]
  /// What the options say about sending the request again (an API's challenge answered):
  /// whether a body or upload comes from standard input (`-d @-`, `-T -`, `-F f=@-`…), which
  /// a second request could not read again; whether `-D` dumps the headers (curl takes the last
  /// `-D`, so strivacity cannot read them); whether `-L` follows redirects.
  public var readsStandardInput = false
  public var dumpsHeaders = false
  public var followsRedirects = false
  /// `-v`: curl shows the request's headers on its stderr, which strivacity then relays with
  /// the credentials redacted (`redactingCredentials`).
  public var isVerbose = false

  public init(urls: [String], arguments: [String]) {
    self.urls = urls
    self.arguments = arguments
  }

  /// Records what `option` with `value` says about replaying the request.
  mutating func note(_ option: Option, _ value: String?) {
    switch option.long {
    case "--data", "--data-binary", "--json":
      if value == "@-" { readsStandardInput = true }
    case "--data-urlencode":
      // `@-`, or `name@-`.
      if value?.hasSuffix("@-") == true && !(value?.contains("=") ?? false) { readsStandardInput = true }
    case "--upload-file":
      if value == "-" || value == "." { readsStandardInput = true }
    case "--form":
      if let value, value.contains("=@-") || value.contains("=<-") { readsStandardInput = true }
    case "--dump-header": dumpsHeaders = true
    case "--location": followsRedirects = true
    case "--verbose": isVerbose = true
    default: break
    }
  }

  /// What follows an allowed option.
  public enum Arity: Sendable, Equatable {
    /// Nothing.
    case flag
    /// One argument, never taken as an option or a URL.
    case value
    /// One argument that is a URL curl will request (`--url`).
    case url
  }

  /// An option `strivacity curl` passes to curl.
  public struct Option: Sendable, Equatable {
    /// The one-letter spelling (`s` for `-s`), if curl has one.
    public var short: Unicode.Scalar?
    /// The long spelling, with its dashes (`--silent`).
    public var long: String
    public var arity: Arity

    init(_ short: Unicode.Scalar?, _ long: String, _ arity: Arity = .flag) {
      self.short = short
      self.long = long
      self.arity = arity
    }
  }

  /// Every option that passes; anything else is refused.
  public static let allowList: [Option] = [
    // Output and diagnostics.
    Option("s", "--silent"), Option("S", "--show-error"), Option("f", "--fail"), Option(nil, "--fail-with-body"),
    Option("i", "--include"), Option("I", "--head"), Option("v", "--verbose"), Option("N", "--no-buffer"),
    Option("#", "--progress-bar"), Option("O", "--remote-name"), Option("J", "--remote-header-name"),
    // Redirects carry no token: curl drops custom Authorization headers on another origin.
    Option("L", "--location"),
    Option(nil, "--compressed"), Option("G", "--get"), Option("4", "--ipv4"), Option("6", "--ipv6"),
    Option(nil, "--http1.1"), Option(nil, "--http2"),
    // strivacity curl passes it anyway; only `--no-globoff` would matter, and it is refused.
    Option("g", "--globoff"),
    // The request.
    Option("X", "--request", .value), Option("H", "--header", .value), Option("d", "--data", .value),
    Option(nil, "--data-raw", .value), Option(nil, "--data-binary", .value), Option(nil, "--data-urlencode", .value),
    Option(nil, "--json", .value), Option("F", "--form", .value), Option(nil, "--form-string", .value),
    Option("A", "--user-agent", .value), Option("e", "--referer", .value), Option("b", "--cookie", .value),
    Option("r", "--range", .value), Option("T", "--upload-file", .value),
    // Local files and limits.
    Option("o", "--output", .value), Option("w", "--write-out", .value), Option("D", "--dump-header", .value),
    Option("c", "--cookie-jar", .value), Option("m", "--max-time", .value), Option(nil, "--connect-timeout", .value),
    Option(nil, "--retry", .value), Option(nil, "--retry-delay", .value), Option(nil, "--retry-max-time", .value),
    Option(nil, "--max-filesize", .value), Option(nil, "--limit-rate", .value),
    Option(nil, "--url", .url),
  ]

  /// Parses curl's arguments with an allow-list; throws CurlArgumentError with a one-line,
  /// actionable message.
  public static func parse(_ arguments: [String]) throws(CurlArgumentError) -> CurlArguments {
    var urls: [String] = []
    var result = CurlArguments(urls: [], arguments: arguments)
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      if argument == "--" {
        throw CurlArgumentError(
          "curl argument \"--\" is refused: after it curl takes option-looking arguments as URLs; "
            + "put options anywhere and write each URL in full (https://…), no -- needed")
      }
      if argument == "-" {
        throw CurlArgumentError(
          "curl argument \"-\" is refused: it is neither an option curl knows nor a URL; "
            + "to send standard input use -d @- or -T -")
      }
      if argument.hasPrefix("--") {
        guard let option = longOptions[argument] else { throw refusal(argument, in: nil) }
        if option.arity != .flag {
          guard index + 1 < arguments.count else { throw missingValue(option.long, in: nil) }
          index += 1
          try admit(arguments[index], for: option, as: option.long, in: nil)
          if option.arity == .url { urls.append(arguments[index]) }
          result.note(option, arguments[index])
        } else {
          result.note(option, nil)
        }
      } else if argument.hasPrefix("-") {
        let scalars = argument.unicodeScalars
        var position = scalars.index(after: scalars.startIndex)
        while position < scalars.endIndex {
          let letter = scalars[position]
          let spelling = "-" + String(letter)
          guard let option = shortOptions[letter] else { throw refusal(spelling, in: argument) }
          position = scalars.index(after: position)
          guard option.arity != .flag else {
            result.note(option, nil)
            continue
          }
          let value: String
          if position < scalars.endIndex {
            value = String(scalars[position...])
          } else {
            guard index + 1 < arguments.count else { throw missingValue(spelling, in: argument) }
            index += 1
            value = arguments[index]
          }
          try admit(value, for: option, as: spelling, in: argument)
          if option.arity == .url { urls.append(value) }
          result.note(option, value)
          break
        }
      } else {
        if let problem = urlProblem(argument) {
          let why =
            problem.hasPrefix("is not a full URL")
            ? " (every argument that is not an allowed option or its value is a URL)" : ""
          throw CurlArgumentError("curl argument \(shownURL(argument)) \(problem)\(why)")
        }
        urls.append(argument)
      }
      index += 1
    }
    guard !urls.isEmpty else {
      throw CurlArgumentError(
        "no URL given: strivacity curl needs at least one full https:// URL among curl's arguments, "
          + "e.g. strivacity curl -- -sS https://api.example.com/v1/me")
    }
    result.urls = urls
    return result
  }

  // MARK: options

  static let longOptions: [String: Option] = Dictionary(uniqueKeysWithValues: allowList.map { ($0.long, $0) })
  static let shortOptions: [Unicode.Scalar: Option] = Dictionary(
    uniqueKeysWithValues: allowList.compactMap { option in option.short.map { ($0, option) } })

  static let fullControl = "use `strivacity token --format curl | curl -K - …` for full control"
  /// strivacity curl's own options (GlobalOptions), which come before curl's, written in full.
  static let ownOptions = ["--profile", "--store", "--config", "--verbose"]

  /// Why options curl knows are refused, by spelling; other refused options get a generic message.
  static let refusedBecause: [String: String] = {
    var reasons: [String: String] = [:]
    func add(_ reason: String, _ spellings: String...) { for spelling in spellings { reasons[spelling] = reason } }
    add("it reads options and URLs from a file", "-K", "--config")
    add("it starts another transfer with options of its own", "-:", "--next")
    add("it changes which config files curl reads", "-q", "--disable")
    add("it sends the token to every host a redirect names", "--location-trusted")
    add(
      "it could send the token elsewhere",
      "--connect-to", "--resolve", "-x", "--proxy", "-p", "--proxytunnel", "--proxy1.0", "--preproxy",
      "--socks4", "--socks4a", "--socks5", "--socks5-hostname", "--unix-socket", "--abstract-unix-socket",
      "--doh-url", "--dns-servers", "--dns-interface", "--dns-ipv4-addr", "--dns-ipv6-addr", "--interface",
      "--local-port", "--alt-svc", "--request-target")
    add(
      "it adds other credentials", "-u", "--user", "--oauth2-bearer", "-n", "--netrc", "--netrc-file",
      "--netrc-optional", "-E", "--cert", "--key", "--aws-sigv4", "-U", "--proxy-user", "--delegation")
    add(
      "it weakens TLS", "-k", "--insecure", "--proxy-insecure", "--doh-insecure", "--ssl-no-revoke", "--ssl-allow-beast"
    )
    add(
      "it replaces the CAs curl trusts, so whoever can write that file can read the token; set CURL_CA_BUNDLE instead",
      "--cacert", "--capath")
    add("it turns URL globbing back on, and a glob can name another host", "--no-globoff")
    add("it changes the protocols strivacity curl allows", "--proto", "--proto-redir", "--proto-default")
    add("it writes the request headers, token included, to a file", "--trace", "--trace-ascii", "--stderr", "--libcurl")
    return reasons
  }()

  static func refusal(_ spelling: String, in cluster: String?) -> CurlArgumentError {
    let name = named(spelling, in: cluster)
    if let reason = refusedBecause[spelling] ?? familyReason(spelling) {
      return CurlArgumentError("curl option \(name) is not passed by strivacity curl (\(reason)); \(fullControl)")
    }
    var hint = ""
    let word = String(spelling.prefix { $0 != "=" })
    if ownOptions.contains(word) {
      hint = " (strivacity's \(word) comes before curl's arguments)"
    } else if spelling.hasPrefix("--"), let near = Suggestion.nearest(to: word, among: ownOptions) {
      hint = " (did you mean strivacity's \(near)? it comes before curl's arguments, written in full)"
    } else if spelling.hasPrefix("--"), let equals = spelling.firstIndex(of: "="),
      let option = longOptions[String(spelling[..<equals])], option.arity != .flag
    {
      hint = " (curl has no --option=value: write \(option.long) VALUE)"
    } else if spelling.hasPrefix("--") && spelling.count > 2,
      let full = allowList.first(where: { $0.long.hasPrefix(spelling) })
    {
      hint = " (write options in full, e.g. \(full.long))"
    } else if spelling.hasPrefix("--"), let near = Suggestion.nearest(to: word, among: allowList.map(\.long)) {
      hint = " (did you mean \(near)?)"
    } else if spelling.hasPrefix("--") {
      hint = " (only the listed options pass, written in full)"
    }
    return CurlArgumentError("curl option \(name) is not on strivacity curl's allow-list\(hint); \(fullControl)")
  }

  /// Reasons for whole families of curl's options (every --proxy-…, --socks…, --dns-…, --doh-…).
  static func familyReason(_ spelling: String) -> String? {
    let families = ["--proxy", "--socks", "--preproxy", "--dns-", "--doh-"]
    return families.contains(where: spelling.hasPrefix) ? "it could send the token elsewhere" : nil
  }

  /// `"-k"`, or `"-k" (in "-sSk")` when the option came in a cluster; for the options whose
  /// value is a credential, never what is attached to them (`-ualice:secret`, `--oauth2-bearer=…`).
  static func named(_ spelling: String, in cluster: String?) -> String {
    let name = spelling.prefix { $0 != "=" }
    guard credentialOptions.contains(String(name)) else {
      return shown(spelling) + (cluster.map { $0 == spelling ? "" : " (in \(shown($0)))" } ?? "")
    }
    return shown(name.count < spelling.count ? name + "=…" : String(name))
      + (cluster.map { $0 == spelling ? "" : " (in a cluster)" } ?? "")
  }

  /// Options whose value may be a secret: a password, a token or a key, and the headers, bodies,
  /// cookies and proxy URLs that carry them (`--header=X-Api-Key:…`, `-sxhttp://user:pw@proxy`).
  static let credentialOptions: Set<String> = [
    "-u", "--user", "-U", "--proxy-user", "--oauth2-bearer", "--pass", "--proxy-pass", "-E", "--cert", "--key",
    "--aws-sigv4", "--tlspassword", "--proxy-tlspassword", "--login-options",
    "-H", "--header", "--proxy-header", "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode",
    "--data-ascii",
    "--json", "-F", "--form", "--form-string", "-b", "--cookie", "-x", "--proxy", "--preproxy", "--url-query",
  ]

  static func missingValue(_ spelling: String, in cluster: String?) -> CurlArgumentError {
    let name = named(spelling, in: cluster)
    return CurlArgumentError("curl option \(name) needs a value: give it as the next argument (\(spelling) VALUE)")
  }

  /// Checks an allowed option's value: `--url`'s as a URL, and the values curl writes into the
  /// request line and headers.
  static func admit(_ value: String, for option: Option, as spelling: String, in cluster: String?)
    throws(CurlArgumentError)
  {
    let name = spelling == option.long ? option.long : "\(spelling)/\(option.long)"
    switch option.long {
    case "--url":
      if let problem = urlProblem(value) {
        throw CurlArgumentError("curl option --url value \(shownURL(value)) \(problem)")
      }
    case "--request":
      guard HTTPHeader.isValidName(value) else {  // an RFC 9110 token, as a field name is
        throw CurlArgumentError(
          "curl option \(name) value \(shown(value)) is not an HTTP method name "
            + "(letters, digits and !#$%&'*+-.^_`|~); write e.g. \(spelling) POST")
      }
    case "--header":
      // Header values may be secrets (API keys): messages name the header, never its value.
      let headerName = value.prefix { $0 != ":" && $0 != ";" }.trimming(" \t")
      // Only a well-formed name is quoted: without a colon, the "name" is the whole value.
      let shownName = HTTPHeader.isValidName(headerName) ? shown(headerName) : "(a header)"
      if value.hasPrefix("@") {
        throw CurlArgumentError(
          "curl option \(name) @FILE is refused: headers read from a file cannot be checked; "
            + "give each header inline (\(spelling) 'Name: value')")
      }
      try refuseControlCharacters(value, name: "\(name) \(shownName)")
      if headerName.isEmpty || headerName.lowercased() == "host" {
        throw CurlArgumentError(
          "curl option \(name) \(shownName) is refused: "
            + (headerName.isEmpty
              ? "a header needs a name (\(spelling) 'Name: value')"
              : "a Host header could route the request, and the token, to another site behind the same server; "
                + "put the host in the URL"))
      }
    case "--user-agent", "--referer", "--cookie", "--range":
      try refuseControlCharacters(value, name: name)
    default:
      break
    }
  }

  /// The value itself is never quoted: cookies and headers may be secrets.
  static func refuseControlCharacters(_ value: String, name: String) throws(CurlArgumentError) {
    if value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
      throw CurlArgumentError(
        "curl option \(name) value has a control character (a line break could add headers); remove it")
    }
  }

  // MARK: URLs

  /// Why `text` is not a URL strivacity curl passes (to follow "curl argument \"…\""), or nil.
  static func urlProblem(_ text: String) -> String? {
    let lower = text.lowercased()
    let schemeLength = lower.hasPrefix("https://") ? 8 : lower.hasPrefix("http://") ? 7 : 0
    if schemeLength == 0 {
      if text.contains("://") {
        return "is not an http(s) URL: strivacity curl sends the token only over http(s); write the full https:// URL"
      }
      return "is not a full URL: write the full https:// URL"
    }
    let scalars = text.unicodeScalars
    if scalars.contains(where: { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) || $0.properties.isWhitespace }) {
      return "has a space or a control character: percent-encode it (%20)"
    }
    if !scalars.allSatisfy(\.isASCII) {
      return "has non-ASCII characters: percent-encode them, and write host names in ASCII (xn--…)"
    }
    if text.contains("\\") { return "has a backslash: write / or percent-encode it (%5C)" }
    if text.contains("{") || text.contains("}") {
      return "has a glob character ({ or }): percent-encode it (%7B, %7D)"
    }
    let rest = text.dropFirst(schemeLength)
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    let pathAndAfter = rest.dropFirst(authority.count)
    if authority.contains("@") {
      return "has user info (…@) before the host: remove it (strivacity curl sends the token, no other credentials)"
    }
    if pathAndAfter.contains("[") || pathAndAfter.contains("]") {
      return "has a glob character ([ or ]) outside an IPv6 host: percent-encode it (%5B, %5D)"
    }
    guard let host = URLPolicy.hostOfAuthority(authority) else {
      return "has no valid host and port: write https://host[:port]/path (host of letters, digits, . - _, or [IPv6])"
    }
    // The caller decides with URLParts: it must read the same host.
    guard let parts = URLParts(text), parts.scheme == "http" || parts.scheme == "https", parts.host == host.lowercased()
    else {
      return "is not a URL strivacity curl can check: write https://host[:port]/path"
    }
    return nil
  }

  // MARK: messages

  /// A URL quoted without user info, query and fragment, which may carry secrets
  /// (`alice:secret@`, `?access_token=…`).
  static func shownURL(_ text: String) -> String {
    var base = String(text.prefix { $0 != "?" && $0 != "#" })
    let truncated = base.count < text.count
    if let scheme = base.firstRange(of: "://") {
      let authority = base[scheme.upperBound...].prefix { $0 != "/" }
      if let at = authority.lastIndex(of: "@") { base.replaceSubrange(scheme.upperBound...at, with: "…@") }
    }
    return shown(truncated ? base + "?…" : base)
  }

  /// `text` quoted for a one-line message: at most 60 characters, every control, bidi, format
  /// or separator character made visible (`^J`, `<U+202E>`).
  static func shown(_ text: String, limit: Int = 60) -> String {
    var out = ""
    var count = 0
    for scalar in text.unicodeScalars {
      if count == limit { return "\"" + out + "…\"" }
      count += 1
      let category = scalar.properties.generalCategory
      let hidden =
        category == .format || category == .lineSeparator || category == .paragraphSeparator
        || (category == .spaceSeparator && scalar != " ") || category == .nonspacingMark || category == .enclosingMark
      out += TerminalSafe.isUnsafe(scalar, multiline: false) || hidden ? TerminalSafe.visible(scalar) : String(scalar)
    }
    return "\"" + out + "\""
  }
}

/// Why curl's arguments were refused: one line that names the argument and says what to do.
public struct CurlArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

extension CurlArguments {
  /// A line of curl's verbose output with what follows an `Authorization:` or
  /// `Proxy-Authorization:` header name (`> Authorization: Bearer …`, HTTP/2's `[authorization:
  /// Bearer …]`) replaced: the token and the proxy's Basic credentials never reach the terminal.
  public static func redactingCredentials(_ line: String) -> String {
    let bytes = Array(line.utf8)
    let name = Array("authorization:".utf8)
    guard bytes.count >= name.count else { return line }
    for start in 0...(bytes.count - name.count) {
      // ASCII case folding: | 0x20 makes A–Z a–z and leaves ':' alone.
      guard (0..<name.count).allSatisfy({ bytes[start + $0] | 0x20 == name[$0] | 0x20 }) else { continue }
      let kept = String(decoding: bytes[..<(start + name.count)], as: UTF8.self)
      return kept + " [redacted by strivacity]" + (line.hasSuffix("]") ? "]" : "")
    }
    return line
  }
}

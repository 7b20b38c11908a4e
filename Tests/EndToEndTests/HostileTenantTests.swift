// The CLI against a hostile tenant (the emulator's hostile mode, docs/emulator.md) and hostile
// local users: nothing that failed admission is stored, no escape sequence of the tenant's
// reaches the terminal, no program but the expected one is started, no request leaves for a
// host that is not allowed, and every refusal is one line with a documented exit code.
import CurlTransport
import Foundation
import Glibc
import LoopbackHTTP
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

extension Harness {
  func hostile(_ kinds: [String]) throws {
    try control("hostile", ["kinds": .array(kinds.map(JSONValue.string))])
  }

  /// A config file naming the emulator, so broker commands know the profile.
  func configureProfile(hosts: [String] = []) throws {
    try writeProfile("hosts = [\(hosts.map { "\"\($0)\"" }.joined(separator: ", "))]")
  }
}

/// The one-line-error rule: exactly one `strivacity: error:` line, and no other line of ours
/// that is not a warning or a note.
func expectOneLineRefusal(
  _ result: ProcessResult, status: Int32, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(result.status == status, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
  let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("strivacity: error:") }
  #expect(errors.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
  #expect(result.stderr.contains(message), "\(result.stderr)", sourceLocation: sourceLocation)
  #expect(!result.stderr.contains("\u{1B}"), "an escape byte on stderr", sourceLocation: sourceLocation)
}

/// Every escape sequence in `text` is one of strivacity's own (with NO_COLOR: erase-line only).
func escapeSequences(in text: String) -> [String] {
  var found: [String] = []
  let scalars = Array(text.unicodeScalars)
  for (index, scalar) in scalars.enumerated() where scalar == "\u{1B}" || scalar.value == 0x9B || scalar == "\u{07}" {
    found.append(String(String.UnicodeScalarView(scalars[index..<min(scalars.count, index + 6)])))
  }
  return found
}

@Suite struct HostileTenantTests {
  static let password = ["--field", "identifier=demo@example.com", "--field-env", "password=PW"]
  static let secret = ["PW": "Demo-pass-1"]

  /// Whatever fails admission at sign-in ends it: nothing stored, nothing sent off the origin.
  @Test(arguments: [
    ("token-newline", "the access token is not a valid bearer token"),
    ("token-control", "the access token is not a valid bearer token"),
    ("token-type", "the token type is not Bearer"),
    ("refresh-token-newline", "the refresh token is not printable ASCII"),
    ("id-token-numbers", "out of range"),
    ("expires-in-hostile", "expires_in is out of range"),
    ("discovery-port", "the tenant's token endpoint is not on"),
    ("discovery-authorization", "the tenant's authorization endpoint is not on"),
    ("discovery-issuer", "names another issuer"),
    ("finalize-elsewhere", "the tenant's finalize URL is not on"),
  ])
  func hostileSignInsStoreAndSendNothing(_ kind: String, _ message: String) throws {
    let h = try Harness(journey: "password")
    try h.hostile([kind])
    let result = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    expectOneLineRefusal(result, status: 5, message)
    #expect(try h.storedSecret() == nil, "nothing was stored")
    #expect(try h.stats()["hostile_listener_requests"]?.int ?? 0 == 0, "nothing reached the other port")
  }

  @Test(arguments: ["token-newline", "token-control", "token-type", "refresh-token-newline", "expires-in-hostile"])
  func aHostileRefreshAnswerLeavesTheStoredSetAlone(_ kind: String) throws {
    let h = try Harness(journey: "password")
    try h.configureProfile()
    try h.signIn()
    try h.expireStoredAccessToken(in: 5)
    let before = try #require(try h.storedSecret())
    try h.hostile([kind])
    let result = try h.strivacity(["token", "--profile", h.profile, "--format", "curl"])
    expectOneLineRefusal(result, status: 5, "the refresh answer is unusable")
    #expect(result.stdout.isEmpty, "nothing for curl to read")
    #expect(try h.storedSecret() == before, "the stored set is unchanged")
  }

  @Test func aHostileTokenAlreadyInTheStoreIsNeverRendered() throws {
    // As an older version, or another writer of the keyring, might have left it.
    let h = try Harness(journey: "password")
    try h.configureProfile()
    try h.signIn()
    try h.rewriteStored { $0["access_token"] = "x\nurl = http://127.0.0.1:9/\nupload-file = /etc/hostname\nnext\n" }
    for format in ["raw", "header", "curl", "env", "json", "exec-credential"] {
      let result = try h.strivacity(["token", "--profile", h.profile, "--format", format])
      expectOneLineRefusal(result, status: 6, "the access token is not a valid bearer token")
      #expect(result.stdout.isEmpty)
    }
    // Google's client gets the refusal in its response's shape, and nothing of the token.
    let google = try h.strivacity(["token", "--profile", h.profile, "--format", "google-executable"])
    expectOneLineRefusal(google, status: 6, "the access token is not a valid bearer token")
    #expect(JSONValue.parse(google.stdout)?["code"]?.string == "store", "\(google.stdout)")
    #expect(!google.stdout.contains("upload-file") && !google.stdout.contains("127.0.0.1:9"))
    let credential = try h.credential("get", "protocol=https\nhost=\(URLParts(h.emulator.issuer)!.host)\n\n")
    #expect(!credential.stdout.contains("password="))
  }

  @Test func refreshedIDTokensAreVerifiedBeforeTheyAreKept() throws {
    let h = try Harness(journey: "password")
    try h.configureProfile()
    try h.signIn()
    let idToken = try #require(try h.storedSecret()?["tokens"]?["id_token"]?.string)
    try h.expireStoredAccessToken(in: 5)
    try h.hostile(["refresh-id-token-forged"])
    let result = try h.strivacity(["token", "--profile", h.profile])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "the refreshed ID token for \(h.profile) was refused (token signature does not verify); keeping the "
          + "previous one"
      ))
    #expect(try h.storedSecret()?["tokens"]?["id_token"]?.string == idToken)
  }

  @Test func tenantTextNeverReachesTheTerminalAsEscapes() throws {
    let h = try Harness(journey: "password")
    try h.configureProfile()
    try h.hostile(["texts"])
    let pty = try h.interactiveLogin(sdk: "web", ["--verbose"])
    try pty.typeDemoSignIn()
    #expect(try pty.wait(timeout: 30) == 0, "\(pty.transcript)")
    // The texts were shown, with their controls made visible.
    #expect(pty.transcript.contains("^[]52;c;aGk="), "\(pty.transcript)")
    let status = try PTYSession(
      [TestEnvironment.binary("strivacity"), "status", "--profile", h.profile], environment: h.environment)
    #expect(try status.wait(timeout: 30) == 0)
    // With NO_COLOR strivacity itself writes only the spinner's erase-line.
    for transcript in [pty.transcript, status.transcript] {
      let foreign = escapeSequences(in: transcript).filter { $0 != "\u{1B}[K" }
      #expect(foreign.isEmpty, "escape sequences reached the terminal: \(foreign.map { $0.debugDescription })")
      #expect(!transcript.unicodeScalars.contains { $0.value == 0x202E })
    }
    // And with colour, only strivacity's own styling.
    h.extraEnvironment["NO_COLOR"] = ""
    let coloured = try h.interactiveLogin(sdk: "web")
    try coloured.typeDemoSignIn()
    #expect(try coloured.wait(timeout: 30) == 0, "\(coloured.transcript)")
    let foreign = escapeSequences(in: coloured.transcript).filter { sequence in
      !TerminalSafe.ownSequences.contains { sequence.hasPrefix($0) }
    }
    #expect(foreign.isEmpty, "escape sequences reached the terminal: \(foreign.map { $0.debugDescription })")
  }

  @Test func aTenantErrorDescriptionIsOneInertLine() throws {
    let h = try Harness(journey: "password")
    try h.hostile(["texts"])
    try h.control(
      "faults",
      [
        "endpoint": "token", "kind": "status", "status": 400,
        "body": ["error": "invalid_grant", "error_description": "bad\n\u{1B}]0;pwned\u{07} grant"],
      ])
    let result = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    // The line break folded into a space, the escape sequence made visible.
    expectOneLineRefusal(result, status: 5, "invalid_grant: bad ^[]0;pwned^G grant")
  }

  @Test(arguments: [
    ("hosted-url-file", "is not an https URL"),
    ("hosted-url-option", "is not an https URL"),
    ("hosted-url-scheme", "is not an https URL"),
    ("hosted-url-foreign", "is not on the tenant"),
    ("hosted-url-space", "has spaces, backslashes, control or non-ASCII characters"),
  ])
  func hostileHostedURLsAreNeverOpened(_ kind: String, _ message: String) throws {
    let h = try Harness(journey: "hosted-only")
    let log = h.home.file("browser.log")
    let recorder = h.home.file("recorder")
    try h.home.write("recorder", "#!/bin/sh\nprintf '%s\\n' \"$@\" >>'\(log)'\n")
    chmod(recorder, 0o755)
    h.extraEnvironment["BROWSER"] = recorder
    try h.hostile([kind])
    let result = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    expectOneLineRefusal(result, status: 5, message)
    #expect(result.stderr.contains("refusing to open it"))
    usleep(200_000)
    #expect(!FileManager.default.fileExists(atPath: log), "no browser was started")
  }

  @Test func theBrowserGetsTheURLAsOneArgument() throws {
    let h = try Harness(journey: "hosted-only")
    let log = h.home.file("browser.log")
    try h.home.write("recorder", "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done >>'\(log)'\n")
    chmod(h.home.file("recorder"), 0o755)
    h.extraEnvironment["BROWSER"] = h.home.file("recorder") + " --new-tab %s --flag"
    let result = try h.automatedLogin(sdk: "web", ["--timeout", "2"])
    #expect(result.status == 3, "the recorder never finishes the sign-in: \(result.stderr)")
    let argv = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
    #expect(argv.count == 3, "\(argv)")
    #expect(argv.first == "[--new-tab]" && argv.last == "[--flag]")
    #expect(argv.dropFirst().first?.hasPrefix("[" + h.emulator.issuer) == true)
  }

  @Test func catastrophicValidatorsDoNotHang() throws {
    let h = try Harness(journey: "password")
    try h.hostile(["regex"])
    let started = Date()
    let result = try h.automatedLogin(
      sdk: "web", ["--field", "identifier=" + String(repeating: "a", count: 40), "--field-env", "password=PW"],
      environment: Self.secret)
    #expect(Date().timeIntervalSince(started) < 30, "bounded")
    #expect([3, 5].contains(result.status), "\(result.stderr)")
    #expect(
      result.stderr.split(separator: "\n").filter { $0.hasPrefix("strivacity: error:") }.count == 1, "\(result.stderr)")
  }

  @Test(arguments: ["deep-nesting", "deep-nesting-discovery", "huge-numbers"])
  func malformedScreensAreRefusedNotCrashedOn(_ kind: String) throws {
    let h = try Harness(journey: "password")
    try h.hostile([kind])
    let result = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    #expect([0, 3, 5].contains(result.status), "a documented exit, not a crash: \(result.status) \(result.stderr)")
    if result.status != 0 {
      #expect(
        result.stderr.split(separator: "\n").filter { $0.hasPrefix("strivacity: error:") }.count == 1,
        "\(result.stderr)")
    }
  }

  @Test(arguments: [
    ("discovery-port", "refusing the tenant's token endpoint on http://127.0.0.1:"),
    ("discovery-issuer", "names another issuer"),
  ])
  func theBrokerSendsNothingOffTheTenantsOrigin(_ kind: String, _ message: String) throws {
    let h = try Harness(journey: "password")
    try h.configureProfile()
    try h.signIn()
    try h.expireStoredAccessToken(in: 5)
    // Without the endpoints kept at sign-in (as a set stored by an older version), the broker
    // must ask discovery, and meets the hostile document.
    try h.rewriteStored { $0["endpoints"] = nil }
    let before = try h.storedSecret()
    try h.hostile([kind])
    for command in [["token"], ["userinfo"], ["logout"]] {
      let result = try h.strivacity(command + ["--profile", h.profile])
      if command == ["logout"] {
        #expect(result.status == 4, "\(result.stderr)")  // deleted locally, revocation not sent
      } else {
        expectOneLineRefusal(result, status: 5, message)
        #expect(try h.storedSecret() == before)
      }
    }
    #expect(try h.stats()["hostile_listener_requests"]?.int ?? 0 == 0, "the refresh token went nowhere else")
  }
}

@Suite struct HostileLocalTests {
  /// A server that counts what reaches it: the "other host" of the bypass attempts.
  final class Trap: @unchecked Sendable {
    private let lock = NSLock()
    private var hits = 0
    private(set) var server: LoopbackServer!

    init() throws {
      var limits = RequestParser.Limits()
      limits.maxHeadBytes = 65_536  // room for the largest admitted token
      server = try LoopbackServer(limits: limits) { [unowned self] _ in
        lock.lock()
        hits += 1
        lock.unlock()
        return ServerReply(status: 200, contentType: "text/plain", text: "trapped\n")
      }
    }

    var count: Int {
      lock.lock()
      defer { lock.unlock() }
      return hits
    }
  }

  @Test func strivacityCurlCannotBeSentElsewhere() throws {
    let h = try Harness(journey: "password")
    try h.configureProfile()
    try h.signIn()
    let trap = try Trap()
    defer { trap.server.stop() }
    let allowed = h.emulator.issuer + "userinfo"
    let elsewhere = "127.0.0.1:\(trap.server.port)"
    try h.home.write("evil.curlrc", "url = \"http://\(elsewhere)/\"\n")
    let attempts: [[String]] = [
      ["-sS", "\(elsewhere)/path"],
      ["-sS", "--url", "http://\(elsewhere)/"],
      ["-sS", "http:/\(elsewhere)/"],
      ["-sS", "-K", h.home.file("evil.curlrc"), allowed],
      ["-sSK", h.home.file("evil.curlrc"), allowed],
      ["-sS", "--conf", h.home.file("evil.curlrc"), allowed],
      ["-sS", "--connect-to", "::\(elsewhere)", allowed],
      ["-sS", "--resolve", "127.0.0.1:\(URLParts(allowed)!.port!):127.0.0.2", allowed],
      ["-sS", allowed, "http://\(elsewhere)/"],
      ["-sS", allowed, "--next", "http://\(elsewhere)/"],
      ["-sS", "-x", "http://\(elsewhere)", allowed],
      ["-sS", "http://127.0.0.1:{\(URLParts(allowed)!.port!),\(trap.server.port)}/userinfo"],
      ["-sS", "--location-trusted", allowed],
    ]
    for attempt in attempts {
      let result = try h.strivacity(["curl", "--profile", h.profile, "--"] + attempt)
      expectOneLineRefusal(result, status: 2, "strivacity: error: ")
    }
    let kminus = try run(
      [TestEnvironment.binary("strivacity"), "curl", "--profile", h.profile, "--", "-K", "-", allowed],
      environment: h.environment, stdin: "url = \"http://\(elsewhere)/\"\n")
    #expect(kminus.status == 2)
    #expect(trap.count == 0, "nothing reached the other host")
  }

  @Test func curlsExitStatusIsPassedOn() throws {
    let h = try Harness(journey: "password")
    try h.configureProfile()
    try h.signIn()
    let result = try h.strivacity([
      "curl", "--profile", h.profile, "--", "-sSf", "-o", "/dev/null", h.emulator.issuer + "no-such-page",
    ])
    #expect(result.status == 22, "\(result.stderr)")
    #expect(!result.stderr.contains("ExitCode"))
    let ok = try h.strivacity(["curl", "--profile", h.profile, "--", "-sS", h.emulator.issuer + "userinfo"])
    #expect(ok.status == 0, "\(ok.stderr)")
    #expect(JSONValue.parse(ok.stdout)?["email"] == "demo@example.com")
  }

  @Test func aTokenAtTheSizeLimitReachesCurl() throws {
    // The largest admitted token, through the pipe while curl runs (secret-tool stores at most
    // 8 KiB, so this profile keeps its tokens in the file store).
    let h = try Harness(journey: "password")
    let trap = try Trap()
    defer { trap.server.stop() }
    try h.writeProfile("store = \"file\"\nhosts = [\"127.0.0.1:\(trap.server.port)\"]")
    try h.signIn()
    let file = h.home.file(".local/state/strivacity/tokens/\(h.profile).json")
    var record = try #require(JSONValue.parse(try String(contentsOfFile: file, encoding: .utf8))?.object)
    var tokens = try #require(record["tokens"]?.object)
    tokens["access_token"] = .string(String(repeating: "a", count: BearerToken.maxLength))
    record["tokens"] = .object(tokens)
    try h.home.write(".local/state/strivacity/tokens/\(h.profile).json", JSONValue.object(record).text, mode: 0o600)
    let result = try h.strivacity([
      "curl", "--profile", h.profile, "--", "-sS", "http://127.0.0.1:\(trap.server.port)/",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(trap.count == 1)
  }

  @Test func aSquattedTmpDirectoryChangesNothing() throws {
    // Without XDG_RUNTIME_DIR the locks live in the state directory, not in /tmp where another
    // user could create strivacity-UID first.
    let squatted = "/tmp/strivacity-\(getuid())"
    mkdir(squatted, 0o777)
    chown(squatted, 65534, 65534)
    defer { rmdir(squatted) }
    let h = try Harness(journey: "password")
    h.extraEnvironment["XDG_RUNTIME_DIR"] = ""
    try h.configureProfile()
    try h.signIn()
    try h.expireStoredAccessToken(in: 5)
    let token = try h.strivacity(["token", "--profile", h.profile])
    #expect(token.status == 0, "\(token.stderr)")
    #expect(FileManager.default.fileExists(atPath: h.home.file(".local/state/strivacity/locks/\(h.profile).lock")))
  }

  /// Without XDG_RUNTIME_DIR the locks go in XDG_STATE_HOME: one that another user owns, or that
  /// others may write, could have strivacity's directories swapped under it. A refresh (which
  /// takes the lock) is refused in one line naming the directory, why and the fix, exit 2, and
  /// nothing is made there; the stored tokens are left alone.
  @Test(arguments: [("theirs", mode_t(0o755), uid_t(65534)), ("open", mode_t(0o777), uid_t(0))])
  func anXDGStateHomeOthersCouldChangeGetsNoLocks(name: String, mode: mode_t, owner: uid_t) throws {
    let h = try Harness(journey: "password")
    try h.configureProfile()
    try h.signIn()
    try h.expireStoredAccessToken(in: 5)
    let state = h.home.file("state-" + name)
    mkdir(state, 0o700)
    chmod(state, mode)
    chown(state, owner, owner)
    h.extraEnvironment["XDG_RUNTIME_DIR"] = ""
    h.extraEnvironment["XDG_STATE_HOME"] = state
    let token = try h.strivacity(["token", "--profile", h.profile])
    expectOneLineRefusal(token, status: 2, "\(state)/strivacity/locks for the refresh locks: \(state): ")
    #expect(token.stderr.contains("XDG_STATE_HOME"), "the fix is named: \(token.stderr)")
    #expect((try? FileManager.default.contentsOfDirectory(atPath: state)) == [], "something was made there")
    h.extraEnvironment["XDG_STATE_HOME"] = nil
    let after = try h.strivacity(["token", "--profile", h.profile])
    #expect(after.status == 0, "the stored tokens still work: \(after.stderr)")
  }

  @Test func aLocalhostRedirectWithIPv6HeldElsewhereFails() throws {
    let h = try Harness(journey: "password")
    guard let held = try? LoopbackServer(host: "::1", port: 0, handler: { _ in ServerReply(status: 200) }) else {
      return
    }  // no IPv6 here
    defer { held.stop() }
    let result = try h.automatedLogin(
      sdk: "web", HostileTenantTests.password + ["--redirect-uri", "http://localhost:\(held.port)/callback"],
      environment: HostileTenantTests.secret)
    expectOneLineRefusal(
      result, status: 2,
      "cannot listen for the sign-in redirect: cannot listen on ::1 port \(held.port): Address already in use")
  }

  @Test func outsideNumbersAreRefusedNotTrapped() throws {
    let h = try Harness(journey: "password")
    for value in ["inf", "1e300", "nan", "-1"] {
      h.extraEnvironment["STRIVACITY_TIMEOUT"] = value
      let result = try h.automatedLogin(sdk: "web", HostileTenantTests.password, environment: HostileTenantTests.secret)
      expectOneLineRefusal(result, status: 2, "STRIVACITY_TIMEOUT must be a number of seconds")
    }
  }

  /// The same numbers are the same usage error whichever binary would answer: the small one
  /// does not answer from its cache past a bad STRIVACITY_KEYRING_TIMEOUT (the full one says it).
  @Test func environmentNumbersAreRefusedAlikeByBothBinaries() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    try h.signIn()
    #expect(h.cachedToken() != nil, "the small binary could answer from its cache")
    for name in ["STRIVACITY_KEYRING_TIMEOUT", "STRIVACITY_KEYRING_PROMPT_TIMEOUT", "STRIVACITY_TIMEOUT"] {
      for binary in ["strivacity", "strivacity-cli"] {
        let result = try run(
          [TestEnvironment.binary(binary), "token", "--profile", h.profile],
          environment: h.environment.merging([name: "abc"]) { _, new in new })
        expectOneLineRefusal(result, status: 2, "\(name) must be a number of seconds")
      }
    }
    #expect(try h.strivacity(["token", "--profile", h.profile]).status == 0, "and without it, a token")
  }
}

/// A TCP listener on loopback that accepts and counts connections, answering nothing: where a
/// proxy from the environment would be.
final class CountingListener: @unchecked Sendable {
  let port: UInt16
  private let fd: Int32
  private let accepted = Box()

  final class Box: @unchecked Sendable { let count = Mutex(0) }

  init() throws {
    (fd, port) = try Loopback.listen()
    let listening = fd, accepted = accepted
    Thread.detachNewThread {
      while true {
        let client = accept(listening, nil, nil)
        if client < 0 { if errno == EINTR { continue } else { return } }
        accepted.count.withLock { $0 += 1 }
        close(client)
      }
    }
  }

  var connections: Int { accepted.count.withLock { $0 } }
  var url: String { "http://127.0.0.1:\(port)" }

  deinit { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
}

@Suite struct ProxyEnvironmentTests {
  /// Proxy variables in the environment never reach a loopback tenant: sign-in, refresh,
  /// userinfo, `strivacity curl` (the real curl) and revocation all talk to it directly, and the
  /// proxy sees no connection (it would have seen a plain-http token).
  @Test func proxyVariablesNeverReachALoopbackTenant() throws {
    let h = try Harness(journey: "password")
    let proxy = try CountingListener()
    for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
      h.extraEnvironment[name] = proxy.url
    }
    try h.writeProfile()
    try h.signIn()
    try h.expireStoredAccessToken(in: 10)
    let token = try h.strivacity(["token", "--profile", h.profile])
    #expect(token.status == 0, "\(token.stderr)")
    #expect(try h.grants("refresh_token") == 1)
    let info = try h.strivacity(["userinfo", "--profile", h.profile])
    #expect(info.status == 0, "\(info.stderr)")
    let curl = try h.strivacity(["curl", "--profile", h.profile, "-sS", h.emulator.issuer + "userinfo"])
    #expect(curl.status == 0 && curl.stdout.contains("\"sub\""), "\(curl.stderr)")
    let revoke = try h.strivacity(["revoke", "--profile", h.profile])
    #expect(revoke.status == 0, "\(revoke.stderr)")
    #expect(proxy.connections == 0, "the proxy was asked \(proxy.connections) time(s)")
  }
}

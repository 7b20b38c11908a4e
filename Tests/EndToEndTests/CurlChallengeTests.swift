// `strivacity curl` answering an API's challenge (issue 27, point 5): the real curl against a
// scripted API on loopback, the emulator as the tenant, the real keyring. The API here answers
// what each test scripts; the emulator's own protected resource (which checks the tokens) is
// exercised in ProtectedResourceTests.
import Foundation
import LoopbackHTTP
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

@Suite(.serialized) struct CurlChallengeTests {
  /// An API on loopback answering request N with `replies[N]` (the last one after that), and
  /// recording each request's target and token.
  final class ScriptedAPI: Sendable {
    final class Seen: Sendable { let tokens = Mutex<[String]>([]) }
    let server: LoopbackServer
    let seen = Seen()
    var base: String { "http://127.0.0.1:\(server.port)" }

    init(_ replies: [@Sendable (String) -> ServerReply]) throws {
      let seen = seen
      server = try LoopbackServer { request in
        let authorization = request.headers.first { $0.name.lowercased() == "authorization" }?.value ?? "-"
        // The metadata fetch carries no token and is not a request of the API's.
        if request.target.hasPrefix("/.well-known/") { return replies[0](request.target) }
        let index = seen.tokens.withLock {
          $0.append(authorization)
          return $0.count - 1
        }
        return replies[min(index, replies.count - 1)](request.target)
      }
    }

    var tokens: [String] { seen.tokens.withLock { $0 } }
    deinit { server.stop() }
  }

  static func challenge(_ status: Int, _ header: String, body: String = "denied\n") -> @Sendable (String) -> ServerReply
  {
    { _ in ServerReply(status: status, contentType: "text/plain", text: body, headers: [("WWW-Authenticate", header)]) }
  }
  static let ok: @Sendable (String) -> ServerReply = { target in
    ServerReply(status: 200, contentType: "text/plain", text: "ok \(target)\n")
  }

  func profile(_ h: Harness, _ api: ScriptedAPI, scopes: String = #"["orders:read"]"#) throws {
    try h.writeProfile(
      """

      [profiles.\(h.profile).apis.orders]
      url = "\(api.base)/orders/"
      audience = "https://api.example.com/orders"
      resource = ["https://api.example.com/orders/"]
      scopes = \(scopes)
      """)
  }

  func apiRequests(_ h: Harness) throws -> Int { try h.stats()["api_token_requests"]?["orders"]?.int ?? 0 }

  /// `invalid_token`: a new token and one more try; the refused answer's body never reaches
  /// stdout, the second's does, and curl's status is the second's.
  @Test func anInvalidTokenIsRenewedAndTheRequestSentOnceMore() throws {
    let api = try ScriptedAPI([Self.challenge(401, #"Bearer realm="orders", error="invalid_token""#), Self.ok])
    let h = try Harness(journey: "password")
    try profile(h, api)
    try h.signIn()
    let result = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == "ok /orders/1\n")
    #expect(result.stderr == "strivacity: API orders refused the token (invalid_token): getting a new one\n")
    #expect(api.tokens.count == 2 && api.tokens[0] != api.tokens[1])
    #expect(try apiRequests(h) == 2)
  }

  /// At most once: a second challenge is curl's answer, as curl gives it (-f: exit 22).
  @Test func neverMoreThanOneRetry() throws {
    let api = try ScriptedAPI([Self.challenge(401, #"Bearer error="invalid_token""#, body: "still no\n")])
    let h = try Harness(journey: "password")
    try profile(h, api)
    try h.signIn()
    let plain = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(plain.status == 0 && plain.stdout == "still no\n", "\(plain.stderr)")
    #expect(api.tokens.count == 2)
    let failing = try h.strivacity(["curl", "--profile", h.profile, "-sSf", "\(api.base)/orders/1"])
    #expect(failing.status == 22, "\(failing.stderr)")
    #expect(api.tokens.count == 4)
  }

  /// Output passes through unchanged once the head is read, and a reader that goes away stops
  /// curl as it would without strivacity (curl's exit 23: it could not write).
  @Test func outputIsPassedThroughAndAClosedPipeStopsCurl() throws {
    let big = String(repeating: "0123456789abcdef", count: 512 * 1024)  // 8 MiB
    let api = try ScriptedAPI([{ _ in ServerReply(status: 200, contentType: "text/plain", text: big) }])
    let h = try Harness(journey: "password")
    try profile(h, api)
    try h.signIn()
    let whole = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(whole.status == 0 && whole.stdout == big, "\(whole.stderr)")
    let binary = TestEnvironment.binary("strivacity")
    let pipeline =
      "'\(binary)' curl --profile \(h.profile) -s \(api.base)/orders/1 | head -c 5; echo \" ${PIPESTATUS[0]}\""
    let cut = try run(["/bin/bash", "-c", pipeline], environment: h.environment)
    #expect(cut.stdout == "01234 23\n", "\(cut.stdout.prefix(40)) \(cut.stderr)")
  }

  /// `insufficient_scope`: the API's token again with the scopes added (consented at sign-in).
  @Test func missingScopesAreAskedFor() throws {
    let api = try ScriptedAPI([
      Self.challenge(403, #"Bearer error="insufficient_scope", scope="orders:read orders:write""#), Self.ok,
    ])
    let h = try Harness(journey: "password")
    try profile(h, api, scopes: #"["orders:read", "orders:write"]"#)
    try h.signIn()  // consenting to both
    try profile(h, api)  // the API asks for orders:read alone
    let result = try h.strivacity(["curl", "--profile", h.profile, "-sS", "-X", "POST", "\(api.base)/orders/"])
    #expect(result.status == 0 && result.stdout == "ok /orders/\n", "\(result.stderr)")
    #expect(result.stderr.contains("API orders needs scope orders:read orders:write: getting a token with it"))
    // The wider token was for that request: the API's own slot, which git, kubectl and exec read,
    // keeps a token of the config's scopes (issue 37, point 4).
    let second = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"]).stdout
    #expect(api.tokens.last != "Bearer " + second.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(MachineProfileTests.claims(second)["scope"] == "orders:read")
  }

  /// A body from standard input cannot be sent twice: curl's answer stands (its body included),
  /// and one line names the command that gets the right token.
  @Test func aBodyFromStandardInputIsNotSentTwice() throws {
    let api = try ScriptedAPI([
      Self.challenge(403, #"Bearer error="insufficient_scope", scope="orders:write""#, body: "need write\n")
    ])
    let h = try Harness(journey: "password")
    try profile(h, api)
    try h.signIn()
    let result = try h.strivacity(["curl", "--profile", h.profile, "-sS", "-d", "@-", "\(api.base)/orders/"])
    #expect(result.status == 0 && result.stdout == "need write\n", "\(result.stderr)")
    #expect(
      result.stderr
        == "strivacity: warning: API orders needs scope orders:write (insufficient_scope) (its body came from "
        + "standard input, so it was not sent again): run strivacity token --profile \(h.profile) --api orders "
        + "--scope orders:write\n")
    #expect(api.tokens.count == 1)
  }

  /// The profile's own token (a URL under no API) lacking a scope: no retry; the line says to make
  /// the API an apis entry.
  @Test func aScopeForAURLUnderNoAPINamesSetupAPI() throws {
    let api = try ScriptedAPI([Self.challenge(403, #"Bearer error="insufficient_scope", scope="orders:write""#)])
    let h = try Harness(journey: "password")
    try h.writeProfile("hosts = [\"\(api.base)/\"]")
    try h.signIn()
    let result = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(result.status == 2 && result.stdout == "denied\n", "\(result.stderr)")
    #expect(
      result.stderr
        == "strivacity: error: the API at \(api.base) needs scope orders:write (insufficient_scope): "
        + "run strivacity setup api --profile \(h.profile) URL\n")
    #expect(api.tokens.count == 1)
  }

  /// A step-up demand without a terminal: no sign-in, no retry; the line names the login command.
  @Test func aStepUpWithoutATerminalNamesTheCommand() throws {
    let api = try ScriptedAPI([
      Self.challenge(401, #"Bearer error="insufficient_user_authentication", acr_values="mfa", max_age=300"#)
    ])
    let h = try Harness(journey: "password")
    try profile(h, api)
    try h.signIn()
    let result = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(result.status == 0 && result.stdout == "denied\n", "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "API orders asks for a stronger sign-in (acr_values mfa, max_age 300) (no terminal to sign in on): "
          + "run strivacity login --profile \(h.profile) --acr-values 'mfa' --max-age 300"), "\(result.stderr)")
  }

  /// Hostile challenges: no retry, no crash, curl's answer unchanged, and nothing of the header
  /// on the terminal.
  @Test func hostileChallengesAreNotAnswered() throws {
    let hostile = [
      "Bearer error=\"insufficient_scope\", scope=\"" + String(repeating: "a", count: 60 * 1024) + "\"",
      #"Bearer error="invalid_token, scope="orders:write"#,
      "Bearer " + (0..<1000).map { "p\($0)=v" }.joined(separator: ", "),
      "Bearer error=\"invalid_token\", error_description=\"\u{1B}]0;pwned\u{07}\u{1B}[2J\"",
    ]
    let h = try Harness(journey: "password")
    for header in hostile {
      let api = try ScriptedAPI([Self.challenge(401, header), Self.ok])
      try profile(h, api)
      if try !h.signedIn() { try h.signIn() }
      let result = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
      #expect(result.status == 0 && result.stdout == "denied\n", "\(result.stderr.prefix(300))")
      #expect(api.tokens.count == 1, "not sent again")
      #expect(result.stderr.hasPrefix("strivacity: warning: the API's WWW-Authenticate challenge was not answered: "))
      #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("pwned") && result.stderr.count < 300)
    }
  }

  /// The API's metadata (RFC 9728) decides which scopes it may ask for, and is used only when it
  /// names this profile's issuer.
  @Test func metadataNamingAnotherServerIsRefused() throws {
    let issuerHolder = Mutex("")
    let metadataFor: @Sendable (String) -> String = { servers in
      #"{"resource":"RESOURCE","authorization_servers":[\#(servers)],"scopes_supported":["orders:read"]}"#
    }
    let foreign = Mutex(true)
    let base = Mutex("")
    let api = try ScriptedAPI([
      { target in
        if target.hasPrefix("/.well-known/") {
          let servers = foreign.withLock { $0 } ? #""https://evil.example.com""# : "\"\(issuerHolder.withLock { $0 })\""
          let body = metadataFor(servers).replacingOccurrences(of: "RESOURCE", with: base.withLock { $0 } + "/orders/")
          return ServerReply(status: 200, contentType: "application/json", text: body)
        }
        let metadata = base.withLock { $0 } + "/.well-known/oauth-protected-resource/orders/"
        return ServerReply(
          status: 403, contentType: "text/plain", text: "denied\n",
          headers: [
            (
              "WWW-Authenticate",
              #"Bearer error="insufficient_scope", scope="admin:all", resource_metadata="\#(metadata)""#
            )
          ])
      }
    ])
    base.withLock { $0 = api.base }
    let h = try Harness(journey: "password")
    issuerHolder.withLock { $0 = h.emulator.issuer }
    try profile(h, api)
    try h.signIn()
    let evil = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(evil.stdout == "denied\n")
    #expect(
      evil.stderr.contains(
        "its metadata was refused: the API's resource metadata names authorization server "
          + "https://evil.example.com, not this profile's issuer"), "\(evil.stderr)")
    foreign.withLock { $0 = false }
    let notListed = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(notListed.stdout == "denied\n")
    #expect(
      notListed.stderr.contains("API orders asks for scope admin:all, which its metadata does not list"),
      "\(notListed.stderr)")
    // setup-api reads the same metadata: refused for another server, else the entry.
    let dry = try h.strivacity([
      "setup", "api", "--profile", h.profile, "--name", "shop", "--dry-run", "\(api.base)/orders/",
    ])
    #expect(dry.status == 0, "\(dry.stderr)")
    #expect(
      dry.stdout
        == "would write \(h.home.configPath):\n  [profiles.\(h.profile).apis.shop]\n  url = \"\(api.base)/orders/\"\n"
        + "  resource = [\"\(api.base)/orders/\"]\n  scopes = [\"orders:read\"]\n")
    foreign.withLock { $0 = true }
    let refused = try h.strivacity(["setup-api", "--profile", h.profile, "--dry-run", "\(api.base)/orders/"])
    #expect(refused.status != 0 && refused.stderr.contains("https://evil.example.com"), "\(refused.stderr)")
  }

  // MARK: the emulator's protected resource (tokens checked for real: JWKS, aud, scope, acr)

  /// The profile with one of the emulator's APIs (its protected resource as `url`), naming the
  /// journey file's resource unless `withResource` is false; returns the resource's URL.
  func emulatorAPI(
    _ h: Harness, _ name: String = "orders", scopes: String = #"["orders:read"]"#, withResource: Bool = true
  ) throws -> String {
    let base = h.emulator.issuer + "resources/\(name)/"
    let resource = withResource ? "resource = [\"https://api.example.com/\(name)/\"]\n" : ""
    try h.writeProfile("\n[profiles.\(h.profile).apis.\(name)]\nurl = \"\(base)\"\n\(resource)scopes = \(scopes)\n")
    return base
  }

  /// A POST needs orders:write; the token for GETs has orders:read only: the emulator's 403
  /// names the scopes, and one more request with a token that has them succeeds.
  @Test func theEmulatorsAPIGetsTheScopeItAsksFor() throws {
    let h = try Harness(journey: "password")
    _ = try emulatorAPI(h, scopes: #"["orders:read", "orders:write"]"#)
    try h.signIn()
    let base = try emulatorAPI(h)
    let get = try h.strivacity(["curl", "--profile", h.profile, "-sS", base + "7"])
    #expect(get.status == 0 && get.stderr.isEmpty, "\(get.stderr)")
    #expect(JSONValue.parse(get.stdout)?["scope"] == "orders:read", "\(get.stdout)")
    let post = try h.strivacity(["curl", "--profile", h.profile, "-sS", "-X", "POST", base + "7"])
    #expect(post.status == 0, "\(post.stderr)")
    #expect(JSONValue.parse(post.stdout)?["method"] == "POST", "\(post.stdout)")
    #expect(post.stderr == "strivacity: API orders needs scope orders:read orders:write: getting a token with it\n")
    let stats = try h.stats()
    #expect(stats["resource_requests"]?["orders"]?.int == 3)
    #expect(stats["resource_refusals"]?["insufficient_scope"]?.int == 1)
    #expect(stats["api_token_requests"]?["orders"]?.int == 2)
  }

  /// An entry naming neither audience nor resource gets the profile's plain token, which the API
  /// refuses; its metadata's resource then names the API in the request for a new one.
  @Test func theMetadatasResourceNamesAnAPIWhoseEntryNamesNone() throws {
    let h = try Harness(journey: "password")
    let base = try emulatorAPI(h, withResource: false)
    let login = try h.automatedLogin(
      sdk: "web", ["--field", "identifier=demo@example.com", "--field-env", "password=PW", "--resource", base],
      environment: ["PW": "Demo-pass-1"])
    #expect(login.status == 0, "\(login.stderr)")
    let get = try h.strivacity(["curl", "--profile", h.profile, "-sS", base + "3"])
    #expect(get.status == 0, "\(get.stderr)")
    #expect(JSONValue.parse(get.stdout)?["api"] == "orders", "\(get.stdout) \(get.stderr)")
    #expect(get.stderr == "strivacity: API orders refused the token (invalid_token): getting a new one\n")
    #expect(try h.stats()["resource_refusals"]?["invalid_token"]?.int == 1)
  }

  /// The emulator playing a hostile API: each kind gets no retry and leaves nothing raw on the
  /// terminal; metadata naming another authorization server is refused, naming it.
  @Test func theEmulatorsHostileChallengesAreNotAnswered() throws {
    let h = try Harness(journey: "password")
    let base = try emulatorAPI(h)
    try h.signIn()
    for kind in ["challenge-huge", "challenge-unterminated", "challenge-many", "challenge-control"] {
      try h.control("hostile", ["kinds": [.string(kind)]])
      let result = try h.strivacity(["curl", "--profile", h.profile, "-sS", base + "1"])
      #expect(result.status == 0, "\(kind): \(result.stderr.prefix(200))")
      #expect(
        result.stderr.hasPrefix("strivacity: warning: the API's WWW-Authenticate challenge was not answered: "),
        "\(kind): \(result.stderr.prefix(200))")
      #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }, "\(kind)")
      #expect(result.stderr.utf8.count < 300, "\(kind)")
    }
    try h.control("hostile", ["kinds": ["challenge-scope-foreign"]])
    let foreign = try h.strivacity(["curl", "--profile", h.profile, "-sS", base + "1"])
    #expect(
      foreign.stderr.contains("API orders asks for scope admin:all, which its metadata does not list"),
      "\(foreign.stderr)")
    try h.control("hostile", ["kinds": ["metadata-foreign-issuer"]])
    let evil = try h.strivacity(["curl", "--profile", h.profile, "-sS", "-X", "POST", base + "1"])
    #expect(
      evil.stderr.contains("names authorization server https://evil.example.com, not this profile's issuer"),
      "\(evil.stderr)")
    let setup = try h.strivacity(["setup-api", "--profile", h.profile, "--dry-run", base])
    #expect(setup.status != 0 && setup.stderr.contains("https://evil.example.com"), "\(setup.stderr)")
    #expect(try h.stats()["api_token_requests"]?["orders"]?.int == 1, "no challenge got a new token")
  }

  /// An API no entry names, called with the profile's own token: its 401 names its metadata, so
  /// no renewal is spent; the line names setup-api, which says a sign-in is needed, and curl fails.
  @Test func anAPIWithNoEntryNamesSetupAPIWithoutARenewal() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let grants = try h.stats()["grants"]?["refresh_token"]?.int ?? 0
    let base = h.emulator.issuer + "resources/orders/"
    let result = try h.strivacity(["curl", "--profile", h.profile, "-sS", base + "1"])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(
      result.stderr.hasPrefix(
        "strivacity: error: the API at \(h.emulator.issuer.dropLast()) refused the profile's token ")
        && result.stderr.contains("run strivacity setup api --profile \(h.profile) \(base)"), "\(result.stderr)")
    #expect((try h.stats()["grants"]?["refresh_token"]?.int ?? 0) == grants, "no renewal spent")
    let setup = try h.strivacity(["setup-api", "--profile", h.profile, base])
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(
      setup.stderr.hasSuffix(
        "strivacity: sign in again to consent to it (the current sign-in did not ask for \(base)): strivacity login "
          + "--profile \(h.profile); on a terminal, strivacity token --profile \(h.profile) --api orders offers that "
          + "itself\n"), "\(setup.stderr)")
  }

  /// setup-api from the emulator's metadata, written into the config; then the API is used.
  @Test func setupAPIWritesTheEntryFromTheMetadata() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    let base = h.emulator.issuer + "resources/orders/"
    let written = try h.strivacity(["setup-api", "--profile", h.profile, base])
    #expect(written.status == 0, "\(written.stderr)")
    #expect(written.stderr.hasSuffix("strivacity: sign in to use it: strivacity login --profile \(h.profile)\n"))
    let config = try h.home.readConfig()
    #expect(
      config.hasSuffix(
        "[profiles.\(h.profile).apis.orders]\nurl = \"\(base)\"\nresource = [\"\(base)\"]\n"
          + "scopes = [\"orders:read\", \"orders:write\"]\n"), "\(config)")
    try h.signIn()
    let post = try h.strivacity(["curl", "--profile", h.profile, "-sS", "-X", "POST", base + "2"])
    #expect(post.status == 0 && post.stderr.isEmpty, "\(post.stderr)")
    #expect(JSONValue.parse(post.stdout)?["scope"] == "orders:read orders:write", "\(post.stdout)")
  }

  /// billing wants a sign-in with a second factor (`acr` mfa): on a terminal, `strivacity curl`
  /// signs in again asking for it (the journey shows the extra step), then asks once more.
  @Test func aStepUpOnATerminalSignsInWithTheExtraStep() throws {
    let h = try Harness(journey: "password")
    let base = try emulatorAPI(h, "billing", scopes: #"["billing:read"]"#)
    try h.signIn()
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "curl", "--profile", h.profile, "-sS", base + "invoices"],
      environment: h.environment)
    try tty.expect("API billing asks for a stronger sign-in (acr_values mfa): signing in again")
    try tty.expect("now? [Y/n]: ")
    tty.send("")
    try tty.typeDemoSignIn()
    try tty.expect("Passcode")
    tty.send("123456")
    #expect(try tty.wait() == 0, "\(tty.transcript)")
    let answer = JSONValue.parse(tty.stdout)
    #expect(answer?["acr"] == "mfa" && answer?["path"] != nil, "\(tty.stdout) \(tty.transcript)")
    let stats = try h.stats()
    #expect(stats["resource_refusals"]?["insufficient_user_authentication"]?.int == 1)
    #expect(stats["resource_requests"]?["billing"]?.int == 2)
    // The stronger token is kept: a script now gets through at once.
    let again = try h.strivacity(["curl", "--profile", h.profile, "-sS", base + "invoices"])
    #expect(again.status == 0 && again.stderr.isEmpty && JSONValue.parse(again.stdout)?["acr"] == "mfa")
  }
}

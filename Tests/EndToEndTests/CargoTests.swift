// cargo as cargo speaks it, with the real cargo (≥ 1.74; ~/.cargo/bin or PATH): `strivacity
// setup-cargo` names strivacity as the credential provider of a local sparse registry that
// requires auth (`auth-required` in its config.json), and `cargo fetch` gets a crate from it with
// the profile's token, checked at the emulator (introspection) by the registry. A second
// registry, not under any of the profile's places, gets no token from strivacity. And the
// protocol's refusals, as a program other than cargo would meet them.
import CurlTransport
import Foundation
import Glibc
import LoopbackHTTP
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

/// `path` with every link resolved (setup-cargo names the real path of `strivacity`).
private func resolved(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }

@Suite struct CargoTests {
  /// The real cargo: ~/.cargo/bin (rustup's) first, else PATH's. nil: the test fails saying so.
  static let cargo: String? = {
    let candidates =
      [NSHomeDirectory() + "/.cargo/bin/cargo"]
      + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/cargo" }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  /// A sparse registry on loopback that answers only to tokens the emulator says are active,
  /// serving config.json (auth-required), the index file of one crate and the crate itself.
  final class Registry: @unchecked Sendable {
    private var server: LoopbackServer!
    /// Every Authorization header value it got (valid or not), and how many it refused.
    let seen = Mutex<(authorizations: [String], refused: Int)>(([], 0))

    /// `demanding`: a scope every token must have (by introspection), named in the 401's
    /// `insufficient_scope` challenge.
    init(
      introspect issuer: String, crate: (name: String, bytes: [UInt8], checksum: String)?, demanding: String? = nil
    ) throws {
      server = try LoopbackServer { [weak self] request in
        guard let self else { return ServerReply(status: 503) }
        let authorization = request.header("Authorization")
        let token = authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        self.seen.withLock { if let authorization { $0.authorizations.append(authorization) } }
        guard let token, let crate, let scopes = Self.introspect(token, issuer: issuer),
          demanding.map(scopes.contains) ?? true
        else {
          self.seen.withLock { $0.refused += 1 }
          let challenge =
            demanding.map { "Bearer realm=\"cargo\", error=\"insufficient_scope\", scope=\"\($0)\"" }
            ?? "Bearer realm=\"cargo\""
          return ServerReply(status: 401, headers: [("WWW-Authenticate", challenge)], body: Array("no\n".utf8))
        }
        let name = crate.name
        let index = "/index/\(name.prefix(2))/\(name.dropFirst(2).prefix(2))/\(name)"
        switch request.path {
        case "/index/config.json":
          return ServerReply(
            status: 200, contentType: "application/json",
            text: "{\"dl\":\"\(self.server.baseURL)/dl\",\"auth-required\":true}")
        case index:
          return ServerReply(
            status: 200, contentType: "text/plain",
            text: "{\"name\":\"\(name)\",\"vers\":\"0.1.0\",\"deps\":[],\"cksum\":\"\(crate.checksum)\","
              + "\"features\":{},\"yanked\":false}\n")
        case "/dl/\(name)/0.1.0/download":
          return ServerReply(status: 200, headers: [("Content-Type", "application/octet-stream")], body: crate.bytes)
        default:
          return ServerReply(status: 404)
        }
      }
    }

    deinit { server.stop() }

    /// The scopes of an active token, by the emulator's introspection; nil when it is not active.
    static func introspect(_ token: String, issuer: String) -> [String]? {
      let body = "token=" + FormURLEncoding.escape(token)
      guard
        let response = try? CurlHTTPClient().send(
          HTTPRequest(
            method: "POST", url: issuer + "oauth2/introspect",
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8))),
        let answer = JSONValue.parse(response.body), answer["active"] == true
      else { return nil }
      return (answer["scope"]?.string ?? "").split(separator: " ").map(String.init)
    }

    var index: String { "sparse+\(server.baseURL)/index/" }
    var host: String { "127.0.0.1:\(server.port)" }
  }

  /// A scratch CARGO_HOME, the crate packaged offline from a generated library, and the
  /// environment cargo and strivacity run with.
  final class Workspace {
    let dir: ScratchDirectory
    let cargo: String
    var environment: [String: String]
    let crateName = "hello-strivacity"

    init(_ h: Harness) throws {
      cargo = try #require(
        CargoTests.cargo, "the real cargo (≥ 1.74): not in ~/.cargo/bin nor on PATH; install it (rustup or apt's cargo)"
      )
      dir = try ScratchDirectory("cargo")
      environment = h.environment
      environment["CARGO_HOME"] = dir.file("cargo-home")
      environment["PATH"] = (cargo as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
      environment["CARGO_TERM_COLOR"] = "never"
      environment["CARGO_NET_RETRY"] = "0"
      // rustup's proxy finds its toolchains in the real home's ~/.rustup.
      let rustup = NSHomeDirectory() + "/.rustup"
      if FileManager.default.fileExists(atPath: rustup) { environment["RUSTUP_HOME"] = rustup }
      try FileManager.default.createDirectory(atPath: dir.file("cargo-home"), withIntermediateDirectories: true)
    }

    @discardableResult
    func run(_ arguments: [String], in directory: String? = nil) throws -> ProcessResult {
      try StrivacityTestSupport.run(
        [cargo] + arguments, environment: environment, currentDirectory: directory ?? dir.path, timeout: 180)
    }

    /// The crate: `cargo new` and `cargo package`, offline; its bytes and SHA-256.
    func packageCrate() throws -> (name: String, bytes: [UInt8], checksum: String) {
      let made = try run(["new", "--vcs", "none", "--lib", "--offline", crateName])
      try #require(made.status == 0, "cargo new: \(made.stderr)")
      let packaged = try run(
        ["package", "--offline", "--allow-dirty", "--no-verify"], in: dir.file(crateName))
      try #require(packaged.status == 0, "cargo package: \(packaged.stderr)")
      let path = dir.file("\(crateName)/target/package/\(crateName)-0.1.0.crate")
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      let sum = try StrivacityTestSupport.run(["/usr/bin/sha256sum", path], environment: ["PATH": "/usr/bin:/bin"])
      let checksum = try #require(sum.stdout.split(separator: " ").first.map(String.init))
      return (crateName, bytes, checksum)
    }

    /// An application that depends on the crate from `registry`.
    func application(named name: String, registry: String) throws -> String {
      let made = try run(["new", "--vcs", "none", "--offline", name])
      try #require(made.status == 0, "cargo new: \(made.stderr)")
      let manifest = dir.file("\(name)/Cargo.toml")
      let text = try String(contentsOfFile: manifest, encoding: .utf8)
      try (text + "\(crateName) = { version = \"0.1.0\", registry = \"\(registry)\" }\n").write(
        toFile: manifest, atomically: true, encoding: .utf8)
      return dir.file(name)
    }

    var configPath: String { dir.file("cargo-home/config.toml") }

    func writeConfig(_ text: String) throws { try text.write(toFile: configPath, atomically: true, encoding: .utf8) }

    func config() throws -> String { try String(contentsOfFile: configPath, encoding: .utf8) }

    /// Forgets what cargo fetched (its caches and the lockfile), so the next fetch asks again.
    func forgetFetched(_ application: String) {
      try? FileManager.default.removeItem(atPath: dir.file("cargo-home/registry"))
      try? FileManager.default.removeItem(atPath: application + "/Cargo.lock")
    }
  }

  /// `cargo fetch` gets the crate from the registry with the profile's token, from the small
  /// binary's cache and from the full command line; setup-cargo keeps the rest of the file.
  @Test func cargoFetchesACrateWithTheProfilesToken() throws {
    let h = try Harness(journey: "password")
    let workspace = try Workspace(h)
    let crate = try workspace.packageCrate()
    let registry = try Registry(introspect: h.emulator.issuer, crate: crate)
    try h.writeProfile("hosts = [\"\(registry.host)\"]")
    try h.signIn()
    let before =
      "# the user's own\n[net]\ngit-fetch-with-cli = true # kept\n\n"
      + "[registries.internal]\nindex = \"\(registry.index)\"\n"
    try workspace.writeConfig(before)
    let setup = try StrivacityTestSupport.run(
      [TestEnvironment.binary("strivacity"), "setup-cargo", "--profile", h.profile, "--registry", "internal"],
      environment: workspace.environment)
    #expect(setup.status == 0, "\(setup.stderr)")
    let written = try workspace.config()
    let line =
      "credential-provider = [\"\(resolved(TestEnvironment.binary("strivacity")))\", \"--profile\", \"\(h.profile)\"]"
    #expect(written == before + line + "\n", "\(written)")

    let application = try workspace.application(named: "app", registry: "internal")
    for cache in ["on", "off"] {
      workspace.environment["STRIVACITY_TOKEN_CACHE"] = cache
      workspace.forgetFetched(application)
      let fetched = try workspace.run(["fetch"], in: application)
      #expect(fetched.status == 0, "cache \(cache): \(fetched.stderr)")
      #expect(
        FileManager.default.fileExists(atPath: workspace.dir.file("cargo-home/registry/cache"))
          || fetched.status != 0)
    }
    let token = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    let seen = registry.seen.withLock { $0 }
    #expect(seen.authorizations.contains("Bearer \(token)"))
    #expect(seen.authorizations.allSatisfy { $0 == "Bearer \(token)" })

    // --undo takes out only its own line.
    let undone = try StrivacityTestSupport.run(
      [
        TestEnvironment.binary("strivacity"), "setup-cargo", "--profile", h.profile, "--registry", "internal", "--undo",
      ],
      environment: workspace.environment)
    #expect(undone.status == 0, "\(undone.stderr)")
    #expect(try workspace.config() == before)

    // A profile asked for through STRIVACITY_PROFILE is written down too: cargo's own
    // environment may not have it.
    var byVariable = workspace.environment
    byVariable["STRIVACITY_PROFILE"] = h.profile
    let fromVariable = try StrivacityTestSupport.run(
      [TestEnvironment.binary("strivacity"), "setup-cargo", "--registry", "internal"], environment: byVariable)
    #expect(fromVariable.status == 0, "\(fromVariable.stderr)")
    #expect(try workspace.config() == before + line + "\n")
  }

  /// A registry that is an API's, whose 401 asks for a scope the API's entry does not have
  /// (`insufficient_scope`): cargo passes the challenge on, and strivacity answers it as
  /// `strivacity curl` answers one. Before the scope is consented, cargo fails with the sign-in
  /// to run named (the provider never signs in); after it, with a token that has the scope (the
  /// consenting sign-in's own, its audience being the API's, or one the broker asked for).
  @Test func theRegistrysChallengeGetsATokenWithTheScopeItNames() throws {
    let h = try Harness(journey: "password")
    let workspace = try Workspace(h)
    let crate = try workspace.packageCrate()
    let registry = try Registry(introspect: h.emulator.issuer, crate: crate, demanding: "orders:write")
    try h.writeProfile(
      """

      [profiles.\(h.profile).apis.crates]
      url = "http://\(registry.host)/"
      audience = "https://api.example.com/orders"
      resource = ["https://api.example.com/orders/"]
      scopes = ["orders:read"]
      """)
    try h.signIn()
    try workspace.writeConfig("[registries.internal]\nindex = \"\(registry.index)\"\n")
    let setup = try StrivacityTestSupport.run(
      [TestEnvironment.binary("strivacity"), "setup-cargo", "--profile", h.profile, "--registry", "internal"],
      environment: workspace.environment)
    #expect(setup.status == 0, "\(setup.stderr)")
    let application = try workspace.application(named: "scoped-app", registry: "internal")
    let unconsented = try workspace.run(["fetch"], in: application)
    #expect(unconsented.status != 0)
    #expect(unconsented.stderr.contains("--add-scope orders:write"), "\(unconsented.stderr)")
    let consent = try h.automatedLogin(
      sdk: "web",
      [
        "--field", "identifier=demo@example.com", "--field-env", "password=PW", "--add-scope", "orders:write",
        "--audience", "https://api.example.com/orders",
      ], environment: ["PW": "Demo-pass-1"])
    #expect(consent.status == 0, "\(consent.stderr)")
    let fetched = try workspace.run(["fetch"], in: application)
    #expect(fetched.status == 0, "\(fetched.stderr)")
    let sent = registry.seen.withLock { $0.authorizations }
    let scopes = sent.compactMap { Registry.introspect(String($0.dropFirst(7)), issuer: h.emulator.issuer) }
    #expect(!scopes.isEmpty && scopes.allSatisfy { $0.contains("orders:write") }, "\(scopes)")
  }

  /// `setup cargo --add-host` writes the registry's index into the profile's own `hosts`, not
  /// into the API table after it (where a line appended by hand would land), and cargo gets the
  /// token; --dry-run before it writes nothing.
  @Test func addHostWritesTheProfilesOwnHosts() throws {
    let h = try Harness(journey: "password")
    let workspace = try Workspace(h)
    let crate = try workspace.packageCrate()
    let registry = try Registry(introspect: h.emulator.issuer, crate: crate)
    try h.writeProfile("\n[profiles.\(h.profile).apis.elsewhere]\nurl = \"https://elsewhere.example/\"")
    try h.signIn()
    try workspace.writeConfig("[registries.internal]\nindex = \"\(registry.index)\"\n")
    let setup = [
      TestEnvironment.binary("strivacity"), "setup", "cargo", "--profile", h.profile, "--registry", "internal",
      "--add-host",
    ]
    let before = try h.home.readConfig()
    let dry = try StrivacityTestSupport.run(setup + ["--dry-run"], environment: workspace.environment)
    #expect(dry.status == 0 && dry.stdout.contains("hosts = [\""), "\(dry.stdout) \(dry.stderr)")
    #expect(
      try h.home.readConfig() == before
        && (try workspace.config()) == "[registries.internal]\nindex = \"\(registry.index)\"\n")
    let done = try StrivacityTestSupport.run(setup, environment: workspace.environment)
    #expect(done.status == 0 && !done.stderr.contains("warning"), "\(done.stderr)")
    let config = try h.home.readConfig()
    let own = try #require(config.components(separatedBy: "[profiles.\(h.profile).apis.elsewhere]").first)
    #expect(own.contains("hosts = [\"\(registry.index.dropFirst("sparse+".count).dropLast())\"]"), "\(config)")
    let fetched = try workspace.run(["fetch"], in: try workspace.application(named: "hosted-app", registry: "internal"))
    #expect(fetched.status == 0, "\(fetched.stderr)")
  }

  /// A registry under none of the profile's places gets no token from strivacity, even with
  /// strivacity as a provider for every registry: it answers url-not-supported and cargo asks
  /// its next provider (cargo:token, which has none).
  @Test func anotherRegistryGetsNoToken() throws {
    let h = try Harness(journey: "password")
    let workspace = try Workspace(h)
    let crate = try workspace.packageCrate()
    let ours = try Registry(introspect: h.emulator.issuer, crate: crate)
    let other = try Registry(introspect: h.emulator.issuer, crate: crate)
    try h.writeProfile("hosts = [\"\(ours.host)\"]")
    try h.signIn()
    let strivacity = resolved(TestEnvironment.binary("strivacity"))
    try workspace.writeConfig(
      """
      [registry]
      global-credential-providers = ["cargo:token", "\(strivacity) --profile \(h.profile)"]

      [registries.other]
      index = "\(other.index)"

      """)
    let application = try workspace.application(named: "other-app", registry: "other")
    let fetched = try workspace.run(["fetch"], in: application)
    #expect(fetched.status != 0)
    #expect(fetched.stderr.contains("no token found"), "\(fetched.stderr)")
    #expect(other.seen.withLock { $0.authorizations }.isEmpty)
    // And the same provider serves the profile's registry.
    try workspace.writeConfig(try workspace.config() + "[registries.internal]\nindex = \"\(ours.index)\"\n")
    let app = try workspace.application(named: "app", registry: "internal")
    let served = try workspace.run(["fetch"], in: app)
    #expect(served.status == 0, "\(served.stderr)")
  }

  /// What a program other than cargo may send: each refused in the protocol's error shape, with
  /// one line of ours on stderr at most, nothing raw, and no token.
  @Test func badRequestsGetTheProtocolsErrorShape() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("hosts = [\"127.0.0.1:9\"]")
    try h.signIn()
    let token = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    func request(_ url: String, kind: String = "get") -> String {
      "{\"v\":1,\"registry\":{\"index-url\":\"\(url)\"},\"kind\":\"\(kind)\",\"operation\":\"read\","
        + "\"args\":[\"--profile\",\"\(h.profile)\"]}\n"
    }
    let cases: [(input: String, kind: String, status: Int32)] = [
      ("not json\u{1b}[31m\n", "other", 2),
      ("{\"v\":1,\"registry\":[],\"kind\":\"get\"}\n", "other", 2),
      ("{\"v\":7,\"registry\":{\"index-url\":\"x\"},\"kind\":\"get\"}\n", "other", 2),
      (String(repeating: "a", count: (1 << 20) + 10) + "\n", "other", 2),
      (request("sparse+http://user:pw@127.0.0.1:9/index/"), "other", 0),
      (request("sparse+http://127.0.0.1:9/index/%2e%2e/x/"), "other", 0),
      (request("sparse+http://127.0.0.1:9/a/..;x/"), "other", 0),
      (request("sparse+http://127.0.0.1:10/index/"), "url-not-supported", 0),
      (request("sparse+http://127.0.0.1:9/index/", kind: "frobnicate"), "operation-not-supported", 0),
      (request("sparse+http://127.0.0.1:9/index/", kind: "login"), "operation-not-supported", 0),
      // `cargo login -- ARGS`: its words (a token) are never read, nor named in an error.
      (
        "{\"v\":1,\"registry\":{\"index-url\":\"sparse+http://127.0.0.1:9/index/\"},\"kind\":\"login\","
          + "\"args\":[\"cio-secret-1\"]}\n", "operation-not-supported", 0
      ),
    ]
    for cache in ["on", "off"] {
      for (input, kind, status) in cases {
        var environment = h.environment
        environment["STRIVACITY_TOKEN_CACHE"] = cache
        let result = try StrivacityTestSupport.run(
          [TestEnvironment.binary("strivacity"), "--cargo-plugin"], environment: environment, stdin: input)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let shown = String(input.prefix(60))
        #expect(result.status == status, "\(shown): \(result.stderr)")
        #expect(lines.first == "{\"v\":[1]}" && lines.count == 2, "\(shown): \(result.stdout.prefix(300))")
        let answer = JSONValue.parse(lines.last ?? "")
        #expect(answer?["Err"]?["kind"]?.string == kind, "\(shown): \(lines.last ?? "")")
        #expect(!result.stdout.contains(token) && !result.stderr.contains(token))
        #expect(!result.stdout.contains("cio-secret-1") && !result.stderr.contains("cio-secret-1"))
        #expect(!result.stderr.contains("\u{1b}") && result.ownStderr.split(separator: "\n").count <= 1)
      }
      // The registry of the profile's place: the token, cached by cargo until it expires.
      let good = try StrivacityTestSupport.run(
        [TestEnvironment.binary("strivacity"), "--cargo-plugin"], environment: h.environment,
        stdin: request("sparse+http://127.0.0.1:9/index/"))
      let answer = JSONValue.parse(String(good.stdout.split(separator: "\n").last ?? ""))
      #expect(answer?["Ok"]?["token"]?.string == "Bearer \(token)", "\(good.stdout) \(good.stderr)")
      #expect(answer?["Ok"]?["cache"]?.string == "expires" && answer?["Ok"]?["expiration"]?.int != nil)
      #expect(answer?["Ok"]?["operation_independent"] == true)
    }
  }

  /// Unattended: with no sign-in, a get fails in the protocol's shape and one stderr line names
  /// the `strivacity login` to run; nothing waits for a person.
  @Test func withoutASignInTheLoginToRunIsNamed() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("hosts = [\"127.0.0.1:9\"]")
    let result = try StrivacityTestSupport.run(
      [TestEnvironment.binary("strivacity"), "--cargo-plugin"], environment: h.environment,
      stdin: "{\"v\":1,\"registry\":{\"index-url\":\"sparse+http://127.0.0.1:9/i/\"},\"kind\":\"get\","
        + "\"operation\":\"read\",\"args\":[\"--profile\",\"\(h.profile)\"]}\n", timeout: 30)
    #expect(result.status == 0)
    let answer = JSONValue.parse(String(result.stdout.split(separator: "\n").last ?? ""))
    #expect(answer?["Err"]?["kind"]?.string == "other")
    #expect(answer?["Err"]?["message"]?.string?.contains("strivacity login") == true, "\(result.stdout)")
    let lines = result.ownStderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("strivacity login"), "\(result.stderr)")
  }
}

// Machine profiles (issue 28): `grant = "client_credentials"` against the emulator's confidential
// clients (its `machine` journey): each client authentication, the secret from the environment,
// a file or the keyring, tokens cached in the kernel's keyring (one request for many calls, one
// for 32 processes at once), APIs, every command, and the secret never where it must not be.
import CurlTransport
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

extension Harness {
  func strivacity(_ arguments: [String], environment more: [String: String], binary: String = "strivacity") throws
    -> ProcessResult
  {
    try run([TestEnvironment.binary(binary)] + arguments, environment: environment.merging(more) { _, new in new })
  }

  var clientCredentialsRequests: Int { (try? stats()["client_credentials_requests"]?.int) ?? -1 }
}

@Suite struct MachineProfileTests {
  /// The emulator's `machine` journey's clients (Sources/Emulator/Journeys/machine.json).
  static let botSecret = "ci:s3cr%t+ü/ä"
  static let postSecret = "ci-post-secret-1"
  static let basicSecret = "ci-basic-secret-1"

  /// A JWT's claims, none when `token` is not one (an empty file, an opaque token).
  static func claims(_ token: String) -> [String: JSONValue] { jwtPayload(token)?.object ?? [:] }

  @Test(arguments: [
    ("ci-bot", "client_secret_basic", botSecret), ("ci-bot", "client_secret_post", botSecret),
    ("ci-post", "client_secret_post", postSecret), ("ci-basic", "client_secret_basic", basicSecret),
  ])
  func eachSecretMethodGetsTheClientsToken(client: String, method: String, secret: String) throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: client, "token_endpoint_auth = \"\(method)\"")
    let result = try h.strivacity(
      ["token", "--profile", h.profile], environment: ["STRIVACITY_CLIENT_SECRET": secret])
    #expect(result.status == 0, "\(result.stderr)")
    let claims = Self.claims(result.stdout.trimmingCharacters(in: .newlines))
    #expect(claims["sub"]?.string == client && claims["client_id"]?.string == client, "\(claims)")
    #expect(!result.stderr.contains(secret))
    #expect(h.clientCredentialsRequests == 1)
  }

  /// Without token_endpoint_auth: the first of Basic and Post that discovery lists; ci-post
  /// allows Post only, so a tenant listing Post alone is what makes it work.
  @Test func theDefaultMethodIsTheFirstOfBasicAndPostThatDiscoveryLists() throws {
    let h = try Harness(journey: "machine") { $0.tokenEndpointAuthMethodsSupported = ["client_secret_post"] }
    try h.writeMachineProfile(client: "ci-post")
    let post = try h.strivacity(
      ["token", "--profile", h.profile], environment: ["STRIVACITY_CLIENT_SECRET": Self.postSecret])
    #expect(post.status == 0, "\(post.stderr)")
    let basic = try Harness(journey: "machine")
    try basic.writeMachineProfile(client: "ci-basic")
    let result = try basic.strivacity(
      ["token", "--profile", basic.profile], environment: ["STRIVACITY_CLIENT_SECRET": Self.basicSecret])
    #expect(result.status == 0, "\(result.stderr)")
  }

  /// The emulator, like a tenant that keeps a client's keys as a JWKS, verifies with the key the
  /// assertion's kid names: ci-jwt's are "ci-jwt-rsa" and "ci-jwt-ec", so the profile says so in
  /// private_key_id (without it, the key's thumbprint is sent, and refused).
  @Test(arguments: [("ci-jwt-rsa.pem", "ci-jwt-rsa"), ("ci-jwt-ec.pem", "ci-jwt-ec")])
  func privateKeyJWTSignsAnAssertionPerRequest(keyFile: String, kid: String) throws {
    let h = try Harness(journey: "machine")
    let source = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Fixtures/machine-keys/" + keyFile).path
    let key = try h.home.write("key.pem", try String(contentsOfFile: source, encoding: .utf8))
    let settings = "token_endpoint_auth = \"private_key_jwt\"\nprivate_key_file = \"\(key)\""
    try h.writeMachineProfile(client: "ci-jwt", settings + "\nprivate_key_id = \"\(kid)\"")
    let first = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(Self.claims(first.stdout.trimmingCharacters(in: .newlines))["sub"]?.string == "ci-jwt")
    // A second request: a fresh jti (the emulator refuses a replayed one).
    let second = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(h.clientCredentialsRequests == 2)
    // status and doctor name the kid; --jwk prints the public key under it, as the tenant has it.
    let status = try h.strivacity(["status", "--profile", h.profile])
    #expect(status.stdout.contains("key id         \(kid) (private_key_id)"), "\(status.stdout)")
    let doctor = try h.strivacity(["doctor", "--profile", h.profile])
    #expect(DoctorTests.unwrapped(doctor.stdout).contains("(read, not shown), sent as kid \(kid)"), "\(doctor.stdout)")
    let journey = TestEnvironment.repositoryRoot.appendingPathComponent("Sources/Emulator/Journeys/machine.json")
    let clients = JSONValue.parse(try String(contentsOf: journey, encoding: .utf8))?["clients"]?.array ?? []
    let ciJWT = clients.first { $0["client_id"] == "ci-jwt" }
    let registered = ciJWT?["jwks"]?["keys"]?.array?.first { $0["kid"]?.string == kid }
    let jwk = try h.strivacity(["status", "--profile", h.profile, "--jwk"])
    #expect(jwk.status == 0 && JSONValue.parse(jwk.stdout) == registered, "\(jwk.stdout) \(jwk.stderr)")
    let jwks = try h.strivacity(["status", "--profile", h.profile, "--jwks"])
    #expect(JSONValue.parse(jwks.stdout) == .object(["keys": .array([try #require(registered)])]), "\(jwks.stdout)")
    // Without private_key_id the key's thumbprint is the kid, which ci-jwt has not registered.
    try h.writeMachineProfile(client: "ci-jwt", settings)
    let thumbprint = try #require(
      JSONValue.parse(h.strivacity(["status", "--profile", h.profile, "--jwk"]).stdout)?["kid"]?.string)
    #expect(thumbprint != kid && thumbprint.count == 43)
    let unnamed = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(unnamed.status == 9, "\(unnamed.stderr)")
    #expect(
      unnamed.stderr.contains("the assertion names no key of this client")
        && unnamed.stderr.contains("registered for the client with kid \(thumbprint)"), "\(unnamed.stderr)")
    try h.writeMachineProfile(client: "ci-jwt", settings + "\nprivate_key_id = \"\(kid)\"")
    // A key readable by others is refused, naming its mode.
    chmod(key, 0o644)
    let open = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(open.status == 2 && open.stderr.contains("private_key_file \(key): mode 644"), "\(open.stderr)")
  }

  /// 100 calls, one request (kernel cache; both binaries answer from it); with the cache off, one each.
  @Test func manyCallsMakeOneRequestAndNoCacheMakesOneEach() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot")
    let secret = ["STRIVACITY_CLIENT_SECRET": Self.botSecret]
    var tokens = Set<String>()
    for index in 0..<100 {
      let result = try h.strivacity(
        ["token", "--profile", h.profile], environment: secret,
        binary: index % 10 == 0 ? "strivacity-cli" : "strivacity")
      #expect(result.status == 0, "\(result.stderr)")
      tokens.insert(result.stdout)
    }
    #expect(tokens.count == 1)
    #expect(h.clientCredentialsRequests == 1)
    var off = secret
    off["STRIVACITY_TOKEN_CACHE"] = "off"
    for _ in 0..<3 {
      #expect(try h.strivacity(["token", "--profile", h.profile], environment: off).status == 0)
    }
    #expect(h.clientCredentialsRequests == 4)
  }

  /// 32 processes with nothing cached: one request (the profile's lock).
  @Test func thirtyTwoProcessesAtOnceMakeOneRequest() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot")
    let results = Mutex<[ProcessResult]>([])
    DispatchQueue.concurrentPerform(iterations: 32) { _ in
      if let result = try? h.strivacity(
        ["token", "--profile", h.profile], environment: ["STRIVACITY_CLIENT_SECRET": Self.botSecret])
      {
        results.withLock { $0.append(result) }
      }
    }
    let all = results.withLock { $0 }
    #expect(all.count == 32 && all.allSatisfy { $0.status == 0 }, "\(all.map(\.stderr))")
    #expect(Set(all.map(\.stdout)).count == 1)
    #expect(h.clientCredentialsRequests == 1)
  }

  @Test func aSecretFileMustBeTheUsersAloneAndSmall() throws {
    let h = try Harness(journey: "machine")
    let path = try h.home.write("secret", Self.botSecret + "\n")
    try h.writeMachineProfile(client: "ci-bot", "client_secret_file = \"\(path)\"")
    let works = try h.strivacity(["token", "--profile", h.profile])
    #expect(works.status == 0, "\(works.stderr)")
    chmod(path, 0o640)
    let group = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(group.status == 2, "\(group.stderr)")
    #expect(
      group.stderr == "strivacity: error: client_secret_file \(path): mode 640 lets others read it: chmod 600 it\n")
    let big = try h.home.write("big", String(repeating: "x", count: 10 << 20))
    try h.writeMachineProfile(client: "ci-bot", "client_secret_file = \"\(big)\"")
    let tooBig = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(tooBig.status == 2 && tooBig.stderr.contains("10485760 bytes"), "\(tooBig.stderr)")
    try h.writeMachineProfile(client: "ci-bot", "client_secret_file = \"\(h.home.file("absent"))\"")
    let missing = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(missing.status == 2 && missing.stderr.contains("client_secret_file \(h.home.file("absent")): No such file"))
    // systemd's credentials directory.
    try h.writeMachineProfile(client: "ci-bot", "client_secret_file = \"$CREDENTIALS_DIRECTORY/bot\"")
    _ = try h.home.write("credentials/bot", Self.botSecret)
    let systemd = try h.strivacity(
      ["token", "--profile", h.profile, "--refresh"], environment: ["CREDENTIALS_DIRECTORY": h.home.file("credentials")]
    )
    #expect(systemd.status == 0, "\(systemd.stderr)")
  }

  @Test func aMissingVariableIsAConfigErrorNamingIt() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot", "client_secret_env = \"CI_BOT_SECRET\"")
    let result = try h.strivacity(["token", "--profile", h.profile])
    #expect(result.status == 2 && result.stdout.isEmpty)
    #expect(
      result.stderr == "strivacity: error: profile \(h.profile) takes its client secret from the environment variable "
        + "CI_BOT_SECRET, which is not set\n")
    #expect(h.clientCredentialsRequests == 0)
  }

  /// A wrong secret: its own exit code and message, one request (no retry), the secret nowhere.
  @Test(arguments: ["client_secret_basic", "client_secret_post"])
  func aRefusedSecretIsExitNineWithoutRetry(method: String) throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot", "token_endpoint_auth = \"\(method)\"")
    let wrong = "wrong:secret%+é"
    let result = try h.strivacity(["token", "--profile", h.profile], environment: ["STRIVACITY_CLIENT_SECRET": wrong])
    #expect(result.status == 9, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr.contains("the tenant refused the client secret for ci-bot (invalid_client"), "\(result.stderr)")
    #expect(result.stderr.contains("check the secret in STRIVACITY_CLIENT_SECRET"))
    #expect(!result.stderr.contains(wrong) && !result.stderr.contains("wrong"))
    #expect(h.clientCredentialsRequests == 1)
    let verbose = try h.strivacity(
      ["token", "--profile", h.profile, "--verbose"], environment: ["STRIVACITY_CLIENT_SECRET": Self.botSecret])
    #expect(verbose.status == 0, "\(verbose.stderr)")
    #expect(!verbose.stderr.contains(Self.botSecret) && !verbose.stderr.contains("s3cr"), "\(verbose.stderr)")
    let token = verbose.stdout.trimmingCharacters(in: .newlines)
    #expect(!verbose.stderr.contains(token))
  }

  /// APIs as for a signed-in profile: a token per API, with its audience and scopes.
  @Test func eachAPIGetsItsOwnToken() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(
      client: "ci-bot",
      """
      [profiles.\(h.profile).apis.orders]
      url = "https://api.example.com/orders/"
      audience = "https://api.example.com/orders"
      scopes = ["orders:read"]
      """)
    let secret = ["STRIVACITY_CLIENT_SECRET": Self.botSecret]
    let orders = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"], environment: secret)
    #expect(orders.status == 0, "\(orders.stderr)")
    let claims = Self.claims(orders.stdout.trimmingCharacters(in: .newlines))
    #expect(
      claims["aud"] == .string("https://api.example.com/orders")
        || claims["aud"]?.array?.contains(.string("https://api.example.com/orders")) == true, "\(claims)")
    #expect(claims["scope"]?.string?.split(separator: " ").contains("orders:read") == true, "\(claims)")
    let again = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"], environment: secret)
    #expect(again.stdout == orders.stdout)
    let adHoc = try h.strivacity(
      ["token", "--profile", h.profile, "--audience", "https://api.example.com/orders", "--scope", "orders:write"],
      environment: secret)
    #expect(adHoc.status == 0, "\(adHoc.stderr)")
    #expect(adHoc.stdout != orders.stdout)
    // Not allowed to this client: the tenant's refusal, exit 5, no sign-in offered.
    let refused = try h.strivacity(
      ["token", "--profile", h.profile, "--audience", "https://api.example.com/secret"], environment: secret)
    #expect(refused.status == 5, "\(refused.stderr)")
    #expect(refused.stderr.contains("invalid_target") && !refused.stderr.contains("login"), "\(refused.stderr)")
    #expect(h.clientCredentialsRequests == 3)
  }

  @Test func statusLogoutRevokeAndUserinfoSpeakOfAMachine() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot", "token_endpoint_auth = \"client_secret_basic\"")
    let secret = ["STRIVACITY_CLIENT_SECRET": Self.botSecret]
    let before = try h.strivacity(["status", "--profile", h.profile], environment: secret)
    #expect(before.status == 0, "\(before.stderr)")
    #expect(
      before.stdout.contains(
        "kind           machine profile: client credentials, client_secret_basic, secret from "
          + "STRIVACITY_CLIENT_SECRET"),
      "\(before.stdout)")
    #expect(before.stdout.contains("none yet"))
    #expect(try h.strivacity(["token", "--profile", h.profile], environment: secret).status == 0)
    let after = try h.strivacity(["status", "--profile", h.profile, "--json"], environment: secret)
    let report = try #require(JSONValue.parse(Array(after.stdout.utf8)))
    #expect(report["signed_in"] == true && report["store"] == "kernel", "\(after.stdout)")
    #expect(report["machine"]?["ready"] == true)
    #expect(!after.stdout.contains(Self.botSecret))
    // Without its secret: said, and still exit 0 while the token kept serves (`token` works).
    let missing = try h.strivacity(["status", "--profile", h.profile])
    #expect(missing.status == 0 && missing.stdout.contains("credentials    not usable: profile"), "\(missing.stdout)")
    #expect(missing.stdout.contains("access token   expires in"))
    let userinfo = try h.strivacity(["userinfo", "--profile", h.profile], environment: secret)
    #expect(userinfo.status == 2 && userinfo.stderr.contains("there is no user"), "\(userinfo.stderr)")
    let revoke = try h.strivacity(["revoke", "--profile", h.profile], environment: secret)
    #expect(revoke.status == 0, "\(revoke.stderr)")
    #expect(revoke.stderr.contains("revoked the access token"), "\(revoke.stderr)")
    let token = try h.strivacity(["token", "--profile", h.profile], environment: secret)
    #expect(token.status == 0)
    #expect(h.clientCredentialsRequests == 2, "revoke forgot the token here too")
    let logout = try h.strivacity(["logout", "--profile", h.profile], environment: secret)
    #expect(logout.status == 0, "\(logout.stderr)")
    let nothing = try h.strivacity(["logout", "--profile", h.profile], environment: secret)
    #expect(nothing.stderr.contains("holds no tokens"), "\(nothing.stderr)")
  }

  /// `login --client-secret-stdin`: checked by one request, then kept in the keyring; a wrong one
  /// is not stored; logout forgets it.
  @Test func aSecretFromStdinIsCheckedThenKeptInTheKeyring() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot")
    let wrong = try run(
      [TestEnvironment.binary("strivacity"), "login", "--profile", h.profile, "--client-secret-stdin"],
      environment: h.environment, stdin: "nope\n")
    #expect(wrong.status == 9, "\(wrong.stderr)")
    #expect(try h.keyringItemCount() == 0)
    let login = try run(
      [TestEnvironment.binary("strivacity"), "login", "--profile", h.profile, "--client-secret-stdin"],
      environment: h.environment, stdin: Self.botSecret + "\n")
    #expect(login.status == 0, "\(login.stderr)")
    #expect(login.stderr.contains("works") && login.stderr.contains("kept in the keyring"), "\(login.stderr)")
    #expect(try h.keyringItemCount() == 1)
    let token = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(token.status == 0, "\(token.stderr)")
    let status = try h.strivacity(["status", "--profile", h.profile])
    #expect(status.stdout.contains("secret from the keyring"), "\(status.stdout)")
    let logout = try h.strivacity(["logout", "--profile", h.profile])
    #expect(logout.status == 0 && logout.stderr.contains("the stored client secret"), "\(logout.stderr)")
    #expect(try h.keyringItemCount() == 0)
    let gone = try h.strivacity(["token", "--profile", h.profile])
    #expect(gone.status == 2 && gone.stderr.contains("--client-secret-stdin"), "\(gone.stderr)")
  }

  /// A CI job: no session bus, a HOME with nothing in it, no runtime directory: tokens from the
  /// kernel's keyring, nothing written under HOME.
  @Test func aCIJobNeedsNoSessionBusAndWritesNothing() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot")
    let config = h.home.configPath
    let empty = try ScratchDirectory("ci-home")
    let environment = [
      "HOME": empty.path, "PATH": "/usr/bin:/bin", "STRIVACITY_CONFIG": config,
      "STRIVACITY_CLIENT_SECRET": Self.botSecret,
    ]
    for _ in 0..<3 {
      let result = try run(
        [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile], environment: environment)
      #expect(result.status == 0, "\(result.stderr)")
    }
    #expect(h.clientCredentialsRequests == 1)
    let status = try run(
      [TestEnvironment.binary("strivacity"), "status", "--profile", h.profile], environment: environment)
    #expect(status.status == 0, "\(status.stderr)")
    let logout = try run(
      [TestEnvironment.binary("strivacity"), "logout", "--profile", h.profile], environment: environment)
    #expect(logout.status == 0, "\(logout.stderr)")
    // Only the profile's lock (no runtime directory here): an empty file.
    for entry in empty.listing() {
      var info = stat()
      #expect(lstat(empty.file(entry), &info) == 0)
      #expect(info.st_mode & S_IFMT == S_IFDIR || (entry.hasSuffix(".lock") && info.st_size == 0), "\(entry)")
    }
  }

  /// The secret is in no child's argv or environment (the curl that `strivacity curl` runs; a
  /// stand-in records its own /proc/self/cmdline and environ, and its parent's), and not in
  /// strivacity's own environment block once it was taken.
  @Test func theSecretIsInNoChildsArgvOrEnvironment() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot")
    let bin = h.home.file("bin")
    let dump = h.home.file("dump")
    _ = try h.home.write(
      "bin/curl",
      """
      #!/bin/sh
      for f in /proc/$$/cmdline /proc/$$/environ /proc/$PPID/cmdline /proc/$PPID/environ; do
        cat "$f" >> \(dump) 2>/dev/null
      done
      exec /usr/bin/curl "$@"
      """, mode: 0o700)
    let result = try h.strivacity(
      ["curl", "--profile", h.profile, "-s", h.emulator.issuer + ".well-known/openid-configuration"],
      environment: ["STRIVACITY_CLIENT_SECRET": Self.botSecret, "PATH": bin + ":/usr/local/bin:/usr/bin:/bin"])
    #expect(result.status == 0, "\(result.stderr)")
    let recorded = try String(contentsOfFile: dump, encoding: .isoLatin1)
    #expect(recorded.contains("curl"), "the stand-in ran")
    #expect(!recorded.contains("s3cr"), "the secret reached a child or stayed in the environment block")
    #expect(!recorded.contains("STRIVACITY_CLIENT_SECRET=c"))
  }
  /// The agent keeps a machine's tokens when the secret is in a file (the kernel cache off, so
  /// only the agent can answer): one request for many calls, the API's too. A profile whose
  /// secret is in the caller's environment is not sent to the agent.
  @Test func theAgentKeepsAMachinesTokens() throws {
    let h = try Harness(journey: "machine")
    let path = try h.home.write("secret", Self.botSecret)
    try h.writeMachineProfile(
      client: "ci-bot",
      """
      client_secret_file = "\(path)"

      [profiles.\(h.profile).apis.orders]
      url = "https://api.example.com/orders/"
      audience = "https://api.example.com/orders"
      scopes = ["orders:read"]
      """)
    try h.startAgent()
    let off = ["STRIVACITY_TOKEN_CACHE": "off"]
    var seen = Set<String>()
    for arguments in [["token"], ["token"], ["token", "--api", "orders"], ["token", "--api", "orders"], ["token"]] {
      let result = try h.strivacity(arguments + ["--profile", h.profile], environment: off)
      #expect(result.status == 0, "\(result.stderr)")
      seen.insert(result.stdout)
    }
    #expect(seen.count == 2)
    #expect(h.clientCredentialsRequests == 2)
    let status = try h.strivacity(["status", "--profile", h.profile], environment: off)
    #expect(status.stdout.contains("running (pid"), "\(status.stdout)")
    // The secret in the caller's environment: asked here, not of the agent.
    try h.writeMachineProfile(client: "ci-bot")
    let here = try h.strivacity(
      ["token", "--profile", h.profile, "--verbose"],
      environment: off.merging(["STRIVACITY_CLIENT_SECRET": Self.botSecret]) { _, new in new })
    #expect(here.status == 0, "\(here.stderr)")
    #expect(!here.stderr.contains("agent"), "\(here.stderr)")
  }

  /// kubectl's exec credential and git's `get` take the machine's token like any other.
  @Test func kubectlAndGitTakeTheMachinesToken() throws {
    let h = try Harness(journey: "machine")
    let host = String(h.emulator.issuer.dropFirst("http://".count).dropLast())
    try h.writeMachineProfile(client: "ci-bot", "git_hosts = [\"\(host)\"]")
    let secret = ["STRIVACITY_CLIENT_SECRET": Self.botSecret]
    let exec = try h.strivacity(
      ["token", "--profile", h.profile, "--format", "exec-credential"],
      environment: secret.merging([
        "KUBERNETES_EXEC_INFO":
          #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}}"#
      ]) { _, new in new })
    #expect(exec.status == 0, "\(exec.stderr)")
    let credential = try #require(JSONValue.parse(Array(exec.stdout.utf8)))
    let token = try #require(credential["status"]?["token"]?.string)
    let git = try run(
      [TestEnvironment.binary("strivacity"), "credential", "get"],
      environment: h.environment.merging(secret) { _, new in new }, stdin: "protocol=http\nhost=\(host)\n\n")
    #expect(git.status == 0, "\(git.stderr)")
    #expect(git.stdout.contains("password=\(token)"), "\(git.stdout)")
    #expect(h.clientCredentialsRequests == 1)
    let idToken = try h.strivacity(["token", "--profile", h.profile, "--id-token"], environment: secret)
    #expect(idToken.status == 2 && idToken.stderr.contains("has no ID token"), "\(idToken.stderr)")
  }
  /// `store = "file"`: the tokens and a secret from stdin in 0600 files; revoke keeps the secret,
  /// logout deletes it.
  @Test func theFileStoreKeepsAMachinesTokensAndSecret() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot", "store = \"file\"")
    let login = try run(
      [TestEnvironment.binary("strivacity"), "login", "--profile", h.profile, "--client-secret-stdin"],
      environment: h.environment, stdin: Self.botSecret)
    #expect(login.status == 0 && login.stderr.contains("kept in the file store"), "\(login.stderr)")
    #expect(try h.keyringItemCount() == 0)
    let files = h.home.listing().filter { $0.contains(h.profile) && !$0.hasSuffix(".lock") }
    #expect(files.count == 2, "\(files)")
    for file in files {
      var info = stat()
      #expect(stat(h.home.file(file), &info) == 0 && info.st_mode & 0o777 == 0o600, "\(file)")
      #expect(!(try String(contentsOfFile: h.home.file(file), encoding: .utf8)).contains("s3cr"), "\(file)")
    }
    let revoke = try h.strivacity(["revoke", "--profile", h.profile])
    #expect(revoke.status == 0, "\(revoke.stderr)")
    let again = try h.strivacity(["token", "--profile", h.profile])
    #expect(again.status == 0, "the secret survived revoke: \(again.stderr)")
    let logout = try h.strivacity(["logout", "--profile", h.profile])
    #expect(logout.status == 0 && logout.stderr.contains("the stored client secret"), "\(logout.stderr)")
    #expect(h.home.listing().filter { $0.contains(h.profile) && !$0.hasSuffix(".lock") }.isEmpty)
  }
  /// Not dumpable while it holds a secret: run as an unprivileged user (setpriv; the tests run as
  /// root), the curl that `strivacity curl` starts, same user, cannot read its parent's
  /// /proc/PID/environ (it can read its own).
  @Test func strivacityIsNotDumpableWhileItHoldsASecret() throws {
    guard getuid() == 0 else { return }  // needs to become another user; CI runs as root
    let h = try Harness(journey: "machine")
    let dir = try ScratchDirectory("undumpable")
    let nobody: uid_t = 65534
    for name in ["strivacity", "strivacity-cli"] {
      try copyExecutable(TestEnvironment.binary(name), to: dir.file(name))
    }
    _ = try dir.write(
      "config.toml",
      """
      [profiles.ci]
      tenant = "\(h.emulator.issuer)"
      client_id = "ci-bot"
      grant = "client_credentials"
      """, mode: 0o644)
    _ = try dir.write(
      "bin/curl",
      """
      #!/bin/sh
      dump=\(dir.file("dump"))
      head -c 1 /proc/$$/environ >/dev/null 2>&1 && echo "own environ readable" >> "$dump"
      head -c 1 /proc/$PPID/environ >/dev/null 2>&1 && echo "parent environ readable" >> "$dump"
      head -c 1 /proc/$PPID/environ 2>&1 | grep -q "Permission denied" && echo "parent environ denied" >> "$dump"
      exec /usr/bin/curl "$@"
      """, mode: 0o755)
    for entry in [""] + dir.listing() { chown(dir.file(entry), nobody, nobody) }
    let result = try run(
      [
        "/usr/bin/setpriv", "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--",
        dir.file("strivacity"), "curl", "--profile", "ci", "-s", "-o", "/dev/null",
        h.emulator.issuer + ".well-known/openid-configuration",
      ],
      environment: [
        "HOME": dir.path, "PATH": dir.file("bin") + ":/usr/bin:/bin", "STRIVACITY_CONFIG": dir.file("config.toml"),
        "STRIVACITY_CLIENT_SECRET": Self.botSecret, "XDG_RUNTIME_DIR": dir.file("run"),
      ])
    #expect(result.status == 0, "\(result.stderr)")
    let dump = (try? String(contentsOfFile: dir.file("dump"), encoding: .utf8)) ?? ""
    #expect(dump.contains("own environ readable"), "\(dump)")
    #expect(dump.contains("parent environ denied") && !dump.contains("parent environ readable"), "\(dump)")
  }
  /// A secret with a newline, a space, `:`, `%`, `+`, `&`, `=` and non-ASCII (set at the tenant
  /// at run time): through Basic and Post, from the environment and from a file.
  @Test(arguments: ["client_secret_basic", "client_secret_post"])
  func anySecretTextWorks(method: String) throws {
    let h = try Harness(journey: "machine")
    let secret = "line one\nline:two %41+&=é€"
    let replaced = try CurlHTTPClient().send(
      HTTPRequest(method: "POST", url: h.emulator.issuer + "_emulator/clients/ci-bot/secret", body: Array(secret.utf8)))
    #expect(replaced.status == 204, "\(replaced.bodyText)")
    try h.writeMachineProfile(client: "ci-bot", "token_endpoint_auth = \"\(method)\"")
    let fromEnvironment = try h.strivacity(
      ["token", "--profile", h.profile], environment: ["STRIVACITY_CLIENT_SECRET": secret])
    #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
    let path = try h.home.write("secret", secret + "\n")
    try h.writeMachineProfile(
      client: "ci-bot", "token_endpoint_auth = \"\(method)\"\nclient_secret_file = \"\(path)\"")
    let fromFile = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(fromFile.status == 0, "\(fromFile.stderr)")
    #expect(h.clientCredentialsRequests == 2)
  }
}

import Foundation
import LoopbackHTTP
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

/// A kept secret (setup-proxy's password, here, beside a signed-in profile's tokens in the
/// keyring) is never served, revoked or deleted as a token (issue 37, point 2): no API name a
/// user or an API's metadata chooses reaches it, revoke does not send it to the tenant nor delete
/// it (nothing is deleted and put back), and logout deletes it.
@Suite struct KeptSecretTests {
  static let password = "pa ss:wörd"

  /// The harness signed in, with the proxy password kept.
  func keptPassword() throws -> Harness {
    let h = try Harness(journey: "password")
    try h.signIn()
    let setup = try run(
      [
        TestEnvironment.binary("strivacity"), "setup-proxy", "--profile", h.profile, "--user", "alice",
        "--password-stdin",
      ],
      environment: h.environment, stdin: Self.password + "\n")
    #expect(setup.status == 0 && setup.stderr.contains("kept in the keyring"), "\(setup.stderr)")
    return h
  }

  /// What of the password could leak: as typed, and as it is kept (base64url of its bytes).
  static var forms: [String] {
    let encoded = Data(password.utf8).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
    return [password, encoded]
  }

  func expectNoPassword(_ result: ProcessResult, _ what: String) {
    for form in Self.forms {
      #expect(!result.stdout.contains(form) && !result.stderr.contains(form), "\(what) showed the password")
    }
  }

  func kept(_ h: Harness) throws -> Bool {
    let lookup = try run(
      ["/usr/bin/secret-tool", "lookup", "profile", h.profile, "kept", "proxy-password"], environment: h.environment)
    return lookup.status == 0 && !lookup.stdout.isEmpty
  }

  @Test func revokeSendsOnlyTokensAndLogoutDeletesThePassword() throws {
    let h = try keptPassword()
    let before = try h.stats()["revocations"]?.int ?? 0
    let revoke = try h.strivacity(["revoke", "--profile", h.profile])
    #expect(revoke.status == 0, "\(revoke.stderr)")
    // The refresh token and the access token: no "API access token" that was the password.
    #expect(try h.stats()["revocations"]?.int == before + 2)
    #expect(!revoke.stderr.contains("API access token"), "\(revoke.stderr)")
    expectNoPassword(revoke, "revoke")
    #expect(try kept(h), "revoke deleted the proxy password")
    // A second sign-in that drops the API tokens of the first keeps it too.
    try h.signIn()
    #expect(try kept(h))
    let logout = try h.strivacity(["logout", "--profile", h.profile])
    #expect(logout.status == 0 && logout.stderr.contains("the kept proxy password"), "\(logout.stderr)")
    #expect(try !kept(h), "logout kept the proxy password")
  }

  @Test(arguments: ["proxy.password", "Proxy.Password", "machine.secret", "proxy.other"])
  func anAPITableOfAReservedNameIsRefused(_ name: String) throws {
    let h = try keptPassword()
    let base = h.emulator.issuer + "resources/orders/"
    try h.writeProfile("\n[profiles.\(h.profile).apis.\"\(name)\"]\nurl = \"\(base)\"\n")
    for arguments in [
      ["token", "--profile", h.profile, "--api", name], ["curl", "--profile", h.profile, "-sS", base + "1"],
      ["exec", "--profile", h.profile, "--api", name, "--", "/usr/bin/env"],
    ] {
      let result = try h.strivacity(arguments)
      #expect(result.status == 2, "\(arguments[0]): \(result.stderr)")
      #expect(result.stderr.contains("are kept for strivacity's own items"), "\(arguments[0]): \(result.stderr)")
      expectNoPassword(result, arguments[0])
    }
    #expect(try h.stats()["resource_requests"]?["orders"]?.int ?? 0 == 0, "the API was called")
  }

  /// setup-api takes a name from --name, the metadata's resource_name or the URL's last segment:
  /// a reserved one from any of them is never written.
  @Test func setupAPINeverNamesAnAPIAfterAKeptSecret() throws {
    let h = try keptPassword()
    let issuer = h.emulator.issuer
    let base = Mutex("")
    let api = try CurlChallengeTests.ScriptedAPI([
      { _ in
        let resource = base.withLock { $0 } + "/proxy.password/"
        return ServerReply(
          status: 200, contentType: "application/json",
          text: #"{"resource":"\#(resource)","authorization_servers":["\#(issuer)"],"resource_name":"proxy.password"}"#)
      }
    ])
    base.withLock { $0 = api.base }
    let url = api.base + "/proxy.password/"
    let config = h.home.configPath
    let before = try String(contentsOfFile: config, encoding: .utf8)
    let named = try h.strivacity(["setup-api", "--profile", h.profile, url])
    #expect(named.status == 2 && named.stderr.contains("give one with --name"), "\(named.stderr)")
    for name in ["proxy.password", "Machine.Secret", "adhoc.1"] {
      let given = try h.strivacity(["setup-api", "--profile", h.profile, "--name", name, url])
      #expect(given.status == 2 && given.stderr.contains("may not start with"), "\(given.stderr)")
    }
    // With a name of its own it is written, and gets a token of its own, not the password.
    let chosen = try h.strivacity(["setup-api", "--profile", h.profile, "--name", "shop", url])
    #expect(chosen.status == 0, "\(chosen.stderr)")
    #expect(try String(contentsOfFile: config, encoding: .utf8) != before)
    let token = try h.strivacity(["token", "--profile", h.profile, "--api", "shop"])
    expectNoPassword(token, "token --api shop")
  }

  /// Secrets an earlier version kept as token sets (slots `machine.secret` and `proxy.password`)
  /// are still found (issue 38, point 3): the client secret signs the machine in and is moved to a
  /// kept secret's item; logout deletes both, the one never read too.
  @Test func secretsKeptTheOldWayAreFoundAndLogoutDeletesThem() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot")
    func storeTheOldWay(_ secret: String, slot: String) throws {
      let encoded = Data(secret.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
      let tokens: JSONValue = [
        "v": 1, "tokens": ["access_token": .string(encoded), "token_type": "Bearer", "obtained_at": 1_800_000_000],
      ]
      let stored = try run(
        [
          "/usr/bin/secret-tool", "store", "--label", "strivacity: \(h.profile) \(slot) (\(h.emulator.issuer))",
          "xdg:schema", "com.strivacity.cli.TokenSet", "profile", h.profile, "issuer", h.emulator.issuer, "client_id",
          "ci-bot", "slot", slot,
        ],
        environment: h.environment, stdin: tokens.text)
      #expect(stored.status == 0, "\(stored.stderr)")
    }
    try storeTheOldWay(MachineProfileTests.botSecret, slot: "machine.secret")
    try storeTheOldWay(Self.password, slot: "proxy.password")
    let token = try h.strivacity(["token", "--profile", h.profile])
    #expect(token.status == 0, "\(token.stderr)")
    #expect(h.clientCredentialsRequests == 1)
    let listed = try run(["/usr/bin/secret-tool", "search", "--all", "profile", h.profile], environment: h.environment)
    let items = listed.stdout + listed.stderr
    #expect(items.contains("attribute.kept = client-secret") && !items.contains("slot = machine.secret"), "\(items)")
    let logout = try h.strivacity(["logout", "--profile", h.profile])
    #expect(logout.status == 0, "\(logout.stderr)")
    #expect(logout.stderr.contains("the stored client secret") && logout.stderr.contains("the kept proxy password"))
    #expect(try h.keyringItemCount() == 0)
  }
}

// API tokens (issue 27) against an authorization server nobody here wrote: Debian's glewlwyd,
// which does RFC 8707 resource indicators, set up and started by Scripts/outside-as in a scratch
// directory, signed in to through its own login API by Tests/Support/outside-as-browser, and
// stopped by its PID. The emulator's tests say what strivacity does; these say that a real
// server understands it the same way.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

/// The running server (Scripts/outside-as's `key=value` lines); stopped when it goes away.
final class OutsideAuthorizationServer: @unchecked Sendable {
  let directory: ScratchDirectory
  let values: [String: String]
  static let script = TestEnvironment.repositoryRoot.appendingPathComponent("Scripts/outside-as").path

  init() throws {
    directory = try ScratchDirectory("outside-as")
    let started = try run([Self.script, directory.file("server")], environment: ["PATH": "/usr/bin:/bin"])
    var values: [String: String] = [:]
    for line in started.stdout.split(separator: "\n") {
      guard let equals = line.firstIndex(of: "=") else { continue }
      values[String(line[..<equals])] = String(line[line.index(after: equals)...])
    }
    self.values = values
    guard started.status == 0, values["pid"] != nil else {
      stop()
      throw TestFailure("Scripts/outside-as failed (\(started.status)): \(started.stderr)")
    }
  }

  deinit { stop() }

  func stop() {
    _ = try? run([Self.script, "stop", directory.file("server")], environment: ["PATH": "/usr/bin:/bin"])
  }

  subscript(_ key: String) -> String { values[key] ?? "" }

  /// How glewlwyd issued the access token with this `jti`, from its own database: the grant
  /// (6: refresh token) and the resource it was issued for.
  func issued(jti: String) throws -> String {
    try accessTokenRecord(jti: jti, "gpoa_authorization_type || ' ' || ifnull(gpoa_resource, '-')")
  }

  /// `columns` (an SQL expression) of glewlwyd's row for the access token with this `jti`.
  func accessTokenRecord(jti: String, _ columns: String) throws -> String {
    try #require(!jti.isEmpty && jti.allSatisfy { $0.isLetter || $0.isNumber }, "a plain jti: \(jti)")
    let query = "SELECT \(columns) FROM gpo_access_token WHERE gpoa_jti = '\(jti)'"
    let result = try run(["/usr/bin/sqlite3", self["db"], query], environment: ["PATH": "/usr/bin:/bin"])
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

extension Trait where Self == ConditionTrait {
  /// The outside server's suites run where glewlwyd is installed, or where skipping them was not
  /// asked for (STRIVACITY_SKIP_OUTSIDE_AS=1): a machine meant to run them fails without it.
  static var outsideServerInstalled: Self {
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/glewlwyd")
        || ProcessInfo.processInfo.environment["STRIVACITY_SKIP_OUTSIDE_AS"] != "1",
      "glewlwyd is not installed and STRIVACITY_SKIP_OUTSIDE_AS=1")
  }
}

@Suite(.serialized, .outsideServerInstalled)
struct OutsideAuthorizationServerTests {
  static let orders = "https://api.example.com/orders/"
  static let billing = "https://api.example.com/billing/"
  static let profile = "outside"

  func environment(_ server: OutsideAuthorizationServer, home: ScratchDirectory) -> [String: String] {
    var env = [
      "HOME": home.path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "NO_COLOR": "1",
      "BROWSER": TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Support/outside-as-browser").path,
      "OUTSIDE_AS_USER": server["user"], "OUTSIDE_AS_PASSWORD_FILE": server["password_file"],
      "STANDIN_LOG": home.file("browser.log"),
    ]
    env["DBUS_SESSION_BUS_ADDRESS"] = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
    return env
  }

  /// The profile on the server, with its two APIs (and `more`).
  func writeConfig(_ server: OutsideAuthorizationServer, home: ScratchDirectory, _ more: String = "") throws {
    try home.writeConfig(
      StrivacityConfig.profile(Self.profile, tenant: server["issuer"], clientID: server["client_id"])
        + """
        redirect_uri = "\(server["redirect_uri"])"

        [profiles.\(Self.profile).apis.orders]
        url = "\(Self.orders)"
        resource = ["\(Self.orders)"]
        scopes = ["orders:read"]

        [profiles.\(Self.profile).apis.billing]
        url = "\(Self.billing)"
        resource = ["\(Self.billing)"]
        scopes = ["billing:read"]
        \(more)
        """)
  }

  func claims(_ token: String) throws -> JSONValue { try jwtClaims(token) }

  /// `aud` as a list (a string or an array), `scope` as a list.
  func audiences(_ claims: JSONValue) -> [String] {
    claims["aud"]?.string.map { [$0] } ?? claims["aud"]?.array?.compactMap(\.string) ?? []
  }
  func scopes(_ claims: JSONValue) -> [String] {
    (claims["scope"]?.string ?? "").split(separator: " ").map(String.init)
  }

  /// Signed in on the server's own login (the APIs' resources asked at the authorization
  /// endpoint), each API gets a token for it by the refresh grant with its resource and scope —
  /// as the server's own records say — kept apart from the sign-in's, which still works; a
  /// resource the server does not know is its refusal, one line naming the API and parameter.
  @Test func apiTokensFromAnOutsideServer() throws {
    try #require(TestEnvironment.hasRealKeyring, "run through `make test`: end-to-end tests need the real keyring")
    let server = try OutsideAuthorizationServer()
    defer { server.stop() }
    let home = try ScratchDirectory("outside-as-home")
    try writeConfig(server, home: home)
    let env = environment(server, home: home)
    func strivacity(_ arguments: [String]) throws -> ProcessResult {
      try run([TestEnvironment.binary("strivacity")] + arguments, environment: env)
    }
    let login = try strivacity(["login", "--profile", Self.profile, "--browser"])
    let browserLog = (try? String(contentsOfFile: home.file("browser.log"), encoding: .utf8)) ?? ""
    try #require(login.status == 0, "\(login.stderr)\n\(browserLog)")
    // The default scopes and the APIs' (glewlwyd leaves out those it does not know).
    #expect(browserLog.contains("grant 'openid profile offline_access orders:read billing:read' 200"), "\(browserLog)")

    let own = try strivacity(["token", "--profile", Self.profile])
    #expect(own.status == 0 && !own.stdout.isEmpty, "\(own.stderr)")

    let orders = try strivacity(["token", "--profile", Self.profile, "--api", "orders"])
    #expect(orders.status == 0, "\(orders.stderr)")
    let ordersClaims = try claims(orders.stdout)
    #expect(audiences(ordersClaims).contains(Self.orders), "\(ordersClaims)")
    #expect(scopes(ordersClaims).contains("orders:read"), "\(ordersClaims)")

    let billing = try strivacity(["token", "--profile", Self.profile, "--api", "billing"])
    #expect(billing.status == 0, "\(billing.stderr)")
    let billingClaims = try claims(billing.stdout)
    #expect(audiences(billingClaims).contains(Self.billing), "\(billingClaims)")
    #expect(scopes(billingClaims).contains("billing:read"), "\(billingClaims)")
    #expect(billing.stdout != orders.stdout && orders.stdout != own.stdout && billing.stdout != own.stdout)

    // The server's own record: each API's token came from the refresh grant (type 6), issued for
    // the resource strivacity sent with it. (Had no resource been sent, glewlwyd would have put
    // the scope list in aud, the sign-in having asked for two resources.)
    #expect(try server.issued(jti: claims(orders.stdout)["jti"]?.string ?? "") == "6 \(Self.orders)")
    #expect(try server.issued(jti: billingClaims["jti"]?.string ?? "") == "6 \(Self.billing)")

    // Kept: asked again, the same tokens; the sign-in's own token is untouched and renews.
    #expect(try strivacity(["token", "--profile", Self.profile, "--api", "orders"]).stdout == orders.stdout)
    #expect(try strivacity(["token", "--profile", Self.profile]).stdout == own.stdout)
    let renewed = try strivacity(["token", "--profile", Self.profile, "--refresh"])
    #expect(renewed.status == 0 && renewed.stdout != own.stdout, "\(renewed.stderr)")

    // An API whose resource the server does not know (configured after the sign-in): the
    // server's invalid_target, one line naming the API and the parameter, exit 3.
    try writeConfig(
      server, home: home,
      """

      [profiles.\(Self.profile).apis.shipping]
      url = "https://api.example.com/shipping/"
      resource = ["https://api.example.com/shipping/"]
      scopes = ["orders:read"]
      """)
    let unknown = try strivacity(["token", "--profile", Self.profile, "--api", "shipping"])
    expectInvalidTarget(unknown, api: "shipping", resource: "https://api.example.com/shipping/")
    // The others are unharmed.
    #expect(try strivacity(["token", "--profile", Self.profile, "--api", "billing"]).stdout == billing.stdout)
  }

  /// What this server does not do, strivacity does not paper over: glewlwyd ignores `audience`
  /// (its aud is the resource) and the refresh grant's `scope` (the token has every consented
  /// scope, and none more), so a token that would not be for the API is refused, not handed out.
  @Test func aTokenNotForTheAPIIsRefused() throws {
    try #require(TestEnvironment.hasRealKeyring, "run through `make test`: end-to-end tests need the real keyring")
    let server = try OutsideAuthorizationServer()
    defer { server.stop() }
    let home = try ScratchDirectory("outside-as-home")
    try writeConfig(
      server, home: home,
      """

      [profiles.\(Self.profile).apis.audience]
      url = "https://api.example.com/orders/v2/"
      audience = "https://api.example.com/orders"
      resource = ["\(Self.orders)"]
      scopes = ["orders:read"]
      """)
    let env = environment(server, home: home)
    func strivacity(_ arguments: [String]) throws -> ProcessResult {
      try run([TestEnvironment.binary("strivacity")] + arguments, environment: env)
    }
    let login = try strivacity(["login", "--profile", Self.profile, "--browser"])
    try #require(login.status == 0, "\(login.stderr)")
    let audience = try strivacity(["token", "--profile", Self.profile, "--api", "audience"])
    #expect(audience.status == 5 && audience.stdout.isEmpty)
    #expect(
      audience.stderr
        == "strivacity: error: API audience: the tenant's token is not for audience https://api.example.com/orders "
        + "(it has aud \(Self.orders)); it was not kept\n")
    let scope = try strivacity(["token", "--profile", Self.profile, "--api", "billing", "--scope", "orders:write"])
    #expect(scope.status == 5 && scope.stdout.isEmpty)
    #expect(
      scope.stderr
        == "strivacity: error: API billing: the tenant's token lacks the scope orders:write that was asked; "
        + "it was not kept\n")
    let status = try strivacity(["status", "--profile", Self.profile])
    #expect(status.stdout.contains("api audience   no token yet"), "\(status.stdout)")
    #expect(status.stdout.contains("api billing    no token yet"), "\(status.stdout)")
  }
}

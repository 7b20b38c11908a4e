// Issue 46, point 5, in-process: a kept API token is handed out only while the API's audience,
// resources and scopes are the ones it was asked with. After one of them changes in the config,
// the next ask is a new token request with the new parameters, for a person's profile (the
// refresh grant narrowed to the API), a machine's (client credentials), and a token asked with
// scopes besides the API's own; what does not aim the token (url, username) asks nothing anew.
import Broker
import Foundation
import StrivacityConfig
import StrivacityCore
import Synchronization
import Testing

@Suite struct APISettingsChangeTests {
  static let fresh = Freshness(seconds: 60, explicit: false)

  /// The `orders` API's table before and after one change, and what the token request after it
  /// sends (nil: no request is expected).
  struct Change: Sendable, CustomTestStringConvertible {
    var name: String
    var before: String
    var after: String
    var sent: [String: String]?
    var testDescription: String { name }
  }

  static let base = """
    url = "https://api.example.com/orders/"
    resource = ["https://api.example.com/orders/"]
    scopes = ["orders:read"]
    """

  static let changes: [Change] = [
    Change(
      name: "audience added", before: base, after: base + "\naudience = \"https://api.example.com/orders\"",
      sent: ["audience": "https://api.example.com/orders", "resource": "https://api.example.com/orders/"]),
    Change(
      name: "audience changed", before: base + "\naudience = \"https://a.example/one\"",
      after: base + "\naudience = \"https://a.example/two\"", sent: ["audience": "https://a.example/two"]),
    Change(
      name: "resource changed", before: base,
      after: base.replacingOccurrences(of: "example.com/orders/\"]", with: "example.com/v2/orders/\"]"),
      sent: ["resource": "https://api.example.com/v2/orders/"]),
    Change(
      name: "scope added", before: base,
      after: base.replacingOccurrences(of: "[\"orders:read\"]", with: "[\"orders:read\", \"orders:write\"]"),
      sent: ["scope": "orders:read orders:write"]),
    Change(
      name: "scope removed",
      before: base.replacingOccurrences(of: "[\"orders:read\"]", with: "[\"orders:read\", \"orders:write\"]"),
      after: base, sent: ["scope": "orders:read"]),
    Change(
      name: "url and username changed", before: base,
      after: base.replacingOccurrences(of: "/orders/\"\nresource", with: "/v1/orders/\"\nresource")
        + "\nusername = \"robot\"",
      sent: nil),
    Change(
      name: "scopes reordered",
      before: base.replacingOccurrences(of: "[\"orders:read\"]", with: "[\"orders:read\", \"orders:write\"]"),
      after: base.replacingOccurrences(of: "[\"orders:read\"]", with: "[\"orders:write\", \"orders:read\"]"),
      sent: nil),
  ]

  /// A person's profile with `orders` as `table` says.
  static func person(_ table: String) -> String {
    """
    [profiles.work]
    tenant = "https://tenant.example"
    client_id = "cli"

    [profiles.work.apis.orders]
    \(table)

    """
  }

  /// A machine profile (its secret in CI_SECRET) with `orders` as `table` says.
  static func machine(_ table: String) -> String {
    machineProfile + "\n[profiles.ci.apis.orders]\n\(table)\n"
  }

  /// A tenant whose every token answer is a new access token (at-api-1, at-api-2, …) with the
  /// scope asked.
  static func tenant() -> FakeTenant {
    let issued = Mutex(0)
    return FakeTenant { form in
      FakeTenant.tokens("at-api-\(issued.withLock { count in count += 1; return count })", scope: form["scope"])
    }
  }

  func bench(_ config: String, profile: String) throws -> Bench {
    let bench = try Bench(profile: config, tenant: Self.tenant(), environment: ["CI_SECRET": "s3cret"])
    if profile == "work" {
      try bench.signedIn(
        TokenSet(accessToken: "at-1", refreshToken: "rt-1", expiresAt: bench.now + 3600, obtainedAt: bench.now),
        "work")
    }
    return bench
  }

  /// `profile`'s orders token, by a broker made anew (as a command makes one, reading the config).
  func ordersToken(_ bench: Bench, _ profile: String, extraScopes: [Scope] = []) throws -> String {
    let broker = try bench.broker(profile)
    let orders = try #require(broker.resolved.profile.api(named: "orders"))
    return try broker.apiTokens(orders, Self.fresh, extraScopes: extraScopes).accessToken.value
  }

  func rewrite(_ bench: Bench, _ config: String) throws {
    try config.write(toFile: bench.directory + "/config.toml", atomically: true, encoding: .utf8)
  }

  /// Kept between asks; one parameter changed: a new request with it, never the old token; then
  /// the new token is the one kept.
  func expectANewTokenAfter(_ change: Change, profile: String, config: (String) -> String) throws {
    let bench = try bench(config(change.before), profile: profile)
    let first = try ordersToken(bench, profile)
    #expect(try ordersToken(bench, profile) == first)
    #expect(bench.tenant.tokenRequests.count == 1)
    try rewrite(bench, config(change.after))
    let second = try ordersToken(bench, profile)
    guard let sent = change.sent else {
      #expect(second == first, "nothing that aims the token changed")
      #expect(bench.tenant.tokenRequests.count == 1)
      return
    }
    #expect(second != first, "the token minted for the old settings was handed out")
    #expect(bench.tenant.tokenRequests.count == 2)
    let request = try #require(bench.tenant.tokenRequests.last)
    for (name, value) in sent { #expect(request[name] == value, "\(name): \(request)") }
    #expect(try ordersToken(bench, profile) == second && bench.tenant.tokenRequests.count == 2)
  }

  @Test(arguments: changes) func aPersonsChangedAPIGetsANewToken(_ change: Change) throws {
    try expectANewTokenAfter(change, profile: "work", config: Self.person)
  }

  @Test(arguments: changes) func aMachinesChangedAPIGetsANewToken(_ change: Change) throws {
    try expectANewTokenAfter(change, profile: "ci", config: Self.machine)
  }

  /// A token asked with scopes besides the API's own is the API's too: its audience changed, it
  /// is asked for again.
  @Test func aWiderTokenFollowsItsAPIsSettings() throws {
    let write = [try Scope(admitting: "orders:write")]
    let change = Self.changes[1]
    let bench = try bench(Self.person(change.before), profile: "work")
    let first = try ordersToken(bench, "work", extraScopes: write)
    #expect(try ordersToken(bench, "work", extraScopes: write) == first)
    try rewrite(bench, Self.person(change.after))
    let second = try ordersToken(bench, "work", extraScopes: write)
    #expect(second != first)
    #expect(bench.tenant.tokenRequests.count == 2)
    #expect(bench.tenant.tokenRequests.last?["audience"] == "https://a.example/two")
    #expect(bench.tenant.tokenRequests.last?["scope"] == "orders:read orders:write")
  }
}

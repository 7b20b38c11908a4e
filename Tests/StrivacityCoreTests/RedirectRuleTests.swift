import Testing

@testable import StrivacityConfig
@testable import StrivacityCore

/// The in-process half of `strivacity curl`'s redirect rules (issue 37, points 3 to 5): where a
/// `Location` leads, where a challenge's metadata may be read from, and whose places share an
/// origin for a profile as its config has them.
@Suite struct RedirectRuleTests {
  static let origin = Origin(scheme: "https", host: "api.example", port: 443)

  @Test(arguments: [
    ("/b", true), ("b/c", true), ("?page=2", true), ("#x", true), ("", true),
    ("https://api.example/b", true), ("https://api.example:443/b", true), ("//api.example/b", true),
    ("https://evil.example/b", false), ("http://api.example/b", false), ("https://api.example:8443/b", false),
    ("//evil.example/b", false), ("mailto:x@api.example", false), ("javascript:alert(1)", false),
  ])
  func aLocationStaysOnTheOriginOrNot(_ location: String, _ stays: Bool) {
    #expect(URLPolicy.locationStays(location, on: Self.origin) == stays, "\(location)")
  }

  @Test(arguments: [
    ("https://api.example/.well-known/oauth-protected-resource", true),
    ("https://api.example/.well-known/oauth-protected-resource/orders/", true),
    ("https://api.example/.well-known/oauth-protected-resourcex", false),
    ("https://api.example/.well-known/oauth-protected-resource/orders/?x=1", false),
    ("https://api.example/orders/meta", false),
    ("https://other.example/.well-known/oauth-protected-resource/orders/", false),
    ("https://api.example:8443/.well-known/oauth-protected-resource/orders/", false),
    ("http://127.0.0.1:1/.well-known/oauth-protected-resource/orders/", false),
  ])
  func metadataIsReadOnlyAtTheOriginsWellKnownPlace(_ url: String, _ read: Bool) {
    #expect(ResourceMetadata.isWellKnown(url, on: Self.origin) == read, "\(url)")
  }

  func profile(hosts: [String] = [], apis: [(String, String)] = []) throws -> Profile {
    var profile = Profile(name: "work")
    profile.hosts = try hosts.map { try HostEntry(admitting: $0) }
    profile.apis = try apis.map { API(name: $0.0, url: try HostEntry(admitting: $0.1)) }
    return profile
  }

  /// The tenant's origin allowed whole, a hosts prefix beside it: -L may be followed there (the
  /// case a first, stricter rule refused); a prefix alone, an API's path, or two APIs on one
  /// host may not.
  @Test func whosePlacesShareTheOrigin() throws {
    let tenant = "https://t.example"
    let both = try profile(hosts: ["https://t.example/org/"])
    #expect(both.redirectRefusal("https://t.example/org/x", api: nil, tenant: tenant, name: "work") == nil)
    let prefix = try profile(hosts: ["https://api.example/org/"])
    #expect(
      prefix.redirectRefusal("https://api.example/org/x", api: nil, tenant: tenant, name: "work")
        == "profile work may have the token on only part of it (https://api.example/org)")
    let shared = try profile(apis: [("orders", "https://api.example/orders/"), ("billing", "https://api.example/b/")])
    let orders = try #require(shared.api(named: "orders"))
    #expect(
      shared.redirectRefusal("https://api.example/orders/1", api: orders, tenant: tenant, name: "work")
        == "places of another token are on it too (API billing https://api.example/b)")
    let whole = try profile(apis: [("orders", "https://api.example")])
    let wholeOrders = try #require(whole.api(named: "orders"))
    #expect(whole.redirectRefusal("https://api.example/x", api: wholeOrders, tenant: tenant, name: "work") == nil)
    // The profile's own token on an origin an API shares: a hop could carry it into the API's path.
    let beside = try profile(hosts: ["api.example"], apis: [("orders", "https://api.example/orders/")])
    #expect(
      beside.redirectRefusal("https://api.example/x", api: nil, tenant: tenant, name: "work")
        == "places of another token are on it too (API orders https://api.example/orders)")
  }
}

// Tokens for each API (issue 27): `token --api NAME` and `--for URL` against the emulator's API
// security policies, with the real keyring.
import Foundation
import LoopbackHTTP
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

@Suite(.serialized) struct APITokenTests {
  /// The emulator's `password` journey protects these two APIs (PROFILE: the profile's name).
  static let ordersAPI = """
    [profiles.PROFILE.apis.orders]
    url = "https://api.example.com/orders/"
    audience = "https://api.example.com/orders"
    resource = ["https://api.example.com/orders/"]
    scopes = ["orders:read"]
    """
  static let apis =
    ordersAPI + "\n\n"
      + """
      [profiles.PROFILE.apis.billing]
      url = "https://api.example.com/billing/"
      resource = ["https://api.example.com/billing/"]
      scopes = ["billing:read"]
      """

  func config(_ h: Harness, _ apis: String = Self.apis) throws {
    try h.writeProfile("\n" + apis.replacingOccurrences(of: "PROFILE", with: h.profile))
  }

  @Test func choosingAnAPIThatIsNotThereIsExitTwo() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try config(h)
    let unknown = try h.strivacity(["token", "--profile", h.profile, "--api", "shipping"])
    #expect(unknown.status == 2)
    #expect(unknown.stdout.isEmpty)
    #expect(
      unknown.stderr == "strivacity: error: profile \(h.profile) has no API 'shipping'; its APIs: orders, billing\n")
    let both = try h.strivacity(["token", "--profile", h.profile, "--api", "orders", "--for", "https://x.example/"])
    #expect(both.status == 2 && both.stderr.contains("use either --api or --for"), "\(both.stderr)")
    let idToken = try h.strivacity(["token", "--profile", h.profile, "--api", "orders", "--id-token"])
    #expect(idToken.status == 2 && idToken.stderr.contains("--id-token is the sign-in's"), "\(idToken.stderr)")
    let elsewhere = try h.strivacity(["token", "--profile", h.profile, "--for", "https://other.example/x"])
    #expect(elsewhere.status == 2)
    #expect(
      elsewhere.stderr.contains("https://other.example/x is under none of profile \(h.profile)'s APIs"),
      "\(elsewhere.stderr)")
    let unsafe = try h.strivacity(["token", "--profile", h.profile, "--for", "https://api.example.com/%2e%2e/x"])
    #expect(unsafe.status == 2 && unsafe.stderr.contains("encoded dot"), "\(unsafe.stderr)")
    // No APIs at all: the message says how to add one.
    try h.writeProfile()
    let none = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(none.status == 2)
    #expect(none.stderr.contains("it has none: add a [profiles.\(h.profile).apis.NAME] section"), "\(none.stderr)")
  }

  /// A URL on the tenant (or a host of the profile), under no API, gets the sign-in's token.
  @Test func aURLUnderNoAPIGetsTheProfilesOwnToken() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try config(h)
    let own = try h.strivacity(["token", "--profile", h.profile])
    let viaTenant = try h.strivacity(["token", "--profile", h.profile, "--for", h.emulator.issuer + "userinfo"])
    #expect(viaTenant.status == 0, "\(viaTenant.stderr)")
    #expect(viaTenant.stdout == own.stdout)
  }

  func claims(_ token: String) throws -> JSONValue { try jwtClaims(token) }

  func apiRequests(_ h: Harness, _ name: String) throws -> Int {
    try h.stats()["api_token_requests"]?[name]?.int ?? 0
  }

  /// Signed in with the APIs configured (so consent covers them), each API gets its own token,
  /// for its audience and scopes, kept until it is due; the refresh token rotated on the way
  /// still renews the sign-in's own token.
  @Test func eachAPIGetsItsOwnTokenKeptBesideTheSignIns() throws {
    let h = try Harness(journey: "password")
    try config(h)
    try h.signIn()
    let own = try h.strivacity(["token", "--profile", h.profile])
    #expect(own.status == 0, "\(own.stderr)")
    let orders = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(orders.status == 0, "\(orders.stderr)")
    #expect(orders.stderr.isEmpty, "\(orders.stderr)")
    let ordersClaims = try claims(orders.stdout)
    #expect(ordersClaims["aud"]?.array?.first?.string == "https://api.example.com/orders")
    #expect(ordersClaims["scope"]?.string == "orders:read")
    let billing = try h.strivacity(["token", "--profile", h.profile, "--api", "billing"])
    #expect(billing.status == 0, "\(billing.stderr)")
    #expect(
      try claims(billing.stdout)["aud"]?.array?.compactMap(\.string).contains("https://api.example.com/billing/")
        == true)
    #expect(orders.stdout != own.stdout && billing.stdout != orders.stdout)
    // Kept: asked again, by name or by a URL under it, no new request.
    let again = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    let byURL = try h.strivacity(["token", "--profile", h.profile, "--for", "https://api.example.com/orders/7?x=1"])
    #expect(again.stdout == orders.stdout && byURL.stdout == orders.stdout, "\(byURL.stderr)")
    #expect(try apiRequests(h, "orders") == 1 && apiRequests(h, "billing") == 1)
    // status lists each API's token.
    let status = try h.strivacity(["status", "--profile", h.profile])
    #expect(status.stdout.contains("api orders     token expires in "), "\(status.stdout)")
    #expect(status.stdout.contains("; scopes orders:read\n"), "\(status.stdout)")
    let json = try #require(JSONValue.parse(try h.strivacity(["status", "--profile", h.profile, "--json"]).stdout))
    #expect(json["apis"]?.array?.map { $0["name"] } == ["orders", "billing"])
    #expect(json["apis"]?[0]?["scope"] == "orders:read" && json["apis"]?[0]?["token"] == true)
    // --refresh asks again; the sign-in's token is untouched, and its (rotated) refresh token works.
    let renewed = try h.strivacity(["token", "--profile", h.profile, "--api", "orders", "--refresh"])
    #expect(renewed.status == 0 && renewed.stdout != orders.stdout, "\(renewed.stderr)")
    #expect(try apiRequests(h, "orders") == 2)
    #expect(try h.strivacity(["token", "--profile", h.profile]).stdout == own.stdout)
    let refreshed = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(refreshed.status == 0 && refreshed.stdout != own.stdout, "\(refreshed.stderr)")
    // Logout ends them all.
    #expect(try h.strivacity(["logout", "--profile", h.profile]).status == 0)
    let search = try run(["/usr/bin/secret-tool", "search", "--all", "profile", h.profile], environment: h.environment)
    #expect(!search.stdout.contains("slot") && !search.stderr.contains("slot"), "\(search.stdout)\(search.stderr)")
    let after = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(after.status == 3, "\(after.stderr)")
  }

  /// 32 processes asking for different APIs at once: each API's token is asked for once, and
  /// no rotated refresh token is lost (the sign-in's own refresh works after the storm).
  @Test func concurrentCallersForDifferentAPIsLoseNoRefreshToken() throws {
    let h = try Harness(journey: "password")
    try config(h)
    try h.signIn()
    let results = Mutex<[ProcessResult]>([])
    DispatchQueue.concurrentPerform(iterations: 32) { index in
      let api = index % 2 == 0 ? "orders" : "billing"
      if let result = try? h.strivacity(["token", "--profile", h.profile, "--api", api]) {
        results.withLock { $0.append(result) }
      }
    }
    let all = results.withLock { $0 }
    #expect(all.count == 32)
    #expect(all.allSatisfy { $0.status == 0 }, "\(all.map(\.stderr).joined())")
    #expect(Set(all.map(\.stdout)).count == 2)
    #expect(try apiRequests(h, "orders") == 1 && apiRequests(h, "billing") == 1)
    let refreshed = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(refreshed.status == 0, "\(refreshed.stderr)")
  }

  /// The tenant refusing an API (one it does not know, scopes it never consented to) is one line
  /// naming the API, the parameter and the tenant's error, exit 3; nothing is kept.
  @Test func theTenantsRefusalNamesTheAPIAndTheParameter() throws {
    let h = try Harness(journey: "password")
    try config(h)
    try h.signIn()
    try config(
      h,
      Self.apis + """

        [profiles.PROFILE.apis.shipping]
        url = "https://api.example.com/shipping/"
        resource = ["https://api.example.com/shipping/"]

        [profiles.PROFILE.apis.greedy]
        url = "https://api.example.com/greedy/"
        audience = "https://api.example.com/orders"
        scopes = ["orders:delete"]
        """)
    let unknown = try h.strivacity(["token", "--profile", h.profile, "--api", "shipping"])
    expectInvalidTarget(unknown, api: "shipping", resource: "https://api.example.com/shipping/")
    let greedy = try h.strivacity(["token", "--profile", h.profile, "--api", "greedy"])
    #expect(greedy.status == 3)
    #expect(
      greedy.stderr.hasPrefix(
        "strivacity: error: the tenant refused a token for API greedy (scope orders:delete): "
          + "invalid_scope"), "\(greedy.stderr)")
    // The sign-in's tokens are untouched.
    #expect(try h.strivacity(["token", "--profile", h.profile, "--refresh"]).status == 0)
  }

  /// The small binary answers an API's token from the kernel's cache as it answers the sign-in's:
  /// without libsecret (LD_DEBUG shows what it loads).
  @Test func aCachedAPITokenIsAnsweredWithoutTheKeyring() throws {
    let h = try Harness(journey: "password")
    try config(h)
    try h.signIn()
    let first = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(first.status == 0, "\(first.stderr)")
    func small(_ arguments: [String]) throws -> (ProcessResult, Bool) {
      var environment = h.environment
      environment["LD_DEBUG"] = "files"
      let result = try run(
        [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile] + arguments, environment: environment)
      return (result, result.stderr.contains("file=libsecret"))
    }
    for arguments in [["--api", "orders"], ["--api=orders"], ["--for", "https://api.example.com/orders/x"]] {
      let (result, keyring) = try small(arguments)
      #expect(result.status == 0 && result.stdout == first.stdout, "\(arguments)")
      #expect(!keyring, "\(arguments): from the cache")
    }
    // Not cached yet (billing), or not an API of the profile: the full command line's.
    let (billing, keyring) = try small(["--api", "billing"])
    #expect(billing.status == 0 && keyring)
    let (unknown, _) = try small(["--api", "nope"])
    #expect(unknown.status == 2)
    #expect(try apiRequests(h, "orders") == 1)
    let status = try h.strivacity(["status", "--profile", h.profile])
    #expect(status.stdout.contains("api billing    token expires in "), "\(status.stdout)")
  }

  /// `strivacity curl` sends each API the token for it, chosen by URL (the longest prefix), and
  /// the profile's own token elsewhere on its places; URLs needing two tokens are refused.
  @Test func curlSendsEachAPIItsOwnToken() throws {
    let seen = Mutex<[String]>([])
    let server = try LoopbackServer { request in
      let authorization = request.headers.first { $0.name.lowercased() == "authorization" }?.value ?? "-"
      seen.withLock { $0.append(request.target + " " + authorization) }
      return ServerReply(status: 200, contentType: "text/plain", text: "ok\n")
    }
    defer { server.stop() }
    let base = "http://127.0.0.1:\(server.port)"
    let h = try Harness(journey: "password")
    let apis = """
      hosts = ["\(base)/other/"]

      [profiles.PROFILE.apis.orders]
      url = "\(base)/orders/"
      audience = "https://api.example.com/orders"
      resource = ["https://api.example.com/orders/"]
      scopes = ["orders:read"]
      """
    try config(h, apis)
    try h.signIn()
    let orders = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"]).stdout
    let own = try h.strivacity(["token", "--profile", h.profile]).stdout
    let first = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(base)/orders/42"])
    #expect(first.status == 0 && first.stdout == "ok\n", "\(first.stderr)")
    let second = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(base)/other/1"])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(
      seen.withLock { $0 } == [
        "/orders/42 Bearer \(orders.trimmingCharacters(in: .whitespacesAndNewlines))",
        "/other/1 Bearer \(own.trimmingCharacters(in: .whitespacesAndNewlines))",
      ])
    let mixed = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(base)/orders/1", "\(base)/other/2"])
    #expect(mixed.status == 2)
    #expect(
      mixed.stderr
        == "strivacity: error: these URLs need different tokens (API orders, the profile's own token): "
        + "run one strivacity curl for each\n")
    #expect(seen.withLock { $0.count } == 2, "nothing was sent")
  }

  /// git's `get`, in both binaries: a URL of the profile's git_hosts under one of its APIs gets
  /// that API's token; elsewhere the profile's own.
  @Test func gitGetsTheAPIsTokenForURLsUnderIt() throws {
    let h = try Harness(journey: "password")
    try config(h, "git_hosts = [\"https://api.example.com/\"]\n" + Self.apis)
    try h.signIn()
    let orders = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"]).stdout
    let own = try h.strivacity(["token", "--profile", h.profile]).stdout
    func get(_ binary: String, _ path: String) throws -> String {
      let result = try run(
        [TestEnvironment.binary(binary), "credential", "get"], environment: h.environment,
        stdin: "protocol=https\nhost=api.example.com\npath=\(path)\n\n")
      #expect(result.status == 0, "\(result.stderr)")
      return result.stdout
    }
    for binary in ["strivacity", "strivacity-cli"] {
      #expect(try get(binary, "orders/repo.git").contains("password=\(orders)"), "\(binary)")
      #expect(try get(binary, "tools/repo.git").contains("password=\(own)"), "\(binary)")
    }
    #expect(try apiRequests(h, "orders") == 1)
    let status = try h.strivacity(["status", "--profile", h.profile])
    #expect(status.stdout.contains("api billing    no token yet (strivacity token --api billing)"), "\(status.stdout)")
  }

  /// `--scope` adds scopes to an API's token: the kept token serves when it has them, else a new
  /// one is asked for with them, kept apart from the API's own (issue 37, point 4); a scope never
  /// consented is the tenant's refusal.
  @Test func extraScopesForAnAPI() throws {
    let h = try Harness(journey: "password")
    // Signed in consenting to both of orders' scopes; the API asks for orders:read alone.
    try config(h, Self.apis.replacingOccurrences(of: "[\"orders:read\"]", with: "[\"orders:read\", \"orders:write\"]"))
    try h.signIn()
    try config(h)
    let plain = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(try claims(plain.stdout)["scope"] == "orders:read")
    let wider = try h.strivacity(["token", "--profile", h.profile, "--api", "orders", "--scope", "orders:write"])
    #expect(wider.status == 0, "\(wider.stderr)")
    #expect(try claims(wider.stdout)["scope"] == "orders:read orders:write")
    // The wider token is kept apart: the API's own slot (git, kubectl, exec) keeps the config's
    // scopes, and the same wider call is answered from its own slot.
    #expect(try h.strivacity(["token", "--profile", h.profile, "--api", "orders"]).stdout == plain.stdout)
    let again = try h.strivacity(["token", "--profile", h.profile, "--api", "orders", "--scope", "orders:write"])
    #expect(again.stdout == wider.stdout)
    #expect(try apiRequests(h, "orders") == 2)
    let never = try h.strivacity(["token", "--profile", h.profile, "--api", "billing", "--scope", "billing:pay"])
    #expect(
      never.status == 3 && never.stderr.contains("(scope billing:read billing:pay): invalid_scope"), "\(never.stderr)")
    let bad = try h.strivacity(["token", "--profile", h.profile, "--api", "orders", "--scope", "a b"])
    #expect(bad.status == 2 && bad.stderr.contains("more than one scope"), "\(bad.stderr)")
    let alone = try h.strivacity(["token", "--profile", h.profile, "--scope", "orders:write"])
    #expect(alone.status == 2 && alone.stderr.contains("--scope needs --api or --for"), "\(alone.stderr)")
    let noAPI = try h.strivacity(["token", "--profile", h.profile, "--for", h.emulator.issuer, "--scope", "x"])
    #expect(noAPI.status == 2 && noAPI.stderr.contains("under none of the APIs"), "\(noAPI.stderr)")
  }
}

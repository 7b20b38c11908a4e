import Testing

@testable import StrivacityConfig
@testable import StrivacityCore

/// `[profiles.P.apis.NAME]` (issue 27): every value admitted when the file is read, and a URL's
/// API chosen by the longest prefix, the reading curl and git get too.
@Suite struct APIConfigTests {
  static let text = """
    [profiles.work]
    tenant = "https://t.example"
    client_id = "c"

    [profiles.work.apis.orders]
    url = "https://api.example.com/orders/"
    audience = "https://api.example.com/orders"
    resource = ["https://api.example.com/orders/"]
    scopes = ["orders:read", "orders:write"]

    [profiles.work.apis.everything]
    url = "https://api.example.com"

    [profiles.work.apis.billing]
    url = "https://API.example.com:443/./billing/v1"
    resources = ["urn:example:billing", "https://billing.example/"]

    [profiles.other]
    tenant = "https://t.example"
    """

  /// Every helper protocol's rule: an API's URL gets the API's token; the profile's places get
  /// the sign-in's only when the helper hands it out; a path trick is refused; the rest is not ours.
  @Test func aHelpersDecisionIsCurlsRule() throws {
    let config = try Config.parse(Self.text + "\nhosts = [\"registry.example.com\"]\n", path: "c.toml")
    let work = try #require(config.profile(named: "work"))
    let orders = try #require(work.api(named: "orders"))
    for tenant in ["https://t.example", nil] {
      #expect(work.helperDecision(for: "https://api.example.com/orders/index", tenant: tenant) == .token(api: orders))
      #expect(work.helperDecision(for: "https://elsewhere.example/", tenant: tenant) == .notOurs)
      guard case .refused = work.helperDecision(for: "https://api.example.com/orders/%2e%2e/x", tenant: tenant) else {
        Issue.record("a path trick was not refused")
        continue
      }
    }
    let other = try #require(config.profile(named: "other"))
    #expect(
      other.helperDecision(for: "https://registry.example.com/v2/", tenant: "https://t.example") == .token(api: nil))
    #expect(other.helperDecision(for: "https://registry.example.com/v2/", tenant: nil) == .notOurs)
    // A registry's helper (Docker's, Terraform's) takes only an API on the whole host (issue 46,
    // point 6): the path-prefix API orders answers curl and git, never a registry.
    #expect(API.serving("https://api.example.com/orders/x", in: config.profiles)?.api == work.api(named: "everything"))
    #expect(API.serving("https://api.example.com/orders/x", in: config.profiles)?.api != orders)
  }

  /// An API's slot is its name and a digest of what aims its token (issue 46, point 5): a change
  /// of audience, resources or scopes is another slot, so a token asked before is not found; the
  /// url, the username, the lists' order and repeats are not. Stores read every such name back,
  /// with the API's name, and earlier versions' slots (the name alone) too.
  @Test func anAPIsSlotNamesTheSettingsItsTokenIsAskedWith() throws {
    let url = try HostEntry(admitting: "https://api.example.com/orders/")
    let read = try Scope(admitting: "orders:read")
    let write = try Scope(admitting: "orders:write")
    let orders = API(
      name: "orders", url: url, audience: "https://a.example", resources: ["https://r.example/"], scopes: [read])
    let name = try #require(orders.slot.name)
    #expect(name.hasPrefix("orders.") && name.utf8.count == "orders.".utf8.count + 16, "\(name)")
    #expect(TokenSlot(stored: name) == orders.slot && orders.slot.apiName == "orders")
    var changed = [orders, orders, orders, orders]
    changed[0].audience = "https://b.example"
    changed[1].audience = nil
    changed[2].resources = ["https://r.example/", "https://s.example/"]
    changed[3].scopes = [read, write]
    #expect(Set(changed.map(\.slot) + [orders.slot]).count == 5)
    var same = orders
    same.url = try HostEntry(admitting: "https://api.example.com/v2/orders/")
    same.username = "robot"
    same.resources = ["https://r.example/", "https://r.example/"]
    #expect(same.slot == orders.slot)
    #expect(
      changed[3].slot
        == API(
          name: "orders", url: url, audience: "https://a.example",
          resources: ["https://r.example/"], scopes: [write, read, write]
        ).slot)
    // Another API of the same settings: another slot.
    #expect(
      API(name: "shop", url: url, audience: "https://a.example", resources: ["https://r.example/"], scopes: [read])
        .slot != orders.slot)
    // A wider token's slot follows the API's settings too.
    #expect(orders.slot(extraScopes: [write]) != changed[0].slot(extraScopes: [write]))
    #expect(orders.slot(extraScopes: [write]) == orders.slot(extraScopes: [write, read]))
    // The longest API name still makes a slot name stores read back.
    let longest = String(repeating: "a", count: 64)
    let long = API(name: longest, url: url).slot
    #expect(long.name.flatMap(TokenSlot.init(stored:)) == long && long.apiName == longest)
    #expect(TokenSlot(stored: longest + "a") == nil)
    #expect(TokenSlot(stored: longest + "a.0123456789abcdef") == nil)
    // FNV-1a over 128 bits (known answers), of the canonical text; the slot takes 16 digits.
    #expect(AdHocTarget.digest("") == "6c62272e07bb014262b821756295c58d")
    #expect(AdHocTarget.digest("a") == "d228cb696f1a8caf78912b704e4a8964")
    let x = API(name: "x", url: url, audience: "https://a.example", scopes: [try Scope(admitting: "x")])
    #expect(x.settings == "audience https://a.example\nscope x" && x.slot.name == "x.d229eb688265be8d")
    // An earlier version's slot, named by the API alone: read back (so logout deletes it).
    #expect(TokenSlot(stored: "orders")?.apiName == "orders")
    #expect(TokenSlot.signIn.apiName == nil)
    #expect(try AdHocTarget(audience: "https://a.example", resources: [], scopes: []).slot.apiName == nil)
  }

  @Test func apisAreReadInOrder() throws {
    let config = try Config.parse(Self.text, path: "c.toml")
    #expect(config.warnings.isEmpty)
    let work = try #require(config.profile(named: "work"))
    #expect(work.apis.map(\.name) == ["orders", "everything", "billing"])
    let orders = try #require(work.api(named: "orders"))
    #expect(orders.url.description == "https://api.example.com/orders")
    #expect(orders.audience == "https://api.example.com/orders")
    #expect(orders.resources == ["https://api.example.com/orders/"])
    #expect(orders.scopes == ["orders:read", "orders:write"])
    #expect(orders.slot.apiName == "orders")
    #expect(work.api(named: "billing")?.url.description == "https://api.example.com/billing/v1")
    #expect(work.api(named: "nope") == nil)
    #expect(config.profile(named: "other")?.apis == [])
    // The small binary's narrowed read keeps the wanted profile's API tables.
    let narrowed = try Config.parse(Self.text, path: "c.toml", onlyProfile: "work")
    #expect(narrowed.profile(named: "work")?.apis == work.apis)
  }

  /// `token --api NAME` reads only that API's table of the profile (both binaries), so that its
  /// cost does not grow with the number of APIs; the other tables, bad ones included, are skipped.
  @Test func oneAPIsTableAlone() throws {
    let text = Self.text + "\n[profiles.work.apis.broken]\nurl = \"https://u:p@x.example/\"\n"
    let billing = try Config.parse(text, path: "c.toml", onlyProfile: "work", apis: .named("billing"))
    #expect(billing.profile(named: "work")?.apis.map(\.name) == ["billing"])
    #expect(billing.profile(named: "work")?.tenant == "https://t.example")
    // `token` without --api or --for reads none of them (bad ones included).
    let plain = try Config.parse(text, path: "c.toml", onlyProfile: "work", apis: .none)
    #expect(plain.profile(named: "work")?.apis == [] && plain.profile(named: "work")?.tenant == "https://t.example")
    #expect(TokenInvocation().apiTables == .none)
    #expect(TokenInvocation(api: "a").apiTables == .named("a"))
    #expect(TokenInvocation(forURL: "https://a.example/").apiTables == .all)
    let none = try Config.parse(text, path: "c.toml", onlyProfile: "work", apis: .named("shipping"))
    #expect(none.profile(named: "work")?.apis == [])
    #expect(throws: ConfigError.self) { try Config.parse(text, path: "c.toml", onlyProfile: "work") }
    #expect(throws: ConfigError.self) {
      try Config.parse(text, path: "c.toml", onlyProfile: "work", apis: .named("broken"))
    }
    // Spaces in a header, and a table under the API, are read as the parser reads them.
    let spaced =
      "[profiles.work]\n[ profiles . work . apis . a ]\nurl = \"https://a.example\"\n"
      + "[profiles.work.apis.b]\nurl = \"https://b.example\"\n"
    #expect(
      try Config.parse(spaced, path: "c", onlyProfile: "work", apis: .named("a")).profile(named: "work")?.apis.map(
        \.name)
        == ["a"])
  }

  @Test(arguments: [
    ("https://api.example.com/orders/42", "orders"),
    ("https://api.example.com/orders", "orders"),
    ("https://api.example.com/orders/../billing/v1/x", "billing"),
    ("https://api.example.com:443/billing/v1", "billing"),
    ("https://api.example.com/billing/v2", "everything"),
    ("https://api.example.com/ordersX", "everything"),
    ("https://api.example.com/", "everything"),
  ])
  func theLongestPrefixWins(_ url: String, _ name: String) throws {
    let work = try #require(try Config.parse(Self.text, path: "c.toml").profile(named: "work"))
    #expect(try work.api(for: url)?.name == name)
  }

  @Test func urlsOfNoAPIAndUnsafeURLs() throws {
    let work = try #require(try Config.parse(Self.text, path: "c.toml").profile(named: "work"))
    #expect(try work.api(for: "https://other.example/orders") == nil)
    #expect(throws: TokenRefusal.self) { try work.api(for: "http://api.example.com/orders") }
    #expect(throws: TokenRefusal.self) { try work.api(for: "https://api.example.com/orders/%2e%2e/billing/v1") }
  }

  @Test func bestMatchIsTheOneReading() throws {
    let entries = try ["api.example.com", "https://api.example.com/a", "https://api.example.com/a/b", "x.example"]
      .map { try HostEntry(admitting: $0) }
    #expect(try TokenDestination.bestMatch("https://api.example.com/a/b/c", among: entries) == 2)
    #expect(try TokenDestination.bestMatch("https://api.example.com/a/bc", among: entries) == 1)
    #expect(try TokenDestination.bestMatch("https://api.example.com/", among: entries) == 0)
    #expect(try TokenDestination.bestMatch("https://y.example/", among: entries) == nil)
    // The first of equals.
    let twice = try ["https://h.example/p", "https://h.example/p/"].map { try HostEntry(admitting: $0) }
    #expect(try TokenDestination.bestMatch("https://h.example/p/q", among: twice) == 0)
  }

  struct Bad: Sendable, CustomStringConvertible {
    var section: String
    var line: Int
    var says: String
    var description: String { says }
  }

  /// A bad entry is a config error naming its line, and never echoes user info.
  @Test(arguments: [
    Bad(section: "audience = \"a\"", line: 1, says: "has no url"),
    Bad(section: "url = \"https://u:secret@api.example.com/\"", line: 2, says: "has user info"),
    Bad(section: "url = \"https://api.example.com/?q=1\"", line: 2, says: "a query or a fragment"),
    Bad(section: "url = \"https://api.example.com/#f\"", line: 2, says: "a query or a fragment"),
    Bad(section: "url = \"http://api.example.com/\"", line: 2, says: "https"),
    Bad(section: "url = \"https://api.example.com/%2e%2e/x\"", line: 2, says: "encoded dot"),
    Bad(section: "url = \"https://a.example\"\naudience = \"has space\"", line: 3, says: "audience must be"),
    Bad(section: "url = \"https://a.example\"\nresource = [\"relative/path\"]", line: 3, says: "absolute URI"),
    Bad(section: "url = \"https://a.example\"\nresource = [\"https://a.example/#x\"]", line: 3, says: "fragment"),
    Bad(section: "url = \"https://a.example\"\nscopes = [\"a b\"]", line: 3, says: "more than one scope"),
    Bad(section: "url = \"https://a.example\"\nscopes = [\"a\\\"b\"]", line: 3, says: "scope syntax"),
    Bad(section: "url = 5", line: 2, says: "must be a string"),
  ])
  func badEntriesAreConfigErrors(_ bad: Bad) throws {
    let text = "[profiles.work.apis.x]\n" + bad.section + "\n"
    do {
      _ = try Config.parse(text, path: "c.toml")
      Issue.record("accepted: \(bad.section)")
    } catch {
      guard case .invalid(_, let position, let message) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(position.line == bad.line, "\(message)")
      #expect(message.contains(bad.says), "\(message)")
      #expect(!message.contains("secret"))
    }
  }

  @Test func namesAndShapes() throws {
    #expect(throws: ConfigError.self) {
      try Config.parse("[profiles.w.apis.\"a/b\"]\nurl = \"https://a.example\"", path: "c")
    }
    #expect(throws: ConfigError.self) { try Config.parse("[profiles.w]\napis = \"orders\"", path: "c") }
    #expect(throws: ConfigError.self) {  // an ad hoc target's slot name
      try Config.parse("[profiles.w.apis.\"adhoc.0123\"]\nurl = \"https://a.example\"", path: "c")
    }
    #expect(throws: ConfigError.self) { try Config.parse("[profiles.w.apis]\norders = 1", path: "c") }
    let config = try Config.parse("[profiles.w.apis.a]\nurl = \"https://a.example\"\nflavour = \"x\"\n", path: "c")
    #expect(config.warnings.map(\.message) == ["unknown key 'flavour' in [profiles.w.apis.a] ignored"])
  }
}

import Testing

@testable import StrivacityConfig
@testable import StrivacityCore

/// Kept secrets (a machine's client secret, a proxy's password) are items of their own kind beside
/// a profile's tokens, never in a slot (issue 38, point 3), and the name spaces reserved for
/// strivacity's own items are names no user, config file, API's metadata or agent's client can
/// give a slot (issue 37, point 2): each way in is tried with every reserved name.
@Suite struct KeptSecretSlotTests {
  /// Every reserved name space, the kept secrets' own names, and the same in other cases.
  static let reserved = [
    "proxy.password", "machine.secret", "adhoc.0123", "secret.x", "proxy.other", "machine.x",
    "Proxy.Password", "MACHINE.SECRET", "AdHoc.1", "Secret.Y",
  ]

  /// The names earlier versions kept secrets under as token sets, read back from a store, are no
  /// slot's (such an item is neither listed, read nor deleted as tokens); an API's and an ad hoc
  /// target's are.
  @Test func noStoredNameInASecretsNameSpaceIsASlot() throws {
    for name in ["machine.secret", "proxy.password", "Proxy.Password", "MACHINE.SECRET", "secret.x", "proxy.other"] {
      #expect(TokenSlot(stored: name) == nil, "\(name)")
    }
    #expect(TokenSlot(stored: "orders") == TokenSlot(apiName: "orders"))
    let adHoc = try AdHocTarget(audience: "https://a.example", resources: [], scopes: []).slot
    let name = try #require(adHoc.name)
    #expect(name.hasPrefix("adhoc.") && TokenSlot(stored: name) == adHoc)
  }

  @Test(arguments: reserved)
  func noAPINameReachesAReservedSlot(_ name: String) {
    #expect(TokenSlot(apiName: name) == nil)
    #expect(TokenSlot.reservedPrefix(of: name) != nil)
    // Nor with the digest of an API's settings (the agent's client names an API the agent finds
    // in its config, which refuses such names: theConfigRefusesAnAPIOfAReservedName).
    #expect(TokenSlot.api(name, digest: "0123456789abcdef") == nil)
  }

  @Test(arguments: reserved)
  func theConfigRefusesAnAPIOfAReservedName(_ name: String) {
    let text = """
      [profiles.w]
      tenant = "https://t.example"
      client_id = "c"

      [profiles.w.apis."\(name)"]
      url = "https://api.example.com/"
      """
    do {
      _ = try Config.parse(text, path: "c.toml")
      Issue.record("\(name) was admitted")
    } catch let error {
      guard case .invalid(_, let position, let message) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(position.line == 5)
      #expect(message.contains("are kept for strivacity's own items"), "\(message)")
    }
  }

  @Test(arguments: reserved)
  func anAPIsMetadataCannotNameOne(_ name: String) throws {
    let body = """
      {"resource":"https://api.example.com/x/","authorization_servers":["https://t.example"],
       "resource_name":"\(name)"}
      """
    let metadata = try ResourceMetadata.admit(
      Array(body.utf8), requestURL: "https://api.example.com/x/1", issuer: "https://t.example")
    #expect(metadata.name == nil)
  }

  @Test func aTokenWithScopesBeyondTheAPIsIsKeptApart() throws {
    let api = API(
      name: "orders", url: try HostEntry(admitting: "https://api.example.com/orders/"),
      scopes: [try Scope(admitting: "orders:read")])
    #expect(api.slot(extraScopes: []) == api.slot)
    #expect(api.slot(extraScopes: [try Scope(admitting: "orders:read")]) == api.slot)
    let wider = api.slot(extraScopes: [try Scope(admitting: "orders:write")])
    #expect(wider != api.slot && wider.name?.hasPrefix("adhoc.") == true)
    // The same scopes, in any order and repeated, make the same slot.
    let write = try Scope(admitting: "orders:write")
    let admin = try Scope(admitting: "admin")
    #expect(api.slot(extraScopes: [write, admin, write]) == api.slot(extraScopes: [admin, write]))
  }
}

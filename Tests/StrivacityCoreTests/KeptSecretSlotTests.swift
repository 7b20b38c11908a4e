import Agent
import Testing

@testable import StrivacityCore

/// Kept secrets (a machine's client secret, a proxy's password) sit beside a profile's tokens in
/// slots no name from a user, a config file, an API's metadata or the agent's client can reach
/// (issue 37, point 2): each way in is tried with every reserved name.
@Suite struct KeptSecretSlotTests {
  /// Every reserved name space, the kept secrets' own names, and the same in other cases.
  static let reserved = [
    "proxy.password", "machine.secret", "adhoc.0123", "secret.x", "proxy.other", "machine.x",
    "Proxy.Password", "MACHINE.SECRET", "AdHoc.1", "Secret.Y",
  ]

  @Test func theKeptSecretsSlotsHoldSecretsAndNoOtherDoes() {
    #expect(TokenSlot.clientSecret.holdsSecret && TokenSlot.proxyPassword.holdsSecret)
    #expect(TokenSlot.clientSecret.name == "machine.secret" && TokenSlot.proxyPassword.name == "proxy.password")
    #expect(!TokenSlot.signIn.holdsSecret)
    #expect(TokenSlot(apiName: "orders")?.holdsSecret == false)
    let adHoc = try? AdHocTarget(audience: "https://a.example", resources: [], scopes: [])
    #expect(adHoc?.slot.holdsSecret == false)
    // Read back from a store, a secret's slot is still one.
    #expect(TokenSlot(stored: "proxy.password")?.holdsSecret == true)
    #expect(TokenSlot(stored: "machine.secret") == .clientSecret)
  }

  @Test(arguments: reserved)
  func noAPINameReachesAReservedSlot(_ name: String) {
    #expect(TokenSlot(apiName: name) == nil)
    #expect(TokenSlot.reservedPrefix(of: name) != nil)
    // The agent's client naming it.
    #expect(AgentTokenTarget.api(name, extraScopes: []).slot == nil)
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
    #expect(wider != api.slot && wider.name?.hasPrefix("adhoc.") == true && !wider.holdsSecret)
    // The same scopes, in any order and repeated, make the same slot.
    let write = try Scope(admitting: "orders:write")
    let admin = try Scope(admitting: "admin")
    #expect(api.slot(extraScopes: [write, admin, write]) == api.slot(extraScopes: [admin, write]))
    // The agent's client asking with scopes besides the API's: no slot without the API's table.
    #expect(AgentTokenTarget.api("orders", extraScopes: [write]).slot == nil)
  }

  @Test func deletionsTakeOneKindOfItem() {
    #expect(StoredItems.tokens.includes(.signIn) && StoredItems.tokens.includes(TokenSlot(apiName: "a")!))
    #expect(!StoredItems.tokens.includes(.proxyPassword) && !StoredItems.tokens.includes(.clientSecret))
    #expect(StoredItems.keptSecrets.includes(.proxyPassword) && StoredItems.keptSecrets.includes(.clientSecret))
    #expect(!StoredItems.keptSecrets.includes(.signIn))
  }
}

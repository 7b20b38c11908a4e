// The engine's failures as values (`BrokerError`): each says one sentence and one exit code, in
// the words a refresh, an API's token and a machine's token have always been refused with.
import StrivacityCore
import Testing

@Suite struct BrokerErrorTests {
  static let invalidScope = OAuthError.server(error: "invalid_scope", description: nil, status: 400)
  static let orders = EndpointAsk.Narrowed(audience: "https://api.example/orders", scopes: ["orders:read"])

  @Test func theRefreshSaysTheStoredTokensAreUnchanged() {
    let refused = BrokerError.refused(.refresh(profile: "work"), nil, http: 401)
    #expect(refused.message == "the refresh failed: HTTP 401; stored tokens are unchanged")
    #expect(refused.status == .server)
    let busy = BrokerError.failed(.refresh(profile: "work"), http: 503, transient: true)
    #expect(busy.message == "the refresh failed with HTTP 503; stored tokens are unchanged")
    #expect(busy.status == .transient)
  }

  @Test func aRefusalNamesTheParameterItIsAbout() {
    let api = BrokerError.refused(.api(label: "API orders", Self.orders), Self.invalidScope, http: 400)
    #expect(api.message.hasPrefix("the tenant refused a token for API orders (scope orders:read): invalid_scope"))
    #expect(api.signInMayCure && !api.signInOffered)
    let machine = BrokerError.refused(
      .client(label: "profile ci", clientID: "c1", .init(), proof: .secret(method: "basic", source: "a file")),
      Self.invalidScope, http: 400)
    #expect(machine.message.hasPrefix("the tenant refused a token for profile ci to client c1: invalid_scope"))
    #expect(!machine.signInMayCure)
  }

  @Test func aSecondRefusalAfterASignInIsTheSignInsToSay() {
    let first = BrokerError.refused(.api(label: "API orders", Self.orders), Self.invalidScope, http: 400)
    let again = BrokerError.stillRefused(first)
    #expect(again.message.hasSuffix(", even after signing in again asking for it"))
    #expect(again.status == .signInRequired && again.signInOffered)
  }

  @Test func aTransientFailureSaysWhatToDo() {
    let client = EndpointAsk.client(
      label: "profile ci", clientID: "c1", .init(), proof: .key(path: "/k.pem", keyID: nil, profile: "ci"))
    #expect(
      BrokerError.failed(client, http: 429, transient: true).message
        == "a token for profile ci failed with HTTP 429; try again later")
    #expect(
      BrokerError.failed(.api(label: "API orders", Self.orders), http: 502, transient: true).message
        == "a token for API orders failed with HTTP 502; stored tokens are unchanged")
  }
}

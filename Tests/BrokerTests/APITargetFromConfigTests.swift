import Broker
import OAuthCore
import StrivacityConfig
import StrivacityCore
import Testing

/// An API's entry in the config as the target its token is asked for (RFC 8707 §2.2).
@Suite struct APITargetFromConfigTests {
  static let orders = API(
    name: "orders", url: try! HostEntry(admitting: "https://api.example.com/orders"),
    audience: "https://api.example.com/orders",
    resources: ["https://api.example.com/orders/", "urn:example:orders"], scopes: ["orders:read"])

  @Test func theRefreshGrantIsNarrowedToTheAPI() throws {
    let target = APITarget(Self.orders, extraScopes: ["orders:write", "orders:read"])
    let request = TokenRequest(
      grant: .refreshToken("rt"), client: .none(clientID: "c"), additionalParameters: target.parameters)
    #expect(
      FormURLEncoding.encode(request.parameters.map { ($0.name, $0.value) })
        == "grant_type=refresh_token&refresh_token=rt&client_id=c&audience=https%3A%2F%2Fapi.example.com%2Forders"
        + "&resource=https%3A%2F%2Fapi.example.com%2Forders%2F&resource=urn%3Aexample%3Aorders"
        + "&scope=orders%3Aread%20orders%3Awrite")
    #expect(APITarget().parameters == [])
  }
}

import Testing

@testable import OAuthCore
@testable import StrivacityCore

/// A token for one API: what it is asked with (RFC 8707 §2.1, §2.2) and whether the tenant's
/// answer is for it (issue 27, point 4).
@Suite struct APITargetTests {
  static let orders = APITarget(
    audience: "https://api.example.com/orders",
    resources: ["https://api.example.com/orders/", "urn:example:orders"], scopes: ["orders:read"])

  @Test func theAuthorizationRequestAsksForEveryResourceOnce() {
    let billing = ["urn:example:orders", "https://billing.example/"]
    #expect(
      APITarget.authorizationResources(Self.orders.resources + billing).map(\.value) == [
        "https://api.example.com/orders/", "urn:example:orders", "https://billing.example/",
      ])
  }

  static func jwt(_ claims: JSONValue) -> BearerToken {
    let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"at+jwt"}"#.utf8))
    return try! BearerToken(admitting: "\(header).\(Base64URL.encode(claims.serialized())).c2ln")
  }

  @Test func aJWTMustBeForTheAudienceWithTheScopes() {
    let target = Self.orders
    let good = Self.jwt(["aud": ["https://api.example.com/orders", "x"], "scope": "openid orders:read"])
    #expect(target.mismatch(accessToken: good, responseScope: nil) == nil)
    let other = Self.jwt(["aud": "https://api.example.com/billing", "scope": "orders:read"])
    #expect(
      target.mismatch(accessToken: other, responseScope: nil)
        == "the tenant's token is not for audience https://api.example.com/orders "
        + "(it has aud https://api.example.com/billing)")
    let noAud = Self.jwt(["scope": "orders:read"])
    #expect(target.mismatch(accessToken: noAud, responseScope: nil)?.contains("(it has no aud)") == true)
    let narrow = Self.jwt(["aud": "https://api.example.com/orders", "scp": ["openid"]])
    #expect(
      target.mismatch(accessToken: narrow, responseScope: "orders:read")
        == "the tenant's token lacks the scope orders:read that was asked")
    // Without an audience, a resource in aud will do.
    let byResource = APITarget(resources: ["urn:example:orders"])
    #expect(byResource.mismatch(accessToken: Self.jwt(["aud": "urn:example:orders"]), responseScope: nil) == nil)
  }

  @Test func anOpaqueTokenIsJudgedByTheResponsesScope() {
    let target = Self.orders
    #expect(target.mismatch(accessToken: "opaque-token", responseScope: "orders:read") == nil)
    #expect(target.mismatch(accessToken: "opaque-token", responseScope: "openid")?.contains("orders:read") == true)
    #expect(target.mismatch(accessToken: "opaque-token", responseScope: nil) == nil)  // RFC 6749 §5.1
    // A JWT without scope claims falls back to the response's scope.
    let bare = Self.jwt(["aud": "https://api.example.com/orders"])
    #expect(target.mismatch(accessToken: bare, responseScope: "openid") != nil)
  }

  @Test func hostileClaimsAreShownInert() {
    let hostile = Self.jwt(["aud": "\u{1B}]52;c;eA==\u{7}evil"])
    let message = Self.orders.mismatch(accessToken: hostile, responseScope: nil) ?? ""
    #expect(!message.unicodeScalars.contains { TerminalSafe.isUnsafe($0) })
  }
}

// Token and revocation request bodies against the RFCs' own examples (RFC 6749 §4.1.3 and §6,
// RFC 7636 §4.5, RFC 7009 §2.1), with the public client's client_id (§2.3) where we send it.
import OAuthCore
import StrivacityCore
import Testing

@Suite struct TokenRequestTests {
  func body(_ request: HTTPRequest) -> String { String(decoding: request.body ?? [], as: UTF8.self) }

  @Test func authorizationCodeWithPKCE() {
    let request = TokenRequest(
      grant: .authorizationCode(
        code: "SplxlOBeZQQYbYS6WxSbIA", verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        redirectURI: "https://client.example.com/cb"),
      client: .none(clientID: "s6BhdRkqt3"))
    let http = request.httpRequest(url: "https://server.example.com/token")
    #expect(http.method == "POST" && http.url == "https://server.example.com/token")
    #expect(
      body(http)
        == "grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA"
        + "&redirect_uri=https%3A%2F%2Fclient.example.com%2Fcb"
        + "&client_id=s6BhdRkqt3&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    #expect(
      http.headers == [
        HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json"),
      ])
    #expect(!http.freshConnection)
  }

  @Test func refreshOnANewConnection() {
    let request = TokenRequest(grant: .refreshToken("tGzv3JOkF0XG5Qx2TlKWIA"), client: .none(clientID: "s6BhdRkqt3"))
    let http = request.httpRequest(url: "https://server.example.com/token")
    #expect(body(http) == "grant_type=refresh_token&refresh_token=tGzv3JOkF0XG5Qx2TlKWIA&client_id=s6BhdRkqt3")
    #expect(http.freshConnection, "a rotating refresh token is never sent twice by libcurl's retry")
  }

  /// An extension grant (RFC 6749 §4.5): its URI as grant_type, then its own parameters, then the
  /// client's and the per-request ones; on a new connection. RFC 8693 §2.3's example, with a
  /// public client's client_id.
  @Test func anExtensionGrantIsItsTypeAndItsParameters() {
    let request = TokenRequest(
      grant: .extensionGrant(
        type: "urn:ietf:params:oauth:grant-type:token-exchange",
        parameters: [
          FormParameter("subject_token", "accVkjcJyb4BWCxGsndESCJQbdFMogUC5PbRDqceLTC"),
          FormParameter("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"),
        ]),
      client: .none(clientID: "c"), additionalParameters: [FormParameter("resource", "https://backend.example.com/api")]
    )
    let http = request.httpRequest(url: "https://as.example.com/token")
    #expect(
      body(http)
        == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"
        + "&subject_token=accVkjcJyb4BWCxGsndESCJQbdFMogUC5PbRDqceLTC"
        + "&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token"
        + "&client_id=c&resource=https%3A%2F%2Fbackend.example.com%2Fapi")
    #expect(http.freshConnection)
  }

  /// Per-request parameters (resource, audience, scope) follow the grant's and the client's, in
  /// order, encoded as every value is.
  @Test func additionalParametersComeLast() {
    let request = TokenRequest(
      grant: .refreshToken("rt"), client: .none(clientID: "c"),
      additionalParameters: [
        FormParameter("resource", "https://api.example.com/"), FormParameter("scope", "read write"),
      ])
    #expect(
      body(request.httpRequest(url: "https://t/token"))
        == "grant_type=refresh_token&refresh_token=rt&client_id=c"
        + "&resource=https%3A%2F%2Fapi.example.com%2F&scope=read%20write")
  }

  @Test func revocation() {
    let http = RevocationRequest(
      token: "45ghiukldjahdnhzdauz", hint: .refreshToken, client: .none(clientID: "s6BhdRkqt3")
    )
    .httpRequest(url: "https://server.example.com/revoke")
    #expect(body(http) == "token=45ghiukldjahdnhzdauz&token_type_hint=refresh_token&client_id=s6BhdRkqt3")
    #expect(http.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")])
  }

  /// Values are encoded, never able to add a parameter.
  @Test func valuesCannotAddParameters() {
    let request = TokenRequest(grant: .refreshToken("a&client_id=evil"), client: .none(clientID: "c=d"))
    #expect(request.parameters.map(\.name) == ["grant_type", "refresh_token", "client_id"])
    #expect(
      body(request.httpRequest(url: "https://t/token"))
        == "grant_type=refresh_token&refresh_token=a%26client_id%3Devil&client_id=c%3Dd")
  }
}

/// The authorize URL against RFC 6749 §4.1.1's example request and RFC 7636 §4.3 with
/// Appendix B's verifier and challenge.
@Suite struct AuthorizationRequestTests {
  static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
  let request = AuthorizationRequest(
    clientID: "s6BhdRkqt3", redirectURI: "https://client.example.com/cb", scopes: ["openid", "profile"],
    pkce: PKCE(verifier: Self.verifier), state: "xyz", nonce: "n-0S6_WzA2Mj")

  @Test func rfcExamples() {
    let query = FormURLEncoding.query(of: request.url(endpoint: "https://server.example.com/authorize"))
    // RFC 6749 §4.1.1
    #expect(query["response_type"] == "code" && query["client_id"] == "s6BhdRkqt3" && query["state"] == "xyz")
    #expect(query["redirect_uri"] == "https://client.example.com/cb")
    // RFC 7636 §4.3 and Appendix B
    #expect(query["code_challenge"] == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    #expect(query["code_challenge_method"] == "S256")
    // OpenID Connect Core §3.1.2.1
    #expect(query["scope"] == "openid profile" && query["nonce"] == "n-0S6_WzA2Mj")
    #expect(query["sdk"] == nil && query.count == 8)
  }

  /// The URL byte for byte as the sign-in has always sent it: the protocol's parameters, then the
  /// additional ones in order, then `sdk`; appended to an endpoint's own query with `&`.
  @Test func theURLItself() {
    var withExtras = request
    withExtras.additionalParameters = [FormParameter("prompt", "login"), FormParameter("login_hint", "a b@c")]
    let url = withExtras.url(endpoint: "https://t.example/oauth2/auth?x=1", sdk: "web")
    #expect(
      url == "https://t.example/oauth2/auth?x=1&client_id=s6BhdRkqt3"
        + "&redirect_uri=https%3A%2F%2Fclient.example.com%2Fcb&response_type=code&scope=openid%20profile"
        + "&code_challenge_method=S256&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        + "&state=xyz&nonce=n-0S6_WzA2Mj&prompt=login&login_hint=a%20b%40c&sdk=web")
  }

  @Test func eachAttemptIsFresh() {
    let a = AuthorizationRequest(clientID: "c", redirectURI: "http://127.0.0.1/cb", scopes: ["openid"])
    let b = AuthorizationRequest(clientID: "c", redirectURI: "http://127.0.0.1/cb", scopes: ["openid"])
    #expect(a.state != b.state && a.nonce != b.nonce && a.pkce.verifier != b.pkce.verifier)
    #expect(PKCE.isValidVerifier(a.pkce.verifier) && a.state.utf8.count >= 22)
  }
}

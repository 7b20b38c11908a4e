// A tenant that quotes back what it was sent: every kind of request's secrets are redacted from a
// failed answer before it is read, in the shapes a gateway echoes them (issue 46, point 3).
import OAuthCore
import StrivacityCore
import Testing

@Suite struct RedactionTests {
  static let secret = try! ClientSecret(admitting: "s3cr/et+with \"quote\" & more")
  static let assertion = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjIn0.c2lnbmF0dXJl"
  static let refresh = "tGzv3JOkF0XG5Qx2TlKWIA"

  /// Every request strivacity makes that carries a secret, with the secrets it carries.
  static let requests: [(String, HTTPRequest, [String])] = [
    (
      "authorization code",
      TokenRequest(
        grant: .authorizationCode(
          code: "SplxlOBeZQQYbYS6WxSbIA", verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gF",
          redirectURI: "http://127.0.0.1/cb"),
        client: .none(clientID: "cli")
      ).httpRequest(url: "https://t.example/token"), ["SplxlOBeZQQYbYS6WxSbIA", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gF"]
    ),
    (
      "refresh",
      TokenRequest(grant: .refreshToken(try! RefreshToken(admitting: refresh)), client: .none(clientID: "cli"))
        .httpRequest(url: "https://t.example/token"),
      [refresh]
    ),
    (
      "client_secret_basic",
      TokenRequest(grant: .clientCredentials, client: .clientSecretBasic(clientID: "m2m", secret: secret)).httpRequest(
        url: "https://t.example/token"), [secret.value]
    ),
    (
      "client_secret_post",
      TokenRequest(grant: .clientCredentials, client: .clientSecretPost(clientID: "m2m", secret: secret)).httpRequest(
        url: "https://t.example/token"), [secret.value]
    ),
    (
      "private_key_jwt",
      TokenRequest(grant: .clientCredentials, client: .privateKeyJWT(clientID: "m2m", assertion: assertion))
        .httpRequest(url: "https://t.example/token"), [assertion]
    ),
    (
      "token exchange",
      TokenRequest(
        grant: .extensionGrant(
          type: "urn:ietf:params:oauth:grant-type:token-exchange",
          parameters: [FormParameter("subject_token", "subj-tok-123")]),
        client: .none(clientID: "cli")
      ).httpRequest(url: "https://t.example/token"), ["subj-tok-123"]
    ),
    (
      "revocation",
      RevocationRequest(
        token: refresh, hint: .refreshToken, client: .clientSecretBasic(clientID: "m2m", secret: secret)
      )
      .httpRequest(url: "https://t.example/revoke"), [refresh, secret.value]
    ),
    (
      "userinfo",
      HTTPRequest(
        url: "https://t.example/userinfo", headers: [.authorization(try! BearerToken(admitting: "at-123456"))],
        sentSecrets: ["at-123456"]),
      ["at-123456"]
    ),
  ]

  /// The request as an echoing gateway quotes it: headers and body, raw.
  static func echo(_ request: HTTPRequest) -> String {
    request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n") + "\n\n"
      + String(decoding: request.body ?? [], as: UTF8.self)
  }

  /// The forms of `value` a reader could find it in.
  static func forms(_ value: String) -> [String] {
    [value, FormURLEncoding.escape(value), Base64.encode(Array(value.utf8))]
  }

  static func jsonString(_ text: String, slash: Bool) -> String {
    let escaped = JSONValue.string(text).serialized()
    let string = String(decoding: escaped, as: UTF8.self)
    return slash ? string.replacing("/", with: "\\/") : string
  }

  @Test(arguments: [false, true]) func everyRequestKindsSecretsAreRedactedFromAnEcho(slash: Bool) throws {
    for (kind, request, secrets) in Self.requests {
      let quoted = Self.echo(request) + "\n" + secrets.joined(separator: " ")
      let document = #"{"error":"invalid_request","error_description":"# + Self.jsonString(quoted, slash: slash) + "}"
      let page =
        "<html><body><p>" + quoted.replacing("&", with: "&amp;").replacing("\"", with: "&quot;") + "</p></body></html>"
      for (status, body) in [(400, document), (401, page), (200, document), (502, quoted)] {
        let response = HTTPResponse(status: status, body: Array(body.utf8)).redactingFailure(request.sentSecrets)
        let read = response.bodyText
        let words = [
          OAuthError.from(status: status, body: response.body)?.description, TenantWords.of(response.body),
          TokenEndpointOutcome(response).error?.description,
        ].compactMap { $0 }
        #expect(read.contains(Redaction.mark), "\(kind) \(status)")
        for secret in secrets {
          for form in Self.forms(secret) + [Base64.encode(Array("m2m:\(FormURLEncoding.escape(secret))".utf8))] {
            #expect(!read.contains(form), "\(kind) \(status): \(form)")
            for text in words { #expect(!text.contains(form), "\(kind) \(status): \(text)") }
          }
        }
      }
    }
  }

  /// A journey's request names none: its 400 screens carry the hosted URL, session id and all.
  @Test func aJourneysAnswersAreNotChanged() {
    let request = HTTPRequest(
      method: "POST", url: "https://t.example/flow/api/v1/form/f", headers: [.authorization("session-1234")],
      body: Array(#"{"password":"x"}"#.utf8))
    let screen = Array(#"{"hostedUrl":"https://t.example/provider/flow?challenge=session-1234","messages":{}}"#.utf8)
    #expect(HTTPResponse(status: 400, body: screen).redactingFailure(request.sentSecrets).body == screen)
  }

  @Test func aSuccessfulAnswerIsNeverChanged() {
    // A server that does not rotate answers a refresh with the same refresh token.
    let request = Self.requests[1].1
    let body = Array(#"{"access_token":"at","token_type":"Bearer","refresh_token":"\#(Self.refresh)"}"#.utf8)
    let response = HTTPResponse(status: 200, body: body).redactingFailure(request.sentSecrets)
    #expect(response.body == body)
    guard case .tokens(let tokens) = TokenEndpointOutcome(response) else {
      Issue.record("not a token response")
      return
    }
    #expect(tokens.refreshToken?.value == Self.refresh)
    // Nothing to redact: the failed answer is the same too.
    let plain = Array(#"{"error":"invalid_grant"}"#.utf8)
    #expect(HTTPResponse(status: 400, body: plain).redactingFailure(request.sentSecrets).body == plain)
  }

  /// The tenant chooses the refresh token: one that makes a naive search quadratic (`a…ab` in a
  /// body of `a`s) still costs one pass.
  @Test func redactionIsLinearWhateverTheTokens() {
    let token = String(repeating: "a", count: 32_767) + "b"
    let request = TokenRequest(grant: .refreshToken(try! RefreshToken(admitting: token)), client: .none(clientID: "c"))
      .httpRequest(url: "https://t.example/token")
    let body = [UInt8](repeating: UInt8(ascii: "a"), count: 9 * 1_048_576) + Array((token + "a").utf8)
    let clock = ContinuousClock()
    var redacted: [UInt8] = []
    let took = clock.measure {
      redacted = HTTPResponse(status: 400, body: body).redactingFailure(request.sentSecrets).body
    }
    #expect(String(decoding: redacted.suffix(11), as: UTF8.self) == Redaction.mark + "a")
    // A guard against quadratic time only (a naive search takes minutes), not a goal.
    #expect(took < .seconds(5), "\(took)")
  }
}

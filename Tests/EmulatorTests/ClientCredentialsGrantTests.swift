// Confidential clients and the client-credentials grant (issue 28, point 7): each client
// authentication method of RFC 6749 §2.3 and RFC 7523, its refusals (401 invalid_client with a
// Basic challenge, 400 for two methods at once), audiences and scopes, the counters, a secret
// replaced at run time, and revocation by an authenticated client. Driven over real loopback HTTP.
import Crypto
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import StrivacityTestSupport
import Testing
import _CryptoExtras

@testable import Emulator

/// A client of the machine journey's token endpoint.
struct MachineClient {
  let emulator: Emulator
  let http = CurlHTTPClient()

  var tokenEndpoint: String { emulator.issuer + "oauth2/token" }

  static let botSecret = "ci:s3cr%t+ü/ä"
  static let postSecret = "ci-post-secret-1"
  static let basicSecret = "ci-basic-secret-1"
  static let orders = "https://api.example.com/orders"

  /// The test's own RFC 6749 §2.3.1 encoding: each part form-urlencoded (space as `+`, all but
  /// the unreserved characters as %XX of their UTF-8), joined by `:`, then base64.
  static func basic(_ id: String, _ secret: String) -> String { TestFormEncoding.basic(id, secret) }

  func post(_ path: String, _ form: [(String, String)], authorization: String? = nil) throws -> HTTPResponse {
    var headers = [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")]
    if let authorization { headers.append(HTTPHeader("Authorization", authorization)) }
    return try http.send(
      HTTPRequest(
        method: "POST", url: emulator.issuer + path, headers: headers, body: Array(FormEncoding.encode(form).utf8)))
  }

  /// A client-credentials request with `extra` parameters.
  func token(_ extra: [(String, String)] = [], authorization: String? = nil) throws -> HTTPResponse {
    try post("oauth2/token", [("grant_type", "client_credentials")] + extra, authorization: authorization)
  }

  func json(_ response: HTTPResponse) -> JSONValue { JSONValue.parse(response.body) ?? .null }

  func stats() throws -> JSONValue {
    json(try http.send(HTTPRequest(url: emulator.issuer + "_emulator/stats")))
  }

  // MARK: assertions

  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/machine-keys")

  static func pem(_ name: String) throws -> String {
    try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
  }

  static let rsaKey = try! _RSA.Signing.PrivateKey(pemRepresentation: try! pem("ci-jwt-rsa.pem"))
  static let ecKey = try! P256.Signing.PrivateKey(pemRepresentation: try! pem("ci-jwt-ec.pem"))

  var now: Int64 { Int64(Date().timeIntervalSince1970) }

  /// The claims of a good assertion for ci-jwt, `changes` applied (`.null` removes a claim).
  func claims(_ changes: [String: JSONValue] = [:]) -> [String: JSONValue] {
    var claims: [String: JSONValue] = [
      "iss": "ci-jwt", "sub": "ci-jwt", "aud": .string(tokenEndpoint), "exp": .number(Double(now + 60)),
      "iat": .number(Double(now)), "jti": .string(SecureRandom.token(bytes: 12)),
    ]
    for (key, value) in changes { claims[key] = value.isNull ? nil : value }
    return claims
  }

  static func assertionForm(_ assertion: String) -> [(String, String)] {
    [("client_assertion_type", Emulator.assertionType), ("client_assertion", assertion)]
  }

  func rsaAssertion(_ changes: [String: JSONValue] = [:], kid: String = "ci-jwt-rsa") throws -> String {
    try JWT.sign(claims: claims(changes), with: Self.rsaKey, keyID: kid)
  }

  func ecAssertion(_ changes: [String: JSONValue] = [:], kid: String? = "ci-jwt-ec") throws -> String {
    try JWT.signES256(claims: claims(changes), with: Self.ecKey, keyID: kid)
  }

  /// Expects 401 invalid_client with RFC 6749 §5.2's Basic challenge.
  func expectInvalidClient(
    _ response: HTTPResponse, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(response.status == 401, "\(what): \(response.bodyText)", sourceLocation: sourceLocation)
    #expect(json(response)["error"]?.string == "invalid_client", "\(what)", sourceLocation: sourceLocation)
    #expect(
      response.header("WWW-Authenticate") == "Basic realm=\"strivacity-emulator\"", "\(what)",
      sourceLocation: sourceLocation)
  }
}

@Suite struct ClientCredentialsGrantTests {
  func machine() throws -> (Emulator, MachineClient) {
    let emulator = try Emulator(journey: try loadJourney("machine"))
    return (emulator, MachineClient(emulator: emulator))
  }

  @Test func eachMethodSucceeds() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    let attempts: [(String, () throws -> HTTPResponse)] = [
      ("ci-bot", { try c.token(authorization: MachineClient.basic("ci-bot", MachineClient.botSecret)) }),
      ("ci-bot", { try c.token([("client_id", "ci-bot"), ("client_secret", MachineClient.botSecret)]) }),
      ("ci-post", { try c.token([("client_id", "ci-post"), ("client_secret", MachineClient.postSecret)]) }),
      ("ci-basic", { try c.token(authorization: MachineClient.basic("ci-basic", MachineClient.basicSecret)) }),
      ("ci-jwt", { try c.token(MachineClient.assertionForm(try c.rsaAssertion())) }),
      ("ci-jwt", { try c.token(MachineClient.assertionForm(try c.ecAssertion())) }),
      ("ci-jwt", { try c.token(MachineClient.assertionForm(try c.ecAssertion(kid: nil))) }),
      ("ci-jwt", { try c.token(MachineClient.assertionForm(try c.rsaAssertion(["aud": .string(emulator.issuer)]))) }),
      (
        "ci-jwt",
        { try c.token([("client_id", "ci-jwt")] + MachineClient.assertionForm(try c.rsaAssertion())) }
      ),
    ]
    let keys = try JWKS(json: c.json(try c.http.send(HTTPRequest(url: emulator.issuer + ".well-known/jwks.json"))))
    for (index, (client, attempt)) in attempts.enumerated() {
      let response = try attempt()
      let body = c.json(response)
      #expect(response.status == 200, "attempt \(index): \(response.bodyText)")
      #expect(body["token_type"]?.string == "Bearer")
      #expect(body["expires_in"]?.int == 300)
      #expect(body["scope"]?.string == "orders:read orders:write")
      #expect(body["refresh_token"] == nil && body["id_token"] == nil)
      let jwt = try JWT(compact: body["access_token"]?.string ?? "")
      try jwt.verify(with: keys)
      #expect(jwt.claims["sub"]?.string == client && jwt.claims["client_id"]?.string == client)
      #expect(jwt.claims["aud"] == [.string(client)], "neither audience nor resource: the client's own id")
      #expect(jwt.claims["scope"]?.string == "orders:read orders:write")
      #expect(jwt.claims["iss"]?.string == emulator.issuer)
    }
  }

  @Test func basicCredentialsAreFormEncodedThenBase64() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    let hostile = "a:b%41+c d\nü€/ä:%"
    let replaced = try c.http.send(
      HTTPRequest(
        method: "POST", url: emulator.issuer + "_emulator/clients/ci-basic/secret", headers: [],
        body: Array(hostile.utf8)))
    #expect(replaced.status == 204)
    #expect(try c.token(authorization: MachineClient.basic("ci-basic", hostile)).status == 200)
    // Not form-encoded first: `%41` reads as `A` and `+` as a space, so the secret is wrong.
    let raw = "Basic " + Data(("ci-basic:" + hostile).utf8).base64EncodedString()
    c.expectInvalidClient(try c.token(authorization: raw), "an unencoded secret")
    // The journey file's secret of ci-bot, both ways it may travel.
    #expect(try c.token(authorization: MachineClient.basic("ci-bot", MachineClient.botSecret)).status == 200)
    #expect(try c.token([("client_id", "ci-bot"), ("client_secret", MachineClient.botSecret)]).status == 200)
    c.expectInvalidClient(try c.token(authorization: "Basic !!!not-base64"), "not base64")
    c.expectInvalidClient(
      try c.token(authorization: "Basic " + Data("no-colon".utf8).base64EncodedString()), "no colon")
  }

  @Test func theCommandLinesBasicHeaderIsUnderstood() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    let hostile = "x:y%2B+z w\n\u{00FC}\u{20AC}/:"
    #expect(
      try c.http.send(
        HTTPRequest(
          method: "POST", url: emulator.issuer + "_emulator/clients/ci-bot/secret", body: Array(hostile.utf8))
      ).status == 204)
    let header = HTTPHeader.basicAuthorization(clientID: "ci-bot", secret: try ClientSecret(admitting: hostile))
    #expect(try c.token(authorization: header.value).status == 200)
    #expect(try c.token([("client_id", "ci-bot"), ("client_secret", hostile)]).status == 200)
  }

  @Test func faultsOfTheTokenEndpointApply() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    let fault = try c.http.send(
      HTTPRequest(
        method: "POST", url: emulator.issuer + "_emulator/faults",
        headers: [HTTPHeader("Content-Type", "application/json")],
        body: Array(#"{"endpoint": "token", "kind": "status", "status": 503}"#.utf8)))
    #expect(fault.status == 201)
    #expect(try c.token(authorization: MachineClient.basic("ci-bot", MachineClient.botSecret)).status == 503)
    #expect(try c.token(authorization: MachineClient.basic("ci-bot", MachineClient.botSecret)).status == 200)
  }

  @Test func idTokenVerificationStaysRS256Only() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    // An ES256 token verifies as an assertion with ci-jwt's keys, never through verify(with:).
    let journey = try loadJourney("machine")
    let keys = try #require(journey.clients.first { $0.clientID == "ci-jwt" }?.assertionKeys)
    let token = try JWT(compact: try c.ecAssertion())
    try token.verifyAssertion(with: keys)
    #expect(throws: JWTError.unsupportedAlgorithm("ES256")) { try token.verify(with: JWKS(keys: [])) }
    #expect(keys.keys.map(\.kid) == ["ci-jwt-rsa", "ci-jwt-ec"])
  }

  @Test func refusedClientsAre401WithABasicChallenge() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    c.expectInvalidClient(try c.token(authorization: MachineClient.basic("ci-bot", "wrong")), "wrong Basic secret")
    c.expectInvalidClient(try c.token([("client_id", "ci-post"), ("client_secret", "wrong")]), "wrong post secret")
    c.expectInvalidClient(try c.token(authorization: MachineClient.basic("nobody", "x")), "unknown client")
    c.expectInvalidClient(try c.token([("client_id", "strivacity-cli")]), "a public client")
    c.expectInvalidClient(
      try c.token([("client_id", "strivacity-cli"), ("client_secret", "x")]), "a public client with a secret")
    c.expectInvalidClient(try c.token([("client_id", "ci-bot")]), "no credentials")
    c.expectInvalidClient(try c.token(), "no client at all")
    // A method the client does not allow.
    c.expectInvalidClient(
      try c.token(authorization: MachineClient.basic("ci-post", MachineClient.postSecret)), "ci-post by Basic")
    c.expectInvalidClient(
      try c.token([("client_id", "ci-basic"), ("client_secret", MachineClient.basicSecret)]), "ci-basic by post")
    c.expectInvalidClient(try c.token([("client_id", "ci-jwt"), ("client_secret", "x")]), "ci-jwt by secret")
    c.expectInvalidClient(
      try c.token(MachineClient.assertionForm(try c.rsaAssertion(["iss": "ci-bot", "sub": "ci-bot"]))),
      "ci-bot by assertion")
  }

  @Test func twoMethodsAtOnceAreABadRequest() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    let both = [
      try c.token(
        [("client_id", "ci-bot"), ("client_secret", MachineClient.botSecret)],
        authorization: MachineClient.basic("ci-bot", MachineClient.botSecret)),
      try c.token(
        [("client_id", "ci-jwt"), ("client_secret", "x")] + MachineClient.assertionForm(try c.rsaAssertion())),
      try c.token(
        MachineClient.assertionForm(try c.rsaAssertion()),
        authorization: MachineClient.basic("ci-bot", MachineClient.botSecret)),
      try c.token([("client_id", "ci-post"), ("client_secret", "a"), ("client_secret", "b")]),
    ]
    for (index, response) in both.enumerated() {
      #expect(response.status == 400, "\(index): \(response.bodyText)")
      #expect(c.json(response)["error"]?.string == "invalid_request", "\(index)")
    }
  }

  @Test func badAssertionsAreRefused() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    let now = c.now
    let otherRSA = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let otherEC = P256.Signing.PrivateKey()
    func unsigned(_ alg: String) -> String {
      let header: JSONValue = ["alg": .string(alg), "typ": "JWT"]
      return Base64URL.encode(header.serialized()) + "." + Base64URL.encode(JSONValue.object(c.claims()).serialized())
    }
    let hmacInput = unsigned("HS256")
    let hmac = HMAC<SHA256>.authenticationCode(
      for: Array(hmacInput.utf8), using: SymmetricKey(data: Array(MachineClient.botSecret.utf8)))
    let cases: [(String, String)] = [
      ("wrong aud", try c.rsaAssertion(["aud": "https://elsewhere.example/token"])),
      ("expired", try c.rsaAssertion(["exp": .number(Double(now - 5))])),
      ("exp too far ahead", try c.rsaAssertion(["exp": .number(Double(now + 600))])),
      ("no exp", try c.rsaAssertion(["exp": .null])),
      ("no jti", try c.ecAssertion(["jti": .null])),
      ("nbf in the future", try c.rsaAssertion(["nbf": .number(Double(now + 200))])),
      ("iat in the future", try c.ecAssertion(["iat": .number(Double(now + 200))])),
      ("iss is not sub", try c.rsaAssertion(["iss": "ci-bot"])),
      ("unknown client", try c.rsaAssertion(["iss": "nobody", "sub": "nobody"])),
      ("another RSA key, ci-jwt's kid", try JWT.sign(claims: c.claims(), with: otherRSA, keyID: "ci-jwt-rsa")),
      ("another EC key, no kid", try JWT.signES256(claims: c.claims(), with: otherEC, keyID: nil)),
      ("an unknown kid", try c.rsaAssertion(kid: "nope")),
      ("alg none", unsigned("none") + "."),
      ("HS256 with a secret", hmacInput + "." + Base64URL.encode(Array(hmac))),
      ("not a JWS", "not.a.jws"),
    ]
    for (what, assertion) in cases {
      c.expectInvalidClient(try c.token(MachineClient.assertionForm(assertion)), what)
    }
    c.expectInvalidClient(
      try c.token([("client_assertion_type", "urn:other"), ("client_assertion", try c.rsaAssertion())]),
      "another assertion type")
    // A jti is good once.
    let once = try c.ecAssertion()
    #expect(try c.token(MachineClient.assertionForm(once)).status == 200)
    c.expectInvalidClient(try c.token(MachineClient.assertionForm(once)), "a replayed jti")
  }

  @Test func audiencesResourcesAndScopes() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    let bot = MachineClient.basic("ci-bot", MachineClient.botSecret)
    func expectRefusal(_ extra: [(String, String)], _ error: String, sourceLocation: SourceLocation = #_sourceLocation)
      throws
    {
      let response = try c.token(extra, authorization: bot)
      #expect(response.status == 400, "\(extra): \(response.bodyText)", sourceLocation: sourceLocation)
      #expect(c.json(response)["error"]?.string == error, "\(extra)", sourceLocation: sourceLocation)
    }
    let ordersAPI = emulator.issuer + "resources/orders/"
    let answer = try c.token([("audience", MachineClient.orders), ("scope", "orders:read")], authorization: bot)
    #expect(answer.status == 200)
    #expect(c.json(answer)["scope"]?.string == "orders:read")
    let jwt = try JWT(compact: c.json(answer)["access_token"]?.string ?? "")
    #expect(jwt.claims["aud"] == [.string(MachineClient.orders)])
    #expect(jwt.claims["scope"]?.string == "orders:read")
    // The API's protected resource takes it for reading, not for writing.
    func resource(_ method: String, _ token: String) throws -> HTTPResponse {
      try c.http.send(
        HTTPRequest(
          method: method, url: ordersAPI, headers: [HTTPHeader("Authorization", "Bearer \(token)")],
          body: method == "POST" ? Array("{}".utf8) : nil))
    }
    let read = try resource("GET", c.json(answer)["access_token"]?.string ?? "")
    #expect(read.status == 200, "\(read.bodyText)")
    #expect(c.json(read)["sub"]?.string == "ci-bot")
    #expect(try resource("POST", c.json(answer)["access_token"]?.string ?? "").status == 403)
    // Resources: the API's indicator or its protected resource here.
    for indicator in ["https://api.example.com/orders/", ordersAPI] {
      let response = try c.token([("resource", indicator)], authorization: bot)
      #expect(response.status == 200, "\(response.bodyText)")
      let claims = try JWT(compact: c.json(response)["access_token"]?.string ?? "").claims
      #expect(claims["aud"] == [.string(indicator)])
    }
    let written = try c.token([("resource", ordersAPI)], authorization: bot)
    #expect(try resource("POST", c.json(written)["access_token"]?.string ?? "").status == 200)
    try expectRefusal([("audience", "https://api.example.com/billing")], "invalid_target")
    try expectRefusal([("audience", "https://nowhere.example")], "invalid_target")
    try expectRefusal([("resource", "https://api.example.com/billing/")], "invalid_target")
    try expectRefusal([("resource", "https://nowhere.example/")], "invalid_target")
    try expectRefusal([("resource", "not a uri")], "invalid_target")
    try expectRefusal([("scope", "orders:read admin")], "invalid_scope")
    try expectRefusal([("audience", MachineClient.orders), ("scope", "openid")], "invalid_scope")
  }

  @Test func aGrantTheClientMayNotUseIsUnauthorizedClient() throws {
    let journey = try Journey.load(
      data: Array(
        JourneyFileTests.valid.replacingOccurrences(
          of: #"{"client_id": "c", "redirect_uris": ["http://127.0.0.1/cb"]}"#,
          with: #"{"client_id": "c", "redirect_uris": ["http://127.0.0.1/cb"]}, "#
            + #"{"client_id": "web", "client_secret": "s", "grant_types": ["authorization_code"], "#
            + #""redirect_uris": ["https://app.example/cb"]}, {"client_id": "m", "client_secret": "t"}"#
        ).utf8), file: "j.json")
    let emulator = try Emulator(journey: journey)
    defer { emulator.stop() }
    let c = MachineClient(emulator: emulator)
    let response = try c.token(authorization: MachineClient.basic("web", "s"))
    #expect(response.status == 400)
    #expect(c.json(response)["error"]?.string == "unauthorized_client")
    // A machine with no `scopes` is granted none, and the answer names none.
    let bare = try c.token(authorization: MachineClient.basic("m", "t"))
    #expect(bare.status == 200, "\(bare.bodyText)")
    #expect(c.json(bare)["scope"] == nil)
    #expect(try JWT(compact: c.json(bare)["access_token"]?.string ?? "").claims["scope"] == nil)
    c.expectInvalidClient(try c.token([("scope", "x")], authorization: MachineClient.basic("m", "wrong")), "wrong")
    let refused = try c.token([("scope", "x")], authorization: MachineClient.basic("m", "t"))
    #expect(c.json(refused)["error"]?.string == "invalid_scope")
    // Its authorization-code grant needs the secret too.
    c.expectInvalidClient(
      try c.post(
        "oauth2/token",
        [
          ("grant_type", "authorization_code"), ("client_id", "web"), ("code", "x"), ("code_verifier", "y"),
          ("redirect_uri", "https://app.example/cb"),
        ]), "a code exchange without the secret")
  }

  @Test func statsCountRequestsAndRefusals() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    _ = try c.token(authorization: MachineClient.basic("ci-bot", MachineClient.botSecret))
    _ = try c.token(authorization: MachineClient.basic("ci-bot", "wrong"))
    _ = try c.token([("client_id", "ci-post"), ("client_secret", MachineClient.postSecret)])
    _ = try c.token(MachineClient.assertionForm(try c.rsaAssertion()))
    _ = try c.token([("client_id", "nobody"), ("client_secret", "x")])
    _ = try c.token(authorization: MachineClient.basic("ci-bot", MachineClient.botSecret))
    var stats = try c.stats()
    #expect(stats["client_credentials_requests"]?.int == 6)
    #expect(stats["invalid_client"]?.int == 2)
    #expect(stats["client_credentials_by_client"] == ["ci-bot": 3, "ci-post": 1, "ci-jwt": 1])
    #expect(stats["grants"]?["client_credentials"]?.int == 6)
    _ = try c.http.send(HTTPRequest(method: "POST", url: emulator.issuer + "_emulator/stats/reset", body: []))
    stats = try c.stats()
    #expect(stats["client_credentials_requests"]?.int == 0)
    #expect(stats["invalid_client"]?.int == 0)
    #expect(stats["client_credentials_by_client"] == [:])
  }

  @Test func aSecretReplacedAtRunTime() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    func replace(_ id: String, _ secret: String) throws -> Int {
      try c.http.send(
        HTTPRequest(
          method: "POST", url: emulator.issuer + "_emulator/clients/\(id)/secret", headers: [],
          body: Array(secret.utf8))
      ).status
    }
    #expect(try replace("ci-post", "rotated") == 204)
    c.expectInvalidClient(
      try c.token([("client_id", "ci-post"), ("client_secret", MachineClient.postSecret)]), "the old secret")
    #expect(try c.token([("client_id", "ci-post"), ("client_secret", "rotated")]).status == 200)
    #expect(try replace("nobody", "x") == 404)
    #expect(try replace("ci-jwt", "x") == 400, "ci-jwt has no secret to replace")
    #expect(try replace("ci-post", "") == 400)
  }

  @Test func revocationNeedsTheClientAndUserinfoHasNoUser() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    let bot = MachineClient.basic("ci-bot", MachineClient.botSecret)
    let token = c.json(try c.token(authorization: bot))["access_token"]?.string ?? ""
    let userinfo = try c.http.send(
      HTTPRequest(url: emulator.issuer + "userinfo", headers: [HTTPHeader("Authorization", "Bearer \(token)")]))
    #expect(userinfo.status == 401)
    #expect(userinfo.header("WWW-Authenticate")?.hasPrefix("Bearer error=\"invalid_token\"") == true)
    func active() throws -> Bool? {
      c.json(try c.post("oauth2/introspect", [("token", token)]))["active"]?.bool
    }
    #expect(try active() == true)
    c.expectInvalidClient(try c.post("oauth2/revoke", [("token", token)]), "revocation without the client")
    c.expectInvalidClient(
      try c.post("oauth2/revoke", [("token", token), ("client_id", "ci-bot")]), "revocation naming the client only")
    c.expectInvalidClient(
      try c.post("oauth2/revoke", [("token", token)], authorization: MachineClient.basic("ci-bot", "wrong")),
      "revocation with a wrong secret")
    #expect(try active() == true)
    // Another client's credentials are good but the token is not its own: nothing happens (RFC 7009 §2.1).
    let other = try c.post(
      "oauth2/revoke", [("token", token), ("client_id", "ci-post"), ("client_secret", MachineClient.postSecret)])
    #expect(other.status == 200)
    #expect(try active() == true)
    #expect(try c.post("oauth2/revoke", [("token", token)], authorization: bot).status == 200)
    #expect(try active() == false)
    let assertion = MachineClient.assertionForm(try c.rsaAssertion())
    let jwtToken = c.json(try c.token(assertion))["access_token"]?.string ?? ""
    let revoked = try c.post(
      "oauth2/revoke", [("token", jwtToken)] + MachineClient.assertionForm(try c.ecAssertion()))
    #expect(revoked.status == 200)
  }

  @Test func discoveryListsTheMethods() throws {
    let (emulator, c) = try machine()
    defer { emulator.stop() }
    let discovery = c.json(try c.http.send(HTTPRequest(url: emulator.issuer + ".well-known/openid-configuration")))
    #expect(
      discovery["token_endpoint_auth_methods_supported"]
        == ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"])
    #expect(discovery["grant_types_supported"]?.array?.contains("client_credentials") == true)
    let postOnly = try Journey.load(
      data: Array(
        JourneyFileTests.valid.replacingOccurrences(
          of: #"{"name": "t","#,
          with: #"{"name": "t", "token_endpoint_auth_methods_supported": ["client_secret_post"],"#
        ).utf8), file: "j.json")
    let other = try Emulator(journey: postOnly)
    defer { other.stop() }
    let listed = c.json(try c.http.send(HTTPRequest(url: other.issuer + ".well-known/openid-configuration")))
    #expect(listed["token_endpoint_auth_methods_supported"] == ["client_secret_post"])
  }

  static let rsaJWK = #"{"kty": "RSA", "n": "AQAB", "e": "AQAB"}"#

  @Test(arguments: [
    (#""client_secret": 5"#, "$.clients[0].client_secret: must be a non-empty string, not a number"),
    (
      #""client_secret": "s", "token_endpoint_auth_methods": ["tls_client_auth"]"#,
      "$.clients[0].token_endpoint_auth_methods[0]: unknown method \"tls_client_auth\""
    ),
    (
      #""token_endpoint_auth_methods": ["client_secret_post"]"#,
      "$.clients[0].token_endpoint_auth_methods[0]: client_secret_post needs a \"client_secret\""
    ),
    (
      #""client_secret": "s", "token_endpoint_auth_methods": ["private_key_jwt"]"#,
      "$.clients[0].token_endpoint_auth_methods[0]: private_key_jwt needs the client's public keys in \"jwks\""
    ),
    (#""jwks": {"keys": []}"#, "$.clients[0].jwks: keys: declare at least one key"),
    (#""jwks": {"keys": [\#(rsaJWK)]}"#, "$.clients[0].jwks: keys[0]: "),
    (
      #""jwks": {"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#,
      "$.clients[0].jwks: keys[0]: \"kty\" must be \"RSA\" or \"EC\", not \"oct\""
    ),
    (
      #""jwks": {"keys": [{"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"}]}"#,
      "$.clients[0].jwks: keys[0]: an EC key must have \"crv\": \"P-256\""
    ),
    (
      #""jwks": {"keys": [{"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", "d": "AA"}]}"#,
      "$.clients[0].jwks: keys[0]: holds a private key (\"d\"); register the public key only"
    ),
    (#""grant_types": ["client_credentials"]"#, "$.clients[0].grant_types[0]: client_credentials needs a confidential"),
    (#""client_secret": "s", "grant_types": ["password"]"#, "$.clients[0].grant_types[0]: unknown grant type"),
    (#""audiences": ["has space"]"#, "$.clients[0].audiences[0]: must be a non-empty string without white space"),
    (#""scopes": ["a\"b"]"#, "$.clients[0].scopes[0]: not a scope token"),
    (#""access_token_ttl": 0"#, "$.clients[0].access_token_ttl: must be positive"),
  ])
  func journeyFileErrors(_ keys: String, _ expected: String) {
    let text = JourneyFileTests.valid.replacingOccurrences(
      of: #"{"client_id": "c", "#, with: #"{"client_id": "c", \#(keys), "#)
    let issues: [String]
    do {
      _ = try Journey.load(data: Array(text.utf8), file: "j.json")
      issues = []
    } catch {
      issues = error.issues.map(\.description)
    }
    #expect(issues.contains { $0.hasPrefix(expected) }, "\(issues)")
  }

  @Test func redirectURIsAreOptionalForMachineClientsAndTopLevelMethodsAreChecked() {
    let issues = journeyIssues
    let machineOnly = JourneyFileTests.valid.replacingOccurrences(
      of: #"{"client_id": "c", "redirect_uris": ["http://127.0.0.1/cb"]}"#,
      with: #"{"client_id": "c", "redirect_uris": ["http://127.0.0.1/cb"]}, {"client_id": "m", "client_secret": "s"}"#)
    #expect(issues(machineOnly) == [])
    let badTop = JourneyFileTests.valid.replacingOccurrences(
      of: #"{"name": "t","#, with: #"{"name": "t", "token_endpoint_auth_methods_supported": ["magic"],"#)
    #expect(issues(badTop).contains { $0.hasPrefix("$.token_endpoint_auth_methods_supported[0]: unknown") })
    let duplicate = JourneyFileTests.valid.replacingOccurrences(
      of: #"{"client_id": "c", "redirect_uris": ["http://127.0.0.1/cb"]}"#,
      with: #"{"client_id": "c", "redirect_uris": ["http://127.0.0.1/cb"]}, {"client_id": "c", "client_secret": "s"}"#)
    #expect(issues(duplicate).contains { $0.hasSuffix("$.clients[1].client_id: duplicate client_id \"c\"") })
  }
}

// private_key_jwt (RFC 7523 §2.2, §3): the assertion's header and claims, its signature with
// RS256 and ES256 keys from PEM (PKCS#8 and traditional), and what is refused.
import Crypto
import OAuthCore
import StrivacityCore
import Testing
import _CryptoExtras

@Suite struct ClientAssertionTests {
  static let endpoint = "https://tenant.example.com/oauth2/token"

  func parts(_ assertion: String) throws -> (header: JSONValue, claims: JSONValue, input: [UInt8], signature: [UInt8]) {
    let pieces = assertion.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    try #require(pieces.count == 3)
    let header = try #require(Base64URL.decode(pieces[0]).flatMap { JSONValue.parse($0) })
    let claims = try #require(Base64URL.decode(pieces[1]).flatMap { JSONValue.parse($0) })
    return (header, claims, Array((pieces[0] + "." + pieces[1]).utf8), try #require(Base64URL.decode(pieces[2])))
  }

  @Test func rs256FromPKCS8AndTraditionalPEM() throws {
    let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    for pem in [key.pemRepresentation, key.pkcs8PEMRepresentation] {
      let signing = try ClientAssertion.SigningKey(pem: pem)
      let assertion = try ClientAssertion.make(
        clientID: "ci-bot", tokenEndpoint: Self.endpoint, key: signing, keyID: "k1", now: 1_800_000_000, jti: "j1")
      let (header, claims, input, signature) = try parts(assertion)
      #expect(header == ["alg": "RS256", "typ": "JWT", "kid": "k1"])
      #expect(
        claims == [
          "iss": "ci-bot", "sub": "ci-bot", "aud": .string(Self.endpoint), "jti": "j1", "iat": 1_800_000_000,
          "exp": 1_800_000_060,
        ])
      #expect(
        key.publicKey.isValidSignature(
          _RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: .insecurePKCS1v1_5))
    }
  }

  @Test func es256FromPKCS8AndSEC1PEM() throws {
    let key = P256.Signing.PrivateKey()
    for pem in [
      key.pemRepresentation, key.pemRepresentation.replacingOccurrences(of: "PRIVATE KEY", with: "PRIVATE KEY"),
    ] {
      let assertion = try ClientAssertion.make(
        clientID: "ci-jwt", tokenEndpoint: Self.endpoint, key: try ClientAssertion.SigningKey(pem: pem), now: 100)
      let (header, claims, input, signature) = try parts(assertion)
      #expect(header["alg"] == "ES256" && header["kid"] == nil)
      #expect(claims["exp"] == 160 && claims["jti"]?.string?.count ?? 0 >= 20)
      #expect(signature.count == 64, "r ‖ s, not DER")
      #expect(key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: input))
    }
  }

  @Test func everyAssertionHasItsOwnJTI() throws {
    let key = try ClientAssertion.SigningKey(pem: P256.Signing.PrivateKey().pemRepresentation)
    let ids = try (0..<20).map { _ in
      try parts(try ClientAssertion.make(clientID: "c", tokenEndpoint: Self.endpoint, key: key, now: 1)).claims["jti"]
    }
    #expect(Set(ids.compactMap { $0?.string }).count == 20)
  }

  @Test func otherKeysAreRefusedWithoutShowingThem() throws {
    let p384 = P384.Signing.PrivateKey().pemRepresentation
    let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).pemRepresentation
    for (pem, expected) in [
      (p384, "not a PEM private key of RSA (RS256) or EC P-256 (ES256)"),
      (
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
        "not a PEM private key of RSA (RS256) or EC P-256 (ES256)"
      ),
      (small, "the RSA key has 1024 bits; RS256 needs at least 2048"),
    ] {
      #expect(throws: AdmissionError(expected)) { try ClientAssertion.SigningKey(pem: pem) }
    }
  }

  @Test func theRequestCarriesTheAssertionAndTheClientID() {
    let request = TokenRequest(
      grant: .clientCredentials, client: .privateKeyJWT(clientID: "ci-jwt", assertion: "a.b.c"))
    #expect(
      request.parameters == [
        FormParameter("grant_type", "client_credentials"), FormParameter("client_id", "ci-jwt"),
        FormParameter("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
        FormParameter("client_assertion", "a.b.c"),
      ])
    #expect(request.httpRequest(url: Self.endpoint).headers.allSatisfy { $0.name != "Authorization" })
    #expect("\(ClientAuthentication.privateKeyJWT(clientID: "x", assertion: "a.b.c"))" == "private_key_jwt")
  }

  /// The default method: the first of Basic and Post the tenant lists; Basic without a list.
  @Test(
    arguments: [
      (nil, TokenEndpointAuth.clientSecretBasic), (["client_secret_post"], .clientSecretPost),
      (["client_secret_post", "client_secret_basic"], .clientSecretBasic), (["private_key_jwt"], .clientSecretBasic),
      ([], .clientSecretBasic),
    ] as [([String]?, TokenEndpointAuth)])
  func theDefaultMethodFollowsDiscovery(listed: [String]?, expected: TokenEndpointAuth) {
    #expect(TokenEndpointAuth.chosen(configured: nil, discovered: listed) == expected)
    #expect(TokenEndpointAuth.chosen(configured: .privateKeyJWT, discovered: listed) == .privateKeyJWT)
  }

  @Test func discoveryKeepsTheListAndItSurvivesTheCache() throws {
    let document: JSONValue = [
      "issuer": "https://t.example/", "authorization_endpoint": "https://t.example/a",
      "token_endpoint": "https://t.example/t",
      "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt", "bad value\n", 7],
    ]
    let discovery = try Discovery(json: document)
    #expect(discovery.tokenEndpointAuthMethods == ["client_secret_post", "private_key_jwt"])
    #expect(
      try Discovery(cached: discovery.cacheable).tokenEndpointAuthMethods == ["client_secret_post", "private_key_jwt"])
    #expect(
      try Discovery(json: ["issuer": "i", "authorization_endpoint": "a", "token_endpoint": "t"])
        .tokenEndpointAuthMethods == nil)
  }
}

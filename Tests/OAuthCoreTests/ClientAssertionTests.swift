// private_key_jwt (RFC 7523 §2.2, §3): the assertion's header and claims, its signature with
// RS256 and ES256 keys from PEM (PKCS#8 and traditional), and what is refused.
import Crypto
import Foundation
import OAuthCore
import StrivacityConfig
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
        clientID: "ci-bot", tokenEndpoint: Self.endpoint, key: signing, keyID: .named("k1"), now: 1_800_000_000,
        jti: "j1")
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
      let signing = try ClientAssertion.SigningKey(pem: pem)
      let assertion = try ClientAssertion.make(clientID: "ci-jwt", tokenEndpoint: Self.endpoint, key: signing, now: 100)
      let (header, claims, input, signature) = try parts(assertion)
      #expect(header == ["alg": "ES256", "typ": "JWT", "kid": .string(signing.thumbprint)])
      #expect(claims["exp"] == 160 && claims["jti"]?.string?.count ?? 0 >= 20)
      #expect(signature.count == 64, "r ‖ s, not DER")
      #expect(key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: input))
    }
  }

  // MARK: the key's id (RFC 7638)

  /// RFC 7638 §3.1's example: its RSA key (n, e) and its thumbprint.
  @Test func theRFC7638ExampleThumbprint() throws {
    let n =
      "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tS"
      + "oc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65"
      + "YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyr"
      + "dkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzK"
      + "nqDKgw"
    let jwk = PublicJWK.rsa(
      modulus: try #require(Base64URL.decode(n)), exponent: try #require(Base64URL.decode("AQAB")))
    #expect(jwk.thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    // A leading zero byte (as DER's INTEGER carries it) does not change it.
    let padded = PublicJWK.rsa(modulus: [0] + (try #require(Base64URL.decode(n))), exponent: [0, 1, 0, 1])
    #expect(padded == jwk && padded.thumbprint == jwk.thumbprint)
  }

  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../Fixtures/machine-keys").standardized

  /// The fixture keys' thumbprints, computed apart from this code (openssl's numbers, then
  /// Python's JSON and SHA-256), and their JWKs, the same as the emulator's machine journey
  /// registers for ci-jwt.
  @Test(
    arguments: [
      (
        "ci-jwt-rsa.pem", "zhSt_92QbTnh9jS_QkfLLKpbAWSEtiBN10auUSRAhrk",
        [
          "kty": "RSA", "alg": "RS256", "e": "AQAB",
          "n": .string(
            "x6JRByL4x8Za0vXviRWLhW64DrfPSdVVD7TSGCsGR0JxzTj1rOBfI5RS4jizxdSxO1OWJ1mcH6MmgWf5DCRu"
              + "t-ZBMrk4YxhAsoY25sUlHbk_tiPgsGdLGQOi36loZMCstROPQW2EsLnwEqjIqKCggxgEwS5eh5NWxSAEH3mh"
              + "FsnbeGAzVDEhBtjsng-hQu2iECksrVATX204PiMRrKqx9FkjKzjnP0QhohGVfhtkou5UDhVazvKjrp2SrAuI"
              + "Q4QA3wijV1SRNgAMGGwqcJ9Z-cUzb7SjK-goGCRLX28H5PA3jfdFr575k7jwGNPAfpjuhQp6Lx-v_iITT5J1"
              + "pwvBdw"
          ),
        ]
      ),
      (
        "ci-jwt-ec.pem", "MB1drSdLS92c5QJgWDyWckMaZazMm7UeTt2dc6JSkdo",
        [
          "kty": "EC", "alg": "ES256", "crv": "P-256", "x": "YFtLxMoQDqoq2k3dDAa_r2Kdd8R4jt0ClBEOFMAhSc4",
          "y": "KvFcLWfwKvfP3157XJtwPZfFEnBAjQQF1v5DaoYQcRs",
        ]
      ),
    ] as [(String, String, [String: JSONValue])])
  func fixtureKeysHaveTheirThumbprints(file: String, thumbprint: String, members: [String: JSONValue]) throws {
    let pem = try String(contentsOf: Self.fixtures.appendingPathComponent(file), encoding: .utf8)
    let key = try ClientAssertion.SigningKey(pem: pem)
    #expect(key.thumbprint == thumbprint)
    var expected = members
    expected["kid"] = .string(thumbprint)
    expected["use"] = "sig"
    #expect(key.publicJWK.document(keyID: thumbprint) == .object(expected))
    // By default the header names the key by it; private_key_id names it otherwise, or not at all.
    for (keyID, kid) in [
      (ClientAssertion.KeyID.thumbprint, JSONValue.string(thumbprint)), (.init(configured: nil), .string(thumbprint)),
      (.init(configured: "ci-jwt-2025"), "ci-jwt-2025"), (.omitted, nil),
    ] as [(ClientAssertion.KeyID, JSONValue?)] {
      let header = try parts(
        try ClientAssertion.make(clientID: "ci-jwt", tokenEndpoint: Self.endpoint, key: key, keyID: keyID, now: 1)
      ).header
      #expect(header["kid"] == kid, "\(keyID)")
    }
  }

  /// For any key, the thumbprint is the SHA-256 of the required members as sorted, compact JSON
  /// (here through JSONEncoder, not the hand-made text), and the JWK holds no private part.
  @Test func thumbprintsAreOfTheCanonicalMembers() throws {
    for signing in [
      try ClientAssertion.SigningKey(pem: try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation),
      try ClientAssertion.SigningKey(pem: P256.Signing.PrivateKey().pemRepresentation),
    ] {
      let document = signing.publicJWK.document(keyID: "k")
      let required = (document.object ?? [:]).filter { ["e", "kty", "n", "crv", "x", "y"].contains($0.key) }
      #expect(
        signing.thumbprint == Base64URL.encode(SHA256.hash(data: JSONValue.object(required).serialized())))
      #expect(Set((document.object ?? [:]).keys).isDisjoint(with: ["d", "p", "q", "dp", "dq", "qi"]))
      #expect(try AssertionKeys(json: ["keys": [document]]).keys.count == 1, "a JWK a verifier takes")
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

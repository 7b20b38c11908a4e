import Crypto
import StrivacityCore
import Testing
import _CryptoExtras

@testable import OAuthCore

@Suite struct Base64URLTests {
  @Test func roundTripsAndRejectsForeignCharacters() {
    for length in 0..<40 {
      let bytes = SecureRandom.bytes(length)
      let encoded = Base64URL.encode(bytes)
      #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
      #expect(Base64URL.decode(encoded) == bytes)
    }
    #expect(Base64URL.decode("a+b/") == nil)
    #expect(Base64URL.decode("abcde") == nil)  // 5 characters cannot be base64
    #expect(Base64URL.decode("") == [])
  }
}

@Suite struct PKCETests {
  // RFC 7636 Appendix B.
  @Test func rfcExample() {
    #expect(
      PKCE.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  }

  @Test func thousandVerifiersAreCompliant() {
    var seen = Set<String>()
    for _ in 0..<1000 {
      let pkce = PKCE()
      #expect(PKCE.isValidVerifier(pkce.verifier))
      #expect(pkce.challenge.utf8.count == 43)
      seen.insert(pkce.verifier)
    }
    #expect(seen.count == 1000)
    #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42)))
    #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 129)))
    #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + "!"))
  }
}

@Suite struct JWTTests {
  static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
  static let kid = JWKS.keyID(for: key.publicKey)
  static var jwks: JWKS { try! JWKS(json: JWKS.document(for: key.publicKey, keyID: kid)) }

  static func part(_ json: JSONValue) -> String { Base64URL.encode(json.serialized()) }

  @Test func signsAndVerifies() throws {
    let token = try JWT.sign(claims: ["sub": "u", "aud": ["c"]], with: Self.key, keyID: Self.kid)
    let jwt = try JWT(compact: token)
    #expect(jwt.algorithm == "RS256")
    #expect(jwt.keyID == Self.kid)
    #expect(jwt.claims["sub"] == "u")
    try jwt.verify(with: Self.jwks)
  }

  @Test func refusesWhatIsNotRS256WithOurKey() throws {
    let token = try JWT.sign(claims: ["sub": "u"], with: Self.key, keyID: Self.kid)
    let parts = token.split(separator: ".").map(String.init)
    // alg: none, with and without a signature
    let none = Self.part(["alg": "none", "kid": .string(Self.kid)]) + "." + parts[1] + "."
    #expect(throws: JWTError.unsupportedAlgorithm("none")) { try JWT(compact: none).verify(with: Self.jwks) }
    // HS256 "signed" with the public key's bytes (key confusion)
    let hs = Self.part(["alg": "HS256", "kid": .string(Self.kid)]) + "." + parts[1]
    let mac = HMAC<SHA256>.authenticationCode(
      for: Array(hs.utf8), using: SymmetricKey(data: try Self.key.publicKey.getKeyPrimitives().modulus))
    #expect(throws: JWTError.unsupportedAlgorithm("HS256")) {
      try JWT(compact: hs + "." + Base64URL.encode(mac)).verify(with: Self.jwks)
    }
    // an unknown kid
    let other = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let foreign = try JWT.sign(claims: ["sub": "u"], with: other, keyID: "other")
    #expect(throws: JWTError.unknownKey("other")) { try JWT(compact: foreign).verify(with: Self.jwks) }
    // our kid, someone else's signature
    let impostor = try JWT.sign(claims: ["sub": "u"], with: other, keyID: Self.kid)
    #expect(throws: JWTError.badSignature) { try JWT(compact: impostor).verify(with: Self.jwks) }
    // a tampered payload
    let tampered = parts[0] + "." + Self.part(["sub": "admin"]) + "." + parts[2]
    #expect(throws: JWTError.badSignature) { try JWT(compact: tampered).verify(with: Self.jwks) }
  }

  @Test(arguments: ["", "a.b", "a.b.c.d", "!!!.e30.sig", "e30.!!!.sig", "WzFd.e30.", "e30.WzFd."])
  func malformedTokens(_ token: String) {
    #expect(throws: JWTError.self) { try JWT(compact: token) }
  }

  @Test func jwksSkipsKeysThatCannotVerifyRS256() throws {
    let json: JSONValue = [
      "keys": [
        ["kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"],
        ["kty": "RSA", "use": "enc", "n": "AQAB", "e": "AQAB"],
        ["kty": "RSA", "n": "AQAB", "e": "AQAB"],  // far too small
      ]
    ]
    #expect(try JWKS(json: json).keys.isEmpty)
    #expect(throws: JWTError.self) { try JWKS(json: ["nokeys": true]) }
  }
}

@Suite struct IDTokenValidatorTests {
  static let now: Int64 = 1_800_000_000
  static var good: [String: JSONValue] {
    [
      "iss": "https://t.example/", "aud": ["client"], "exp": .number(Double(now + 600)), "iat": .number(Double(now)),
      "nonce": "n1", "sub": "u",
    ]
  }

  func validate(
    _ claims: [String: JSONValue], signer: _RSA.Signing.PrivateKey = JWTTests.key, kid: String = JWTTests.kid
  ) throws -> [String: JSONValue] {
    let token = try JWT.sign(claims: claims, with: signer, keyID: kid)
    return try IDTokenValidator.validate(
      token, keys: JWTTests.jwks, issuer: "https://t.example/", clientID: "client", nonce: "n1", now: Self.now)
  }

  @Test func acceptsAGoodToken() throws {
    #expect(try validate(Self.good)["sub"] == "u")
    var single = Self.good
    single["aud"] = "client"
    #expect(try validate(single)["sub"] == "u", "aud as a string")
    var skewed = Self.good
    skewed["iat"] = .number(Double(Self.now + 60))
    skewed["exp"] = .number(Double(Self.now - 60))
    #expect(try validate(skewed)["sub"] == "u", "within the clock skew")
  }

  @Test(arguments: [
    (
      "iss", JSONValue.string("https://t.example"),
      IDTokenError.issuer(expected: "https://t.example/", found: "https://t.example")
    ),
    ("aud", JSONValue.array(["other"]), IDTokenError.audience(expected: "client")),
    ("aud", JSONValue.string("other"), IDTokenError.audience(expected: "client")),
    ("exp", JSONValue.number(Double(now - 600)), IDTokenError.expired),
    ("iat", JSONValue.number(Double(now + 600)), IDTokenError.issuedInTheFuture),
    ("nonce", JSONValue.string("replayed"), IDTokenError.nonce),
  ])
  func refuses(_ claim: String, _ value: JSONValue, _ error: IDTokenError) {
    var claims = Self.good
    claims[claim] = value
    #expect(throws: error) { try validate(claims) }
  }

  @Test func hugeOrNonFiniteTimesAreRefusedNotTrapped() {
    for claim in ["exp", "iat"] {
      for value in [1e300, -1e300, -5] {
        var claims = Self.good
        claims[claim] = .number(value)
        #expect(throws: IDTokenError.self) { try validate(claims) }
      }
    }
  }

  @Test func severalAudiencesNeedTheAuthorizedParty() throws {
    var claims = Self.good
    claims["aud"] = ["client", "other"]
    #expect(throws: IDTokenError.authorizedParty(expected: "client")) { try validate(claims) }
    claims["azp"] = "other"
    #expect(throws: IDTokenError.authorizedParty(expected: "client")) { try validate(claims) }
    claims["azp"] = "client"
    #expect(try validate(claims)["sub"] == "u")
  }

  @Test(arguments: ["aud", "exp", "iat", "nonce"])
  func missingClaimsAreRefused(_ claim: String) {
    var claims = Self.good
    claims[claim] = nil
    #expect(throws: IDTokenError.self) { try validate(claims) }
  }

  @Test func unknownKeysAndForeignSignaturesAreRefused() throws {
    let other = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    #expect(throws: IDTokenError.signature(.unknownKey("nope"))) { try validate(Self.good, kid: "nope") }
    #expect(throws: IDTokenError.signature(.badSignature)) { try validate(Self.good, signer: other) }
  }
}

@Suite struct TokenResponseTests {
  @Test func admitsAGoodResponse() throws {
    let response = try TokenResponse(json: [
      "access_token": "at.1", "token_type": "bearer", "expires_in": "3600", "refresh_token": "r 1", "id_token": "a.b.c",
      "scope": "openid",
    ])
    #expect(response.accessToken.value == "at.1")
    #expect(response.tokenType == "Bearer")
    #expect(response.expiresIn == 3600)
  }

  @Test(arguments: [
    ["access_token": "x\nurl = http://evil/"] as JSONValue,
    ["access_token": "ok", "token_type": "Bearer\r\nX: 1"],
    ["access_token": "ok", "expires_in": .number(1e300)],
    ["access_token": "ok", "expires_in": -5],
    ["access_token": "ok", "refresh_token": "r\n"],
    ["access_token": "ok", "id_token": "not a jwt"],
    ["access_token": "ok", "scope": "openid\u{1B}[2J"],
    ["access_token": .number(1)],
    ["access_token": "ok", "refresh_token": .number(1)],
    "not an object",
  ])
  func refusesWhatCouldReachASink(_ json: JSONValue) {
    #expect(throws: OAuthError.self) { try TokenResponse(json: json) }
  }
}

/// A step-up's answer: auth_time within max_age (with the ID token's skew), the acr granted.
@Suite struct AuthenticationCheckTests {
  @Test func authTimeMustBeThereAndRecentEnough() throws {
    let now: Int64 = 1_800_000_000
    try AuthenticationCheck.authTime(["auth_time": .number(Double(now - 30))], maxAge: 60, now: now)
    try AuthenticationCheck.authTime(["auth_time": .number(Double(now - 170))], maxAge: 60, now: now)  // skew
    for claims: [String: JSONValue] in [
      [:], ["auth_time": "yesterday"], ["auth_time": .number(Double(now - 300))],
      ["auth_time": .number(Double(now + 600))], ["auth_time": .number(.infinity)],
    ] {
      #expect(throws: IDTokenError.self, "\(claims)") {
        try AuthenticationCheck.authTime(claims, maxAge: 60, now: now)
      }
    }
    #expect(throws: IDTokenError.self) { try AuthenticationCheck.authTime([:], maxAge: 0, now: now) }
  }

  @Test func theACRGrantedIsOneOfThoseAsked() {
    #expect(AuthenticationCheck.acr(["acr": "mfa"], asked: "phr mfa") == ("mfa", true))
    #expect(AuthenticationCheck.acr(["acr": "pwd"], asked: "mfa") == ("pwd", false))
    #expect(AuthenticationCheck.acr([:], asked: "mfa") == (nil, false))
    #expect(AuthenticationCheck.acr(["acr": 2], asked: "2") == (nil, false))
  }
}

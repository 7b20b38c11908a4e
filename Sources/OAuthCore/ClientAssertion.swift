// A machine profile's proof of its identity by private key (`private_key_jwt`, RFC 7523 §2.2 and
// §3; OpenID Connect Core §9): a JWT signed with the client's RS256 or ES256 key, naming the
// client as issuer and subject and the token endpoint as audience, good for 60 s and for one
// request (a fresh `jti`). The key comes from `private_key_file`, PEM: PKCS#8 ("PRIVATE KEY"),
// or the traditional "RSA PRIVATE KEY" / "EC PRIVATE KEY".
//
// The header names the key (`kid`): a tenant that keeps a client's keys as a JWKS picks the one
// to verify with by it (glewlwyd does, and refuses an assertion without one). By default the
// `kid` is the public key's RFC 7638 thumbprint, which anyone can compute from the registered
// JWK (`strivacity status --jwk` prints that JWK); a profile's `private_key_id` names another.
import Crypto
import StrivacityCore
import _CryptoExtras

public enum ClientAssertion {
  /// `client_assertion_type` (RFC 7523 §2.2).
  public static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
  /// How long an assertion is good for: a request is sent at once.
  public static let lifetime: Int64 = 60

  /// A private key to sign with.
  public enum SigningKey: Sendable {
    case rsa(_RSA.Signing.PrivateKey)
    case p256(P256.Signing.PrivateKey)

    /// The key in `pem`: RSA of at least 2048 bits (RS256), or EC P-256 (ES256). The error says
    /// which kinds are taken, never the content.
    public init(pem: String) throws(AdmissionError) {
      if pem.contains("-----BEGIN EC PRIVATE KEY-----") || pem.contains("-----BEGIN PRIVATE KEY-----"),
        let key = try? P256.Signing.PrivateKey(pemRepresentation: pem)
      {
        self = .p256(key)
        return
      }
      if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
        self = .rsa(key)
        return
      }
      // Read once more without the size check, only to say what is wrong with it.
      if let small = try? _RSA.Signing.PrivateKey(unsafePEMRepresentation: pem) {
        throw AdmissionError("the RSA key has \(small.keySizeInBits) bits; RS256 needs at least 2048")
      }
      throw AdmissionError("not a PEM private key of RSA (RS256) or EC P-256 (ES256)")
    }

    public var algorithm: String {
      switch self {
      case .rsa: return "RS256"
      case .p256: return "ES256"
      }
    }

    /// Its public half as a JWK's members.
    public var publicJWK: PublicJWK {
      switch self {
      case .rsa(let rsa):
        // Big-endian, as BoringSSL hands them out (a leading zero byte would be stripped).
        let primitives = try? rsa.publicKey.getKeyPrimitives()
        return .rsa(
          modulus: primitives.map { Array($0.modulus) } ?? [],
          exponent: primitives.map { Array($0.publicExponent) } ?? [])
      case .p256(let ec):
        // x963: 0x04 ‖ x ‖ y, 32 bytes each.
        let point = Array(ec.publicKey.x963Representation)
        return .p256(x: Array(point[1..<33]), y: Array(point[33..<65]))
      }
    }

    /// The key's RFC 7638 thumbprint: the `kid` an assertion carries unless the profile names one.
    public var thumbprint: String { publicJWK.thumbprint }
  }

  /// What the assertion's header says of the key: its thumbprint (the default), a name the
  /// tenant knows it by (`private_key_id`), or nothing (only to show what a tenant does then).
  public enum KeyID: Sendable, Equatable {
    case thumbprint
    case named(String)
    case omitted

    /// `private_key_id` when the profile has one, else the thumbprint.
    public init(configured: String?) { self = configured.map(KeyID.named) ?? .thumbprint }

    /// The `kid` sent with `key`, nil for none.
    public func value(for key: SigningKey) -> String? {
      switch self {
      case .thumbprint: return key.thumbprint
      case .named(let name): return name
      case .omitted: return nil
      }
    }
  }

  /// The signed assertion for `clientID` at `tokenEndpoint`, issued at `now`, its header naming
  /// the key as `keyID` says.
  public static func make(
    clientID: String, tokenEndpoint: String, key: SigningKey, keyID: KeyID = .thumbprint, now: Int64,
    jti: String = SecureRandom.token(bytes: 16)
  ) throws(AdmissionError) -> String {
    var header: [String: JSONValue] = ["alg": .string(key.algorithm), "typ": "JWT"]
    if let kid = keyID.value(for: key) { header["kid"] = .string(kid) }
    let claims: [String: JSONValue] = [
      "iss": .string(clientID), "sub": .string(clientID), "aud": .string(tokenEndpoint), "jti": .string(jti),
      "iat": .number(Double(now)), "exp": .number(Double(now + lifetime)),
    ]
    let input =
      Base64URL.encode(JSONValue.object(header).serialized()) + "."
      + Base64URL.encode(JSONValue.object(claims).serialized())
    let signature: [UInt8]
    do {
      switch key {
      case .rsa(let rsa):
        signature = Array(try rsa.signature(for: Array(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation)
      case .p256(let ec):
        // JWS wants r ‖ s (RFC 7518 §3.4), which is the raw representation.
        signature = Array(try ec.signature(for: Array(input.utf8)).rawRepresentation)
      }
    } catch {
      throw AdmissionError("the private key could not sign: \(error)")
    }
    return input + "." + Base64URL.encode(signature)
  }
}

/// A public signature key as a JWK's key members (RFC 7517, RFC 7518 §6): RSA's modulus and
/// exponent, or a P-256 point, big-endian bytes.
public enum PublicJWK: Sendable, Equatable {
  case rsa(n: [UInt8], e: [UInt8])
  case p256(x: [UInt8], y: [UInt8])

  /// RSA's numbers without leading zero bytes (RFC 7518 §6.3.1: the minimal big-endian form).
  public static func rsa(modulus: [UInt8], exponent: [UInt8]) -> PublicJWK {
    .rsa(n: Array(modulus.drop { $0 == 0 }), e: Array(exponent.drop { $0 == 0 }))
  }

  public var algorithm: String {
    switch self {
    case .rsa: return "RS256"
    case .p256: return "ES256"
    }
  }

  /// The required members (RFC 7638 §3.2), base64url.
  var members: [(String, String)] {
    switch self {
    case .rsa(let n, let e):
      return [("e", Base64URL.encode(e)), ("kty", "RSA"), ("n", Base64URL.encode(n))]
    case .p256(let x, let y):
      return [("crv", "P-256"), ("kty", "EC"), ("x", Base64URL.encode(x)), ("y", Base64URL.encode(y))]
    }
  }

  /// The RFC 7638 thumbprint: base64url of the SHA-256 of the required members as JSON, in
  /// lexicographic order, without whitespace (the values are base64url or names: nothing to
  /// escape).
  public var thumbprint: String {
    let canonical = "{" + members.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",") + "}"
    return Base64URL.encode(SHA256.hash(data: Array(canonical.utf8)))
  }

  /// The JWK to register at the tenant: the key members, `kid`, `use` and `alg`; never a private part.
  public func document(keyID: String) -> JSONValue {
    var object: [String: JSONValue] = ["kid": .string(keyID), "use": "sig", "alg": .string(algorithm)]
    for (name, value) in members { object[name] = .string(value) }
    return .object(object)
  }
}

// A machine profile's proof of its identity by private key (`private_key_jwt`, RFC 7523 §2.2 and
// §3; OpenID Connect Core §9): a JWT signed with the client's RS256 or ES256 key, naming the
// client as issuer and subject and the token endpoint as audience, good for 60 s and for one
// request (a fresh `jti`). The key comes from `private_key_file`, PEM: PKCS#8 ("PRIVATE KEY"),
// or the traditional "RSA PRIVATE KEY" / "EC PRIVATE KEY".
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
  }

  /// The signed assertion for `clientID` at `tokenEndpoint`, issued at `now`; `keyID` goes in
  /// the header when the tenant needs it to pick the key.
  public static func make(
    clientID: String, tokenEndpoint: String, key: SigningKey, keyID: String? = nil, now: Int64,
    jti: String = SecureRandom.token(bytes: 16)
  ) throws(AdmissionError) -> String {
    var header: [String: JSONValue] = ["alg": .string(key.algorithm), "typ": "JWT"]
    if let keyID { header["kid"] = .string(keyID) }
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

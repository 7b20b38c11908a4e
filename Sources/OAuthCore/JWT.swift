import Crypto
import StrivacityCore
import _CryptoExtras

// JSON Web Tokens (RFC 7519) signed with RS256 (RFC 7518 §3.3), and JWKS (RFC 7517).
// Only RS256 is accepted: `alg: none`, HMAC (key confusion) and anything else are refused.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

public enum JWTError: Error, Equatable, CustomStringConvertible {
  case malformed(String)
  case unsupportedAlgorithm(String)
  case unknownKey(String?)
  case badSignature
  case invalidKey(String)

  public var description: String {
    switch self {
    case .malformed(let detail): return "malformed token: \(detail)"
    case .unsupportedAlgorithm(let alg):
      return "token signed with \(alg.isEmpty ? "no algorithm" : alg); only RS256 is accepted"
    case .unknownKey(let kid): return "token signed with an unknown key\(kid.map { " (kid \($0))" } ?? "")"
    case .badSignature: return "token signature does not verify"
    case .invalidKey(let detail): return "invalid signing key: \(detail)"
    }
  }
}

/// A compact JWS split into its parts; nothing is verified by parsing.
public struct JWT: Sendable {
  public let header: [String: JSONValue]
  public let claims: [String: JSONValue]
  public let signingInput: [UInt8]
  public let signature: [UInt8]

  public init(compact token: String) throws(JWTError) {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { throw .malformed("expected three dot-separated parts") }
    guard let headerBytes = Base64URL.decode(parts[0]), let header = JSONValue.parse(headerBytes)?.object else {
      throw .malformed("header is not base64url JSON")
    }
    guard let claimBytes = Base64URL.decode(parts[1]), let claims = JSONValue.parse(claimBytes)?.object else {
      throw .malformed("payload is not base64url JSON")
    }
    guard let signature = Base64URL.decode(parts[2]) else { throw .malformed("signature is not base64url") }
    self.header = header
    self.claims = claims
    self.signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    self.signature = signature
  }

  public var algorithm: String { header["alg"]?.string ?? "" }
  public var keyID: String? { header["kid"]?.string }

  /// Verifies the RS256 signature with the key from `keys` named by `kid` (or the only RSA
  /// signing key when the token names none).
  public func verify(with keys: JWKS) throws(JWTError) {
    guard algorithm == "RS256" else { throw .unsupportedAlgorithm(algorithm) }
    guard let key = keys.key(for: keyID) else { throw .unknownKey(keyID) }
    let signature = _RSA.Signing.RSASignature(rawRepresentation: self.signature)
    guard key.isValidSignature(signature, for: signingInput, padding: .insecurePKCS1v1_5) else { throw .badSignature }
  }

  /// Signs `claims` with RS256.
  public static func sign(
    claims: [String: JSONValue], with key: _RSA.Signing.PrivateKey, keyID: String
  ) throws(JWTError) -> String {
    let header: JSONValue = ["alg": "RS256", "typ": "JWT", "kid": .string(keyID)]
    let input = Base64URL.encode(header.serialized()) + "." + Base64URL.encode(JSONValue.object(claims).serialized())
    do {
      let signature = try key.signature(for: Array(input.utf8), padding: .insecurePKCS1v1_5)
      return input + "." + Base64URL.encode(signature.rawRepresentation)
    } catch {
      throw .invalidKey("\(error)")
    }
  }
}

/// A JSON Web Key Set holding RSA public keys.
public struct JWKS: Sendable {
  public struct Key: Sendable {
    public var kid: String?
    public var publicKey: _RSA.Signing.PublicKey
  }

  public let keys: [Key]

  public init(keys: [Key]) { self.keys = keys }

  /// Parses a JWKS document; keys that are not RSA signature keys are skipped.
  public init(json: JSONValue) throws(JWTError) {
    guard let list = json["keys"]?.array else { throw .malformed("JWKS has no \"keys\" array") }
    var keys: [Key] = []
    for entry in list {
      guard entry["kty"]?.string == "RSA" else { continue }
      if let use = entry["use"]?.string, use != "sig" { continue }
      if let alg = entry["alg"]?.string, alg != "RS256" { continue }
      guard let n = entry["n"]?.string.flatMap(Base64URL.decode), let e = entry["e"]?.string.flatMap(Base64URL.decode)
      else {
        continue
      }
      guard let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048 else { continue }
      keys.append(Key(kid: entry["kid"]?.string, publicKey: key))
    }
    self.keys = keys
  }

  func key(for kid: String?) -> _RSA.Signing.PublicKey? {
    if let kid { return keys.first { $0.kid == kid }?.publicKey }
    return keys.count == 1 ? keys[0].publicKey : nil
  }

  /// The JWKS document for one public key.
  public static func document(for key: _RSA.Signing.PublicKey, keyID: String) -> JSONValue {
    guard let primitives = try? key.getKeyPrimitives() else { return ["keys": []] }
    return [
      "keys": [
        [
          "kty": "RSA", "use": "sig", "alg": "RS256", "kid": .string(keyID),
          "n": .string(Base64URL.encode(primitives.modulus)), "e": .string(Base64URL.encode(primitives.publicExponent)),
        ]
      ]
    ]
  }

  /// A stable key id: base64url of the SHA-256 of the modulus (like an RFC 7638 thumbprint).
  public static func keyID(for key: _RSA.Signing.PublicKey) -> String {
    let modulus = (try? key.getKeyPrimitives().modulus) ?? Data()
    return Base64URL.encode(SHA256.hash(data: modulus).prefix(16))
  }
}

// MARK: client assertions (RFC 7523 §2.2): RS256 or ES256

// A client authenticating with `private_key_jwt` may sign with RSA or EC P-256 (RFC 7518 §3.3,
// §3.4). ID tokens stay RS256-only (`verify(with:)` above); only assertions take ES256 as well.

/// The public keys a confidential client registered for `private_key_jwt`: RSA of 2048 bits or
/// more, and EC P-256.
public struct AssertionKeys: Sendable {
  public enum Key: Sendable {
    case rsa(_RSA.Signing.PublicKey)
    case p256(P256.Signing.PublicKey)

    /// The JWS `alg` this key verifies.
    public var algorithm: String {
      switch self {
      case .rsa: return "RS256"
      case .p256: return "ES256"
      }
    }
  }

  public struct Entry: Sendable {
    public var kid: String?
    public var key: Key
  }

  public let keys: [Entry]

  /// Parses a JWKS document strictly: every entry must be a usable public signature key, else
  /// `.invalidKey("keys[i]: why")` (a registration with a broken key is a mistake to report).
  public init(json: JSONValue) throws(JWTError) {
    guard let list = json["keys"]?.array else { throw .invalidKey("a JWKS needs a \"keys\" array") }
    guard !list.isEmpty else { throw .invalidKey("keys: declare at least one key") }
    var keys: [Entry] = []
    for (index, entry) in list.enumerated() {
      func bad(_ why: String) -> JWTError { .invalidKey("keys[\(index)]: \(why)") }
      guard let object = entry.object else { throw bad("a key is an object") }
      // A private part here would be a secret in a file meant to be public.
      if object["d"] != nil { throw bad("holds a private key (\"d\"); register the public key only") }
      if let use = object["use"], use.string != "sig" { throw bad("\"use\" must be \"sig\"") }
      let kid = object["kid"]?.string
      if object["kid"] != nil && (kid?.isEmpty ?? true) { throw bad("\"kid\" must be a non-empty string") }
      if let kid, keys.contains(where: { $0.kid == kid }) { throw bad("duplicate kid \"\(kid)\"") }
      let key: Key
      switch object["kty"]?.string {
      case "RSA":
        if let alg = object["alg"], alg.string != "RS256" { throw bad("an RSA key's \"alg\" must be \"RS256\"") }
        guard let n = object["n"]?.string.flatMap(Base64URL.decode),
          let e = object["e"]?.string.flatMap(Base64URL.decode)
        else { throw bad("an RSA key needs base64url \"n\" and \"e\"") }
        guard let rsa = try? _RSA.Signing.PublicKey(n: n, e: e) else { throw bad("not a valid RSA public key") }
        guard rsa.keySizeInBits >= 2048 else { throw bad("an RSA key of \(rsa.keySizeInBits) bits; use 2048 or more") }
        key = .rsa(rsa)
      case "EC":
        if let alg = object["alg"], alg.string != "ES256" { throw bad("an EC key's \"alg\" must be \"ES256\"") }
        guard object["crv"]?.string == "P-256" else { throw bad("an EC key must have \"crv\": \"P-256\"") }
        guard let x = object["x"]?.string.flatMap(Base64URL.decode), x.count == 32,
          let y = object["y"]?.string.flatMap(Base64URL.decode), y.count == 32
        else { throw bad("an EC P-256 key needs base64url \"x\" and \"y\" of 32 bytes each") }
        guard let ec = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
          throw bad("\"x\" and \"y\" are not a point on P-256")
        }
        key = .p256(ec)
      case let other:
        throw bad("\"kty\" must be \"RSA\" or \"EC\", not \(other.map { "\"\($0)\"" } ?? "missing")")
      }
      keys.append(Entry(kid: kid, key: key))
    }
    self.keys = keys
  }
}

extension JWT {
  /// Verifies a client assertion's RS256 or ES256 signature: with the key named by `kid`, or
  /// without one with each key of the algorithm's type. `alg: none`, HMAC and the rest are refused.
  public func verifyAssertion(with keys: AssertionKeys) throws(JWTError) {
    guard algorithm == "RS256" || algorithm == "ES256" else { throw .unsupportedAlgorithm(algorithm) }
    var candidates = keys.keys.filter { $0.key.algorithm == algorithm }
    if let keyID { candidates = candidates.filter { $0.kid == keyID } }
    guard !candidates.isEmpty else { throw .unknownKey(keyID) }
    for candidate in candidates {
      switch candidate.key {
      case .rsa(let key):
        let signature = _RSA.Signing.RSASignature(rawRepresentation: self.signature)
        if key.isValidSignature(signature, for: signingInput, padding: .insecurePKCS1v1_5) { return }
      case .p256(let key):
        // JWS carries ES256 signatures as r ‖ s, 32 bytes each (RFC 7518 §3.4), not DER.
        guard self.signature.count == 64,
          let signature = try? P256.Signing.ECDSASignature(rawRepresentation: self.signature)
        else { throw .badSignature }
        if key.isValidSignature(signature, for: signingInput) { return }
      }
    }
    throw .badSignature
  }

  /// Signs `claims` with ES256 (an EC P-256 key), the signature as r ‖ s.
  public static func signES256(
    claims: [String: JSONValue], with key: P256.Signing.PrivateKey, keyID: String?
  ) throws(JWTError) -> String {
    var header: [String: JSONValue] = ["alg": "ES256", "typ": "JWT"]
    if let keyID { header["kid"] = .string(keyID) }
    let input =
      Base64URL.encode(JSONValue.object(header).serialized()) + "."
      + Base64URL.encode(JSONValue.object(claims).serialized())
    do {
      let signature = try key.signature(for: Array(input.utf8))
      return input + "." + Base64URL.encode(signature.rawRepresentation)
    } catch {
      throw .invalidKey("\(error)")
    }
  }
}

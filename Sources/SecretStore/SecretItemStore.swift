// Secrets a person hands over to be kept for a profile (a machine's client secret, a proxy's
// password): items of their own kind beside the profile's tokens, never a token set. Keyed by
// `SecretKey`, which no token slot, API name or ad hoc target can be; listed, read and deleted
// only here, so a deletion of tokens never takes one and a listing of tokens never shows one.
// Implementations: the Secret Service (KeyringSecretStore, its own schema) and 0600 files of
// their own (FileSecretStore).
//
// Earlier versions kept these secrets as token sets (the secret base64url-encoded as the access
// token) in the token slots `machine.secret` and `proxy.password`: such an item is still found
// (read once and moved to the new kind of item) and still deleted with the profile's secrets.
import StrivacityCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Which secret a profile keeps.
public enum KeptSecret: String, Sendable, CaseIterable, CustomStringConvertible {
  /// A machine profile's client secret (`login --client-secret-stdin`).
  case clientSecret = "client-secret"
  /// The proxy's password `setup-proxy` kept.
  case proxyPassword = "proxy-password"

  public var description: String { self == .clientSecret ? "client secret" : "proxy password" }

  /// The token slot earlier versions kept this secret in, as a token set.
  var legacySlot: String { self == .clientSecret ? "machine.secret" : "proxy.password" }

  /// The secret an earlier version kept as `tokens`: the bytes its access token encodes
  /// (base64url, unpadded); nil when it encodes none.
  static func legacyValue(of tokens: TokenSet) -> [UInt8]? {
    Base64URL.decode(tokens.accessToken.value)
  }
}

/// Identifies one kept secret: the profile (with the tenant and client it was kept for) and which
/// secret. Every part is a non-secret attribute.
public struct SecretKey: Hashable, Sendable, CustomStringConvertible {
  public var profile: String
  public var issuer: String
  public var clientID: String
  public var secret: KeptSecret

  public init(profile: String, issuer: String, clientID: String, secret: KeptSecret) {
    self.profile = profile
    self.issuer = issuer
    self.clientID = clientID
    self.secret = secret
  }

  /// `secret` of the profile, tenant and client of `key` (its slot aside: a secret has none).
  public init(_ key: StoreKey, _ secret: KeptSecret) {
    self.init(profile: key.profile, issuer: key.issuer, clientID: key.clientID, secret: secret)
  }

  public var description: String { "the \(secret) of \(profile) (\(issuer))" }
}

/// A store of kept secrets: one per profile and kind. Values are the secret's bytes only.
public protocol SecretItemStore: AnyObject {
  /// The secret for `key`, or nil when none is kept (one an earlier version kept is read too).
  func load(_ key: SecretKey) throws(StoreError) -> [UInt8]?
  /// Whether a secret is kept for `key`, found without reading it.
  func contains(_ key: SecretKey) throws(StoreError) -> Bool
  /// Keeps `value` for `key`, replacing the profile's earlier secret of the same kind.
  func save(_ value: [UInt8], for key: SecretKey) throws(StoreError)
  /// Deletes every secret kept for `profile` (of any kind, tenant or client, and those an
  /// earlier version kept); returns whether there was one.
  @discardableResult func delete(profile: String) throws(StoreError) -> Bool
}

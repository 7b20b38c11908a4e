// The tokens of one signed-in profile, stored as one JSON secret so that a write is atomic.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Tokens from a token response, with the absolute expiry computed when they were received.
/// `description` never shows a token.
public struct TokenSet: Codable, Sendable, Equatable, CustomStringConvertible {
  /// Admitted: a token that fails `BearerToken`'s rules is never stored, and a stored set that
  /// holds one (written by hand, or by an older version) does not decode.
  public var accessToken: BearerToken
  public var tokenType: String
  public var refreshToken: String?
  public var idToken: String?
  public var scope: String?
  /// Access-token expiry, seconds since 1970; nil when the server sent no `expires_in`.
  public var expiresAt: Int64?
  /// When the set was obtained, seconds since 1970.
  public var obtainedAt: Int64
  /// The tenant's endpoints from its discovery document, kept so that a refresh needs no
  /// discovery request (not secret; checked against the tenant's origin each time they are used).
  public var endpoints: [String: String]?

  public init(
    accessToken: BearerToken, tokenType: String = "Bearer", refreshToken: String? = nil,
    idToken: String? = nil, scope: String? = nil, expiresAt: Int64? = nil, obtainedAt: Int64,
    endpoints: [String: String]? = nil
  ) {
    self.endpoints = endpoints
    self.accessToken = accessToken
    self.tokenType = tokenType
    self.refreshToken = refreshToken
    self.idToken = idToken
    self.scope = scope
    self.expiresAt = expiresAt
    self.obtainedAt = obtainedAt
  }

  enum CodingKeys: String, CodingKey {
    case accessToken = "access_token", tokenType = "token_type", refreshToken = "refresh_token"
    case idToken = "id_token", scope, expiresAt = "expires_at", obtainedAt = "obtained_at", endpoints
  }

  /// Decoding admits every field again, as the token response did: what is read back from a
  /// store is outside input too.
  public init(from decoder: any Decoder) throws {
    // AdmissionErrors pass through JSONDecoder unchanged; `decode` reports their sentence.
    let c = try decoder.container(keyedBy: CodingKeys.self)
    accessToken = try BearerToken(admitting: c.decode(String.self, forKey: .accessToken))
    tokenType = try Admit.tokenType(c.decodeIfPresent(String.self, forKey: .tokenType))
    refreshToken = try c.decodeIfPresent(String.self, forKey: .refreshToken).map(Admit.refreshToken)
    idToken = try c.decodeIfPresent(String.self, forKey: .idToken).map(Admit.idToken)
    scope = try c.decodeIfPresent(String.self, forKey: .scope).map(Admit.scope)
    expiresAt = try c.decodeIfPresent(Int64.self, forKey: .expiresAt)
    obtainedAt = try c.decode(Int64.self, forKey: .obtainedAt)
    endpoints = try c.decodeIfPresent([String: String].self, forKey: .endpoints)
  }

  /// The refresh margin asked for when nobody says (`token --min-ttl`, git, curl, kubectl).
  public static let defaultMinTTL: Int64 = 60

  /// True when the access token expires within the refresh margin of `now` (or has no expiry
  /// and is older than a day, as a conservative guess).
  public func needsRefresh(now: Int64, minTTL: Int64) -> Bool {
    if let expiresAt { return expiresAt - now <= refreshMargin(minTTL: minTTL) }
    return now - obtainedAt > 86_400
  }

  /// How long before expiry a refresh is due: `minTTL`, but never more than half the access
  /// token's lifetime. A token that lives 5 s is refreshed with 2 s left, not on every call.
  public func refreshMargin(minTTL: Int64) -> Int64 {
    guard let expiresAt else { return minTTL }
    let lifetime = expiresAt - obtainedAt
    return lifetime > 0 ? min(minTTL, lifetime / 2) : minTTL
  }

  /// Seconds the access token has left at `now` (nil without an expiry).
  public func secondsLeft(now: Int64) -> Int64? { expiresAt.map { max(0, $0 - now) } }

  public var description: String {
    "TokenSet(access_token: \(Redact.token(accessToken.value)), refresh_token: \(refreshToken.map(Redact.token) ?? "none"), id_token: \(idToken.map(Redact.token) ?? "none"), expires_at: \(expiresAt.map(String.init) ?? "none"))"
  }

  /// The stored form: one JSON object with a format version.
  public func encoded() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let payload = StoredTokenSet(version: 1, tokens: self)
    return Array((try? encoder.encode(payload)) ?? Data())
  }

  /// Parses the stored form. Throws `StoreError.corrupt` (never echoing the content).
  public static func decode(_ bytes: [UInt8], source: String) throws(StoreError) -> TokenSet {
    do {
      let payload = try JSONDecoder().decode(StoredTokenSet.self, from: Data(bytes))
      guard payload.version == 1 else {
        throw StoreError.corrupt(source: source, detail: "format version \(payload.version) is newer than this strivacity understands")
      }
      return payload.tokens
    } catch let error as StoreError {
      throw error
    } catch let error as AdmissionError {
      // Its sentence names the field, never the value.
      throw StoreError.corrupt(source: source, detail: error.description)
    } catch {
      throw StoreError.corrupt(source: source, detail: "not a strivacity token set")
    }
  }
}

private struct StoredTokenSet: Codable {
  var version: Int
  var tokens: TokenSet
  enum CodingKeys: String, CodingKey { case version = "v", tokens }
}

/// Helpers that keep secrets out of text meant for people.
public enum Redact {
  /// A short, non-reversible stand-in for a token: its length only.
  public static func token(_ token: String) -> String { "<redacted \(token.utf8.count) bytes>" }
}

// The tokens of one signed-in profile, stored as one JSON secret so that a write is atomic.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Tokens from a token response, with the absolute expiry computed when they were received.
/// `description` never shows a token.
public struct TokenSet: Codable, Sendable, Equatable, CustomStringConvertible {
  public var accessToken: String
  public var tokenType: String
  public var refreshToken: String?
  public var idToken: String?
  public var scope: String?
  /// Access-token expiry, seconds since 1970; nil when the server sent no `expires_in`.
  public var expiresAt: Int64?
  /// When the set was obtained, seconds since 1970.
  public var obtainedAt: Int64

  public init(
    accessToken: String, tokenType: String = "Bearer", refreshToken: String? = nil,
    idToken: String? = nil, scope: String? = nil, expiresAt: Int64? = nil, obtainedAt: Int64
  ) {
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
    case idToken = "id_token", scope, expiresAt = "expires_at", obtainedAt = "obtained_at"
  }

  /// True when the access token expires within `minTTL` seconds of `now` (or has no expiry
  /// and is older than a day, as a conservative guess).
  public func needsRefresh(now: Int64, minTTL: Int64) -> Bool {
    if let expiresAt { return expiresAt - now <= minTTL }
    return now - obtainedAt > 86_400
  }

  public var description: String {
    "TokenSet(access_token: \(Redact.token(accessToken)), refresh_token: \(refreshToken.map(Redact.token) ?? "none"), id_token: \(idToken.map(Redact.token) ?? "none"), expires_at: \(expiresAt.map(String.init) ?? "none"))"
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

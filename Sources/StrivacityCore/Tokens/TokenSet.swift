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
  public var refreshToken: RefreshToken?
  public var idToken: IDToken?
  public var scope: Scope?
  /// Access-token expiry, seconds since 1970; nil when the server sent no `expires_in`.
  public var expiresAt: Int64?
  /// When the set was obtained, seconds since 1970.
  public var obtainedAt: Int64
  /// The tenant's endpoints from its discovery document, kept so that a refresh needs no
  /// discovery request (not secret; checked against the tenant's origin each time they are used).
  public var endpoints: [String: String]?

  public init(
    accessToken: BearerToken, tokenType: String = "Bearer", refreshToken: RefreshToken? = nil,
    idToken: IDToken? = nil, scope: Scope? = nil, expiresAt: Int64? = nil, obtainedAt: Int64,
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

  /// The one admission of a token set, whatever its wire shape: a token response
  /// (`TokenResponse(json:)`: `expires_in` seconds from `obtainedAt`), the stored JSON
  /// (`init(from:)`), the access-token cache and the agent's answers (`CacheRecord.admitted`).
  /// Every token through its type's admission, every number by one rule (`Admit.number`: a JSON
  /// number or decimal digits, finite, in range, fractions dropped): times from 1970 to year
  /// 9999, a lifetime up to ten years.
  public init(
    admitting accessToken: String, tokenType: String?, refreshToken: String? = nil, idToken: String? = nil,
    scope: String? = nil, expiresIn: JSONValue? = nil, expiresAt: JSONValue? = nil, obtainedAt: JSONValue?,
    endpoints: [String: String]? = nil
  ) throws(AdmissionError) {
    self.accessToken = try BearerToken(admitting: accessToken)
    self.tokenType = try Admit.tokenType(tokenType)
    guard let obtained = try Admit.time(obtainedAt, what: "obtained_at") else {
      throw AdmissionError("obtained_at is missing")
    }
    self.obtainedAt = obtained
    let lifetime = try Admit.lifetime(expiresIn)
    self.expiresAt = try Admit.time(expiresAt, what: "expires_at") ?? lifetime.map { obtained + $0 }
    self.refreshToken = try refreshToken.map(RefreshToken.init(admitting:))
    self.idToken = try idToken.map(IDToken.init(admitting:))
    self.scope = try scope.map(Scope.init(admitting:))
    self.endpoints = endpoints
  }

  /// The stored form, admitted again as a token response is: what is read back from a store is
  /// outside input too.
  public init(from decoder: any Decoder) throws {
    // AdmissionErrors pass through JSONDecoder unchanged; `decode` reports their sentence.
    let c = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      admitting: c.decode(String.self, forKey: .accessToken),
      tokenType: c.decodeIfPresent(String.self, forKey: .tokenType),
      refreshToken: c.decodeIfPresent(String.self, forKey: .refreshToken),
      idToken: c.decodeIfPresent(String.self, forKey: .idToken),
      scope: c.decodeIfPresent(String.self, forKey: .scope),
      expiresAt: c.decodeIfPresent(JSONValue.self, forKey: .expiresAt),
      obtainedAt: c.decode(JSONValue.self, forKey: .obtainedAt),
      endpoints: c.decodeIfPresent([String: String].self, forKey: .endpoints))
  }

  /// The refresh margin asked for when nobody says (`token --min-ttl`, git, curl, kubectl).
  public static let defaultMinTTL: Int64 = 60

  /// True when the access token expires within the margin `freshness` asks for (or has no
  /// expiry and is older than a day, as a conservative guess), or a refresh is forced.
  public func needsRefresh(now: Int64, _ freshness: Freshness) -> Bool {
    if freshness.force { return true }
    if let expiresAt { return expiresAt - now <= refreshMargin(freshness) }
    return now - obtainedAt > 86_400
  }

  /// How long before expiry a refresh is due. An explicit margin (`--min-ttl N`, `min_ttl`) is
  /// a promise: N. The default one is at most half the access token's lifetime, so a token that
  /// lives 5 s is refreshed with 2 s left, not on every call.
  public func refreshMargin(_ freshness: Freshness) -> Int64 {
    guard let expiresAt, !freshness.explicit else { return freshness.seconds }
    let lifetime = expiresAt - obtainedAt
    return lifetime > 0 ? min(freshness.seconds, lifetime / 2) : freshness.seconds
  }

  /// What to say when an explicit margin is not met by the token handed out (the tenant issues
  /// tokens that live less than asked): nil when it is, or when none was asked for.
  public func shortfall(now: Int64, _ freshness: Freshness) -> String? {
    guard freshness.explicit, let expiresAt, let left = secondsLeft(now: now), left < freshness.seconds else {
      return nil
    }
    return "the access token has \(left) s left, less than the \(freshness.seconds) s asked (--min-ttl, min_ttl): "
      + "the tenant issues \(max(0, expiresAt - obtainedAt))-s tokens"
  }

  /// Seconds the access token has left at `now` (nil without an expiry).
  public func secondsLeft(now: Int64) -> Int64? { expiresAt.map { max(0, $0 - now) } }

  public var description: String {
    "TokenSet(access_token: \(accessToken), refresh_token: \(refreshToken.map { "\($0)" } ?? "none"), "
      + "id_token: \(idToken.map { "\($0)" } ?? "none"), expires_at: \(expiresAt.map(String.init) ?? "none"))"
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
        throw StoreError.corrupt(
          source: source, detail: "format version \(payload.version) is newer than this strivacity understands")
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

/// How much life the access token handed out must have left, and whether to refresh anyway.
public struct Freshness: Sendable, Equatable {
  /// Seconds of life wanted.
  public var seconds: Int64
  /// Asked for (`--min-ttl`, a profile's `min_ttl`): refreshed whenever fewer are left. Else the
  /// default margin, capped at half the token's lifetime.
  public var explicit: Bool
  /// `token --refresh`: refresh now whatever the expiry (one refresh for all who ask at once).
  public var force: Bool

  public init(seconds: Int64, explicit: Bool, force: Bool = false) {
    self.seconds = seconds
    self.explicit = explicit
    self.force = force
  }

  /// The default: 60 s, at most half the lifetime.
  public static let standard = Freshness(seconds: TokenSet.defaultMinTTL, explicit: false)

  /// Largest margin accepted anywhere (a year).
  public static let maxSeconds: Int64 = 86_400 * 365
}

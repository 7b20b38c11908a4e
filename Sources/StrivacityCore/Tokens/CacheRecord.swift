// The access-token cache's payload (TokenCache): `access_token`, `token_type`, `expires_at`,
// `obtained_at` and optionally `scope`, one `key=value` line each — read without Foundation, as
// the small `strivacity` binary reads it on the hot path. Another process of the same user can
// write the key, so what is read back is outside input: every field is admitted again as a
// stored set's is, and anything else (an unknown or repeated key, a line without "=", bytes
// that are not UTF-8) is no entry at all.
public enum CacheRecord {
  static let names: Set<String> = ["access_token", "token_type", "expires_at", "obtained_at", "scope"]

  /// The record of `tokens`' access token, expiring at `expiresAt` (refresh and ID tokens are
  /// never part of it).
  public static func encode(_ tokens: TokenSet, expiresAt: Int64) -> String {
    var text = "access_token=\(tokens.accessToken.value)\ntoken_type=\(tokens.tokenType)\n"
    text += "expires_at=\(expiresAt)\nobtained_at=\(tokens.obtainedAt)\n"
    if let scope = tokens.scope { text += "scope=\(scope.value)\n" }
    return text
  }

  public static func decode(_ bytes: ArraySlice<UInt8>) -> TokenSet? {
    var fields: [String: String] = [:]
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      guard let eq = line.firstIndex(of: UInt8(ascii: "=")),
        let name = String(validating: line[..<eq], as: UTF8.self), names.contains(name), fields[name] == nil,
        let value = String(validating: line[line.index(after: eq)...], as: UTF8.self)
      else { return nil }
      fields[name] = value
    }
    // The cache holds only sets with an expiry (it lives no longer than the token).
    guard fields["expires_at"] != nil else { return nil }
    return admitted { fields[$0] }
  }

  /// The access-token fields (`access_token`, `token_type`, `obtained_at`, and `expires_at` and
  /// `scope` when present) admitted by the one admission of a token set (`TokenSet(admitting:)`),
  /// times as decimal text; nil when any does not read. Shared by the cache and the agent's
  /// answers (AgentMessage.tokenSet).
  public static func admitted(_ field: (String) -> String?) -> TokenSet? {
    guard let access = field("access_token") else { return nil }
    return try? TokenSet(
      admitting: access, tokenType: field("token_type"), scope: field("scope"),
      expiresAt: field("expires_at").map(JSONValue.string), obtainedAt: field("obtained_at").map(JSONValue.string))
  }
}

// The access-token cache: the current access token of a profile on the Secret Service, kept in
// the kernel's per-user keyring (keyrings(7)) so that `strivacity token` answers without a D-Bus
// round trip. DESIGN.md "Threat model" says what it holds and why that is safe:
// - only what a refresh would hand out anyway: the access token, its type, scope and times —
//   never the refresh token or the ID token;
// - readable by this user only (the key's permissions; another user's keyring is another one),
//   gone at reboot, and at the latest `maxLifetime` after it was written or when the token
//   would be due for refresh;
// - replaced by every refresh and sign-in, removed by logout and revoke.
// Where the kernel refuses keyrings (some container sandboxes), nothing is cached.
// The payload is a few `key=value` lines, read without Foundation: the small `strivacity`
// binary that answers the hot path (Launcher) links only this, StrivacityCore and GitCredential.
internal import CKeyctl
import Glibc
import StrivacityCore

public enum KernelTokenCache {
  /// The longest an entry lives: after locking the keyring, a cached token is still handed out
  /// for at most this long (it stays valid at the tenant until it expires, as it does in every
  /// process that already holds it).
  public static let maxLifetime: Int64 = 900
  static let capacity = 40 * 1024

  /// Off with STRIVACITY_TOKEN_CACHE=off.
  public static func enabled(_ environment: [String: String]) -> Bool { environment["STRIVACITY_TOKEN_CACHE"] != "off" }

  public static func description(_ key: StoreKey) -> String { "strivacity:v2:\(key.profile):\(key.issuer):\(key.clientID)" }

  /// Keeps the access token of `tokens` for `key` (best effort: a kernel without keyrings just
  /// means no cache).
  public static func put(_ tokens: TokenSet, for key: StoreKey, now: Int64) {
    guard let expiresAt = tokens.expiresAt, expiresAt > now else { return drop(key) }
    var payload = Array(Record.encode(tokens, expiresAt: expiresAt).utf8)
    defer { for i in payload.indices { payload[i] = 0 } }
    let timeout = UInt32(min(expiresAt - now, maxLifetime))
    if payload.withUnsafeBytes({ kc_put(description(key), $0.baseAddress, $0.count, timeout) }) != 0 { drop(key) }
  }

  /// The cached set for `key`, admitted like a stored one; nil when there is none or it does not read.
  public static func get(_ key: StoreKey) -> TokenSet? {
    var buffer = [UInt8](repeating: 0, count: capacity)
    defer { for i in buffer.indices { buffer[i] = 0 } }
    let length = buffer.withUnsafeMutableBytes { kc_get(description(key), $0.baseAddress, $0.count) }
    guard length > 0, length <= capacity else { return nil }
    return Record.decode(buffer[0..<length])
  }

  public static func drop(_ key: StoreKey) { _ = kc_drop(description(key)) }
}

/// The cached form: `access_token`, `token_type`, `expires_at`, `obtained_at` and optionally
/// `scope`, one `key=value` line each. Read back, every field is admitted again as a stored set's
/// is (another process of this user could have written the key); anything else is no entry.
enum Record {
  static func encode(_ tokens: TokenSet, expiresAt: Int64) -> String {
    var text = "access_token=\(tokens.accessToken.value)\ntoken_type=\(tokens.tokenType)\n"
    text += "expires_at=\(expiresAt)\nobtained_at=\(tokens.obtainedAt)\n"
    if let scope = tokens.scope { text += "scope=\(scope)\n" }
    return text
  }

  static func decode(_ bytes: ArraySlice<UInt8>) -> TokenSet? {
    guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
    var fields: [Substring: Substring] = [:]
    for line in text.split(separator: "\n") {
      guard let eq = line.firstIndex(of: "=") else { return nil }
      let (name, value) = (line[..<eq], line[line.index(after: eq)...])
      guard ["access_token", "token_type", "expires_at", "obtained_at", "scope"].contains(name), fields[name] == nil else { return nil }
      fields[name] = value
    }
    guard let access = fields["access_token"], let expiresAt = fields["expires_at"].flatMap(time),
      let obtainedAt = fields["obtained_at"].flatMap(time),
      let token = try? BearerToken(admitting: String(access)),
      let tokenType = try? Admit.tokenType(fields["token_type"].map(String.init))
    else { return nil }
    var scope: String?
    if let given = fields["scope"] {
      guard let admitted = try? Admit.scope(String(given)) else { return nil }
      scope = admitted
    }
    return TokenSet(accessToken: token, tokenType: tokenType, scope: scope, expiresAt: expiresAt, obtainedAt: obtainedAt)
  }

  /// Seconds since 1970: 1 to 12 decimal digits (no sign, no trap on overflow).
  static func time(_ text: Substring) -> Int64? {
    guard (1...12).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return Int64(text)
  }
}

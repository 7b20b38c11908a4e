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
// The payload is a few `key=value` lines (StrivacityCore's CacheRecord), read without
// Foundation's JSON by the small `strivacity` binary that answers the hot path (Launcher).
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

  /// `strivacity:v2:PROFILE:ISSUER:CLIENT_ID` for the sign-in's set; another slot's name goes
  /// beside the version (`v2+SLOT`), where no profile, issuer or client id can be.
  public static func description(_ key: StoreKey) -> String {
    let version = key.slot.name.map { "v2+\($0)" } ?? "v2"
    return "strivacity:\(version):\(key.profile):\(key.issuer):\(key.clientID)"
  }

  /// Keeps the access token of `tokens` for `key` (best effort: a kernel without keyrings just
  /// means no cache).
  public static func put(_ tokens: TokenSet, for key: StoreKey, now: Int64) {
    guard let expiresAt = tokens.expiresAt, expiresAt > now else { return drop(key) }
    var payload = Array(CacheRecord.encode(tokens, expiresAt: expiresAt).utf8)
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
    return CacheRecord.decode(buffer[0..<length])
  }

  public static func drop(_ key: StoreKey) { _ = kc_drop(description(key)) }
}

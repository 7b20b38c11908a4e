// The access-token cache: the current access token of a profile on the Secret Service, kept in
// the kernel's per-user keyring (keyrings(7)) so that `strivacity token` answers without a D-Bus
// round trip. DESIGN.md "Threat model" says what it holds and why that is safe:
// - only what a refresh would hand out anyway: the access token, its type, scope and times —
//   never the refresh token or the ID token;
// - readable by this user only (the key's permissions; another user's keyring is another one),
//   gone at reboot, and at the latest `maxLifetime` after it was written or when the token
//   would be due for refresh;
// - replaced by every refresh and sign-in, removed by logout and revoke.
// Where the kernel refuses keyrings (some container sandboxes), nothing is cached (`refusal`
// says why; a machine profile's tokens then go to MachineTokenFiles).
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
  /// means no cache); for at most `cap` seconds (a machine profile's store, whose tokens are
  /// kept nowhere else, keeps them as long as they live). Returns whether the kernel took it.
  @discardableResult
  public static func put(_ tokens: TokenSet, for key: StoreKey, now: Int64, cap: Int64 = maxLifetime) -> Bool {
    guard let expiresAt = tokens.expiresAt, expiresAt > now else {
      drop(key)
      return false
    }
    var payload = Array(CacheRecord.encode(tokens, expiresAt: expiresAt).utf8)
    defer { payload.wipe() }
    let timeout = UInt32(min(expiresAt - now, cap, Int64(UInt32.max)))
    guard payload.withUnsafeBytes({ kc_put(description(key), $0.baseAddress, $0.count, timeout) }) == 0 else {
      drop(key)
      return false
    }
    return true
  }

  /// A small non-secret record under `name` (beside the entries, never one of them): a machine
  /// profile's list of its slots, so that `logout` finds every entry. Best effort.
  public static func putNote(_ text: String, name: String, seconds: Int64) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { kc_put(name, $0.baseAddress, $0.count, UInt32(min(max(seconds, 1), 86_400 * 30))) }
  }

  public static func note(name: String) -> String? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let length = buffer.withUnsafeMutableBytes { kc_get(name, $0.baseAddress, $0.count) }
    guard length > 0, length <= buffer.count else { return nil }
    return String(decoding: buffer[0..<length], as: UTF8.self)
  }

  public static func dropNote(name: String) { _ = kc_drop(name) }

  /// The cached set for `key`, admitted like a stored one; nil when there is none or it does not read.
  public static func get(_ key: StoreKey) -> TokenSet? {
    var buffer = [UInt8](repeating: 0, count: capacity)
    defer { buffer.wipe() }
    let length = buffer.withUnsafeMutableBytes { kc_get(description(key), $0.baseAddress, $0.count) }
    guard length > 0, length <= capacity else { return nil }
    return CacheRecord.decode(buffer[0..<length])
  }

  public static func drop(_ key: StoreKey) { _ = kc_drop(description(key)) }

  /// Keeps a record of another kind than a token set under `key`'s name (a tool's credentials
  /// made from a token: a helper's Derivation), for `seconds` (at most `maxLifetime`), as the tokens are kept:
  /// this user's, gone at reboot. The caller admits what it reads back (`record`). Best effort.
  @discardableResult
  public static func putRecord(_ payload: [UInt8], for key: StoreKey, seconds: Int64) -> Bool {
    guard seconds > 0, payload.count <= capacity else { return false }
    let timeout = UInt32(min(seconds, maxLifetime))
    return payload.withUnsafeBytes { kc_put(description(key), $0.baseAddress, $0.count, timeout) } == 0
  }

  /// The record `putRecord` kept for `key`, or nil; the caller wipes it.
  public static func record(_ key: StoreKey) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: capacity)
    defer { buffer.wipe() }
    let length = buffer.withUnsafeMutableBytes { kc_get(description(key), $0.baseAddress, $0.count) }
    guard length > 0, length <= capacity else { return nil }
    return Array(buffer[0..<length])
  }

  /// Why the kernel refuses its keyrings here, or nil when it answers (one keyctl search for a
  /// name nobody uses): EPERM where a seccomp filter forbids keyctl (a container runtime's default),
  /// ENOSYS on a kernel without keys, EACCES where the user's keyring is closed to this process.
  public static func refusal() -> String? {
    switch -kc_get("strivacity:probe", nil, 0) {
    case Int(EPERM): return "EPERM"
    case Int(ENOSYS): return "ENOSYS"
    case Int(EACCES): return "EACCES"
    default: return nil
    }
  }
}

// Where the kernel refuses its keyrings (a container under its runtime's default seccomp profile
// forbids keyctl, add_key and request_key), a machine profile's access tokens are kept in
// private files instead, so that a job's calls still make one token request, not one each.
// Each file holds what the kernel's entry would (CacheRecord, read without Foundation, by the
// small binary too) after a first line naming the entry (KernelTokenCache.description), so a
// file of another tenant or client is no entry. In $XDG_RUNTIME_DIR/strivacity/machine-tokens
// when $XDG_RUNTIME_DIR is a private directory of this user's (memory, gone at logout), else in
// the state directory ($XDG_STATE_HOME/strivacity/machine-tokens): 0600 files in a 0700
// directory, written atomically; a file that is a link, someone else's or open to others is no
// entry, and a directory that is not this user's alone is not written to. Only a machine's
// tokens (its access tokens, no refresh token exists), and only as long as each lives: an
// expired one is no entry.
import Glibc
import StrivacityConfig
import StrivacityCore
import SystemIO

public struct MachineTokenFiles: Sendable, Equatable {
  /// The directory holding one file per profile and slot.
  public let directory: String
  /// Whether it is in the runtime directory (memory, gone at logout) rather than the state
  /// directory (a disk).
  public let inRuntimeDirectory: Bool

  /// The place for this environment: the runtime directory when it is private, else the state
  /// directory.
  public init(environment: [String: String]) {
    let paths = Paths(environment: environment)
    if let runtime = paths.userRuntimeDir,
      PrivateFiles.unsafeDirectory(String(runtime.dropLast("/strivacity".count)), privateMode: true) == nil
    {
      directory = runtime + "/machine-tokens"
      inRuntimeDirectory = true
    } else {
      directory = paths.stateDir + "/machine-tokens"
      inRuntimeDirectory = false
    }
  }

  /// The sign-in's file is PROFILE.token, another slot's PROFILE+SLOT.token ('+' is in neither
  /// name's alphabet), as the file store names its files.
  public func path(for key: StoreKey) -> String {
    "\(directory)/\(key.profile)\(key.slot.name.map { "+\($0)" } ?? "").token"
  }

  /// The set kept for `key` if it has not expired by `now`; nil when there is none, it is not
  /// this entry's, or it does not read.
  public func get(_ key: StoreKey, now: Int64) -> TokenSet? {
    let limit = KernelTokenCache.capacity + 4096
    guard var bytes = try? PrivateFiles.readPrivate(path(for: key), limit: limit) else { return nil }
    defer { bytes.wipe() }
    let name = Array((KernelTokenCache.description(key) + "\n").utf8)
    guard bytes.starts(with: name), let tokens = CacheRecord.decode(bytes[name.count...]),
      let expiresAt = tokens.expiresAt, expiresAt > now
    else { return nil }
    return tokens
  }

  /// Keeps the access token of `tokens` for `key` (a set without an expiry, or expired, is not
  /// kept: the file is removed). Throws what kept it from being written.
  public func put(_ tokens: TokenSet, for key: StoreKey, now: Int64) throws(FileError) {
    guard let expiresAt = tokens.expiresAt, expiresAt > now else {
      drop(key)
      return
    }
    try prepare()
    var bytes = Array(
      (KernelTokenCache.description(key) + "\n" + CacheRecord.encode(tokens, expiresAt: expiresAt)).utf8)
    defer { bytes.wipe() }
    try PrivateFiles.writeAtomically(bytes, to: path(for: key), mode: 0o600)
  }

  /// Makes the directory (0700, with its parents) and checks it: this user's alone, its parent
  /// writable by nobody else. What is wrong, as a FileError naming the directory.
  public func prepare() throws(FileError) {
    try PrivateFiles.makeDirectories(directory)
    // Our own directory stays private even if it was made wider.
    if case .success(let status) = FileStatus.of(directory, followingLinks: false), status.kind == .directory,
      status.owner == effectiveUserID(), status.permissions & 0o077 != 0
    {
      PrivateFiles.changeMode(directory, to: 0o700)
    }
    let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
    for (path, privateMode) in [(parent, false), (directory, true)] {
      if let fault = PrivateFiles.unsafeDirectory(path, privateMode: privateMode) {
        throw FileError(path: path, detail: fault)
      }
    }
  }

  public func drop(_ key: StoreKey) { unlink(path(for: key)) }

  /// The slots of `profile` that have a file (whatever it holds): PROFILE.token and
  /// PROFILE+SLOT.token; the sign-in's first, then by name.
  public func slots(of profile: String) -> [TokenSlot] {
    fileNames().compactMap { name -> TokenSlot? in
      guard name.hasSuffix(".token") else { return nil }
      let stem = name.dropLast(".token".count)
      if stem == profile { return .signIn }
      guard stem.hasPrefix(profile + "+") else { return nil }
      return TokenSlot(stored: String(stem.dropFirst(profile.count + 1)))
    }.sorted { ($0.name ?? "") < ($1.name ?? "") }
  }

  private func fileNames() -> [String] {
    guard let stream = opendir(directory) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }
    return names.sorted()
  }
}

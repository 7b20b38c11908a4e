// Where a profile's tokens live, and what sits in front of them: every TokenStore decorator, and
// the one place that puts them together. Outermost first:
//
//   1. AgentStore           the agent's memory (inside `strivacity agent` only): answers without
//                           a keyring operation, and one keyring operation at a time
//   2. AgentNotifyingStore  tells a running agent of every write and deletion (every other
//                           process), so that it never answers with a set replaced or deleted here
//   3. KernelCachingStore   keeps the access token in the kernel's keyring (TokenCache), where the
//                           small binary answers `token` from (STRIVACITY_TOKEN_CACHE=off: none)
//   4. SecretServiceStore   the store of record (SecretStore); or FileStore, under the cache alone
//                           (3 → 4: no agent), so that the small binary answers `token` for it too
//                           instead of handing every call to the full command line
//   5. MachineTokenStore    a machine profile's store of record: the kernel's keyring itself
//                           (1 or 2 over it, no 3: it is the cache); where the kernel refuses
//                           keyrings, private files (MachineTokenFiles)
//
// Why this order: the agent's memory is the fastest answer and must hear of nothing it did not
// see itself, so it sits over the cache and has nobody to tell (1 and 2 exclude each other); a
// change is told to the agent after the cache and the keyring have it (2 over 3), so an agent
// that re-reads at once sees the new set; the cache is kept in step by everything that reaches
// the keyring, and dropped before a save, so it is never newer than the keyring (3 over 4).
//
// A key names one of a profile's token sets (StoreKey.slot); a deletion is by profile, every slot.
// Kept secrets are no token sets: they are another store's (SecretItemStore, Context.secretStore).
import Agent
import SecretStore
import StrivacityCore
import Synchronization
import TokenCache

package enum StoreStack {
  /// A command's store over `keyring`: 2 → 3 → 4.
  package static func command(over keyring: SecretServiceStore, environment: [String: String]) -> TokenStore {
    AgentNotifyingStore(cached(keyring, environment), environment: environment)
  }

  /// The agent's store over `keyring`: 1 → 3 → 4.
  package static func agent(over keyring: SecretServiceStore, environment: [String: String]) -> AgentStore {
    AgentStore(cached(keyring, environment))
  }

  /// A file store's profile: 3 → 4 (the agent keeps to the keyring).
  package static func file(_ store: FileStore, environment: [String: String]) -> TokenStore {
    cached(store, environment)
  }

  /// A machine profile's store: 2 → 5.
  package static func machine(_ key: StoreKey, environment: [String: String]) -> TokenStore {
    AgentNotifyingStore(
      MachineTokenStore(key, environment: environment) { TokenBroker.now() }, environment: environment)
  }

  /// 3 → 4, or 4 alone when the access-token cache is off.
  private static func cached(_ store: TokenStore, _ environment: [String: String]) -> TokenStore {
    KernelTokenCache.enabled(environment) ? KernelCachingStore(store) { TokenBroker.now() } : store
  }
}

// MARK: 1. the agent's memory

/// The agent's store: the token sets it has read or written, in memory, over the keyring (which
/// it writes through to). Two locks: one for the memory (held briefly: answers from memory,
/// `forget` and status never wait on the keyring), one that keeps the keyring to one operation
/// at a time (libsecret's calls are not made from two threads at once).
package final class AgentStore: TokenStore, @unchecked Sendable {
  package let base: TokenStore
  package var kind: StoreKind { base.kind }
  private let memory = Mutex(Memory())
  private let keyring = Mutex(())
  /// A set held longer than this is read from the keyring again (changes made with other tools).
  package static let revalidateAfter: Int64 = 60

  private struct Memory {
    package var sets: [StoreKey: (tokens: TokenSet, readAt: Int64)] = [:]
    /// Bumped by every change of a profile's tokens (here or told by `forget`): a keyring read
    /// that started before a change does not put its now stale answer into memory.
    package var generations: [String: Int] = [:]
  }

  package init(_ base: TokenStore) { self.base = base }

  private func inMemory<T: Sendable>(_ body: (inout Memory) -> T) -> T { memory.withLock { body(&$0) } }

  private func inKeyring<T: Sendable>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
    try keyring.withLock { _ throws(StoreError) -> T in try body() }
  }

  /// Drops what is held for `profile` (for its one set `only`, when given) and marks its tokens
  /// as changed.
  private func invalidate(_ profile: String, only: StoreKey? = nil) {
    inMemory { memory in
      for key in memory.sets.keys where key.profile == profile && (only == nil || key == only) {
        memory.sets[key] = nil
      }
      memory.generations[profile, default: 0] += 1
    }
  }

  package func load(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    if let held = held(key) { return held }
    return try reload(key)
  }

  package func reload(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    let generation = inMemory { $0.generations[key.profile, default: 0] }
    let tokens = try inKeyring { () throws(StoreError) in try base.load(key) }
    inMemory { memory in
      if memory.generations[key.profile, default: 0] == generation {
        memory.sets[key] = tokens.map { ($0, TokenBroker.now()) }
      }
    }
    return tokens
  }

  package func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    // Never newer than the keyring, even if the save fails. The profile's other sets (its APIs'
    // tokens beside the sign-in's) are as the keyring has them still: kept.
    invalidate(key.profile, only: key)
    try inKeyring { () throws(StoreError) in try base.save(tokens, for: key) }
    inMemory { $0.sets[key] = (tokens, TokenBroker.now()) }
  }

  @discardableResult
  package func delete(profile: String) throws(StoreError) -> Bool {
    invalidate(profile)
    return try inKeyring { () throws(StoreError) in try base.delete(profile: profile) }
  }

  package func keys() throws(StoreError) -> [StoreKey] { try inKeyring { () throws(StoreError) in try base.keys() } }

  /// The set held for `key` in memory, if it was read or written less than a minute ago (no
  /// keyring operation).
  package func held(_ key: StoreKey) -> TokenSet? {
    inMemory { memory in
      guard let held = memory.sets[key], TokenBroker.now() - held.readAt < Self.revalidateAfter else { return nil }
      return held.tokens
    }
  }

  /// Another process changed `profile`'s tokens: what is held for it is dropped.
  package func forget(profile: String) { invalidate(profile) }

  package var profileCount: Int { inMemory { Set($0.sets.keys.map(\.profile)).count } }
}

// MARK: 2. telling the agent

/// A store whose every write and deletion is told to a running `strivacity agent`, so that it
/// never answers with a set this process has replaced or deleted.
package final class AgentNotifyingStore: TokenStore {
  package let base: TokenStore
  package let environment: [String: String]
  package var kind: StoreKind { base.kind }

  package init(_ base: TokenStore, environment: [String: String]) {
    self.base = base
    self.environment = environment
  }

  package func load(_ key: StoreKey) throws(StoreError) -> TokenSet? { try base.load(key) }

  package func reload(_ key: StoreKey) throws(StoreError) -> TokenSet? { try base.reload(key) }

  package func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    defer { AgentClient.forget(profile: key.profile, environment: environment) }
    try base.save(tokens, for: key)
  }

  @discardableResult
  package func delete(profile: String) throws(StoreError) -> Bool {
    defer { AgentClient.forget(profile: profile, environment: environment) }
    return try base.delete(profile: profile)
  }

  package func keys() throws(StoreError) -> [StoreKey] { try base.keys() }
}

// MARK: 3. the kernel's cache

/// The store with the access-token cache (KernelTokenCache) kept in step: every set read or
/// written through it is cached, every deletion drops the profile's entries. The cache is only
/// ever read by the small `strivacity` binary (Launcher's HotPath), never by this store.
package final class KernelCachingStore: TokenStore {
  package let base: TokenStore
  package let now: () -> Int64
  package var kind: StoreKind { base.kind }

  package init(_ base: TokenStore, now: @escaping () -> Int64) {
    self.base = base
    self.now = now
  }

  package func load(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    let tokens = try base.load(key)
    if let tokens { KernelTokenCache.put(tokens, for: key, now: now()) } else { KernelTokenCache.drop(key) }
    return tokens
  }

  package func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    KernelTokenCache.drop(key)  // never newer than the store, even if the save fails
    try base.save(tokens, for: key)
    KernelTokenCache.put(tokens, for: key, now: now())
  }

  @discardableResult
  package func delete(profile: String) throws(StoreError) -> Bool {
    for key in (try? base.keys()) ?? [] where key.profile == profile { KernelTokenCache.drop(key) }
    return try base.delete(profile: profile)
  }

  package func keys() throws(StoreError) -> [StoreKey] { try base.keys() }
}

// MARK: 5. a machine profile's tokens

/// The store of record of a machine profile (`StoreKind.kernel`): its access tokens in the
/// kernel's per-user keyring only, for as long as each lives, where the small binary answers
/// `token` from as it does for a signed-in profile. Nothing on disk, no D-Bus: a container
/// without either works. Where the kernel refuses keyrings (a container runtime's default seccomp
/// profile forbids keyctl), in private files (MachineTokenFiles), which the small binary reads then. A
/// machine gets a new token with its client credentials at any time, so STRIVACITY_TOKEN_CACHE=off
/// (or files that cannot be written) only means a request per call. A note per profile lists the
/// slots written, so that `logout` and `revoke` find ad hoc targets' entries too (the files are
/// their own list).
package final class MachineTokenStore: TokenStore {
  package let kind = StoreKind.kernel
  /// The profile's sign-in key (profile, tenant, client): the store is one profile's.
  package let profileKey: StoreKey
  package let place: Place
  package let now: () -> Int64

  /// Where a machine profile's tokens are kept in this environment.
  package enum Place: Equatable, Sendable {
    /// The kernel's per-user keyring.
    case kernel
    /// Private files, the kernel's keyring being refused (`refusal`: EPERM, ENOSYS, EACCES).
    case files(MachineTokenFiles, refusal: String)
    /// Nowhere (STRIVACITY_TOKEN_CACHE=off): a request per call.
    case nowhere

    /// The place in `environment`: asks the kernel whether it answers (one keyctl call).
    package init(environment: [String: String]) {
      if !KernelTokenCache.enabled(environment) {
        self = .nowhere
      } else if let refusal = KernelTokenCache.refusal() {
        self = .files(MachineTokenFiles(environment: environment), refusal: refusal)
      } else {
        self = .kernel
      }
    }

    /// The store its tokens are in, as `status` names stores: "kernel", "file" (private files), or
    /// "none" (a request per call).
    package var storeName: String {
      switch self {
      case .kernel: StoreKind.kernel.rawValue
      case .files: StoreKind.file.rawValue
      case .nowhere: "none"
      }
    }

    /// Said once by `status` and `doctor` where the place is not the kernel's keyring: where the
    /// tokens are, and why.
    package var note: String? {
      guard case .files(let files, let refusal) = self else { return nil }
      let kind = files.inRuntimeDirectory ? "a private file" : "a private file on disk"
      return "kept in \(kind) in \(files.directory) (the kernel's keyring is refused here: \(refusal))"
    }
  }

  package convenience init(_ profileKey: StoreKey, environment: [String: String], now: @escaping () -> Int64) {
    self.init(profileKey, place: Place(environment: environment), now: now)
  }

  package init(_ profileKey: StoreKey, place: Place, now: @escaping () -> Int64) {
    self.profileKey = profileKey
    self.place = place
    self.now = now
  }

  package func load(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    switch place {
    case .kernel: return KernelTokenCache.get(key)
    case .files(let files, _): return files.get(key, now: now())
    case .nowhere: return nil
    }
  }

  package func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    let time = now()
    switch place {
    case .kernel: break
    case .files(let files, _):
      // Best effort, as the kernel's: a directory that will not do means a request per call.
      try? files.put(tokens, for: key, now: time)
      return
    case .nowhere: return
    }
    guard KernelTokenCache.put(tokens, for: key, now: time, cap: .max) else { return }
    var slots = Set(noted(key))
    slots.insert(key.slot.name ?? "")
    // Kept as long as the longest-lived entry may be (a day at least: notes are tiny).
    let seconds = max(86_400, (tokens.expiresAt ?? time) - time)
    KernelTokenCache.putNote(
      ([Self.noteHeader] + slots.sorted()).joined(separator: "\n"), name: Self.noteName(key), seconds: seconds)
  }

  /// (It keeps no secret: a machine's stored secret is in the keyring or a file of its own.)
  @discardableResult
  package func delete(profile: String) throws(StoreError) -> Bool {
    guard profile == profileKey.profile else { return false }
    let held = try keys()
    switch place {
    case .kernel, .nowhere:
      for key in held { KernelTokenCache.drop(key) }
      KernelTokenCache.drop(profileKey)
      KernelTokenCache.dropNote(name: Self.noteName(profileKey))
    case .files(let files, _):
      for slot in files.slots(of: profile) { files.drop(profileKey.with(slot: slot)) }
    }
    return !held.isEmpty
  }

  /// The profile's entries that are there now.
  package func keys() throws(StoreError) -> [StoreKey] {
    switch place {
    case .kernel:
      return noted(profileKey).compactMap { name in
        var entry = profileKey
        entry.slot = name.isEmpty ? .signIn : TokenSlot(stored: name) ?? .signIn
        return KernelTokenCache.get(entry) == nil ? nil : entry
      }
    case .files(let files, _):
      let time = now()
      return files.slots(of: profileKey.profile).map { profileKey.with(slot: $0) }.filter {
        files.get($0, now: time) != nil
      }
    case .nowhere: return []
    }
  }

  /// The note's first line: the sign-in's slot is an empty line, so a note of the sign-in's slot
  /// alone would be empty, and the kernel's keyring reads an empty key back as none.
  static let noteHeader = "slots"

  /// The slots the profile's note lists ("" the sign-in's), each once; a note an earlier version
  /// wrote (no header) reads the same.
  private func noted(_ key: StoreKey) -> [String] {
    guard let note = KernelTokenCache.note(name: Self.noteName(key)) else { return [] }
    var lines = note.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.first == Self.noteHeader { lines.removeFirst() }
    var seen = Set<String>()
    return lines.filter { ($0.isEmpty || TokenSlot(stored: $0) != nil) && seen.insert($0).inserted }
  }

  /// Beside the entries' `strivacity:v2…` descriptions, never one of them.
  package static func noteName(_ key: StoreKey) -> String {
    "strivacity:slots:\(key.profile):\(key.issuer):\(key.clientID)"
  }
}

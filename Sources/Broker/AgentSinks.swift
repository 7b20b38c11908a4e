// The token files `strivacity agent` keeps fresh (`[profiles.P.sinks.NAME]`, issue 30), so that
// a program that cannot ask for a token (a systemd service, a tool reading a token file) reads
// one. On a thread of its own, so that a renewal never holds up a request: each sink's token is
// renewed at half its life (KeepFresh, the schedule `exec --file-env` keeps) through the agent's
// own token path (AgentServer.tokens), and written atomically with the mode asked, into a
// directory that is the user's (or root's) and that nobody else may write, never through a
// symlink or over someone else's file. When a renewal fails the file keeps the token it holds,
// which is still valid, a line goes to stderr (the journal) and the renewal is retried, backing
// off; at expiry the file is emptied (never a stale token). The config file is read again when
// it changes; a sink gone from it, and every sink when the agent ends, is emptied too: nobody
// would empty it at expiry then.
import Agent
import SecretStore
import StrivacityConfig
import StrivacityCore
import Synchronization
import SystemIO

package final class SinkKeeper: @unchecked Sendable {
  private let environment: [String: String]
  private let configPath: String
  /// Fresh tokens for a profile's target (AgentServer.tokens); nil freshness: the default margin.
  private let fetch: (String, AgentTokenTarget, Freshness?) throws -> TokenSet
  private let state = Mutex(Shared())

  private struct Shared {
    package var sinks: [Kept] = []
    package var stopping = false
    /// A step is under way (a renewal, a write): the agent waits for it before it ends.
    package var busy = false
    package var running = false
  }

  /// One sink and where it stands.
  package struct Kept {
    package var profile: String
    package var sink: Sink
    /// The schedule of the token the file holds; nil: none written yet.
    package var keeper: KeepFresh?
    /// When the next step is due (Unix seconds).
    package var dueAt: Int64 = 0
    /// Failures in a row before a first token (or of refusals), for backing off.
    package var attempts = 0
    /// The last problem said, so that a retry failing the same way is not said again.
    package var lastProblem: String?
    /// The file was written by us (and is emptied when we stop keeping it).
    package var written = false

    package var identity: String {
      "\(profile)\u{0}\(sink.name)\u{0}\(sink.path)\u{0}\(sink.api ?? "")\u{0}\(sink.format)"
    }
    package var label: String { "sink \(sink.name) of \(profile) (\(sink.path))" }
  }

  package init(
    environment: [String: String],
    fetch: @escaping (String, AgentTokenTarget, Freshness?) throws -> TokenSet
  ) {
    self.environment = environment
    configPath = Paths(environment: environment).config
    self.fetch = fetch
  }

  /// Whether any sink is configured (the agent then never stops for being idle).
  package var keepsSinks: Bool { state.withLock { !$0.sinks.isEmpty } }

  package var count: Int { state.withLock { $0.sinks.count } }

  /// Reads the config and starts the thread.
  package func start() {
    reload(quietly: false)
    if startDetachedThread({ [self] in loop() }) {
      state.withLock { $0.running = true }
    } else {
      AgentServer.say("cannot start the thread that keeps token files; none is kept")
    }
  }

  /// Another strivacity changed `profile`'s tokens (a sign-in, a refresh, a logout: the agent's
  /// `forget`): its files are looked at now rather than at their next renewal, so a new sign-in
  /// is written at once (a logout is a failed renewal: the file keeps its token until expiry).
  package func nudge(profile: String) {
    state.withLock { shared in
      for index in shared.sinks.indices where shared.sinks[index].profile == profile {
        shared.sinks[index].dueAt = 0
      }
    }
  }

  /// Waits for a step under way (at most until `deadline`), then empties every file written.
  package func stop(deadline: Double) {
    state.withLock { $0.stopping = true }
    while monotonicSeconds() < deadline, state.withLock({ $0.busy }) { sleep(microseconds: 20_000) }
    for kept in state.withLock({ $0.sinks }) where kept.written { Self.empty(kept) }
  }

  private var configStamp = AgentServer.ConfigStamp("")

  private func loop() {
    var lastCheck = monotonicSeconds()
    while true {
      sleep(microseconds: 200_000)
      if monotonicSeconds() - lastCheck >= 1 {
        lastCheck = monotonicSeconds()
        reload(quietly: true)
      }
      // One due sink at a time, each step outside the lock (a renewal may take seconds).
      while let index = nextDue() {
        let kept = state.withLock { $0.sinks[index] }
        let after = step(kept)
        let stillKept = state.withLock { shared in
          shared.busy = false
          guard index < shared.sinks.count, shared.sinks[index].identity == kept.identity else { return false }
          shared.sinks[index] = after
          return true
        }
        // Gone from the config while it was renewed: not kept any more.
        if !stillKept && after.written { Self.empty(after) }
      }
    }
  }

  /// The index of a sink due now (marked busy), or nil.
  private func nextDue() -> Int? {
    state.withLock { shared in
      guard !shared.stopping else { return nil }
      let now = TokenBroker.now()
      guard let index = shared.sinks.indices.first(where: { shared.sinks[$0].dueAt <= now }) else { return nil }
      shared.busy = true
      return index
    }
  }

  /// Reads the config file again when it changed: sinks new in it are due now, sinks gone from
  /// it are emptied, the others keep their state. A config that does not read keeps the sinks
  /// as they are (said once).
  private func reload(quietly: Bool) {
    // (Said at start when there are files to keep, and whenever their number changes.)
    let stamp = AgentServer.ConfigStamp(configPath)
    guard stamp != configStamp else { return }
    configStamp = stamp
    let config: Config?
    do {
      config = try Config.load(configPath, .whole, place: nil, read: { readFile($0, regularOnly: true) })
    } catch {
      AgentServer.say("token files: \(error.description); keeping them as they were")
      return
    }
    var wanted: [Kept] = []
    for profile in config?.profiles ?? [] {
      for sink in profile.sinks { wanted.append(Kept(profile: profile.name, sink: sink)) }
    }
    let (dropped, before) = state.withLock { shared in
      let old = Dictionary(shared.sinks.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
      let merged = wanted.map { fresh in
        guard var kept = old[fresh.identity] else { return fresh }
        kept.sink = fresh.sink
        return kept
      }
      let keptIDs = Set(merged.map(\.identity))
      let dropped = shared.sinks.filter { !keptIDs.contains($0.identity) }
      let before = shared.sinks.count
      shared.sinks = merged
      return (dropped, before)
    }
    for kept in dropped where kept.written { Self.empty(kept) }
    if wanted.count != before || (!quietly && !wanted.isEmpty) {
      let count = wanted.count
      AgentServer.say(
        "keeping \(count) token file\(count == 1 ? "" : "s") fresh"
          + (count == 0 ? "" : " (the agent does not stop when idle)"))
    }
  }

  /// One step of one sink: its first token, a renewal, or emptying at expiry.
  private func step(_ kept: Kept) -> Kept {
    var kept = kept
    let now = TokenBroker.now()
    // The file's place is checked before each write: a directory or file changed since is seen.
    if let refusal = SinkFile.refusal(kept.sink.path) {
      kept.attempts += 1
      kept.dueAt = now + KeepFresh.backoff(after: kept.attempts)
      if kept.lastProblem != refusal {
        AgentServer.say("\(kept.label) refused: \(refusal); not written (the others go on)")
        kept.lastProblem = refusal
      }
      return kept
    }
    let target: AgentTokenTarget = kept.sink.api.map { .api($0, extraScopes: []) } ?? .signIn
    let planned = kept.keeper?.next(now: now)
    // (Early, after a nudge, the file keeps its token: only a renewal is tried.)
    if case .empty? = planned?.step, let at = planned?.at, at <= now, var keeper = kept.keeper {
      keeper.expired()
      kept.keeper = keeper
      write(&kept, tokens: nil)
      AgentServer.say("\(kept.label): the token expired unrenewed: the file is empty until a renewal succeeds")
      kept.dueAt = keeper.next(now: now)?.at ?? now + 60
      return kept
    }
    let freshness: Freshness?
    if case .renew(let asked)? = planned?.step { freshness = asked } else { freshness = nil }
    do {
      let tokens = try fetch(kept.profile, target, freshness)
      let recovered = kept.lastProblem != nil
      guard write(&kept, tokens: tokens) else { return kept }
      if var keeper = kept.keeper {
        keeper.renewed(obtainedAt: tokens.obtainedAt, expiresAt: tokens.expiresAt)
        kept.keeper = keeper
      } else {
        kept.keeper = KeepFresh(obtainedAt: tokens.obtainedAt, expiresAt: tokens.expiresAt)
      }
      kept.attempts = 0
      kept.lastProblem = nil
      if recovered { AgentServer.say("\(kept.label) is written again") }
      // A token that does not say when it expires is looked at again every 10 minutes.
      kept.dueAt = kept.keeper?.next(now: TokenBroker.now())?.at ?? TokenBroker.now() + 600
    } catch {
      let failure = CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .failure)
      if var keeper = kept.keeper {
        keeper.failed()
        kept.keeper = keeper
        let until = keeper.emptied ? "the file stays empty" : "the file keeps the current token until it expires"
        AgentServer.say("\(kept.label): could not renew the token (\(failure.message)); \(until); retrying")
        kept.lastProblem = failure.message
        kept.dueAt = keeper.next(now: now)?.at ?? now + 60
      } else {
        // No token written yet by this agent: whatever the file holds is not vouched for.
        if kept.attempts == 0 { write(&kept, tokens: nil) }
        kept.attempts += 1
        if kept.lastProblem != failure.message {
          AgentServer.say("\(kept.label): no token (\(failure.message)); retrying")
          kept.lastProblem = failure.message
        }
        kept.dueAt = now + KeepFresh.backoff(after: kept.attempts)
      }
    }
    return kept
  }

  /// Writes the file (nil: empties it); false, said once, when it cannot be written.
  @discardableResult
  private func write(_ kept: inout Kept, tokens: TokenSet?) -> Bool {
    do {
      try SinkFile.write(
        TokenRenderer.keptFile(tokens, as: kept.sink.format), to: kept.sink.path, mode: kept.sink.mode)
      kept.written = true
      return true
    } catch {
      let problem = "cannot write it: \(error.detail)"
      if kept.lastProblem != problem {
        AgentServer.say("\(kept.label): \(problem)")
        kept.lastProblem = problem
      }
      kept.attempts += 1
      kept.dueAt = TokenBroker.now() + KeepFresh.backoff(after: kept.attempts)
      return false
    }
  }

  private static func empty(_ kept: Kept) {
    guard SinkFile.refusal(kept.sink.path) == nil else { return }
    try? SinkFile.write([], to: kept.sink.path, mode: kept.sink.mode)
  }
}

/// A sink's file on disk: whether it may be written, the write, and what `status` and `doctor`
/// say about it.
package enum SinkFile {
  /// Why `path` may not be written, or nil: its directory must exist, be a directory of this
  /// user or root, and not be writable by group or others (or anyone could swap the file); the
  /// file, if there, must be a regular file of this user, not a symlink.
  package static func refusal(_ path: String) -> String? {
    let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    let info: FileStatus
    switch FileStatus.of(directory.isEmpty ? "/" : directory) {
    case .failure(let error): return "its directory \(directory): \(error)"
    case .success(let found): info = found
    }
    guard info.kind == .directory else { return "\(directory) is not a directory" }
    guard info.owner == userID() || info.owner == 0 else {
      return "its directory \(directory) belongs to another user (uid \(info.owner))"
    }
    guard info.permissions & 0o022 == 0 else {
      return "its directory \(directory) is writable by group or others (chmod go-w \(directory))"
    }
    let file: FileStatus
    switch FileStatus.of(path, followingLinks: false) {
    case .failure(let error): return error.isNoSuchFile ? nil : "\(path): \(error)"
    case .success(let found): file = found
    }
    if file.kind == .symbolicLink { return "\(path) is a symlink" }
    guard file.kind == .regular else { return "\(path) is not a regular file" }
    guard file.owner == userID() else { return "\(path) belongs to another user (uid \(file.owner))" }
    return nil
  }

  /// Replaces the file atomically (a temporary file in its directory, renamed over it).
  package static func write(_ bytes: [UInt8], to path: String, mode: UInt32) throws(FileError) {
    try PrivateFiles.writeAtomically(bytes, to: path, mode: mode)
  }

  /// What the file holds now, never its content: nil when it is not there.
  package struct Look {
    /// Last written (Unix seconds).
    package var modified: Int64
    package var holdsToken: Bool

    /// "holds a token, written 12 s ago", for `status` and `doctor`.
    package func described(now: Int64) -> String {
      "\(holdsToken ? "holds a token" : "empty"), written \(Elapsed.describe(seconds: max(0, now - modified))) ago"
    }
  }

  package static func look(_ path: String) -> Look? {
    guard case .success(let info) = FileStatus.of(path, followingLinks: false), info.kind == .regular else {
      return nil
    }
    return Look(modified: Int64(info.modifiedSeconds), holdsToken: info.size > 0)
  }
}

// `strivacity agent`: one long-lived process per login session that holds the keyring open and
// the current token sets in memory, in the spirit of ssh-agent, gpg-agent and oidc-agent. With
// it, `token`, git's `get`, `curl` and `userinfo` are a request on a Unix socket instead of a new
// D-Bus connection and Secret Service session each: faster, one keyring approval per session
// (KeePassXC asks per client connection), and one refresh per expiry by construction.
//
// Opt-in (`agent = true` in the config, or STRIVACITY_AGENT=1); everything works without it. The
// keyring stays the store of record: the agent writes through, and every other strivacity
// process tells it when it changes a profile's tokens (AgentNotifyingStore), so a logout anywhere
// is honoured on the next call. What the agent holds it also re-reads from the keyring once a
// minute, for changes made with other tools.
import Agent
import ArgumentParser
import Glibc
import SecretStore
import StrivacityCore
import SystemIO

struct Agent: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Keep tokens in memory for this session: one keyring approval, fast answers.",
    discussion: """
      Without an action, runs the agent in the foreground (for systemd --user: \
      strivacity-agent.socket and strivacity-agent.service are installed, not enabled). start \
      runs it in the background and returns once it answers; stop ends it; status says whether \
      one runs. It is used when the config says agent = true (or STRIVACITY_AGENT=1; =0 turns \
      it off for one call) and answers; otherwise every command works as without it.

      The socket is $XDG_RUNTIME_DIR/strivacity/agent.sock (directory 0700, socket 0600); \
      only processes of this user are answered. Tokens are held in memory only (no core \
      dumps; locked into RAM where the memory limit allows); the keyring keeps the store of \
      record. The agent exits after --idle-timeout seconds without a request, and when its \
      socket is removed (the session's runtime directory goes at logout).
      """)

  enum Action: String, ExpressibleByArgument, CaseIterable {
    case start, stop, status
  }

  @Argument(help: ArgumentHelp("start, stop or status; none: run in the foreground.", valueName: "action"))
  var action: Action?

  @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Exit after this many seconds without a request; 0: never.", valueName: "seconds"))
  var idleTimeout: Int = 3600

  @Flag(name: .shortAndLong, help: "Describe each request on stderr (secrets are redacted).")
  var verbose = false

  func validate() throws {
    guard idleTimeout >= 0 else { throw ValidationError("--idle-timeout must not be negative") }
  }

  func run() throws {
    let environment = processEnvironment()
    switch action {
    case nil: try AgentServer(environment: environment, idleTimeout: idleTimeout, log: Log(verbose: verbose)).serve()
    case .start: try start(environment)
    case .stop: try stop(environment)
    case .status: try status(environment)
    }
  }

  static func ping(_ environment: [String: String], timeout: Double = 2) -> AgentMessage? {
    var request = AgentMessage()
    request.set("op", "ping")
    if case .answered(let answer) = AgentSocket.ask(request, environment: environment, timeout: timeout), answer.status == 0 { return answer }
    return nil
  }

  private func start(_ environment: [String: String]) throws {
    if let running = Self.ping(environment) {
      Console.writeStderr("strivacity: the agent already runs (pid \(running["pid"] ?? "?"))\n")
      return
    }
    guard AgentSocket.directory(environment) != nil else {
      throw CLIFailure("XDG_RUNTIME_DIR is not set: the agent lives in a login session's runtime directory", status: .usage)
    }
    // This very program, detached: its own session, nothing of ours open (a pipe held open by it
    // would keep whoever reads our output waiting); `strivacity agent` in the foreground says
    // why it does not start, if it does not.
    guard let bytes = Executable.path(), let program = String(validating: bytes, as: UTF8.self) else {
      throw CLIFailure("cannot find this program (/proc/self/exe)", status: .failure)
    }
    let arguments = [program, "agent", "--idle-timeout", String(idleTimeout)] + (verbose ? ["--verbose"] : [])
    let pid: pid_t
    switch AgentSocket.spawnDetached(arguments) {
    case .success(let spawned): pid = spawned
    case .failure(let problem): throw CLIFailure(problem.description, status: .failure)
    }
    let deadline = monotonicSeconds() + 10
    while monotonicSeconds() < deadline {
      if let running = Self.ping(environment, timeout: 1) {
        Console.writeStderr("strivacity: the agent runs (pid \(running["pid"] ?? "?")), socket \(AgentSocket.path(environment) ?? "")\n")
        return
      }
      var status: Int32 = 0
      if waitpid(pid, &status, WNOHANG) == pid {
        throw CLIFailure("the agent did not start (exit \(status >> 8 & 0xFF)); run `strivacity agent` to see why", status: .failure)
      }
      usleep(20_000)
    }
    throw CLIFailure("the agent did not answer within 10 s of starting", status: .failure)
  }

  private func stop(_ environment: [String: String]) throws {
    guard Self.ping(environment) != nil else {
      Console.writeStderr("strivacity: no agent runs\n")
      return
    }
    var request = AgentMessage()
    request.set("op", "stop")
    _ = AgentSocket.ask(request, environment: environment, timeout: 5)
    Console.writeStderr("strivacity: the agent stopped\n")
  }

  private func status(_ environment: [String: String]) throws {
    guard let running = Self.ping(environment) else {
      Console.writeStdout("agent     not running\n")
      throw ExitCode(1)
    }
    Console.writeStdout("""
      agent     running (pid \(running["pid"] ?? "?"), for \(running["uptime"] ?? "?") s)
      socket    \(AgentSocket.path(environment) ?? "")
      answered  \(running["answered"] ?? "?") requests
      profiles  \(running["profiles"] ?? "0") in memory

      """)
  }
}

/// The agent's store: the token sets it has read or written, in memory, over the keyring (which
/// it writes through to). Two locks: one for the memory (held briefly: answers from memory,
/// `forget` and status never wait on the keyring), one that keeps the keyring to one operation
/// at a time (libsecret's calls are not made from two threads at once).
final class AgentStore: TokenStore, @unchecked Sendable {
  let base: TokenStore
  var kind: StoreKind { base.kind }
  private var memoryMutex = pthread_mutex_t()
  private var keyringMutex = pthread_mutex_t()
  private var memory: [StoreKey: (tokens: TokenSet, readAt: Int64)] = [:]
  /// Bumped by every change of a profile's tokens (here or told by `forget`): a keyring read that
  /// started before a change does not put its now stale answer into memory.
  private var generations: [String: Int] = [:]
  /// A set held longer than this is read from the keyring again (changes made with other tools).
  static let revalidateAfter: Int64 = 60

  init(_ base: TokenStore) {
    self.base = base
    pthread_mutex_init(&memoryMutex, nil)
    pthread_mutex_init(&keyringMutex, nil)
  }

  private func inMemory<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(&memoryMutex)
    defer { pthread_mutex_unlock(&memoryMutex) }
    return body()
  }

  private func inKeyring<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
    pthread_mutex_lock(&keyringMutex)
    defer { pthread_mutex_unlock(&keyringMutex) }
    return try body()
  }

  /// Drops what is held for `profile` and marks its tokens as changed.
  private func invalidate(_ profile: String) {
    inMemory {
      for key in memory.keys where key.profile == profile { memory[key] = nil }
      generations[profile, default: 0] += 1
    }
  }

  func load(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    if let held = held(key) { return held }
    return try reload(key)
  }

  func reload(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    let generation = inMemory { generations[key.profile, default: 0] }
    let tokens = try inKeyring { () throws(StoreError) in try base.load(key) }
    inMemory {
      if generations[key.profile, default: 0] == generation { memory[key] = tokens.map { ($0, ProfileSession.now()) } }
    }
    return tokens
  }

  func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    invalidate(key.profile)  // never newer than the keyring, even if the save fails
    try inKeyring { () throws(StoreError) in try base.save(tokens, for: key) }
    inMemory { memory[key] = (tokens, ProfileSession.now()) }
  }

  @discardableResult
  func delete(profile: String) throws(StoreError) -> Bool {
    invalidate(profile)
    return try inKeyring { () throws(StoreError) in try base.delete(profile: profile) }
  }

  func keys() throws(StoreError) -> [StoreKey] { try inKeyring { () throws(StoreError) in try base.keys() } }

  /// The set held for `key` in memory, if it was read or written less than a minute ago (no
  /// keyring operation).
  func held(_ key: StoreKey) -> TokenSet? {
    inMemory {
      guard let held = memory[key], ProfileSession.now() - held.readAt < Self.revalidateAfter else { return nil }
      return held.tokens
    }
  }

  /// Another process changed `profile`'s tokens: what is held for it is dropped.
  func forget(profile: String) { invalidate(profile) }

  var profileCount: Int { inMemory { Set(memory.keys.map(\.profile)).count } }
}

/// The agent's loop: accept, check the peer, one request and answer per connection, each on a
/// thread of its own; exits when idle too long, when its socket is gone, or on `stop`.
final class AgentServer: @unchecked Sendable {
  let environment: [String: String]
  let idleTimeout: Int
  let log: Log
  let store: AgentStore
  private let started = monotonicSeconds()
  private var mutex = pthread_mutex_t()
  private var lastRequest = monotonicSeconds()
  private var answered = 0
  private var active = 0
  /// Whether the socket file is ours to remove (not systemd's).
  private var ownsSocket = true
  /// A `stop` request was answered: the loop shuts down.
  private var stopRequested = false
  /// Most requests handled at once; more wait in the socket's backlog.
  static let maxActive = 128
  /// How long a client may take to send its request.
  static let requestDeadline: Double = 5

  init(environment: [String: String], idleTimeout: Int, log: Log) throws {
    self.environment = environment
    self.idleTimeout = idleTimeout
    self.log = log
    let context = Context(environment: environment)
    context.attended = false  // nobody at a terminal: a keyring dialog gets the short bound
    store = AgentStore(try context.keyringStore(notifyingAgent: false))
    pthread_mutex_init(&mutex, nil)
  }

  func serve() throws -> Never {
    Self.protectMemory(log)
    // Writes to a client that went away must not kill the agent.
    signal(SIGPIPE, SIG_IGN)
    // SIGTERM (systemd at logout), SIGINT and SIGHUP are taken by the loop below, never in the
    // middle of a request: a refresh sent must have its answer stored. Blocked here, before any
    // thread exists, so that every thread inherits it.
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stopSignals, number) }
    pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
    let listener: Int32
    // A socket systemd passed is systemd's: never removed here (the next request starts us again).
    let activated = Self.socketActivated(environment)
    if let activated {
      listener = activated
      log.note("agent: listening on the socket systemd passed")
    } else {
      do {
        listener = try AgentSocket.listen(environment)
      } catch {
        throw CLIFailure(error.description, status: .failure)
      }
    }
    let path = AgentSocket.path(environment) ?? ""
    var info = stat()
    let inode = stat(path, &info) == 0 ? info.st_ino : 0
    ownsSocket = activated == nil
    Console.writeStderr("strivacity: agent \(getpid()) answering on \(path)\n")
    var lastCheck = monotonicSeconds()
    while true {
      var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
      if poll(&entry, 1, 250) > 0 {
        let client = AgentSocket.accept(listener)
        if client >= 0 { admit(client) }
      }
      var zero = timespec()
      let taken = sigtimedwait(&stopSignals, nil, &zero)
      if taken > 0 { shutDown(listener, path: path, because: "signal \(taken)") }
      pthread_mutex_lock(&mutex)
      let stop = stopRequested
      pthread_mutex_unlock(&mutex)
      if stop { shutDown(listener, path: path, because: "stopped on request") }
      guard monotonicSeconds() - lastCheck >= 1 else { continue }
      lastCheck = monotonicSeconds()
      // Once a second: idle, or the socket gone (logout removes the runtime directory).
      var now = stat()
      if stat(path, &now) != 0 || (inode != 0 && now.st_ino != inode) {
        ownsSocket = false  // not ours any more, if it is there at all
        shutDown(listener, path: path, because: "\(path) is gone")
      }
      pthread_mutex_lock(&mutex)
      let idle = active == 0 && idleTimeout > 0 && monotonicSeconds() - lastRequest > Double(idleTimeout)
      pthread_mutex_unlock(&mutex)
      if idle { shutDown(listener, path: path, because: "no request for \(idleTimeout) s") }
    }
  }

  /// Stops taking requests, lets those under way finish (a refresh sent has its answer stored;
  /// at most a minute), removes the socket if it is ours, and exits.
  private func shutDown(_ listener: Int32, path: String, because reason: String) -> Never {
    close(listener)
    let deadline = monotonicSeconds() + 60
    while monotonicSeconds() < deadline {
      pthread_mutex_lock(&mutex)
      let busy = active > 0
      pthread_mutex_unlock(&mutex)
      if !busy { break }
      usleep(20_000)
    }
    if ownsSocket { unlink(path) }
    Console.writeStderr("strivacity: agent: \(reason); exiting\n")
    exit(0)
  }

  /// The peer is checked before a byte is read: another uid is closed on at once.
  private func admit(_ client: Int32) {
    guard let peer = AgentSocket.peer(client), peer.uid == getuid() else {
      let who = AgentSocket.peer(client).map { "uid \($0.uid), pid \($0.pid)" } ?? "an unknown peer"
      Console.writeStderr("strivacity: agent: refused a connection from \(who)\n")
      close(client)
      return
    }
    pthread_mutex_lock(&mutex)
    let busy = active >= Self.maxActive
    if !busy { active += 1 }
    lastRequest = monotonicSeconds()
    pthread_mutex_unlock(&mutex)
    if busy {
      _ = AgentSocket.writeAll(client, AgentProtocol.frame(.refusal(status: .transient, message: "the agent is busy")), deadline: monotonicSeconds() + 1)
      close(client)
      return
    }
    let work = Unmanaged.passRetained(Connection(server: self, fd: client)).toOpaque()
    var thread = pthread_t()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    defer { pthread_attr_destroy(&attributes) }
    let created = pthread_create(&thread, &attributes, { raw in
      let connection = Unmanaged<Connection>.fromOpaque(raw!).takeRetainedValue()
      connection.server.handle(connection.fd)
      return nil
    }, work)
    if created != 0 {
      Unmanaged<Connection>.fromOpaque(work).release()
      close(client)
      finished()
    }
  }

  private final class Connection {
    let server: AgentServer
    let fd: Int32
    init(server: AgentServer, fd: Int32) {
      self.server = server
      self.fd = fd
    }
  }

  private func finished() {
    pthread_mutex_lock(&mutex)
    active -= 1
    answered += 1
    lastRequest = monotonicSeconds()
    pthread_mutex_unlock(&mutex)
  }

  func handle(_ fd: Int32) {
    defer {
      close(fd)
      finished()
    }
    var answer: AgentMessage
    var stopAfter = false
    switch AgentSocket.readFrame(fd, deadline: monotonicSeconds() + Self.requestDeadline) {
    case .failure(let problem):
      log.note("agent: a request was refused: \(problem)")
      answer = .refusal(status: .usage, message: "agent: \(problem)")
    case .success(var payload):
      defer { for i in payload.indices { payload[i] = 0 } }
      do {
        let request = try AgentMessage(decoding: payload[...])
        (answer, stopAfter) = respond(to: request)
      } catch {
        log.note("agent: a request was refused: \(error)")
        answer = .refusal(status: .usage, message: "agent: \(error)")
      }
    }
    var frame = AgentProtocol.frame(answer)
    _ = AgentSocket.writeAll(fd, frame, deadline: monotonicSeconds() + 5)
    for i in frame.indices { frame[i] = 0 }
    if stopAfter {
      pthread_mutex_lock(&mutex)
      stopRequested = true
      pthread_mutex_unlock(&mutex)
    }
  }

  private func respond(to request: AgentMessage) -> (AgentMessage, stop: Bool) {
    switch request["op"] {
    case "ping":
      var answer = AgentMessage()
      answer.set("status", "0")
      answer.set("pid", String(getpid()))
      answer.set("version", strivacityVersion)
      answer.set("uptime", String(Int(monotonicSeconds() - started)))
      pthread_mutex_lock(&mutex)
      answer.set("answered", String(answered))
      pthread_mutex_unlock(&mutex)
      answer.set("profiles", String(store.profileCount))
      return (answer, false)
    case "stop":
      var answer = AgentMessage()
      answer.set("status", "0")
      return (answer, true)
    case "forget":
      guard let profile = request["profile"], ProfileName.isValid(profile) else {
        return (.refusal(status: .usage, message: "agent: forget needs a profile"), false)
      }
      store.forget(profile: profile)
      log.note("agent: forgot \(profile)")
      var answer = AgentMessage()
      answer.set("status", "0")
      return (answer, false)
    case "token":
      return (token(request), false)
    default:
      return (.refusal(status: .usage, message: "agent: unknown request"), false)
    }
  }

  /// The store key a request resolved to, and the config file it was resolved from as it was
  /// then: the same request against the same file needs no resolving (nor parsing) again.
  private var resolvedKeys: [String: (key: StoreKey, config: ConfigStamp)] = [:]

  struct ConfigStamp: Equatable {
    var device: UInt64 = 0, inode: UInt64 = 0, size: Int64 = -1, modified: Int = 0, modifiedNanos: Int = 0

    init(_ path: String) {
      var info = stat()
      guard stat(path, &info) == 0 else { return }
      (device, inode, size) = (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size))
      (modified, modifiedNanos) = (info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
    }
  }

  /// Fresh tokens for the request's profile, resolved with the request's environment (its
  /// profile and config file, as the client would have resolved them).
  private func token(_ request: AgentMessage) -> AgentMessage {
    guard let profile = request["profile"], ProfileName.isValid(profile),
      let minTTL = request["min_ttl"].flatMap({ Int64($0) }), minTTL >= 0, minTTL <= Freshness.maxSeconds
    else { return .refusal(status: .usage, message: "agent: a token request needs a profile and min_ttl") }
    var environment: [String: String] = [:]
    for name in AgentProtocol.environmentNames {
      if let value = request["env." + name] { environment[name] = value }
    }
    let includeIDToken = request["id_token"] == "1"
    let freshness = Freshness(seconds: minTTL, explicit: request["min_ttl_explicit"] == "1")
    // The common case, without resolving or the keyring: this request was answered before, its
    // config file has not changed since, and the set held is not due for refresh.
    let requestKey = ([profile] + AgentProtocol.environmentNames.map { environment[$0] ?? "\u{0}" }).joined(separator: "\u{0}")
    let configPath = Paths(environment: environment).config
    pthread_mutex_lock(&mutex)
    let known = resolvedKeys[requestKey]
    pthread_mutex_unlock(&mutex)
    if let known, known.config == ConfigStamp(configPath), let tokens = store.held(known.key),
      !tokens.needsRefresh(now: ProfileSession.now(), freshness)
    {
      return .answer(tokens, includeIDToken: includeIDToken)
    }
    let context = Context(environment: environment)
    context.agentStore = store
    context.attended = false
    do {
      let stamp = ConfigStamp(configPath)
      let options = try GlobalOptions.parse(["--profile", profile])
      let session = try ProfileSession(context: context, options: options)
      let tokens = try session.freshTokens(freshness)
      pthread_mutex_lock(&mutex)
      if resolvedKeys.count >= 256 { resolvedKeys.removeAll() }  // bounded, whatever clients send
      resolvedKeys[requestKey] = (session.key, stamp)
      pthread_mutex_unlock(&mutex)
      log.note("agent: answered \(profile)")
      return .answer(tokens, includeIDToken: includeIDToken)
    } catch {
      let failure = CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .failure)
      log.note("agent: \(profile): \(failure.message)")
      return .refusal(status: failure.status, message: failure.message)
    }
  }

  /// No core dumps, no ptrace by other processes of the user, and memory kept out of swap when
  /// the limit allows all of it (a partial lock would make later allocations fail).
  static func protectMemory(_ log: Log) {
    if !AgentSocket.makeUndumpable() { log.note("agent: PR_SET_DUMPABLE failed") }
    if let why = AgentSocket.lockMemory() { log.note("agent: memory not locked: \(why)") }
  }

  /// The listening socket systemd passed (LISTEN_FDS=1 for this pid), if any.
  static func socketActivated(_ environment: [String: String]) -> Int32? {
    guard environment["LISTEN_PID"] == String(getpid()), environment["LISTEN_FDS"] == "1" else { return nil }
    let fd: Int32 = 3
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    return fd
  }
}

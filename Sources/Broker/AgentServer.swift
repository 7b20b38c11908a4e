// The server of `strivacity agent` (the command is Agent.swift): the loop that accepts on the
// socket, checks each peer, and answers ping, stop, forget and token requests, each on a thread
// of its own, from its memory over the keyring (AgentStore, StoreStack.swift); and the token
// files it keeps fresh, on a thread of their own (SinkKeeper, AgentSinks.swift).
import Agent
import StrivacityConfig
import StrivacityCore
import Synchronization
import SystemIO

/// The agent's loop: accept, check the peer, one request and answer per connection, each on a
/// thread of its own; exits when idle too long, when its socket is gone, or on `stop`.
package final class AgentServer: @unchecked Sendable {
  package let environment: [String: String]
  package let idleTimeout: Int
  package let log: Log
  package let store: AgentStore
  /// Machine profiles' tokens, each profile's memory over its kernel store (by its sign-in key).
  private let machineStores = Mutex<[StoreKey: AgentStore]>([:])
  private let started = monotonicSeconds()
  /// The token files kept fresh (AgentSinks.swift), on a thread of their own.
  private var sinks: SinkKeeper?
  private let state = Mutex(State())
  /// Whether the socket file is ours to remove (not systemd's; the loop's thread only).
  private var ownsSocket = true

  /// What the loop and the requests' threads share.
  private struct State {
    package var lastRequest = monotonicSeconds()
    package var answered = 0
    package var active = 0
    /// A `stop` request was answered: the loop shuts down.
    package var stopRequested = false
    /// The store key a request resolved to, and the config file it was resolved from as it was
    /// then: the same request against the same file needs no resolving (nor parsing) again.
    package var resolvedKeys: [String: (key: StoreKey, config: ConfigStamp)] = [:]
  }
  /// Most requests handled at once; more wait in the socket's backlog.
  package static let maxActive = 128
  /// How long a client may take to send its request.
  package static let requestDeadline: Double = 5

  package init(environment: [String: String], idleTimeout: Int, log: Log) throws {
    self.environment = environment
    self.idleTimeout = idleTimeout
    self.log = log
    let context = Context(environment: environment)
    context.attended = false  // nobody at a terminal: a keyring dialog gets the short bound
    store = StoreStack.agent(over: try context.keyring(), environment: environment)
  }

  package func serve() throws -> Never {
    Self.protectMemory(log)
    // Writes to a client that went away must not kill the agent. SIGTERM (systemd at logout),
    // SIGINT and SIGHUP are taken by the loop below, never in the middle of a request: a refresh
    // sent must have its answer stored. Blocked here, before any thread exists, so that every
    // thread inherits it.
    AgentServing.holdStopSignals()
    let listener: Int32
    // A socket systemd passed is systemd's: never removed here (the next request starts us again).
    let activated = AgentServing.socketActivated(environment)
    if let activated {
      listener = activated
      log.note("agent: listening on the socket systemd passed")
    } else {
      do {
        listener = try AgentSocket.listen(environment)
      } catch {
        throw BrokerError.system(error.description)
      }
    }
    let path = AgentSocket.path(environment) ?? ""
    let socketFile = AgentServing.SocketFile(path)
    ownsSocket = activated == nil
    Console.writeStderr("strivacity: agent \(processID()) answering on \(path)\n")
    // After the signals are blocked: its thread inherits the mask. The agent's own environment
    // (its config file, and a machine profile's secret variable, which is its own here).
    let sinks = SinkKeeper(environment: environment) { [unowned self] profile, target, freshness in
      try self.tokens(profile: profile, target: target, freshness, environment: self.environment).0
    }
    sinks.start()
    self.sinks = sinks
    var lastCheck = monotonicSeconds()
    while true {
      if let client = AgentServing.accept(listener, waitingMilliseconds: 250) { admit(client) }
      if let taken = AgentServing.takeStopSignal() { shutDown(listener, path: path, because: "signal \(taken)") }
      if state.withLock({ $0.stopRequested }) { shutDown(listener, path: path, because: "stopped on request") }
      guard monotonicSeconds() - lastCheck >= 1 else { continue }
      lastCheck = monotonicSeconds()
      // Once a second: idle, or the socket gone (logout removes the runtime directory).
      if socketFile.isGone {
        ownsSocket = false  // not ours any more, if it is there at all
        shutDown(listener, path: path, because: "\(path) is gone")
      }
      // An agent that keeps token files fresh is never idle.
      let idle =
        !sinks.keepsSinks
        && state.withLock {
          $0.active == 0 && idleTimeout > 0 && monotonicSeconds() - $0.lastRequest > Double(idleTimeout)
        }
      if idle { shutDown(listener, path: path, because: "no request for \(idleTimeout) s") }
    }
  }

  /// Stops taking requests, lets those under way finish (a refresh sent has its answer stored;
  /// at most a minute), removes the socket if it is ours, and exits.
  private func shutDown(_ listener: Int32, path: String, because reason: String) -> Never {
    closeDescriptor(listener)
    let deadline = monotonicSeconds() + 60
    while monotonicSeconds() < deadline {
      if state.withLock({ $0.active == 0 }) { break }
      sleep(microseconds: 20_000)
    }
    sinks?.stop(deadline: deadline)
    if ownsSocket { removeFile(path) }
    Self.say("\(reason); exiting")
    exitProcess(0)
  }

  /// One line of the agent's journal (its stderr): `strivacity: agent: LINE`.
  static func say(_ line: String) { Console.writeStderr("strivacity: agent: \(line)\n") }

  /// The peer is checked before a byte is read: another uid is closed on at once.
  private func admit(_ client: Int32) {
    guard let peer = AgentSocket.peer(client), peer.uid == userID() else {
      let who = AgentSocket.peer(client).map { "uid \($0.uid), pid \($0.pid)" } ?? "an unknown peer"
      AgentServer.say("refused a connection from \(who)")
      closeDescriptor(client)
      return
    }
    let busy = state.withLock { state in
      let busy = state.active >= Self.maxActive
      if !busy { state.active += 1 }
      state.lastRequest = monotonicSeconds()
      return busy
    }
    if busy {
      _ = AgentSocket.writeAll(
        client, AgentProtocol.frame(.refusal(status: .transient, message: "the agent is busy")),
        deadline: monotonicSeconds() + 1)
      closeDescriptor(client)
      return
    }
    if !startDetachedThread({ [self] in handle(client) }) {
      closeDescriptor(client)
      finished()
    }
  }

  private func finished() {
    state.withLock { state in
      state.active -= 1
      state.answered += 1
      state.lastRequest = monotonicSeconds()
    }
  }

  package func handle(_ fd: Int32) {
    defer {
      closeDescriptor(fd)
      finished()
    }
    var answer: AgentMessage
    var stopAfter = false
    switch AgentSocket.readFrame(fd, deadline: monotonicSeconds() + Self.requestDeadline) {
    case .failure(let problem):
      log.note("agent: a request was refused: \(problem)")
      answer = .refusal(status: .usage, message: "agent: \(problem)")
    case .success(var payload):
      defer { payload.wipe() }
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
    frame.wipe()
    if stopAfter { state.withLock { $0.stopRequested = true } }
  }

  private func respond(to request: AgentMessage) -> (AgentMessage, stop: Bool) {
    switch request["op"] {
    case "ping":
      var answer = AgentMessage()
      answer.set("status", "0")
      answer.set("pid", String(processID()))
      answer.set("version", strivacityVersion)
      answer.set("uptime", String(Int(monotonicSeconds() - started)))
      answer.set("answered", String(state.withLock { $0.answered }))
      answer.set("profiles", String(store.profileCount))
      answer.set("sinks", String(sinks?.count ?? 0))
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
      machineStores.withLock { stores in
        for (key, held) in stores where key.profile == profile { held.forget(profile: profile) }
      }
      sinks?.nudge(profile: profile)
      log.note("agent: forgot \(profile)")
      var answer = AgentMessage()
      answer.set("status", "0")
      return (answer, false)
    case "token", "api-token":
      return (token(request), false)
    default:
      return (.refusal(status: .usage, message: "agent: unknown request"), false)
    }
  }

  package struct ConfigStamp: Equatable {
    package var device: UInt64 = 0, inode: UInt64 = 0, size: Int64 = -1, modified: Int = 0, modifiedNanos: Int = 0

    package init(_ path: String) {
      guard case .success(let info) = FileStatus.of(path) else { return }
      (device, inode, size) = (info.device, info.inode, info.size)
      (modified, modifiedNanos) = (info.modifiedSeconds, info.modifiedNanoseconds)
    }
  }

  /// Fresh tokens for the request's profile, resolved with the request's environment (its
  /// profile and config file, as the client would have resolved them): the sign-in's, or one of
  /// its APIs' (`api-token`), each kept in memory per profile and slot.
  private func token(_ request: AgentMessage) -> AgentMessage {
    guard let profile = request["profile"], ProfileName.isValid(profile),
      let minTTL = request["min_ttl"].flatMap({ Int64($0) }), minTTL >= 0, minTTL <= Freshness.maxSeconds
    else { return .refusal(status: .usage, message: "agent: a token request needs a profile and min_ttl") }
    let target: AgentTokenTarget
    do {
      target = try AgentTokenTarget(request: request)
    } catch {
      return .refusal(status: .usage, message: "agent: \(error)")
    }
    var environment: [String: String] = [:]
    for name in AgentProtocol.environmentNames {
      if let value = request["env." + name] { environment[name] = value }
    }
    let includeIDToken = request["id_token"] == "1" && target == .signIn
    let freshness = Freshness(seconds: minTTL, explicit: request["min_ttl_explicit"] == "1")
    // The common case, without resolving or the keyring: this request was answered before, its
    // config file has not changed since, and the set held is not due for refresh.
    let requestKey = ([profile, "\(target)"] + AgentProtocol.environmentNames.map { environment[$0] ?? "\u{0}" })
      .joined(separator: "\u{0}")
    let configPath = Paths(environment: environment).config
    let known = state.withLock { $0.resolvedKeys[requestKey] }
    if let known, known.config == ConfigStamp(configPath), let tokens = heldStore(for: known.key).held(known.key),
      !tokens.needsRefresh(now: TokenBroker.now(), freshness), Self.carries(tokens, target)
    {
      return .answer(tokens, includeIDToken: includeIDToken)
    }
    do {
      let stamp = ConfigStamp(configPath)
      let (tokens, key) = try self.tokens(profile: profile, target: target, freshness, environment: environment)
      state.withLock { state in
        if state.resolvedKeys.count >= 256 { state.resolvedKeys.removeAll() }  // bounded, whatever clients send
        state.resolvedKeys[requestKey] = (key, stamp)
      }
      log.note("agent: answered \(profile)\(key.slot == .signIn ? "" : " (\(key.slot))")")
      return .answer(tokens, includeIDToken: includeIDToken)
    } catch {
      let failure = CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .failure)
      log.note("agent: \(profile): \(failure.message)")
      return .refusal(status: failure.status, message: failure.message)
    }
  }

  /// Fresh tokens for `profile`'s `target`, resolved in `environment` through the agent's memory
  /// (a request's, or a sink's: SinkKeeper), and the key they are held under.
  package func tokens(
    profile: String, target: AgentTokenTarget, _ freshness: Freshness?, environment: [String: String]
  ) throws -> (TokenSet, StoreKey) {
    let context = Context(environment: environment, isProcessEnvironment: false)
    context.agentStore = store
    context.agentMachineStore = { [environment] key in self.machineStore(for: key, environment: environment) }
    context.attended = false
    let overrides = ProfileOverrides(profile: profile)
    switch target {
    case .signIn:
      let session = try TokenBroker(context: context, overrides: overrides, log: Log(verbose: false))
      let freshness = freshness ?? Freshness.asked(nil, profile: session.resolved.profile)
      return (try session.freshTokens(freshness), session.key)
    case .api(let name, let extraScopes):
      let session = try TokenBroker(
        context: context, overrides: overrides, log: Log(verbose: false), apis: .named(name))
      // Not the profile's (any more): the client's own reading says so, listing the names.
      guard let api = session.resolved.profile.api(named: name) else {
        throw BrokerError.configuration("profile \(profile) has no API \(name)")
      }
      let freshness = freshness ?? Freshness.asked(nil, profile: session.resolved.profile)
      return (
        try session.apiTokens(api, freshness, extraScopes: extraScopes),
        session.key(for: api.slot(extraScopes: extraScopes))
      )
    case .adHoc(let adHoc):
      let session = try TokenBroker(context: context, overrides: overrides, log: Log(verbose: false), apis: .none)
      let freshness = freshness ?? Freshness.asked(nil, profile: session.resolved.profile)
      return (try session.apiTokens(adHoc, freshness), session.key(for: adHoc.slot))
    }
  }

  /// The memory that holds `key`'s sets: a machine profile's own, else the keyring's.
  private func heldStore(for key: StoreKey) -> AgentStore {
    var profileKey = key
    profileKey.slot = .signIn
    return machineStores.withLock { $0[profileKey] } ?? store
  }

  /// A machine profile's memory over its kernel store, made on first use (bounded, whatever
  /// clients send: past 256 profiles, the oldest are simply made again).
  private func machineStore(for key: StoreKey, environment: [String: String]) -> AgentStore {
    var profileKey = key
    profileKey.slot = .signIn
    return machineStores.withLock { stores in
      if let held = stores[profileKey] { return held }
      if stores.count >= 256 { stores.removeAll() }
      let made = AgentStore(MachineTokenStore(profileKey, environment: environment) { TokenBroker.now() })
      stores[profileKey] = made
      return made
    }
  }

  /// Whether `tokens` held for `target` have the scopes asked besides its own (a configured
  /// API's own are those it was fetched with while the config file is unchanged; an ad hoc
  /// target's slot names its scopes).
  package static func carries(_ tokens: TokenSet, _ target: AgentTokenTarget) -> Bool {
    guard case .api(_, let extraScopes) = target, !extraScopes.isEmpty else { return true }
    let granted = tokens.scope?.value.split(separator: " ").map(String.init) ?? []
    return extraScopes.allSatisfy { granted.contains($0.value) }
  }

  /// No core dumps, no ptrace by other processes of the user, and memory kept out of swap when
  /// the limit allows all of it (a partial lock would make later allocations fail).
  package static func protectMemory(_ log: Log) {
    if !AgentSocket.makeUndumpable() { log.note("agent: PR_SET_DUMPABLE failed") }
    if let why = AgentSocket.lockMemory() { log.note("agent: memory not locked: \(why)") }
  }
}

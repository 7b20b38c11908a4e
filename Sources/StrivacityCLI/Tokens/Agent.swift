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
//
// Here the command (start, stop, status, or run in the foreground); the server that answers is
// AgentServer.swift, its memory AgentStore (StoreStack.swift); the wire format, the socket and
// the client are the Agent target's.
import Agent
import ArgumentParser
import Broker
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
      record. The agent exits after --idle-timeout seconds without a request (never while \
      it keeps token files fresh), and when its socket is removed (the session's runtime \
      directory goes at logout).

      TOKEN FILES: for each [profiles.P.sinks.NAME] of the config (path, api, format raw, \
      json or header, mode 0600 or 0640) the agent keeps the file holding a fresh token, \
      replaced atomically half-way through each token's life, for programs that read a token \
      file. A directory writable by group or others, a symlink or another user's file is \
      refused with a line on stderr. A failed renewal leaves the current token until it \
      expires (a line on stderr, retried, backing off); at expiry, and when the agent ends, \
      the file is emptied. The config is read again when it changes.
      """)

  enum Action: String, ExpressibleByArgument, CaseIterable {
    case start, stop, status
  }

  @Argument(help: ArgumentHelp("start, stop or status; none: run in the foreground.", valueName: "action"))
  var action: Action?

  @Option(
    name: .customLong("idle-timeout"),
    help: ArgumentHelp("Exit after this many seconds without a request; 0: never.", valueName: "seconds"))
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

  private func start(_ environment: [String: String]) throws {
    if let running = AgentClient.ping(environment) {
      Console.writeStderr("strivacity: the agent already runs (pid \(running["pid"] ?? "?"))\n")
      return
    }
    guard AgentSocket.directory(environment) != nil else {
      throw CLIFailure(
        "XDG_RUNTIME_DIR is not set: the agent lives in a login session's runtime directory", status: .usage)
    }
    // This very program, detached: its own session, nothing of ours open (a pipe held open by it
    // would keep whoever reads our output waiting); `strivacity agent` in the foreground says
    // why it does not start, if it does not.
    guard let bytes = Executable.path(), let program = String(validating: bytes, as: UTF8.self) else {
      throw CLIFailure("cannot find this program (/proc/self/exe)", status: .failure)
    }
    let arguments = [program, "agent", "--idle-timeout", String(idleTimeout)] + (verbose ? ["--verbose"] : [])
    let pid: Int32
    switch AgentSocket.spawnDetached(arguments) {
    case .success(let spawned): pid = spawned
    case .failure(let problem): throw CLIFailure(problem.description, status: .failure)
    }
    let deadline = monotonicSeconds() + 10
    while monotonicSeconds() < deadline {
      if let running = AgentClient.ping(environment, timeout: 1) {
        Console.writeStderr(
          "strivacity: the agent runs (pid \(running["pid"] ?? "?")), socket \(AgentSocket.path(environment) ?? "")\n")
        return
      }
      if let status = waitStatusIfEnded(pid) {
        throw CLIFailure(
          "the agent did not start (exit \(status >> 8 & 0xFF)); run `strivacity agent` to see why", status: .failure)
      }
      sleep(microseconds: 20_000)
    }
    throw CLIFailure("the agent did not answer within 10 s of starting", status: .failure)
  }

  private func stop(_ environment: [String: String]) throws {
    guard AgentClient.ping(environment) != nil else {
      Console.writeStderr("strivacity: no agent runs\n")
      return
    }
    var request = AgentMessage()
    request.set("op", "stop")
    _ = AgentSocket.ask(request, environment: environment, timeout: 5)
    Console.writeStderr("strivacity: the agent stopped\n")
  }

  private func status(_ environment: [String: String]) throws {
    guard let running = AgentClient.ping(environment) else {
      Console.writeStdout("agent     not running\n")
      throw ExitCode(1)
    }
    Console.writeStdout(
      """
      agent     running (pid \(running["pid"] ?? "?"), for \(running["uptime"] ?? "?") s)
      socket    \(AgentSocket.path(environment) ?? "")
      answered  \(running["answered"] ?? "?") requests
      profiles  \(running["profiles"] ?? "0") in memory

      """)
    if let sinks = running["sinks"], sinks != "0" {
      Console.writeStdout("sinks     \(sinks) token file\(sinks == "1" ? "" : "s") kept fresh\n")
    }
  }
}

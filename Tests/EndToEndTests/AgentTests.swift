// `strivacity agent` end to end: the real binary as the agent, real clients (both binaries),
// the keyring of the test session, and hostile peers on its socket.
import CurlTransport
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

@Suite struct AgentTests {
  /// A signed-in profile whose access token expires in 20 s: the next token call refreshes.
  static func signedInWithARefreshDue() throws -> Harness {
    let h = try Harness(journey: "password")
    try h.signIn()
    try h.expireStoredAccessToken(in: 20)
    return h
  }

  /// A raw client: sends `bytes` on the agent's socket, as `uid` when given, and returns what came
  /// back (empty when the agent closed without a word).
  static func raw(_ h: Harness, _ bytes: [UInt8], uid: Int? = nil, thenClose: Bool = false) throws -> ProcessResult {
    let hex = bytes.map { String(format: "%02x", $0) }.joined()
    let script = """
      import socket, sys
      s = socket.socket(socket.AF_UNIX)
      s.settimeout(10)
      s.connect(sys.argv[1])
      try:
          s.sendall(bytes.fromhex(sys.argv[2]))
      except (BrokenPipeError, ConnectionResetError):  # closed on us before we said anything
          sys.exit(0)
      if sys.argv[3] == 'close':
          sys.exit(0)
      data = b''
      while True:
          try:
              chunk = s.recv(65536)
          except ConnectionResetError:  # closed on us with our request unread
              break
          if not chunk:
              break
          data += chunk
      sys.stdout.write(data.hex())
      """
    var arguments = ["/usr/bin/python3", "-c", script, h.agentSocket, hex, thenClose ? "close" : "read"]
    if let uid { arguments = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + arguments }
    return try run(arguments, environment: ["PATH": "/usr/bin:/bin"])
  }

  static func frame(_ text: String) -> [UInt8] { frame(Array(text.utf8)) }

  static func frame(_ body: [UInt8]) -> [UInt8] {
    let n = UInt32(body.count)
    return [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + body
  }

  /// The answer's text (after its 4-byte length).
  static func answerText(_ result: ProcessResult) -> String {
    var bytes: [UInt8] = []
    var hex = Substring(result.stdout)
    while hex.count >= 2, let byte = UInt8(hex.prefix(2), radix: 16) {
      bytes.append(byte)
      hex = hex.dropFirst(2)
    }
    return String(decoding: bytes.dropFirst(4), as: UTF8.self)
  }

  /// A `token` call through the agent while the tenant answers `delay` seconds late, `signal`
  /// sent to the agent while it waits inside the refresh; the call's result.
  static func tokenCall(_ h: Harness, slowTenant delay: Double, thenSignal signal: Int32, to agent: pid_t) throws
    -> ProcessResult
  {
    try h.control("faults", ["endpoint": "token", "kind": "delay", "delay": .number(delay)])
    let caller = Mutex<ProcessResult?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      let result = try? h.strivacity(["token", "--profile", h.profile, "--verbose"])
      caller.withLock { $0 = result }
      done.signal()
    }
    usleep(700_000)  // the agent is inside the refresh, waiting on the slow tenant
    kill(agent, signal)
    done.wait()
    return try #require(caller.withLock { $0 })
  }

  func pingAnswers(_ h: Harness) throws -> Bool {
    let status = try h.strivacity(["agent", "status"])
    return status.status == 0 && status.stdout.contains("agent     running")
  }

  @Test func tokensComeFromTheAgentAndTheKeyringStaysTheRecord() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"  // every call goes past the kernel cache, to the agent
    let stored = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    for _ in 0..<5 {
      let token = try h.strivacity(["token", "--profile", h.profile])
      #expect(token.status == 0 && token.stdout == stored + "\n", "\(token.stderr)")
    }
    // The full command line asks it too (a form the small binary hands over).
    let json = try h.strivacity(["token", "--profile", h.profile, "--id-token", "--verbose"])
    #expect(json.status == 0 && !json.stderr.contains("doing without it"), "\(json.stderr)")
    #expect(json.stdout == (try h.storedSecret()?["tokens"]?["id_token"]?.string ?? "-") + "\n")
    let profileStatus = try h.strivacity(["status", "--profile", h.profile])
    #expect(
      profileStatus.stdout.contains("agent          running (pid \(try #require(h.agentPID)))"),
      "\(profileStatus.stdout)")
    let status = try h.strivacity(["agent", "status"])
    #expect(status.stdout.contains("profiles  1 in memory"), "\(status.stdout)")
    let answered = Int(status.stdout.split(separator: "answered  ").last?.prefix { $0.isNumber } ?? "") ?? 0
    #expect(answered >= 6, "\(status.stdout)")
  }

  /// The agent is told of every change another process makes: a logout is honoured on the very
  /// next call, and a new sign-in's tokens are what it hands out next.
  @Test func aLogoutElsewhereIsHonouredOnTheNextCall() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    #expect(try h.strivacity(["token", "--profile", h.profile]).status == 0)
    let logout = try run(
      [TestEnvironment.binary("strivacity"), "logout", "--profile", h.profile, "--local"],
      environment: h.environment.merging(["STRIVACITY_AGENT": "0"]) { _, new in new })
    #expect(logout.status == 0, "\(logout.stderr)")
    let after = try h.strivacity(["token", "--profile", h.profile])
    #expect(after.status == 3 && after.stdout.isEmpty, "no stale token after logout: \(after.stdout) \(after.stderr)")

    try h.signIn()
    let fresh = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    let again = try h.strivacity(["token", "--profile", h.profile])
    #expect(again.stdout == fresh + "\n", "\(again.stderr)")
  }

  /// 64 callers at once on a token due for refresh, all through the agent: one refresh.
  @Test func sixtyFourCallersMakeOneRefresh() throws {
    let h = try Self.signedInWithARefreshDue()
    try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let before = try h.grants("refresh_token")
    let results = h.tokenStorm(64)
    #expect(results.count == 64)
    #expect(results.allSatisfy { $0.status == 0 }, "\(results.filter { $0.status != 0 }.map(\.stderr))")
    #expect(Set(results.map(\.stdout)).count == 1, "all print the same new token")
    #expect(try h.grants("refresh_token") - before == 1, "exactly one refresh")
    #expect(
      results.first?.stdout == (try h.storedSecret()?["tokens"]?["access_token"]?.string ?? "") + "\n",
      "written through")
  }

  /// Another user is refused before a byte is read, even when the socket's modes would let them
  /// in (loosened here on purpose); and a client will not talk to a socket in a directory that
  /// is not private.
  @Test func anotherUserIsRefused() throws {
    try #require(getuid() == 0, "needs root, to run a client as another user (CI runs as root)")
    let h = try Harness(journey: "password")
    try h.signIn()
    try h.startAgent()
    chmod(h.home.path, 0o755)
    chmod(h.home.file("run"), 0o755)
    chmod(h.home.file("run") + "/strivacity", 0o755)
    chmod(h.agentSocket, 0o666)
    let stranger = try Self.raw(h, Self.frame("v=1\nop=ping\n"), uid: 65534)
    #expect(stranger.status == 0, "the connection itself is possible: \(stranger.stderr)")
    #expect(stranger.stdout.isEmpty, "closed without an answer")
    // Our own client sees a directory that is not private, and does without the agent.
    let token = try h.strivacity(["token", "--profile", h.profile, "--verbose"])
    #expect(token.status == 0)
    chmod(h.home.file("run") + "/strivacity", 0o700)
    #expect(try pingAnswers(h), "the agent goes on")
  }

  /// Malformed, oversized, silent and vanishing clients: each is refused or dropped, and the
  /// agent goes on answering.
  @Test func malformedRequestsAreRefusedAndTheAgentGoesOn() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try h.startAgent()
    let cases: [(String, [UInt8], String)] = [
      ("oversized", [0xFF, 0xFF, 0xFF, 0xFF], "over 65536 bytes"),
      ("no line end", Self.frame("v=1\nop=ping"), "does not end a line"),
      ("another version", Self.frame("v=2\nop=ping\n"), "not version 1"),
      ("not name=value", Self.frame("v=1\nop\n"), "not name=value"),
      ("a name twice", Self.frame("v=1\nop=ping\nop=stop\n"), "repeated"),
      ("not UTF-8", Self.frame(Array("v=1\nop=".utf8) + [0xFF, 0x0A]), "UTF-8"),
      ("unknown request", Self.frame("v=1\nop=exec\n"), "unknown request"),
      ("a profile that cannot be", Self.frame("v=1\nop=token\nprofile=../x\nmin_ttl=0\n"), "needs a profile"),
      ("an absurd min_ttl", Self.frame("v=1\nop=token\nprofile=a\nmin_ttl=99999999999999999999\n"), "needs a profile"),
    ]
    for (name, bytes, expected) in cases {
      let answer = Self.answerText(try Self.raw(h, bytes))
      #expect(answer.hasPrefix("v=1\nstatus=2\nmessage=agent: ") && answer.contains(expected), "\(name): \(answer)")
    }
    // Says nothing at all: dropped after the request deadline.
    let started = Date()
    let silent = try Self.raw(h, [])
    #expect(Self.answerText(silent).contains("ended or stalled"), "\(silent.stdout)")
    #expect(Date().timeIntervalSince(started) < 9)
    // Sends a request and goes away (as a client killed mid-request).
    for _ in 0..<5 {
      _ = try Self.raw(h, Self.frame("v=1\nop=token\nprofile=\(h.profile)\nmin_ttl=0\n"), thenClose: true)
    }
    #expect(try pingAnswers(h))
    #expect(try h.strivacity(["token", "--profile", h.profile]).status == 0)
  }

  /// The agent killed in the middle of a refresh: its caller does the work itself, and nothing
  /// is lost (the keyring is the record; the lock died with the agent).
  @Test func anAgentKilledMidRequestLosesNothing() throws {
    let h = try Self.signedInWithARefreshDue()
    let before = try h.storedSecret()
    let agent = try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let result = try Self.tokenCall(h, slowTenant: 3, thenSignal: SIGKILL, to: agent)
    #expect(result.status == 0, "the caller fell back: \(result.stderr)")
    #expect(result.stderr.contains("doing without it"), "\(result.stderr)")
    #expect(try h.storedSecret()?["tokens"]?["refresh_token"] != nil, "the set is whole")
    #expect(
      try h.storedSecret()?["tokens"]?["access_token"] != before?["tokens"]?["access_token"], "the caller refreshed it")
    // No agent at all now: everything works without it.
    let without = try h.strivacity(["token", "--profile", h.profile])
    #expect(without.status == 0, "\(without.stderr)")
    // What SIGKILL can cost, as for any process killed mid-refresh: the agent's request, still at
    // the slow tenant, arrives after the caller's with the refresh token the caller rotated away;
    // a tenant that revokes the family on reuse (the emulator does) then refuses the next
    // refresh. That is said plainly, with what to do (SIGTERM waits instead: see below).
    sleep(4)
    try h.expireStoredAccessToken(in: 20)
    let further = try h.strivacity(["token", "--profile", h.profile])
    #expect(
      further.status == 0 || (further.status == 3 && further.stderr.contains("run strivacity login")),
      "\(further.stderr)")
  }

  /// With KeePassXC, 20 calls through the agent open one Secret Service session (the agent's),
  /// against one per call without it: counted on the bus.
  @Test func keepassxcIsOpenedOncePerSession() throws {
    let h = try Harness(journey: "password")
    try h.useOwnKeyring(.keepassxc)
    try h.signIn()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"

    func sessionsOpened(during body: () throws -> Void) throws -> Int {
      let capture = h.home.file("monitor-\(UUID().uuidString)")
      let monitor = Process()
      monitor.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
      monitor.arguments = [
        "--session", "type='method_call',interface='org.freedesktop.Secret.Service',member='OpenSession'",
      ]
      monitor.environment = h.environment
      _ = FileManager.default.createFile(atPath: capture, contents: nil)
      monitor.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: capture))
      try monitor.run()
      usleep(300_000)
      try body()
      usleep(300_000)
      kill(monitor.processIdentifier, SIGKILL)
      monitor.waitUntilExit()
      let text = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").filter { $0.contains("member=OpenSession") }.count
    }

    let direct = try sessionsOpened {
      for _ in 0..<20 {
        let token = try h.strivacity(["token", "--profile", h.profile])
        #expect(token.status == 0, "\(token.stderr)")
      }
    }
    #expect(direct == 20, "without the agent, one session per call (\(direct))")

    try h.startAgent()
    let through = try sessionsOpened {
      for _ in 0..<20 {
        let token = try h.strivacity(["token", "--profile", h.profile])
        #expect(token.status == 0, "\(token.stderr)")
      }
    }
    #expect(through == 1, "through the agent, its one session (\(through))")
  }

  /// Socket activation as systemd does it (systemd-socket-activate: the socket made by another
  /// process, passed as fd 3 with LISTEN_FDS): the agent answers on it, and leaves the socket
  /// file where it is when it stops.
  @Test func socketActivatedAsSystemdDoes() throws {
    let activate = "/usr/bin/systemd-socket-activate"
    try #require(
      FileManager.default.isExecutableFile(atPath: activate), "systemd-socket-activate (package systemd) is needed")
    let h = try Harness(journey: "password")
    try h.signIn()
    h.useOwnRuntimeDirectory(strivacityDirectory: true)
    h.extraEnvironment["STRIVACITY_AGENT"] = "1"
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let activator = Process()
    activator.executableURL = URL(fileURLWithPath: activate)
    activator.arguments =
      ["-l", h.agentSocket] + h.environment.keys.sorted().flatMap { ["-E", $0] }
      + [TestEnvironment.binary("strivacity"), "agent"]
    activator.environment = h.environment
    activator.standardError = FileHandle.nullDevice
    try activator.run()
    defer {
      kill(activator.processIdentifier, SIGKILL)
      activator.waitUntilExit()
    }
    try #require(
      waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: h.agentSocket) }, "the socket never appeared")
    let token = try h.strivacity(["token", "--profile", h.profile, "--verbose"])
    #expect(token.status == 0 && !token.stderr.contains("doing without it"), "\(token.stderr)")
    #expect(token.stdout == (try h.storedSecret()?["tokens"]?["access_token"]?.string ?? "-") + "\n")
    #expect(try h.strivacity(["agent", "stop"]).status == 0)
    #expect(FileManager.default.fileExists(atPath: h.agentSocket), "systemd's socket is not ours to remove")
  }

  /// The keyring restarted under a running agent (KeePassXC killed and started again): the agent
  /// connects afresh on its next keyring operation, and answers; a tenant outage is reported
  /// as one (exit 4) and the agent goes on.
  @Test func theAgentSurvivesAKeyringRestartAndATenantOutage() throws {
    // Access tokens that live 0 s: every call is a refresh, through the agent.
    let h = try Harness(journey: "password") { journey in
      for index in journey.clients.indices { journey.clients[index].accessTokenTTL = 0 }
    }
    try h.useOwnKeyring(.keepassxc)
    try h.signIn()
    try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    #expect(try h.strivacity(["token", "--profile", h.profile]).status == 0)

    try h.restartKeePassXC()
    // Another process signs in again: the agent drops what it holds and must read the keyring.
    try h.signIn()
    let after = try h.strivacity(["token", "--profile", h.profile, "--verbose"])
    #expect(after.status == 0, "\(after.stderr)")
    #expect(!after.stderr.contains("doing without it"), "the agent answered: \(after.stderr)")
    #expect(
      after.stdout == (try h.storedSecret()?["tokens"]?["access_token"]?.string ?? "-") + "\n", "its refresh is stored")

    // The agent's answer (HTTP 503) may be its own network's: the caller tries itself, and
    // reports the outage.
    try h.control("faults", ["endpoint": "token", "kind": "status", "status": 503, "count": 10])
    let outage = try h.strivacity(["token", "--profile", h.profile])
    #expect(outage.status == 4, "\(outage.stderr)")
    #expect(try pingAnswers(h), "the agent goes on")
    _ = try CurlHTTPClient().send(HTTPRequest(method: "DELETE", url: h.emulator.issuer + "_emulator/faults"))
    let recovered = try h.strivacity(["token", "--profile", h.profile])
    #expect(recovered.status == 0, "\(recovered.stderr)")
  }

  /// It exits when idle past --idle-timeout (removing its socket), and when its socket is gone
  /// (logout removes the session's runtime directory).
  @Test func itEndsWhenIdleAndWhenItsSocketIsGone() throws {
    let h = try Harness(journey: "password")
    let idle = try h.startAgent(["--idle-timeout", "1"])
    func gone(_ pid: pid_t, within seconds: Double) -> Bool {
      waitUntil(timeout: seconds, every: 0.05) { kill(pid, 0) != 0 && errno == ESRCH }
    }
    #expect(gone(idle, within: 6), "idle for over a second: it exits")
    #expect(!FileManager.default.fileExists(atPath: h.agentSocket), "and takes its socket with it")

    let second = try h.startAgent()
    unlink(h.agentSocket)
    #expect(gone(second, within: 4), "its socket removed: it exits")
  }

  /// SIGTERM (systemd at logout) in the middle of a refresh: the agent finishes it — the caller
  /// gets its tokens, the new set is stored — and then exits.
  @Test func sigtermLetsARefreshUnderWayFinish() throws {
    let h = try Self.signedInWithARefreshDue()
    let before = try h.storedSecret()?["tokens"]?["access_token"]
    let agent = try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let result = try Self.tokenCall(h, slowTenant: 2, thenSignal: SIGTERM, to: agent)
    #expect(result.status == 0 && !result.stderr.contains("doing without it"), "the agent answered: \(result.stderr)")
    let stored = try h.storedSecret()?["tokens"]?["access_token"]
    #expect(stored != before && result.stdout == (stored?.string ?? "-") + "\n", "its refresh is stored")
    waitUntil(timeout: 5, every: 0.05) { kill(agent, 0) != 0 }
    #expect(kill(agent, 0) != 0, "and then it exits")
  }

  /// A slow answer from the agent (here a slow tenant; it may as well be a keyring dialog, which
  /// the agent has no terminal to announce on) is said on the caller's terminal after a second.
  @Test func aSlowAgentIsSaidOnTheTerminal() throws {
    let h = try Self.signedInWithARefreshDue()
    try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    try h.control("faults", ["endpoint": "token", "kind": "delay", "delay": 2])
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile], environment: h.environment)
    try tty.expect(
      "strivacity: waiting for strivacity agent (a refresh, or the keyring asking you in its own window; up to 60 s)")
    #expect(try tty.wait() == 0)
    #expect(tty.stdout == (try h.storedSecret()?["tokens"]?["access_token"]?.string ?? "-") + "\n")
  }
}

// A tenant (the emulator, in-process), a private HOME, the real keyring of the test session,
// and the built `strivacity` binary, for end-to-end sign-ins.
import CurlTransport
import Emulator
import Foundation
import SecretStore
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing
import TokenCache

/// The Secret Service providers the tests run against (Scripts/with-keyring's KEYRING_PROVIDER).
enum KeyringProvider: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case gnomeKeyring = "gnome-keyring"
  case keepassxc

  var testDescription: String { rawValue }
}

final class Harness: @unchecked Sendable {
  let emulator: Emulator
  let home: ScratchDirectory
  let profile = "e2e-" + UUID().uuidString.prefix(8).lowercased()
  var extraEnvironment: [String: String] = [:]

  /// `adjust` changes the journey before the tenant starts (a client's token lifetimes, say);
  /// `clockBehind` puts the tenant's clock that many seconds behind ours.
  /// `publicURL`: where clients reach the tenant when a front (TLS, a name) stands before it.
  init(
    journey: String, clockBehind: Int64 = 0, publicURL: String? = nil, adjust: (inout Journey) -> Void = { _ in }
  ) throws {
    try #require(TestEnvironment.hasRealKeyring, "run through `make test`: end-to-end tests need the real keyring")
    guard let path = Journey.builtInPath(journey) else { throw TestFailure("no journey \(journey)") }
    var loaded = try Journey.load(path: path)
    adjust(&loaded)
    emulator = try Emulator(journey: loaded, publicURL: publicURL) { Int64(Date().timeIntervalSince1970) - clockBehind }
    home = try ScratchDirectory("e2e")
  }

  deinit {
    prompter?.stop()
    if let agentPID { kill(agentPID, SIGKILL) }
    if let restartedKeePassXC { kill(restartedKeePassXC, SIGKILL) }
    emulator.stop()
    // End a private keyring as it expects (EOF to its `cat`), so Scripts/with-keyring stops
    // the bus and the daemon; closing its terminal instead would leave them running.
    if let ownKeyring {
      ownKeyring.type("\u{4}")
      _ = try? ownKeyring.wait(timeout: 10)
    }
  }

  /// A private keyring (nested Scripts/with-keyring), for tests that abuse their keyring.
  private var ownKeyring: PTYSession?
  private var ownBus: String?

  /// Gives this harness a gnome-keyring of its own, so what a destructive test does to its
  /// keyring daemon (clients killed mid-call) cannot hold up other tests sharing the suite's.
  /// It lives until the harness goes away (its shell exits when the terminal closes).
  /// The process id of the private keyring's gnome-keyring-daemon (after `useOwnKeyring`).
  func ownKeyringDaemon() throws -> pid_t {
    // "(uint32 1234,)"
    let reply = try busCall(
      "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
      ["org.freedesktop.secrets"])
    return try #require(pid_t(reply.split(separator: " ").last?.filter(\.isNumber) ?? ""), "\(reply)")
  }

  /// The password of the keyring Scripts/with-keyring makes (its KEYRING_PASSWORD default).
  static let keyringPassword = "strivacity-test"

  /// `provider`: which Secret Service (Scripts/with-keyring's KEYRING_PROVIDER); with KeePassXC,
  /// `confirmAccess` turns its access dialogs on (drawn offscreen: nobody answers them).
  func useOwnKeyring(_ provider: KeyringProvider = .gnomeKeyring, confirmAccess: Bool = false) throws {
    let keyring = try PTYSession(
      [
        TestEnvironment.repositoryRoot.appendingPathComponent("Scripts/with-keyring").path, "sh", "-c",
        "echo \"KEYRING BUS=$DBUS_SESSION_BUS_ADDRESS DB=${STRIVACITY_TEST_KEEPASSXC_DB:-} END\" >&2; exec cat "
          + ">/dev/null",
      ],
      environment: [
        "PATH": "/usr/bin:/bin", "HOME": home.path, "KEYRING_QUIET": "1", "KEYRING_PROVIDER": provider.rawValue,
        "KEEPASSXC_CONFIRM_ACCESS": confirmAccess ? "1" : "0",
      ])
    let output = try keyring.expect(" END", timeout: 30)
    let line = try #require(output.split(separator: "\n").last { $0.contains("KEYRING BUS=") })
    for word in line.split(separator: " ") {
      if word.hasPrefix("BUS=") { ownBus = String(word.dropFirst(4)) }
      if word.hasPrefix("DB=") { keepassxcDatabase = String(word.dropFirst(3)) }
    }
    try #require(ownBus != nil)
    ownKeyring = keyring
    ownProvider = provider
  }

  private var ownProvider = KeyringProvider.gnomeKeyring
  private var keepassxcDatabase: String?

  /// One D-Bus method call on the harness's own bus, by gdbus (bounded: 5 s).
  private func gdbus(_ destination: String, _ path: String, _ method: String, _ arguments: [String]) throws
    -> ProcessResult
  {
    try run(
      [
        "/usr/bin/gdbus", "call", "--session", "--timeout", "5", "--dest", destination, "--object-path", path,
        "--method", method,
      ] + arguments,
      environment: ["DBUS_SESSION_BUS_ADDRESS": try #require(ownBus), "PATH": "/usr/bin:/bin"])
  }

  /// A bus call that must succeed; its reply.
  @discardableResult
  func busCall(_ destination: String, _ path: String, _ method: String, _ arguments: [String] = []) throws -> String {
    let result = try gdbus(destination, path, method, arguments)
    #expect(result.status == 0, "\(method): \(result.stderr)")
    return result.stdout
  }

  /// A bus call whose failure is an answer, not a test failure ("" then).
  func busCall(quietly destination: String, _ path: String, _ method: String, _ arguments: [String] = []) -> String {
    guard let result = try? gdbus(destination, path, method, arguments), result.status == 0 else { return "" }
    return result.stdout
  }

  /// Locks the default collection as its provider's own lock does (KeePassXC's lock button).
  func lockKeyring() throws {
    switch ownProvider {
    case .keepassxc:
      try busCall(
        "org.keepassxc.KeePassXC.MainWindow", "/keepassxc", "org.keepassxc.KeePassXC.MainWindow.lockAllDatabases")
    case .gnomeKeyring:
      try busCall(
        "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
        ["['/org/freedesktop/secrets/collection/login']"])
    }
    // KeePassXC locks after answering the call: a command started at once could still find it
    // open. Locked is when the keyring no longer says it is unlocked.
    try #require(waitUntil(timeout: 10, every: 0.05) { !keyringSaysUnlocked() }, "the keyring stayed unlocked")
  }

  /// Unlocks it again with its password, as a person would in the provider's window. The
  /// password goes over one D-Bus connection from python3-dbus, read from stdin (never argv).
  func unlockKeyring() throws {
    let call: String
    switch ownProvider {
    case .keepassxc:
      call = """
        window = dbus.Interface(bus.get_object('org.keepassxc.KeePassXC.MainWindow', '/keepassxc'),
        'org.keepassxc.KeePassXC.MainWindow')
        window.openDatabase(sys.argv[1], password, signature='ss')
        """
    case .gnomeKeyring:
      // gnome-keyring's own interface for an unlock without its prompter (which needs a desktop);
      // the "plain" session it needs lives as long as this connection.
      call = """
        service = bus.get_object('org.freedesktop.secrets', '/org/freedesktop/secrets')
        _, session = service.OpenSession('plain', dbus.String('', variant_level=1),
        dbus_interface='org.freedesktop.Secret.Service')
        guilt = dbus.Interface(service, 'org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface')
        guilt.UnlockWithMasterPassword(dbus.ObjectPath('/org/freedesktop/secrets/collection/login'),
                                       (session, dbus.ByteArray(b''), dbus.ByteArray(password.encode()), 'text/plain'))
        """
    }
    let script = "import dbus, sys\nbus = dbus.SessionBus()\npassword = sys.stdin.read()\n" + call
    let result = try run(
      ["/usr/bin/python3", "-c", script, keepassxcDatabase ?? ""],
      environment: ["DBUS_SESSION_BUS_ADDRESS": try #require(ownBus), "PATH": "/usr/bin:/bin"],
      stdin: Self.keyringPassword)
    #expect(result.status == 0, "\(result.stderr)")
    // KeePassXC opens the database after it answers.
    let unlocked = try waitUntil(timeout: 10, every: 0.05) {
      try !busCall(
        "org.freedesktop.secrets", "/org/freedesktop/secrets/aliases/default", "org.freedesktop.DBus.Properties.Get",
        ["org.freedesktop.Secret.Collection", "Locked"]
      ).contains("true")
    }
    try #require(unlocked, "the keyring stayed locked")
  }

  /// Kills the harness's KeePassXC and starts it again on the same database and bus, as after a
  /// crash or a restart of the desktop session's keyring (Scripts/with-keyring's layout).
  func restartKeePassXC() throws {
    let database = try #require(keepassxcDatabase)
    let state = (database as NSString).deletingLastPathComponent
    kill(try ownKeyringDaemon(), SIGKILL)
    let gone = waitUntil(timeout: 10, every: 0.05) {
      !busCall(
        quietly: "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
        ["org.freedesktop.secrets"]
      ).contains("true")
    }
    try #require(gone, "KeePassXC kept the name")
    let keepassxc = Process()
    keepassxc.executableURL = URL(fileURLWithPath: "/usr/bin/keepassxc")
    keepassxc.arguments = [
      "--config", state + "/keepassxc.ini", "--localconfig", state + "/keepassxc-local.ini", "--pw-stdin", database,
    ]
    keepassxc.environment = [
      "HOME": state + "/home", "TMPDIR": state + "/runtime", "XDG_CONFIG_HOME": state + "/home/.config",
      "QT_QPA_PLATFORM": "offscreen",
      "DBUS_SESSION_BUS_ADDRESS": try #require(ownBus), "PATH": "/usr/bin:/bin",
    ]
    let input = Pipe()
    keepassxc.standardInput = input
    keepassxc.standardOutput = FileHandle.nullDevice
    keepassxc.standardError = FileHandle.nullDevice
    try keepassxc.run()
    restartedKeePassXC = keepassxc.processIdentifier
    input.fileHandleForWriting.write(Data((Self.keyringPassword + "\n").utf8))
    try input.fileHandleForWriting.close()
    try #require(waitUntil(timeout: 15, every: 0.05) { keyringSaysUnlocked() }, "KeePassXC did not come back unlocked")
  }

  /// A KeePassXC started by `restartKeePassXC` (killed with the harness).
  private var restartedKeePassXC: pid_t?

  /// The stand-in for the desktop's prompter on the harness's own bus (stopped with the harness).
  private var prompter: PrompterStandin?

  /// Starts Tests/Support/prompter-standin on the harness's own bus, as the desktop's prompter
  /// gnome-keyring shows its dialogs through (`mode`: "silent" or "cancel", see the script).
  func startPrompterStandin(_ mode: String) throws -> PrompterStandin {
    let started = try PrompterStandin(mode: mode, bus: try #require(ownBus), directory: home.path)
    prompter = started
    return started
  }

  /// Whether the keyring daemon `pid` still runs (not a zombie) and is the one serving
  /// org.freedesktop.secrets on the harness's bus, answering a call.
  func keyringDaemonServes(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let state = stat.split(separator: ")").last?.split(separator: " ").first, state != "Z"
    else { return false }
    let owner = busCall(
      quietly: "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID",
      ["org.freedesktop.secrets"])
    let locked = lockedProperty()
    return owner.split(separator: " ").last?.filter(\.isNumber) == String(pid) && !locked.isEmpty
  }

  /// The default collection's Locked property as gdbus prints it ("" when the call fails).
  func lockedProperty() -> String {
    busCall(
      quietly: "org.freedesktop.secrets", "/org/freedesktop/secrets/aliases/default",
      "org.freedesktop.DBus.Properties.Get", ["org.freedesktop.Secret.Collection", "Locked"])
  }

  /// Whether the keyring answers that its default collection is unlocked.
  func keyringSaysUnlocked() -> Bool { lockedProperty().contains("false") }

  /// How many items the keyring holds for a profile (default: the harness's), by secret-tool.
  func keyringItemCount(profile name: String? = nil) throws -> Int {
    let result = try run(
      ["/usr/bin/secret-tool", "search", "--all", "profile", name ?? profile], environment: environment)
    return (result.stdout + result.stderr).split(separator: "\n").filter { $0.hasPrefix("label = ") }.count
  }

  var environment: [String: String] {
    var env = [
      "HOME": home.path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "xterm",
      "BROWSER": "/bin/false", "NO_COLOR": "1",
    ]
    if let bus = ownBus ?? ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] {
      env["DBUS_SESSION_BUS_ADDRESS"] = bus
    }
    return env.merging(extraEnvironment) { _, new in new }
  }

  func loginArguments(sdk: String, _ extra: [String]) -> [String] {
    [
      TestEnvironment.binary("strivacity"), "login", "--tenant", emulator.issuer, "--client-id", "strivacity-cli",
      "--profile", profile, "--sdk-mode", sdk,
    ] + extra
  }

  /// `strivacity login` on a pseudo-terminal.
  func interactiveLogin(sdk: String, _ extra: [String] = []) throws -> PTYSession {
    try PTYSession(loginArguments(sdk: sdk, extra), environment: environment)
  }

  /// `strivacity login` on a pseudo-terminal, the demo user signed in first when `demoSignIn`
  /// (PTYSession.typeDemoSignIn), then `steps` played (PTYSession.converse).
  func interactiveLogin(
    sdk: String, _ extra: [String] = [], demoSignIn: Bool = false, playing steps: [(prompt: String, answer: String?)]
  ) throws -> PTYSession {
    let tty = try interactiveLogin(sdk: sdk, extra)
    if demoSignIn { try tty.typeDemoSignIn() }
    try tty.converse(steps)
    return tty
  }

  /// `strivacity login` with no terminal at all.
  func automatedLogin(sdk: String, _ extra: [String], environment more: [String: String] = [:]) throws -> ProcessResult
  {
    try run(loginArguments(sdk: sdk, extra), environment: environment.merging(more) { _, new in new })
  }

  func strivacity(_ arguments: [String]) throws -> ProcessResult {
    try run([TestEnvironment.binary("strivacity")] + arguments, environment: environment)
  }

  /// Whether the profile holds tokens, by `strivacity status`.
  func signedIn() throws -> Bool {
    let status = try strivacity(["status", "--profile", profile])
    return status.status == 0 && status.stdout.contains("signed in      yes")
  }

  func stats() throws -> JSONValue {
    try #require(JSONValue.parse(try CurlHTTPClient().send(HTTPRequest(url: emulator.issuer + "_emulator/stats")).body))
  }

  func control(_ path: String, _ body: JSONValue) throws {
    let response = try CurlHTTPClient().send(
      HTTPRequest(method: "POST", url: emulator.issuer + "_emulator/" + path, body: body.serialized()))
    #expect((200..<300).contains(response.status), "\(response.bodyText)")
  }

  /// Revokes `token` at the tenant behind strivacity's back (RFC 7009), as an administrator would.
  func revokeAtTheTenant(_ token: String) throws {
    _ = try CurlHTTPClient().send(
      HTTPRequest(
        method: "POST", url: emulator.issuer + "oauth2/revoke",
        headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")], body: Array("token=\(token)".utf8)))
  }

  func lastBody(_ form: String) throws -> JSONValue? { try stats()["last_bodies"]?["form/" + form] }

  /// Signs in without a terminal (the password journey's demo user).
  func signIn(sdk: String = "web") throws {
    let result = try automatedLogin(
      sdk: sdk, ["--field", "identifier=demo@example.com", "--field-env", "password=PW"],
      environment: ["PW": "Demo-pass-1"])
    #expect(result.status == 0, "\(result.stderr)")
  }

  func keyringAttributes(_ name: String? = nil) -> [String] {
    ["profile", name ?? profile, "issuer", emulator.issuer, "client_id", "strivacity-cli"]
  }

  /// The stored token set of a profile (default: the harness's), read with libsecret's own tool.
  func storedSecret(profile name: String? = nil) throws -> JSONValue? {
    let lookup = try run(["/usr/bin/secret-tool", "lookup"] + keyringAttributes(name), environment: environment)
    return lookup.status == 0 ? JSONValue.parse(lookup.stdout) : nil
  }

  /// Rewrites a stored token set (as another writer of the keyring would).
  func rewriteStored(profile name: String? = nil, _ change: (inout [String: JSONValue]) -> Void) throws {
    var stored = try #require(try storedSecret(profile: name)?.object)
    var tokens = try #require(stored["tokens"]?.object)
    change(&tokens)
    stored["tokens"] = .object(tokens)
    let result = try run(
      [
        "/usr/bin/secret-tool", "store", "--label", "strivacity: \(name ?? profile) (\(emulator.issuer))", "xdg:schema",
        "com.strivacity.cli.TokenSet",
      ]
        + keyringAttributes(name), environment: environment, stdin: JSONValue.object(stored).text)
    #expect(result.status == 0, "\(result.stderr)")
    // The access-token cache mirrors what strivacity itself stores; a writer behind its back
    // (this one, standing in for time passing) drops the entry.
    dropCachedToken(profile: name)
  }

  /// Removes a profile's entry from the access-token cache (the kernel's user keyring).
  func dropCachedToken(profile name: String? = nil) {
    KernelTokenCache.drop(StoreKey(profile: name ?? profile, issuer: emulator.issuer, clientID: "strivacity-cli"))
  }

  /// The profile's cached access token, if any.
  func cachedToken(profile name: String? = nil) -> String? {
    KernelTokenCache.get(StoreKey(profile: name ?? profile, issuer: emulator.issuer, clientID: "strivacity-cli"))?
      .accessToken.value
  }

  /// As if time had passed: the access token expires in `seconds`, and was obtained as long
  /// before that as its lifetime (both times move, so the lifetime stays what the tenant gave).
  func expireStoredAccessToken(profile name: String? = nil, in seconds: Int64 = 10) throws {
    try rewriteStored(profile: name) { tokens in
      let expiry = Int64(Date().timeIntervalSince1970) + seconds
      let shift = expiry - Int64(tokens["expires_at"]?.number ?? Double(expiry))
      tokens["expires_at"] = .number(Double(expiry))
      tokens["obtained_at"] = .number((tokens["obtained_at"]?.number ?? 0) + Double(shift))
    }
  }

  /// `callers` concurrent `strivacity token` runs on this profile, all started at once (a thread
  /// each: a dispatch pool as wide as the CPUs would run them two at a time); the results of
  /// those that ran.
  func tokenStorm(_ callers: Int = 32) -> [ProcessResult] {
    let outputs = Mutex<[ProcessResult]>([])
    let done = DispatchGroup()
    for _ in 0..<callers {
      done.enter()
      Thread.detachNewThread {
        if let result = try? self.strivacity(["token", "--profile", self.profile]) {
          outputs.withLock { $0.append(result) }
        }
        done.leave()
      }
    }
    done.wait()
    return outputs.withLock { $0 }
  }

  /// The pid of the harness's `strivacity agent` (after `startAgent`).
  private(set) var agentPID: pid_t?

  /// Starts `strivacity agent` with a runtime directory of the harness's own, and turns it on
  /// for every command the harness runs (STRIVACITY_AGENT=1); killed with the harness.
  @discardableResult
  func startAgent(_ arguments: [String] = []) throws -> pid_t {
    useOwnRuntimeDirectory()
    extraEnvironment["STRIVACITY_AGENT"] = "1"
    let started = try strivacity(["agent", "start"] + arguments)
    #expect(started.status == 0, "\(started.stderr)")
    // "strivacity: the agent runs (pid 1234), socket …"
    let digits = started.stderr.split(separator: "(pid ").last?.prefix { $0.isNumber } ?? ""
    let pid = try #require(pid_t(String(digits)), "\(started.stderr)")
    agentPID = pid
    return pid
  }

  /// A runtime directory of the harness's own (0700), XDG_RUNTIME_DIR for every command it runs,
  /// and in it strivacity's own when `strivacityDirectory` (for a lock or a socket another
  /// process makes first); its path.
  @discardableResult
  func useOwnRuntimeDirectory(strivacityDirectory: Bool = false) -> String {
    let runtime = home.file("run")
    mkdir(runtime, 0o700)
    if strivacityDirectory { mkdir(runtime + "/strivacity", 0o700) }
    extraEnvironment["XDG_RUNTIME_DIR"] = runtime
    return runtime
  }

  /// A directory holding a copy of this build's `strivacity` with no `strivacity-cli` beside it
  /// (so nothing is handed over: what it answers, the small binary answered), and `links` (a
  /// helper's installed names) linked to it.
  func smallBinaryAlone(links: [String] = ["docker-credential-strivacity"]) throws -> String {
    let alone = home.file("alone")
    try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
    try copyExecutable(TestEnvironment.binary("strivacity"), to: alone + "/strivacity")
    for link in links {
      try FileManager.default.createSymbolicLink(atPath: alone + "/" + link, withDestinationPath: alone + "/strivacity")
    }
    return alone
  }

  var agentSocket: String { home.file("run") + "/strivacity/agent.sock" }

  func grants(_ type: String) throws -> Int { try stats()["grants"]?[type]?.int ?? 0 }

  /// A config file with this harness's profile on the emulator (or on `tenant`), plus
  /// `settings` (TOML lines).
  func writeProfile(tenant: String? = nil, _ settings: String = "") throws {
    try home.writeConfig(
      StrivacityConfig.profile(profile, tenant: tenant ?? emulator.issuer, clientID: "strivacity-cli", settings))
  }

  /// A machine profile for the emulator's client `client` (or for `tenant`, when a front stands
  /// before the emulator), plus `settings` (TOML lines); `topLevel` lines, when given, before
  /// its table.
  func writeMachineProfile(client: String, tenant: String? = nil, topLevel: String? = nil, _ settings: String = "")
    throws
  {
    let table = StrivacityConfig.profile(
      profile, tenant: tenant ?? emulator.issuer, clientID: client, grant: "client_credentials", settings)
    try home.writeConfig(topLevel.map { $0 + "\n" + table } ?? table)
  }
}

let sdkModes = ["web", "android-minimal"]

/// The tenant's `invalid_target` for an API's resource, as strivacity says it: exit 3, nothing on
/// stdout, one line naming the API and the resource.
func expectInvalidTarget(
  _ result: ProcessResult, api: String, resource: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(result.status == 3, sourceLocation: sourceLocation)
  #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
  #expect(
    result.stderr.hasPrefix(
      "strivacity: error: the tenant refused a token for API \(api) (resource \(resource)): invalid_target"),
    "\(result.stderr)", sourceLocation: sourceLocation)
  #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
}

/// A JWT's claims: its payload, base64url-decoded JSON. `token` may end in a newline (as a
/// command prints it); it must have three parts.
func jwtClaims(_ token: String) throws -> JSONValue {
  let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
  try #require(parts.count == 3, "a JWT: \(token.prefix(20))")
  return try #require(jwtPayload(token))
}

/// The JSON after a token's first dot, base64url-decoded; nil when there is none (an opaque
/// token, an empty file).
func jwtPayload(_ token: String) -> JSONValue? {
  let part = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").dropFirst().first ?? ""
  var text = String(part).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
  while text.count % 4 != 0 { text += "=" }
  return Data(base64Encoded: text).flatMap { JSONValue.parse(Array($0)) }
}

extension PTYSession {
  /// Types the demo user through the identifier and password screens, accepting the defaults.
  /// Only the start of each prompt is awaited: a hostile tenant appends to every label.
  func typeDemoSignIn() throws {
    // The last answer submits the screen's primary action.
    try converse([("Email address", "demo@example.com"), ("Password", "Demo-pass-1"), ("[y/N]", "")])
  }
}

/// Tests/Support/prompter-standin, running: what it was asked, and a way to answer "no" later.
final class PrompterStandin: @unchecked Sendable {
  let process = Process()
  let log: String

  init(mode: String, bus: String, directory: String) throws {
    log = directory + "/prompter-\(UUID().uuidString.prefix(8)).log"
    process.executableURL = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Support/prompter-standin")
    process.arguments = [log, mode]
    process.environment = ["DBUS_SESSION_BUS_ADDRESS": bus, "PATH": "/usr/bin:/bin"]
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    try waitFor("ready")
  }

  /// What it was asked, in order ("ready", "begin", "perform password", "stop", "answered no").
  var events: [String] {
    ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// Until `event` is logged (5 s at most).
  func waitFor(_ event: String) throws {
    let logged = try waitUntil(timeout: 5) {
      if events.contains(event) { return true }
      try #require(process.isRunning, "prompter-standin ended: \(events)")
      return false
    }
    try #require(logged, "prompter-standin never logged '\(event)': \(events)")
  }

  /// The person comes back and presses Cancel on the dialogs still open.
  func answerNo() { kill(process.processIdentifier, SIGUSR1) }

  /// SIGTERM, and SIGKILL if it is still there after 2 s.
  func stop() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGTERM)
    waitUntil(timeout: 2) { !process.isRunning }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}

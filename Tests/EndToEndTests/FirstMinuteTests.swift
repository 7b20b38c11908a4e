// The first minute on a machine without a desktop (issue 48, point 1): no D-Bus session bus, so
// no keyring. docs/emulator.md's walk ("Try everything") and the emulator's own `try:` line run
// as written, on a pseudo-terminal, to a first token: `login` offers the file store once, Enter
// takes it, and the profile remembers it. Without a terminal the error is as before.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

@testable import Emulator

@Suite struct FirstMinuteTests {
  /// A home and a private runtime directory with no session bus in it, and only the products
  /// on PATH: a fresh SSH session's environment.
  static func bareMachine() throws -> (ScratchDirectory, [String: String]) {
    let home = try ScratchDirectory("bare")
    let runtime = home.file("run")
    mkdir(runtime, 0o700)
    return (
      home,
      [
        "HOME": home.path, "XDG_RUNTIME_DIR": runtime, "LANG": "C.UTF-8", "TERM": "xterm", "NO_COLOR": "1",
        "BROWSER": "/bin/false", "PATH": TestEnvironment.productsDirectory.path + ":/usr/local/bin:/usr/bin:/bin",
      ]
    )
  }

  @Test func docsEmulatorWalkRunsWithoutASessionBus() throws {
    let markdown = try String(
      contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("docs/emulator.md"), encoding: .utf8)
    let walk = try #require(ReadmeTests.blocks(markdown).first { $0.language == "sh" })
    #expect(walk.text.hasPrefix("strivacity-emulator "), "the installed name first")
    let port = try Loopback.unusedPort()
    let (_, environment) = try Self.bareMachine()
    // The walk's own tenant (its first line) is stopped with the script.
    let script =
      "trap 'kill $(jobs -p) 2>/dev/null' EXIT\n" + walk.text.replacingOccurrences(of: "8400", with: "\(port)")
    let session = try PTYSession(
      ["/bin/bash", "-euo", "pipefail", "-c", script], environment: environment, columns: 200)
    defer { kill(session.pid, SIGKILL) }
    // The first sign-in: the file store offered (Enter), then the journey's own question; the
    // second sign-in (the API's) asks the journey's question only.
    try session.converse([("Use the file store for profile emulator", nil), ("[Y/n]: ", ""), ("[y/N]", "")])
    try session.converse([("[y/N]", "")], timeout: 30)
    let status = try session.wait(timeout: 90)
    let transcript = session.transcript
    #expect(status == 0, "\(transcript)")
    #expect(transcript.components(separatedBy: "Use the file store").count == 2, "offered once:\n\(transcript)")
    #expect(!transcript.contains("strivacity: error"), "\(transcript)")
    // The machine's token, the walk's last line, as JSON on stdout.
    let last = session.stdout.split(separator: "\n").last.map(String.init) ?? ""
    #expect(JSONValue.parse(Array(last.utf8))?["access_token"]?.string != nil, "\(session.stdout)")
  }

  @Test func theEmulatorsTryLineSignsInWithoutASessionBus() throws {
    let harness = try Harness(journey: "password")
    let issuer = harness.emulator.issuer
    let journey = try Journey.load(path: try #require(Journey.builtInPath("password")))
    let listed = try #require(journey.startupListing(issuer: issuer).first { $0.contains("try: ") })
    let line = String(try #require(listed.components(separatedBy: "try: ").last).prefix { $0 != "(" })
    #expect(line.hasPrefix("strivacity login --profile emulator --tenant \(issuer) "), "\(line)")
    let (home, environment) = try Self.bareMachine()
    let session = try PTYSession(["/bin/bash", "-c", line], environment: environment, columns: 200)
    defer { kill(session.pid, SIGKILL) }
    try session.converse([("[Y/n]: ", ""), ("Email address", "demo@example.com"), ("Password", "Demo-pass-1")])
    try session.converse([("[y/N]", "")])
    #expect(try session.wait(timeout: 30) == 0, "\(session.transcript)")
    let config = try String(contentsOfFile: home.file(".config/strivacity/config.toml"), encoding: .utf8)
    #expect(config.contains("store = \"file\""), "\(config)")
    // The first token, with nothing more to say.
    let token = try run(
      [TestEnvironment.binary("strivacity"), "token", "--profile", "emulator"], environment: environment)
    #expect(token.status == 0 && token.stdout.count > 16, "\(token.stderr) \(token.stdout)")
  }

  /// A store the config names (here the Secret Service, in the profile's table) is the person's
  /// choice: no offer, the keyring's error, and the config as it was.
  @Test func aStoreTheConfigNamesIsNotOfferedAway() throws {
    let harness = try Harness(journey: "password")
    let (home, environment) = try Self.bareMachine()
    let config = try home.writeConfig(
      "[profiles.emulator]\ntenant = \"\(harness.emulator.issuer)\"\nclient_id = \"strivacity-cli\"\n"
        + "store = \"secret-service\"\n")
    let before = try String(contentsOfFile: config, encoding: .utf8)
    let session = try PTYSession(
      [TestEnvironment.binary("strivacity"), "login", "--profile", "emulator"], environment: environment, columns: 200)
    defer { kill(session.pid, SIGKILL) }
    #expect(try session.wait(timeout: 30) != 0)
    #expect(session.transcript.contains("no D-Bus session bus"), "\(session.transcript)")
    #expect(!session.transcript.contains("[Y/n]"), "\(session.transcript)")
    #expect(try String(contentsOfFile: config, encoding: .utf8) == before)
  }

  /// No terminal to ask on: the keyring's error, as before, and nothing saved.
  @Test func withoutATerminalTheErrorStands() throws {
    let harness = try Harness(journey: "password")
    let (home, environment) = try Self.bareMachine()
    let result = try run(
      [
        TestEnvironment.binary("strivacity"), "login", "--profile", "emulator", "--tenant", harness.emulator.issuer,
        "--client-id", "strivacity-cli", "--field", "identifier=demo@example.com", "--field", "password=Demo-pass-1",
      ], environment: environment)
    #expect(result.status != 0)
    #expect(result.stderr.hasPrefix("strivacity: error: no D-Bus session bus"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: home.file(".config/strivacity/config.toml")))
  }
}

// Token files `strivacity agent` keeps fresh (issue 30, `[profiles.P.sinks.NAME]`), the real
// agent against the emulator: a machine profile's 4-s tokens read every half second are always
// valid and rotate, in each format and mode; a symlink and a group-writable directory are refused
// with a line while the other files are kept; `status` and `doctor` show each file; with the
// tenant stopped the file keeps its token until expiry, then is empty. A signed-in profile's
// file and an API's are renewed with the refresh token; the config is read again when it changes.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct AgentSinkTests {
  /// `strivacity agent` in the foreground (its stderr, the journal's lines, kept in a file),
  /// with a runtime directory of the harness's own.
  final class ForegroundAgent {
    let process = Process()
    let log: String

    init(_ h: Harness, environment more: [String: String] = [:]) throws {
      h.useOwnRuntimeDirectory()
      log = try h.home.write("agent.log", "")
      process.executableURL = URL(fileURLWithPath: TestEnvironment.binary("strivacity"))
      process.arguments = ["agent", "--idle-timeout", "1"]
      process.environment = h.environment.merging(more) { _, new in new }
      process.standardError = FileHandle(forWritingAtPath: log)
      process.standardOutput = FileHandle.nullDevice
      try process.run()
    }

    var stderr: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func stop() {
      guard process.isRunning else { return }
      kill(process.processIdentifier, SIGTERM)
      process.waitUntilExit()
    }

    deinit {
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }
  }

  static func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  static func mode(_ path: String) -> mode_t {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & 0o777 : 0
  }

  /// Waits until `path` holds something (at most `seconds`).
  static func waitForToken(_ path: String, seconds: Double = 15) throws {
    try #require(waitUntil(timeout: seconds, every: 0.1) { !contents(path).isEmpty }, "\(path) was never written")
  }

  /// Reads `path` every half second for `seconds`: each read a token that has not expired (a
  /// JWT's `exp`, to the second; an opaque token (the sign-in's): one); returns the tokens seen.
  static func readValid(
    _ path: String, seconds: Double, opaque: Bool = false, token: (String) -> String = { $0 }
  ) -> Set<String> {
    var seen: Set<String> = []
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      let text = contents(path)
      let now = Int64(time(nil))
      let exp = opaque ? nil : MachineProfileTests.claims(token(text))["exp"]?.int.map(Int64.init)
      #expect(
        opaque ? !token(text).isEmpty : exp.map { $0 >= now } == true,
        "\(path) held an expired or no token at \(now): \(text.prefix(10))")
      seen.insert(token(text))
      usleep(500_000)
    }
    return seen
  }

  static func jsonToken(_ text: String) -> String { JSONValue.parse(text)?["access_token"]?.string ?? "" }

  @Test func aMachineProfilesFilesStayValidRotateAndEmptyAtExpiryWhenTheTenantStops() throws {
    let h = try Harness(journey: "machine") { journey in
      for index in journey.clients.indices { journey.clients[index].accessTokenTTL = 4 }
    }
    let dir = h.home.file("sinks")
    let shared = h.home.file("shared")
    mkdir(dir, 0o700)
    mkdir(shared, 0o700)
    chmod(shared, 0o770)
    symlink(dir + "/elsewhere", dir + "/link")
    let p = h.profile
    try h.writeMachineProfile(
      client: "ci-basic",
      """
      [profiles.\(p).sinks.raw]
      path = "\(dir)/raw.token"
      [profiles.\(p).sinks.json]
      path = "\(dir)/token.json"
      format = "json"
      mode = "0640"
      [profiles.\(p).sinks.header]
      path = "\(dir)/header"
      format = "header"
      [profiles.\(p).sinks.link]
      path = "\(dir)/link"
      [profiles.\(p).sinks.shared]
      path = "\(shared)/token"
      """)
    h.extraEnvironment["STRIVACITY_CLIENT_SECRET"] = MachineProfileTests.basicSecret
    let agent = try ForegroundAgent(h)
    try Self.waitForToken(dir + "/raw.token")
    try Self.waitForToken(dir + "/token.json")
    try Self.waitForToken(dir + "/header")

    // Every read valid, tokens rotating (4-s tokens renewed every 2 s), in every format.
    let seen = Self.readValid(dir + "/raw.token", seconds: 10)
    #expect(seen.count >= 3, "the file's token did not rotate: \(seen.count)")
    let raw = Self.contents(dir + "/raw.token")
    #expect(!raw.hasSuffix("\n") && MachineProfileTests.claims(raw)["client_id"]?.string == "ci-basic")
    let json = try #require(JSONValue.parse(Self.contents(dir + "/token.json")))
    #expect(Set(json.object?.keys.map { $0 } ?? []) == ["access_token", "token_type", "expires_at"])
    #expect(json["token_type"] == "Bearer")
    let header = Self.contents(dir + "/header")
    #expect(header.hasPrefix("Authorization: Bearer ey") && header.hasSuffix("\n"), "\(header.prefix(30))")
    #expect(Self.mode(dir + "/raw.token") == 0o600 && Self.mode(dir + "/header") == 0o600)
    #expect(Self.mode(dir + "/token.json") == 0o640)

    // The symlink and the group-writable directory: refused with a line, nothing written there.
    let log = agent.stderr
    #expect(log.contains("sink link of \(p) (\(dir)/link) refused: \(dir)/link is a symlink"), "\(log)")
    #expect(log.contains("sink shared of \(p) (\(shared)/token) refused: its directory \(shared) is writable"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/elsewhere"))
    #expect(!FileManager.default.fileExists(atPath: shared + "/token"))

    // status and doctor: a row per file, never the token.
    let status = try h.strivacity(["status", "--profile", p, "--json"])
    let sinks = try #require(JSONValue.parse(status.stdout)?["sinks"]?.array, "\(status.stdout)")
    #expect(sinks.compactMap { $0["name"]?.string } == ["raw", "json", "header", "link", "shared"])
    #expect(sinks[0]["holds_token"] == true && sinks[0]["written_at"]?.string != nil)
    #expect(sinks[1]["format"] == "json" && sinks[1]["mode"] == "0640" && sinks[1]["api"] == .null)
    #expect(sinks[3]["holds_token"] == false && sinks[3]["written_at"] == .null)
    let table = try h.strivacity(["status", "--profile", p])
    #expect(table.stdout.contains("sink raw       \(dir)/raw.token (raw, 0600): holds a token, written "), "\(table)")
    let doctor = try h.strivacity(["doctor", "--profile", p, "--format", "json"])
    let checks = try #require(JSONValue.parse(doctor.stdout)?["checks"]?.array, "\(doctor.stdout)")
    let rows = Dictionary(checks.compactMap { c in c["check"]?.string.map { ($0, c) } }) { first, _ in first }
    #expect(rows["sink.raw"]?["outcome"] == "pass", "\(doctor.stdout)")
    #expect(rows["sink.json"]?["detail"]?.string?.contains("holds a token") == true)
    #expect(rows["sink.link"]?["outcome"] == "warn" && rows["sink.shared"]?["outcome"] == "warn")
    for output in [status.stdout, table.stdout, doctor.stdout, agent.stderr] {
      for token in seen { #expect(!output.contains(token)) }
    }

    // Idle for the whole test (--idle-timeout 1), the agent that keeps files runs on.
    #expect(agent.process.isRunning)

    // The tenant stops: the file keeps a token that has not expired, then is emptied.
    h.emulator.stop()
    let emptied = waitUntil(timeout: 12, every: 0.2) {
      let text = Self.contents(dir + "/raw.token")
      if text.isEmpty { return true }
      let now = Int64(time(nil))
      let exp = MachineProfileTests.claims(text)["exp"]?.int.map(Int64.init)
      #expect(exp.map { $0 >= now } == true, "an expired token in the file at \(now)")
      return false
    }
    try #require(emptied, "the file was not emptied at expiry")
    #expect(agent.stderr.contains("could not renew the token"), "\(agent.stderr)")
    #expect(agent.stderr.contains("raw.token): the token expired unrenewed: the file is empty"), "\(agent.stderr)")
    agent.stop()
    #expect(Self.contents(dir + "/token.json").isEmpty && Self.contents(dir + "/header").isEmpty)
  }

  /// A signed-in profile's file and an API's, renewed with the refresh token through the agent.
  @Test func aSignedInProfilesFileAndAnAPIsAreRenewed() throws {
    let h = try Harness(journey: "password") { journey in
      for index in journey.clients.indices { journey.clients[index].accessTokenTTL = 4 }
    }
    let apis = APITokenTests.apis.replacingOccurrences(of: "PROFILE", with: h.profile)
    try h.writeProfile("\n" + apis)
    try h.signIn()
    let dir = h.home.file("sinks")
    mkdir(dir, 0o700)
    let p = h.profile
    try h.writeProfile(
      """

      \(apis)

      [profiles.\(p).sinks.own]
      path = "\(dir)/own"

      [profiles.\(p).sinks.orders]
      path = "\(dir)/orders.json"
      api = "orders"
      format = "json"
      """)
    let agent = try ForegroundAgent(h)
    defer { agent.stop() }
    try Self.waitForToken(dir + "/own")
    try Self.waitForToken(dir + "/orders.json")
    let own = Self.readValid(dir + "/own", seconds: 5, opaque: true)
    let orders = Self.readValid(dir + "/orders.json", seconds: 3, token: Self.jsonToken)
    #expect(own.count >= 2, "the sign-in's token did not rotate: \(own.count)\n\(agent.stderr)")
    #expect(orders.count >= 1)
    let claims = MachineProfileTests.claims(try #require(orders.first))
    #expect(claims["aud"]?.array?.first?.string == APIBrokerTests.orders, "\(claims)")
    #expect(own.allSatisfy { $0.hasPrefix("sat_") }, "the sign-in's own (opaque) token")
    let table = try h.strivacity(["status", "--profile", p])
    #expect(table.stdout.contains("sink orders    \(dir)/orders.json (api orders, json, 0600): holds a token"))
    #expect(!agent.stderr.contains("refused") && !agent.stderr.contains("could not"), "\(agent.stderr)")

    // The config changes under the running agent: a new sink is written, one gone is emptied.
    try h.writeProfile(
      """

      \(apis)

      [profiles.\(p).sinks.billing]
      path = "\(dir)/billing"
      api = "billing"
      format = "header"
      """)
    try Self.waitForToken(dir + "/billing", seconds: 10)
    #expect(Self.contents(dir + "/billing").hasPrefix("Authorization: Bearer "))
    let emptied = waitUntil(timeout: 10, every: 0.1) {
      Self.contents(dir + "/own").isEmpty && Self.contents(dir + "/orders.json").isEmpty
    }
    try #require(emptied, "the files of sinks gone from the config were not emptied")
  }
}

// Containers without keyctl (issue 39): Docker's default seccomp profile makes keyctl, add_key
// and request_key fail with EPERM. Tests/Fixtures/no-keyctl.c runs a program under such a filter
// (no Docker engine needed): a machine profile's tokens go to a private file there, so a job's
// calls make one token request, not one each; a person's profile works as before, and doctor
// says its cache is off and why.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing
import TokenCache

@Suite struct ContainerTests {
  /// no-keyctl, compiled into `dir`.
  static func noKeyctl(in dir: ScratchDirectory) throws -> String {
    let source = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Fixtures/no-keyctl.c").path
    let program = dir.file("no-keyctl")
    let compiled = try run(["/usr/bin/cc", "-O1", "-o", program, source], environment: ["PATH": "/usr/bin:/bin"])
    try #require(compiled.status == 0, "\(compiled.stderr)")
    return program
  }

  /// The emulator's ci-bot as a machine profile, no-keyctl beside it, and the environment of its
  /// calls: the client's secret, and an XDG_RUNTIME_DIR with mode `runtimeMode`.
  static func machine(runtimeMode: mode_t) throws -> (Harness, filter: String, [String: String], runtime: String) {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-bot")
    let runtime = h.home.file("run")
    mkdir(runtime, 0o700)
    chmod(runtime, runtimeMode)
    var environment = h.environment
    environment["STRIVACITY_CLIENT_SECRET"] = MachineProfileTests.botSecret
    environment["XDG_RUNTIME_DIR"] = runtime
    return (h, try noKeyctl(in: h.home), environment, runtime)
  }

  /// `doctor --format json` under `filter`: each check's outcome and detail, by its id.
  static func doctor(_ h: Harness, _ filter: String, _ environment: [String: String]) throws -> [String: (
    outcome: String, detail: String
  )] {
    let result = try run(
      [filter, TestEnvironment.binary("strivacity"), "doctor", "--profile", h.profile, "--format", "json"],
      environment: environment.merging(["STRIVACITY_AGENT": "0"]) { _, new in new })
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let report = try #require(JSONValue.parse(Array(result.stdout.utf8)), "\(result.stdout)")
    var checks: [String: (outcome: String, detail: String)] = [:]
    for check in report["checks"]?.array ?? [] {
      checks[check["check"]?.string ?? ""] = (check["outcome"]?.string ?? "", check["detail"]?.string ?? "")
    }
    return checks
  }

  /// The permission bits of `path` (not following a link), or nil.
  static func mode(_ path: String) -> mode_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
  }

  /// 20 calls under the filter make one token request (the small binary answers from the file
  /// once it is there, as it does from the kernel's keyring), with the file 0600 in a 0700
  /// directory under XDG_RUNTIME_DIR; status and doctor say where the tokens are and why; logout
  /// removes the file.
  @Test func aMachineProfileKeepsItsTokensInAPrivateFileWhereKeyctlIsRefused() throws {
    let (h, filter, environment, runtime) = try Self.machine(runtimeMode: 0o700)
    func contained(_ arguments: [String]) throws -> ProcessResult {
      try run([filter, TestEnvironment.binary("strivacity")] + arguments, environment: environment)
    }
    let refused = try run([filter, "/bin/keyctl", "show", "@u"], environment: environment)
    try #require(refused.status != 0 && refused.stderr.contains("Operation not permitted"), "\(refused.stderr)")
    var tokens = Set<String>()
    for _ in 0..<20 {
      let result = try contained(["token", "--profile", h.profile])
      #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
      tokens.insert(result.stdout)
    }
    #expect(tokens.count == 1)
    #expect(h.clientCredentialsRequests == 1, "20 calls, one request")
    // The small binary answers from the file itself: alone, without the full command line beside it.
    mkdir(h.home.file("alone"), 0o700)
    try copyExecutable(TestEnvironment.binary("strivacity"), to: h.home.file("alone/strivacity"))
    let alone = try run(
      [filter, h.home.file("alone/strivacity"), "token", "--profile", h.profile], environment: environment)
    #expect(alone.status == 0 && tokens == [alone.stdout], "\(alone.stderr)")
    let directory = runtime + "/strivacity/machine-tokens"
    let file = directory + "/\(h.profile).token"
    #expect(Self.mode(file) == 0o600 && Self.mode(directory) == 0o700)
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(text.hasPrefix("strivacity:v2:\(h.profile):") && !text.contains(MachineProfileTests.botSecret))
    // Outside the filter the kernel's keyring is the place: nothing of the file is read there.
    #expect(KernelTokenCache.get(StoreKey(profile: h.profile, issuer: h.emulator.issuer, clientID: "ci-bot")) == nil)

    let note = "kept in a private file in \(directory) (the kernel's keyring is refused here: EPERM)"
    let status = try contained(["status", "--profile", h.profile])
    #expect(status.status == 0 && status.stdout.contains("tokens         \(note)"), "\(status.stdout)")
    // The store named is where the tokens are, not the kernel's keyring the profile would use.
    #expect(status.stdout.contains("store          file\n"), "\(status.stdout)")
    #expect(status.stdout.contains("access token   expires in"), "\(status.stdout)")
    let doctor = try Self.doctor(h, filter, environment)
    #expect(doctor["store"]?.outcome == "pass" && doctor["store"]?.detail == "tokens \(note)", "\(doctor)")
    #expect(doctor["kernel-cache"]?.detail.hasPrefix("refused here (keyctl: EPERM)") == true, "\(doctor)")

    // (doctor may try the credentials with a request of its own.)
    let before = h.clientCredentialsRequests
    let logout = try contained(["logout", "--profile", h.profile])
    #expect(logout.status == 0 && !FileManager.default.fileExists(atPath: file), "\(logout.stderr)")
    #expect(try contained(["token", "--profile", h.profile]).status == 0)
    #expect(h.clientCredentialsRequests == before + 1)
  }

  /// Without a private XDG_RUNTIME_DIR (a CI container's), the state directory; with
  /// STRIVACITY_TOKEN_CACHE=off nothing is kept, a request per call, as where the kernel answers.
  @Test func withoutARuntimeDirectoryTheStateDirectoryAndOffMeansOff() throws {
    // A runtime directory that is not private: not used.
    var (h, filter, environment, open) = try Self.machine(runtimeMode: 0o755)
    for _ in 0..<3 {
      let result = try run(
        [filter, TestEnvironment.binary("strivacity"), "token", "--profile", h.profile], environment: environment)
      #expect(result.status == 0, "\(result.stderr)")
    }
    #expect(h.clientCredentialsRequests == 1)
    let directory = h.home.file(".local/state/strivacity/machine-tokens")
    #expect(Self.mode(directory + "/\(h.profile).token") == 0o600 && Self.mode(directory) == 0o700)
    #expect(!FileManager.default.fileExists(atPath: open + "/strivacity/machine-tokens"))
    environment["STRIVACITY_TOKEN_CACHE"] = "off"
    try FileManager.default.removeItem(atPath: directory + "/\(h.profile).token")
    for _ in 0..<2 {
      let result = try run(
        [filter, TestEnvironment.binary("strivacity"), "token", "--profile", h.profile], environment: environment)
      #expect(result.status == 0, "\(result.stderr)")
    }
    #expect(h.clientCredentialsRequests == 3)
    #expect(!FileManager.default.fileExists(atPath: directory + "/\(h.profile).token"))
  }

  /// A person's profile: tokens from the keyring each time, as before; doctor says the
  /// access-token cache is off and why.
  @Test func aPersonsProfileIsToldItsCacheIsOff() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    try h.signIn()
    let filter = try Self.noKeyctl(in: h.home)
    let token = try run(
      [filter, TestEnvironment.binary("strivacity"), "token", "--profile", h.profile], environment: h.environment)
    #expect(token.status == 0 && !token.stdout.isEmpty, "\(token.stderr)")
    let doctor = try Self.doctor(h, filter, h.environment)
    #expect(doctor["kernel-cache"]?.outcome == "warn", "\(doctor)")
    #expect(
      doctor["kernel-cache"]?.detail.hasPrefix(
        "the access-token cache is off: the kernel's keyring is refused here (keyctl: EPERM)") == true, "\(doctor)")
  }
}

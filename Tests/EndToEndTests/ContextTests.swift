// Profiles chosen by where the work is ([[contexts]]): the real binaries in two directories at
// once get two profiles' tokens, and the real git's helper answers with the profile a
// repository's remote chooses.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

extension Harness {
  /// Two profiles on the emulator (`<profile>-a`, `<profile>-b`, `a` first in the file), both
  /// signed in, with the `rules` for them after them; their names.
  func twoProfiles(_ settings: (String) -> String = { _ in "" }, rules: (String, String) -> String) throws -> (
    a: String, b: String
  ) {
    let (a, b) = (profile + "-a", profile + "-b")
    try home.writeConfig(
      StrivacityConfig.profile(a, tenant: emulator.issuer, clientID: "strivacity-cli", settings(a)) + "\n"
        + StrivacityConfig.profile(b, tenant: emulator.issuer, clientID: "strivacity-cli", settings(b)) + "\n"
        + rules(a, b))
    for name in [a, b] {
      let login = try run(
        [
          TestEnvironment.binary("strivacity"), "login", "--profile", name, "--sdk-mode", "web",
          "--field", "identifier=demo@example.com", "--field-env", "password=PW",
        ], environment: environment.merging(["PW": "Demo-pass-1"]) { _, new in new })
      #expect(login.status == 0, "\(login.stderr)")
    }
    return (a, b)
  }

  func accessToken(_ name: String) throws -> String {
    try #require(try storedSecret(profile: name)?["tokens"]?["access_token"]?.string)
  }
}

@Suite struct ContextTests {
  @Test func twoDirectoriesGetTwoProfilesAtOnce() throws {
    let h = try Harness(journey: "password")
    let (a, b) = try h.twoProfiles(rules: {
      "[[contexts]]\ndirectory = \"~/work/b\"\nprofile = \"\($1)\"\n\n"
        + "[[contexts]]\ndirectory = \"~/work\"\nprofile = \"\($0)\"\n"
    })
    for directory in ["work/a/x", "work/b/x"] {
      try FileManager.default.createDirectory(atPath: h.home.file(directory), withIntermediateDirectories: true)
    }
    // Both binaries, in both directories, side by side.
    let calls = [
      ("strivacity", "work/a/x", a), ("strivacity", "work/b/x", b), ("strivacity-cli", "work/a/x", a),
      ("strivacity-cli", "work/b/x", b),
    ]
    let results = Mutex<[Int: ProcessResult]>([:])
    DispatchQueue.concurrentPerform(iterations: calls.count * 3) { index in
      let (binary, directory, _) = calls[index % calls.count]
      let result = try? run(
        [TestEnvironment.binary(binary), "token"], environment: h.environment,
        currentDirectory: h.home.file(directory))
      results.withLock { $0[index] = result }
    }
    for (index, result) in results.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
      let (binary, directory, expected) = calls[index % calls.count]
      #expect(result.status == 0, "\(binary) in \(directory): \(result.stderr)")
      #expect(result.stdout == (try h.accessToken(expected)) + "\n", "\(binary) in \(directory)")
    }
    let status = try run(
      [TestEnvironment.binary("strivacity"), "status"], environment: h.environment,
      currentDirectory: h.home.file("work/b/x"))
    #expect(status.stdout.contains("\(b), chosen by context ~/work/b (config line"), "\(status.stdout)")
    // Here both rules match: the first chooses, and doctor says the other is ignored.
    let doctor = try run(
      [TestEnvironment.binary("strivacity"), "doctor"], environment: h.environment,
      currentDirectory: h.home.file("work/b/x"))
    let report = doctor.stdout.replacing("\n                ", with: " ")
    #expect(report.contains("\(b) (chosen by context ~/work/b (config line 11))"), "\(report)")
    #expect(report.contains("! contexts      here, context ~/work/b (line 11) chooses \(b)"), "\(report)")
    #expect(report.contains("also matching, ignored: ~/work (line 15, profile \(a))"), "\(report)")
    let elsewhere = try run(
      [TestEnvironment.binary("strivacity"), "status", "--profile", a], environment: h.environment,
      currentDirectory: h.home.file("work/b/x"))
    #expect(elsewhere.stdout.contains("\(a), chosen by --profile"), "\(elsewhere.stdout)")
    let byVariable = try run(
      [TestEnvironment.binary("strivacity"), "token"],
      environment: h.environment.merging(["STRIVACITY_PROFILE": a]) { _, new in new },
      currentDirectory: h.home.file("work/b/x"))
    #expect(byVariable.stdout == (try h.accessToken(a)) + "\n")
  }

  @Test func gitsHelperAnswersWithTheProfileTheRemoteChooses() throws {
    let h = try Harness(journey: "password")
    let server = try GitServer(introspect: h.emulator.issuer)
    let (a, b) = try h.twoProfiles(
      { _ in "git_hosts = [\"\(server.host)\"]\n" },
      rules: { "[[contexts]]\ngit_remote = \"\(server.host)/repo\"\nprofile = \"\($1)\"\n" })
    // Outside any repository the first profile covering the host answers.
    let clone = try h.git(["clone", "-q", server.url, h.home.file("elsewhere")])
    #expect(clone.status == 0, "\(clone.stderr)")
    #expect(server.seen.withLock { $0.tokens }.allSatisfy { $0 == (try? h.accessToken(a)) })
    // In a repository whose remote a rule names, that rule's profile does.
    server.seen.withLock { $0.tokens.removeAll() }
    let repository = h.home.file("repo")
    #expect(try h.git(["init", "-q", repository]).status == 0)
    #expect(try h.git(["remote", "add", "origin", server.url], in: repository).status == 0)
    let fetch = try h.git(["fetch", "-q", "origin"], in: repository)
    #expect(fetch.status == 0, "\(fetch.stderr)")
    let seen = server.seen.withLock { $0.tokens }
    #expect(!seen.isEmpty && seen.allSatisfy { $0 == (try? h.accessToken(b)) }, "\(seen.count) tokens")
    // `use --here` in a repository writes its remote.
    let use = try run(
      [TestEnvironment.binary("strivacity"), "use", "--here", a], environment: h.environment,
      currentDirectory: repository)
    #expect(use.status == 0, "\(use.stderr)")
    let written = try h.home.readConfig()
    #expect(written.contains("[[contexts]]\ngit_remote = \"\(server.host)/repo\"\nprofile = \"\(a)\""), "\(written)")
  }

  @Test func dockersHelperAsksTheContextsProfileFirst() throws {
    let h = try Harness(journey: "password")
    let (a, b) = try h.twoProfiles(
      { name in
        """

        [profiles.\(name).apis.registry]
        url = "registry.example.com"
        audience = "https://api.example.com/orders"
        resource = ["https://api.example.com/orders/"]
        scopes = ["orders:read"]
        """
      },
      rules: { "[[contexts]]\ndirectory = \"~/work/b\"\nprofile = \"\($1)\"\n" })
    try FileManager.default.createDirectory(atPath: h.home.file("work/b"), withIntermediateDirectories: true)
    let helper = try h.dockerHelperDirectory() + "/docker-credential-strivacity"
    var answered: Set<String> = []
    for (directory, name) in [("work/b", b), (".", a)] {
      let get = try run(
        [helper, "get"], environment: h.environment, stdin: "registry.example.com",
        currentDirectory: h.home.file(directory))
      #expect(get.status == 0, "\(get.stderr)")
      let token = try h.strivacity(["token", "--profile", name, "--api", "registry"]).stdout
      #expect(
        !token.isEmpty && get.stdout.contains("\"Secret\":\"\(token.dropLast())\""), "\(directory): \(get.stdout)")
      answered.insert(token)
    }
    #expect(answered.count == 2, "each profile's own token")
  }
}

// The git credential helper with the real git, against a smart-HTTP server that checks tokens
// at the emulator; `strivacity curl` and the documented curl pipelines with the real curl; and
// no token in any process's command line meanwhile.
import CurlTransport
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

extension Harness {
  /// A profile for the password journey whose git_hosts name `hosts`; signed in.
  func gitProfile(hosts: [String]) throws {
    try writeProfile("git_hosts = [\(hosts.map { "\"\($0)\"" }.joined(separator: ", "))]")
    try signIn()
  }

  /// A PATH where `git-credential-strivacity` is this build's binary (as packages link it).
  func helperPath() throws -> String {
    let bin = home.file("bin")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    let link = bin + "/git-credential-strivacity"
    if !FileManager.default.fileExists(atPath: link) {
      try FileManager.default.createSymbolicLink(
        atPath: link, withDestinationPath: TestEnvironment.binary("strivacity"))
    }
    return bin + ":/usr/bin:/bin"
  }

  /// Runs git with only our helper configured, never prompting.
  func git(_ arguments: [String], in directory: String? = nil) throws -> ProcessResult {
    var env = environment
    env["PATH"] = try helperPath()
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    let base = [
      "/usr/bin/git", "-c", "credential.helper=", "-c", "credential.helper=strivacity",
      "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main",
    ]
    return try run(base + arguments, environment: env, currentDirectory: directory)
  }

  func credential(_ action: String, _ input: String) throws -> ProcessResult {
    try run([TestEnvironment.binary("strivacity"), "credential", action], environment: environment, stdin: input)
  }
}

@Suite struct GitAndCurlTests {
  @Test func cloneAndPushWithTheHelper() throws {
    let h = try Harness(journey: "password")
    let server = try GitServer(introspect: h.emulator.issuer)
    try h.gitProfile(hosts: [server.host])
    let clone = try h.git(["clone", "-q", server.url, h.home.file("work")])
    #expect(clone.status == 0, "\(clone.stderr)")
    let commit = try h.git(["commit", "-q", "--allow-empty", "-m", "second"], in: h.home.file("work"))
    #expect(commit.status == 0, "\(commit.stderr)")
    let push = try h.git(["push", "-q", "origin", "HEAD:main"], in: h.home.file("work"))
    #expect(push.status == 0, "\(push.stderr)")
    let seen = server.seen.withLock { $0 }
    #expect(seen.users.allSatisfy { $0 == "oauth2" } && !seen.users.isEmpty)
    #expect(seen.tokens.allSatisfy { $0 == (try? h.storedSecret()?["tokens"]?["access_token"]?.string) ?? "" })
    let log = try run(
      ["/usr/bin/git", "--git-dir", server.root.file("repo.git"), "log", "--format=%s", "main"],
      environment: ["PATH": "/usr/bin:/bin"])
    #expect(log.stdout == "second\nfirst\n")
    #expect(clone.stdout.isEmpty && !clone.stderr.contains("sat_"), "no token in git's output")
  }

  @Test func anotherHostGetsNothing() throws {
    let h = try Harness(journey: "password")
    let ours = try GitServer(introspect: h.emulator.issuer)
    let theirs = try GitServer(introspect: h.emulator.issuer)
    try h.gitProfile(hosts: [ours.host])
    let clone = try h.git(["clone", "-q", theirs.url, h.home.file("other")])
    #expect(clone.status != 0)
    #expect(theirs.seen.withLock { $0.tokens.isEmpty }, "no token was offered to the other host")
    let get = try h.credential("get", "protocol=http\nhost=\(theirs.host)\n")
    #expect(get.status == 0)
    #expect(get.stdout.isEmpty && get.stderr.isEmpty, "silent, so git asks its next helper")
    let https = try h.credential("get", "protocol=https\nhost=evil.example\n")
    #expect(https.stdout.isEmpty)
  }

  @Test func anExpiredTokenIsRefreshedBetweenGitOperations() throws {
    let h = try Harness(journey: "password")
    let server = try GitServer(introspect: h.emulator.issuer)
    try h.gitProfile(hosts: [server.host])
    #expect(try h.git(["clone", "-q", server.url, h.home.file("work")]).status == 0)
    try h.expireStoredAccessToken(in: 10)
    let fetch = try h.git(["fetch", "-q"], in: h.home.file("work"))
    #expect(fetch.status == 0, "\(fetch.stderr)")
    #expect(try h.grants("refresh_token") == 1)
    #expect(server.seen.withLock { $0.tokens.last } == (try h.storedSecret()?["tokens"]?["access_token"]?.string))
  }

  @Test func aRevokedTokenMakesGitFailAndErase() throws {
    let h = try Harness(journey: "password")
    let server = try GitServer(introspect: h.emulator.issuer)
    try h.gitProfile(hosts: [server.host])
    #expect(try h.git(["clone", "-q", server.url, h.home.file("work")]).status == 0)
    let access = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    try h.revokeAtTheTenant(access)
    let failed = try h.git(["fetch", "-q"], in: h.home.file("work"))
    #expect(failed.status != 0, "the revoked token is refused")
    // git called erase with it: the cached access token is expired now, the refresh token kept.
    let stored = try #require(try h.storedSecret()?["tokens"])
    #expect(stored["access_token"]?.string == access)
    #expect((stored["expires_at"]?.int ?? .max) < Int(Date().timeIntervalSince1970))
    #expect(stored["refresh_token"]?.string != nil)
    let again = try h.git(["fetch", "-q"], in: h.home.file("work"))
    #expect(again.status == 0, "the next get refreshes: \(again.stderr)")
    #expect(try h.grants("refresh_token") == 1)
  }

  @Test func bearerForGitsThatCanTakeIt() throws {
    // git 2.46+ sends capability[]=authtype; git here is older, so speak to the helper directly.
    let h = try Harness(journey: "password")
    try h.gitProfile(hosts: ["127.0.0.1:9"])
    let access = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    let expiry = try #require(try h.storedSecret()?["tokens"]?["expires_at"]?.int)
    let bearer = try h.credential(
      "get",
      "capability[]=authtype\ncapability[]=state\nprotocol=http\nhost=127.0.0.1:9\nwwwauth[]=Bearer realm=\"x\"\n\n")
    #expect(
      bearer.stdout
        == "capability[]=authtype\nauthtype=Bearer\ncredential=\(access)\nephemeral=true\n"
        + "password_expiry_utc=\(expiry)\n")
    let basic = try h.credential("get", "protocol=http\nhost=127.0.0.1:9\npath=repo.git\n")
    #expect(basic.stdout == "username=oauth2\npassword=\(access)\npassword_expiry_utc=\(expiry)\n")
    #expect(
      try h.credential("store", "protocol=http\nhost=127.0.0.1:9\nusername=oauth2\npassword=\(access)\n").stdout.isEmpty
    )
    // erase with someone else's password leaves ours alone; with ours, it expires it.
    #expect(try h.credential("erase", "protocol=http\nhost=127.0.0.1:9\npassword=not-ours\n").status == 0)
    #expect(try h.storedSecret()?["tokens"]?["expires_at"]?.int == expiry)
    #expect(
      try h.credential("erase", "protocol=http\nhost=127.0.0.1:9\nauthtype=Bearer\ncredential=\(access)\n").status == 0)
    #expect((try h.storedSecret()?["tokens"]?["expires_at"]?.int ?? .max) < expiry)
    let garbage = try h.credential("get", "this is not the protocol\n")
    #expect(garbage.status == 0 && garbage.stdout.isEmpty)
    #expect(garbage.stderr == "strivacity: error: git credential: credential request line 1 is not key=value\n")
  }

  /// Not signed in and no terminal to sign in on: nothing for git on stdout (it moves on to its
  /// next helper or prompt), and one line on stderr, which git shows, naming the login to run,
  /// as Docker's and cargo's helpers say it (issue 47, point 5).
  @Test func notSignedInWithoutATerminalSaysSoInOneLine() throws {
    let h = try Harness(journey: "password")
    try h.home.writeConfig(
      StrivacityConfig.profile(h.profile, tenant: h.emulator.issuer, clientID: "c", "git_hosts = [\"127.0.0.1:9\"]\n"))
    let get = try h.credential("get", "protocol=http\nhost=127.0.0.1:9\n")
    #expect(get.status == 0)
    #expect(get.stdout.isEmpty)
    #expect(
      get.stderr.hasPrefix("strivacity: error: git credential: not signed in to \(h.profile)")
        && get.stderr.contains("strivacity login") && get.stderr.split(separator: "\n").count == 1, "\(get.stderr)")
  }

  @Test func gitAsIsUsesTheHelperByItsName() throws {
    // argv[0] dispatch: `git credential-strivacity get` runs our binary as the helper.
    let h = try Harness(journey: "password")
    try h.gitProfile(hosts: ["127.0.0.1:9"])
    var env = h.environment
    env["PATH"] = try h.helperPath()
    let result = try run(
      ["/usr/bin/git", "credential-strivacity", "get"], environment: env, stdin: "protocol=http\nhost=127.0.0.1:9\n")
    #expect(result.stdout.hasPrefix("username=oauth2\npassword=sat_"), "\(result.stderr)")
  }

  @Test func setupGitAddsAndRemovesTheHelper() throws {
    let h = try Harness(journey: "password")
    try h.gitProfile(hosts: [])
    var env = h.environment
    env["PATH"] = try h.helperPath()
    let setup = try run(
      [TestEnvironment.binary("strivacity"), "setup-git", "--profile", h.profile, "--host", "git.example.com"],
      environment: env)
    #expect(setup.status == 0, "\(setup.stderr)")
    _ = try run(
      ["/usr/bin/git", "config", "--global", "--add", "credential.https://git.example.com.helper", "cache"],
      environment: env)
    let helpers = try run(
      ["/usr/bin/git", "config", "--global", "--get-all", "credential.https://git.example.com.helper"], environment: env
    )
    #expect(helpers.stdout == "strivacity\ncache\n", "next to other helpers")
    let config = try h.home.readConfig()
    #expect(config.contains("git_hosts = [\"git.example.com\"]"))
    let undo = try run(
      [
        TestEnvironment.binary("strivacity"), "setup-git", "--profile", h.profile, "--host", "git.example.com",
        "--undo",
      ], environment: env)
    #expect(undo.status == 0, "\(undo.stderr)")
    #expect(
      try run(
        ["/usr/bin/git", "config", "--global", "--get-all", "credential.https://git.example.com.helper"],
        environment: env
      ).stdout == "cache\n")
    #expect(
      try h.home.readConfig().contains(
        "git_hosts = []"))
  }

  /// --local outside a repository is a usage error that says what to do, and changes nothing.
  @Test func setupGitLocalOutsideARepositoryIsAUsageError() throws {
    let h = try Harness(journey: "password")
    try h.gitProfile(hosts: [])
    var env = h.environment
    env["PATH"] = try h.helperPath()
    env["GIT_CEILING_DIRECTORIES"] = h.home.path
    let config = try h.home.readConfig()
    let result = try run(
      [
        TestEnvironment.binary("strivacity"), "setup-git", "--profile", h.profile, "--host", "git.example.com",
        "--local",
      ],
      environment: env, currentDirectory: h.home.path)
    #expect(result.status == 2 && result.stdout.isEmpty)
    #expect(
      result.ownStderr.hasPrefix("strivacity: error: --local needs a git repository")
        && result.ownStderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(try h.home.readConfig() == config)
  }

  /// Without git-credential-strivacity on PATH, git is told the absolute path of `strivacity`
  /// (the small binary that answers from the access-token cache), not of strivacity-cli, whose
  /// process runs setup-git; git then gets its answer through it.
  @Test func setupGitNamesTheSmallBinaryByPath() throws {
    let h = try Harness(journey: "password")
    try h.gitProfile(hosts: [])
    try h.signIn()
    // A PATH with git alone: no git-credential-strivacity, even where a package installed one.
    let bin = h.home.file("git-only")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: bin + "/git", withDestinationPath: "/usr/bin/git")
    var env = h.environment
    env["PATH"] = bin
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_TERMINAL_PROMPT"] = "0"
    let setup = try run(
      [TestEnvironment.binary("strivacity"), "setup-git", "--profile", h.profile, "--host", "git.example.com"],
      environment: env)
    #expect(setup.status == 0, "\(setup.stderr)")
    let front = URL(fileURLWithPath: TestEnvironment.binary("strivacity")).resolvingSymlinksInPath().path
    let helpers = try run(
      ["/usr/bin/git", "config", "--global", "--get-all", "credential.https://git.example.com.helper"], environment: env
    )
    #expect(helpers.stdout == "!'\(front)' credential\n")
    let fill = try run(
      ["/usr/bin/git", "credential", "fill"], environment: env, stdin: "protocol=https\nhost=git.example.com\n\n")
    #expect(fill.stdout.contains("password=sat_"), "\(fill.stderr)")
  }

  /// A URL-prefix host can only match when git sends the path: setup-git turns that on for the
  /// prefix, and the real git then gets an answer for a repository under it and none elsewhere.
  @Test func aURLPrefixHostIsMatchedOnWhatGitSends() throws {
    let h = try Harness(journey: "password")
    let server = try GitServer(introspect: h.emulator.issuer)
    try h.gitProfile(hosts: [])
    var env = h.environment
    env["PATH"] = try h.helperPath()
    let prefix = server.url  // http://127.0.0.1:PORT/repo.git: a prefix with a path
    let setup = try run(
      [TestEnvironment.binary("strivacity"), "setup-git", "--profile", h.profile, "--host", prefix], environment: env)
    #expect(setup.status == 0, "\(setup.stderr)")
    let useHttpPath = try run(
      ["/usr/bin/git", "config", "--global", "--get", "credential.\(prefix).useHttpPath"], environment: env)
    #expect(useHttpPath.stdout == "true\n")
    env["GIT_TERMINAL_PROMPT"] = "0"
    let clone = try run(["/usr/bin/git", "clone", "-q", server.url, h.home.file("work")], environment: env)
    #expect(clone.status == 0, "\(clone.stderr)")
    let undo = try run(
      [TestEnvironment.binary("strivacity"), "setup-git", "--profile", h.profile, "--host", prefix, "--undo"],
      environment: env)
    #expect(undo.status == 0, "\(undo.stderr)")
    #expect(
      try run(["/usr/bin/git", "config", "--global", "--get", "credential.\(prefix).useHttpPath"], environment: env)
        .status == 1)
  }

  @Test func curlGetsTheTokenWithoutArgv() throws {
    let h = try Harness(journey: "password")
    try h.gitProfile(hosts: [])
    let access = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    // Slow answers keep the processes alive while /proc is searched for the token.
    try h.control("faults", ["endpoint": "userinfo", "kind": "delay", "delay": .number(1.5), "count": 3])
    let userinfo = h.emulator.issuer + "userinfo"
    let strivacity = TestEnvironment.binary("strivacity")
    let commands = [
      [strivacity, "curl", "--profile", h.profile, "--", "-sS", userinfo],
      [
        "/bin/bash", "-c", "\"$0\" token --profile \"$1\" --format curl | curl -sS -K - \"$2\"", strivacity, h.profile,
        userinfo,
      ],
      [
        "/bin/bash", "-c", "curl -sS -H @<(\"$0\" token --profile \"$1\" --format header) \"$2\"", strivacity,
        h.profile, userinfo,
      ],
    ]
    for command in commands {
      let box = ResultBox()
      let done = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        box.result = try? run(command, environment: h.environment)
        done.signal()
      }
      var leaked: [String] = []
      var scans = 0
      while done.wait(timeout: .now() + 0.05) == .timedOut {
        scans += 1
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        where pid.allSatisfy(\.isNumber) {
          if let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
            String(decoding: cmdline, as: UTF8.self).contains(access)
          {
            leaked.append(pid)
          }
        }
      }
      #expect(scans > 5, "the scan ran while the command did")
      #expect(leaked.isEmpty, "the token is in the command line of \(leaked)")
      let output = try #require(box.result)
      #expect(output.status == 0, "\(output.stderr)")
      #expect(
        JSONValue.parse(output.stdout)?["email"] == "demo@example.com", "the token reached the server: \(output.stdout)"
      )
    }
  }

  /// strivacity's options are written in full and come first; curl's start at the first other
  /// argument: `-v` is curl's (its "> GET" lines, none of strivacity's), `--` is optional, and
  /// `--help` right after `curl` is strivacity curl's help.
  @Test func curlsOptionsReachCurl() throws {
    let h = try Harness(journey: "password")
    try h.gitProfile(hosts: [])
    let userinfo = h.emulator.issuer + "userinfo"
    let verbose = try h.strivacity(["curl", "--profile", h.profile, "-v", "-sS", userinfo])
    #expect(verbose.status == 0 && verbose.stdout.contains("\"sub\""), "\(verbose.stderr)")
    #expect(verbose.stderr.contains("> GET /userinfo"), "curl's -v")
    #expect(!verbose.stderr.contains("strivacity: GET"), "not strivacity's --verbose")
    let ours = try h.strivacity(["curl", "--verbose", "--profile", h.profile, "-sS", userinfo])
    #expect(ours.status == 0 && !ours.stderr.contains("> GET"), "\(ours.stderr)")
    let help = try h.strivacity(["curl", "--help"])
    #expect(help.status == 0 && help.stdout.contains("USAGE: strivacity curl"))
  }

  @Test func curlRefusesOtherHosts() throws {
    let h = try Harness(journey: "password")
    try h.gitProfile(hosts: [])
    let result = try h.strivacity(["curl", "--profile", h.profile, "--", "-sS", "https://evil.example/steal"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("refusing to send the token to https://evil.example"))
    let none = try h.strivacity(["curl", "--profile", h.profile, "--", "-sS", "--version"])
    #expect(none.status == 2)
  }
}

/// Issue 25's review findings, as a hostile URL or config would try them: a URL prefix is
/// compared as the server reads the path, entries with user info are refused, and nesting in the
/// config is an error with its line in both binaries, never a crash.
@Suite struct TokenDestinationEndToEndTests {
  static let binaries = ["strivacity", "strivacity-cli"]

  /// `hosts` and `git_hosts` name `/org/` on a server: a path leaving it by `..` (resolved as
  /// curl and servers resolve it) or by an encoded dot, slash or backslash gets no token, from
  /// `strivacity curl` or git's `get` in either binary; a path under it does.
  @Test func aPrefixIsComparedAsTheServerReadsThePath() throws {
    let h = try Harness(journey: "password")
    let server = try GitServer(introspect: h.emulator.issuer)
    let prefix = "http://\(server.host)/org/"
    try h.writeProfile("git_hosts = [\"\(prefix)\"]\nhosts = [\"\(prefix)\"]")
    try h.signIn()
    for binary in Self.binaries {
      func get(_ path: String) throws -> ProcessResult {
        try run(
          [TestEnvironment.binary(binary), "credential", "get"], environment: h.environment,
          stdin: "protocol=http\nhost=\(server.host)\npath=\(path)\n")
      }
      #expect(try get("org/repo.git").stdout.contains("password="), "\(binary): under the prefix")
      for path in [
        "org/../other/repo.git", "org/%2e%2e/other/repo.git", "org%2f..%2fother", "org/..%5cother", "org\\..\\other",
        "org/..;/other",
      ] {
        let answer = try get(path)
        #expect(answer.status == 0 && answer.stdout.isEmpty, "\(binary) answered for \(path): \(answer.stdout)")
      }
    }
    let outside = try h.strivacity(["curl", "--profile", h.profile, "-sS", "http://\(server.host)/org/../other/x"])
    #expect(outside.status == 2)
    #expect(outside.stderr.contains("refusing to send the token to http://\(server.host)/other/x"), "\(outside.stderr)")
    let encoded = try h.strivacity(["curl", "--profile", h.profile, "-sS", "http://\(server.host)/org/%2E%2e/other/x"])
    #expect(encoded.status == 2 && encoded.stderr.contains("encoded dot (%2e)"), "\(encoded.stderr)")
    #expect(server.seen.withLock { $0.tokens.isEmpty }, "the server never saw the token")
  }

  /// setup-git's --host of the finding reads like git.example.com and is evil.example: refused,
  /// nothing written; the same entry in the config is a config error naming its line.
  @Test func hostsWithUserInfoAQueryOrAFragmentAreRefused() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    for host in [
      "https://git.example.com:443@evil.example/", "https://git.example.com/org?x", "https://git.example.com/#f",
    ] {
      let setup = try h.strivacity(["setup-git", "--profile", h.profile, "--host", host])
      #expect(setup.status == 2, "\(host): \(setup.stderr)")
      #expect(setup.stderr.contains("--host:"), "\(setup.stderr)")
    }
    #expect(
      try !h.home.readConfig().contains("git_hosts"))
    #expect(
      try run(["/usr/bin/git", "config", "--global", "--get-regexp", "credential"], environment: h.environment).stdout
        .isEmpty)
    try h.writeProfile("hosts = [\"api.example.com\", \"https://git.example.com:443@evil.example/\"]")
    let token = try h.strivacity(["token", "--profile", h.profile])
    #expect(token.status == 2 && token.stdout.isEmpty, "\(token.stderr)")
    #expect(token.stderr.contains("config.toml:4:") && token.stderr.contains("user info"), "\(token.stderr)")
    for binary in Self.binaries {
      let get = try run(
        [TestEnvironment.binary(binary), "credential", "get"], environment: h.environment,
        stdin: "protocol=https\nhost=evil.example\n")
      #expect(get.stdout.isEmpty && get.stderr.contains("user info"), "\(binary): \(get.stderr)")
    }
  }

  /// The accepted form is what setup-git writes and says: the parsed entry, not the input.
  @Test func setupGitSaysAndWritesTheParsedEntry() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    let setup = try h.strivacity([
      "setup-git", "--profile", h.profile, "--host", "HTTPS://Git.Example.com:443/a/./org/",
    ])
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(setup.stderr.contains("for https://git.example.com/a/org/:"), "\(setup.stderr)")
    #expect(
      try h.home.readConfig().contains(
        "git_hosts = [\"https://git.example.com/a/org\"]"))
  }

  /// A profile's `min_ttl` is git's margin too (a long clone): refreshed when fewer seconds are
  /// left, whichever binary answers; when the tenant's tokens live less, git gets the token and
  /// the user a warning on stderr.
  @Test func aConfiguredMarginHoldsForGit() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("git_hosts = [\"git.example.com\"]\nmin_ttl = 2700")
    try h.signIn()
    var refreshes = 0
    for binary in Self.binaries {
      try h.expireStoredAccessToken(in: 1_700)
      let get = try run(
        [TestEnvironment.binary(binary), "credential", "get"], environment: h.environment,
        stdin: "protocol=https\nhost=git.example.com\n")
      refreshes += 1
      #expect(get.status == 0 && get.stderr.isEmpty, "\(binary): \(get.stderr)")
      #expect(
        get.stdout.contains("password=\(try h.storedSecret()?["tokens"]?["access_token"]?.string ?? "-")\n"),
        "\(binary)")
      #expect(try h.grants("refresh_token") == refreshes, "\(binary) refreshed with 1700 s left")
    }
    try h.writeProfile("git_hosts = [\"git.example.com\"]\nmin_ttl = 7200")
    for binary in Self.binaries {
      let get = try run(
        [TestEnvironment.binary(binary), "credential", "get"], environment: h.environment,
        stdin: "protocol=https\nhost=git.example.com\n")
      #expect(get.stdout.contains("password="), "\(binary)")
      #expect(
        get.stderr.contains("warning: git credential: \(h.profile): the access token has ")
          && get.stderr.contains("less than the 7200 s asked"), "\(binary): \(get.stderr)")
    }
  }

  /// Dotted keys and headers of 30000 parts (60 KB) killed `token` and git's `get` with signal
  /// 11: now a config error with the line, from both binaries.
  @Test func deepNestingInTheConfigIsAnErrorWithItsLine() throws {
    let h = try Harness(journey: "password")
    let deep = Array(repeating: "a", count: 30_000).joined(separator: ".")
    for (text, line) in [("x = 1\n\(deep) = 1\n", 2), ("x = 1\n\n[\(deep)]\n", 3)] {
      try h.home.writeConfig(text)
      for binary in Self.binaries {
        let token = try run([TestEnvironment.binary(binary), "token"], environment: h.environment)
        #expect(token.status == 2, "\(binary): \(token.status) \(token.stderr)")
        #expect(
          token.stderr.contains("config.toml:\(line):") && token.stderr.contains("nested more than 32 deep"),
          "\(binary): \(token.stderr)")
        let get = try run(
          [TestEnvironment.binary(binary), "credential", "get"], environment: h.environment,
          stdin: "protocol=https\nhost=git.example.com\n")
        #expect(get.status < 128 && get.stdout.isEmpty, "\(binary): \(get.status)")
        #expect(get.stderr.contains("nested more than 32 deep"), "\(binary): \(get.stderr)")
      }
    }
  }
}

final class ResultBox: @unchecked Sendable {
  var result: ProcessResult?
}

import Testing

@testable import StrivacityConfig
@testable import StrivacityCore

@Suite struct ContextsTests {
  static let profiles = """
    default_profile = "personal"

    [profiles.personal]
    tenant = "https://p.example.com"
    client_id = "p"

    [profiles.acme]
    tenant = "https://a.example.com"
    client_id = "a"

    """

  // MARK: arrays of tables

  @Test func arraysOfTablesKeepOrderAndPositions() throws {
    let root = try TOML.parse("x = 1\n[[t]]\na = 1\nb.c = 2\n\n[[t]]\na = 3\n[u]\nk = 1\n[[t]]\n")
    guard case .array(let items) = root["t"], items.count == 3, case .table(let first) = items[0],
      case .table(let second) = items[1], case .table(let third) = items[2]
    else {
      Issue.record("t is not an array of three tables: \(String(describing: root["t"]))")
      return
    }
    #expect(first["a"] == .integer(1))
    #expect(first.position?.line == 2)
    guard case .table(let b) = first["b"] else { return #expect(Bool(false)) }
    #expect(b["c"] == .integer(2))
    #expect(second["a"] == .integer(3) && second.position?.line == 6)
    #expect(third.entries.isEmpty && third.position?.line == 10)
    guard case .table(let u) = root["u"] else { return #expect(Bool(false)) }
    #expect(u["k"] == .integer(1))
  }

  @Test func hostileArraysOfTablesAreErrorsNotCrashes() {
    for text in [
      String(repeating: "[[t]]\n", count: 20_000) + "a = 1",
      "[[" + Array(repeating: "a", count: 10_000).joined(separator: ".") + "]]",
      "[[t]]]", "[[t]] x", "[[\"t\"]]\n[[t]]\na=1", "[[t]]\n[[t.u]]", "[ [t]]",
    ] {
      _ = try? TOML.parse(text)  // any answer but a crash
    }
    #expect((try? TOML.parse("[[t]]]")) == nil)
    #expect((try? TOML.parse("[[t]]\n[[t.u]]")) == nil)
  }

  // MARK: rules read from the config

  @Test func rulesAreReadInOrderWithTheirLines() throws {
    let config = try Config.parse(
      Self.profiles + """
        [[contexts]]
        directory = "~/src/acme"
        profile = "acme"

        [[contexts]]
        git_remote = "github.com/acme"
        profile = "acme"

        [[contexts]]
        env = "CI_PROJECT=acme=x"
        profile = "acme"
        """, path: "c")
    #expect(config.contexts.map(\.description) == ["~/src/acme", "git remote github.com/acme", "CI_PROJECT=acme=x"])
    #expect(config.contexts.map(\.position.line) == [10, 14, 18])
    #expect(config.contexts[2].match == .environment(name: "CI_PROJECT", value: "acme=x"))
  }

  struct BadRule: CustomTestStringConvertible, Sendable {
    var rule: String
    var fragment: String
    var testDescription: String { fragment }
  }

  @Test(arguments: [
    BadRule(
      rule: "directory = \"~/x\"\nprofile = \"acem\"", fragment: "which the file does not have; did you mean 'acme'?"),
    BadRule(rule: "profile = \"acme\"", fragment: "exactly one of directory, git_remote and env"),
    BadRule(rule: "directory = \"/x\"\nenv = \"A=b\"\nprofile = \"acme\"", fragment: "(it has 2)"),
    BadRule(rule: "directory = \"/x\"", fragment: "needs the profile"),
    BadRule(rule: "directory = \"src\"\nprofile = \"acme\"", fragment: "must be absolute"),
    BadRule(rule: "env = \"=x\"\nprofile = \"acme\"", fragment: "NAME=VALUE"),
    BadRule(rule: "env = \"A\"\nprofile = \"acme\"", fragment: "NAME=VALUE"),
    BadRule(rule: "git_remote = \"\"\nprofile = \"acme\"", fragment: "git_remote must be a host"),
    BadRule(rule: "directory = 1\nprofile = \"acme\"", fragment: "must be a string"),
    BadRule(rule: "directory = \"/x\"\nprofile = \"../x\"", fragment: "invalid profile name"),
  ])
  func badRulesAreErrorsOnTheirLine(_ bad: BadRule) {
    let text = Self.profiles + "[[contexts]]\n" + bad.rule + "\n"
    for narrowed in [false, true] {
      let error: ConfigError?
      do {
        if narrowed {
          _ = try Config.parse(text, path: "c", onlyProfile: nil, place: Workplace(directory: "/", environment: [:]))
        } else {
          _ = try Config.parse(text, path: "c")
        }
        error = nil
      } catch let caught {
        error = caught
      }
      guard case .invalid(_, let position, let message)? = error else {
        Issue.record("\(bad.rule): \(String(describing: error))")
        continue
      }
      #expect(message.contains(bad.fragment), "\(message)")
      #expect(position.line >= 10)
    }
  }

  @Test func anUnknownKeyInARuleIsAWarningWithASuggestion() throws {
    let config = try Config.parse(
      Self.profiles + "[[contexts]]\ndirectry = \"/x\"\ndirectory = \"/y\"\nprofile = \"acme\"\n", path: "c")
    #expect(
      config.warnings.map(\.description) == [
        "c:11: unknown key 'directry' in [[contexts]] ignored; did you mean 'directory'?"
      ])
  }

  // MARK: matching

  func rule(_ match: ContextRule.Match, _ profile: String = "acme", line: Int = 1) -> ContextRule {
    ContextRule(match: match, profile: profile, position: SourcePosition(line: line, column: 1))
  }

  @Test func directoriesMatchWholeComponentsAndTilde() {
    let place = { (dir: String) in Workplace(directory: dir, environment: ["HOME": "/home/u"]) }
    let acme = [rule(.directory("~/src/acme/"))]
    let none: () -> [String] = {
      Issue.record("remotes read for a directory rule"); return []
    }
    #expect(Contexts.matching(acme, at: place("/home/u/src/acme"), remotes: none).count == 1)
    #expect(Contexts.matching(acme, at: place("/home/u/src/acme/x/y"), remotes: none).count == 1)
    #expect(Contexts.matching(acme, at: place("/home/u/src/acme-corp"), remotes: none).isEmpty)
    #expect(Contexts.matching(acme, at: place("/home/u/src"), remotes: none).isEmpty)
    #expect(Contexts.matching(acme, at: place("/home/u//src/acme/"), remotes: none).count == 1)
    #expect(
      Contexts.matching(acme, at: Workplace(directory: "/home/u/src/acme", environment: [:]), remotes: none).isEmpty)
    #expect(Contexts.matching([rule(.directory("/"))], at: place("/tmp"), remotes: none).count == 1)
    #expect(Contexts.matching([rule(.directory("~"))], at: place("/home/u"), remotes: none).count == 1)
    #expect(Contexts.matching([rule(.directory("~"))], at: place("/home/uv"), remotes: none).isEmpty)
  }

  @Test(arguments: [
    ("https://github.com/acme/widgets.git", true), ("git@github.com:acme/widgets.git", true),
    ("ssh://git@github.com:22/acme/widgets", true), ("https://user@GitHub.com/acme/x", true),
    ("git://github.com/acme/x", true), ("github.com:acme/x", true),
    ("https://github.com/acme-corp/widgets", false), ("git@github.com:other/acme.git", false),
    ("https://gitlab.com/acme/widgets", false), ("/srv/git/acme.git", false), ("../acme", false),
    ("https://github.com.evil.example/acme/x", false), ("https://github.com/", false),
  ])
  func remoteURLForms(_ url: String, _ matches: Bool) {
    #expect(RemotePattern("github.com/acme")!.matches(url) == matches, "\(url)")
  }

  @Test func remotePatterns() {
    #expect(RemotePattern("github.com")!.matches("git@github.com:anyone/x.git"))
    #expect(RemotePattern("https://github.com/acme/widgets.git")!.matches("git@github.com:acme/widgets"))
    #expect(!RemotePattern("github.com/acme/widgets")!.matches("git@github.com:acme/widgets-2"))
    #expect(RemotePattern("git.example.com:8443/team")!.matches("https://git.example.com:8443/team/x"))
    #expect(!RemotePattern("git.example.com:8443/team")!.matches("https://git.example.com/team/x"))
    #expect(RemotePattern("") == nil && RemotePattern("/acme") == nil && RemotePattern("a b/c") == nil)
  }

  @Test func environmentRulesAndFirstMatchWins() {
    let rules = [
      rule(.environment(name: "CI", value: "acme"), "ci", line: 1), rule(.directory("/w"), "w", line: 5),
      rule(.gitRemote(RemotePattern("github.com/acme")!), "acme", line: 9),
    ]
    var reads = 0
    let remotes = { () -> [String] in
      reads += 1
      return ["git@github.com:acme/x"]
    }
    let choice = Contexts.choose(rules, at: Workplace(directory: "/w/x", environment: ["CI": "acme"]), remotes: remotes)
    #expect(choice?.rule.profile == "ci")
    #expect(choice?.alsoMatching.map(\.profile) == ["w", "acme"])
    #expect(reads == 1)
    #expect(
      Contexts.choose(rules, at: Workplace(directory: "/v", environment: ["CI": "acmex"]), remotes: { [] }) == nil)
    // The request's URL (git with useHttpPath) stands for the repository's remotes.
    let request = Workplace(directory: "/v", environment: [:], remotes: ["https://github.com/acme/y"])
    #expect(
      Contexts.choose(
        rules, at: request,
        remotes: {
          Issue.record("read"); return []
        })?.rule.profile == "acme")
  }

  // MARK: the repository's remotes

  func files(_ map: [String: String]) -> (String) -> FileRead {
    { path in
      if let text = map[path] { return text == "<dir>" ? .failed("Is a directory") : .contents(Array(text.utf8)) }
      // Under a file: not a directory.
      if let slash = path.lastIndex(of: "/"), let parent = map[String(path[..<slash])], parent != "<dir>" {
        return .failed("Not a directory")
      }
      return .missing
    }
  }

  static let gitConfig = """
    [core]
    \tbare = false
    [remote "origin"]
    \turl = git@github.com:acme/widgets.git
    \tfetch = +refs/heads/*:refs/remotes/origin/*
    [remote "up"]
    \tURL = "https://gitlab.com/up/w"
    [branch "main"]
    \turl = https://not.a.remote/
    """

  @Test func remotesAreReadFromTheNearestRepository() {
    let read = files([
      "/r/.git": "<dir>", "/r/.git/config": Self.gitConfig, "/r/sub/inner/.git": "<dir>",
      "/r/sub/inner/.git/config": "[remote \"o\"]\nurl = https://example.com/inner\n",
    ])
    #expect(
      Contexts.repositoryRemotes(from: "/r/a/b", read: read) == [
        "git@github.com:acme/widgets.git", "https://gitlab.com/up/w",
      ])
    #expect(Contexts.repositoryRemotes(from: "/r/sub/inner/x", read: read) == ["https://example.com/inner"])
    #expect(Contexts.repositoryRemotes(from: "/elsewhere", read: read) == [])
  }

  @Test func worktreeAndSubmoduleGitFiles() {
    let read = files([
      "/w/.git": "gitdir: /r/.git/worktrees/w\n", "/r/.git/worktrees/w/commondir": "../..\n",
      "/r/.git/worktrees/w/../../config": Self.gitConfig,
      "/r/m/.git": "gitdir: ../.git/modules/m",
      "/r/m/../.git/modules/m/config": "[remote \"origin\"]\nurl = https://example.com/m\n",
    ])
    #expect(Contexts.repositoryRemotes(from: "/w/src", read: read).first == "git@github.com:acme/widgets.git")
    #expect(Contexts.repositoryRemotes(from: "/r/m", read: read) == ["https://example.com/m"])
  }

  // MARK: precedence, through the narrowed read

  static let withRules =
    profiles + """
      [[contexts]]
      directory = "~/src/acme"
      profile = "acme"
      """

  func resolved(_ text: String, at place: Workplace, overrides: ProfileOverrides = ProfileOverrides())
    throws -> ResolvedProfile
  {
    let named = ResolvedProfile.requestedName(overrides: overrides, environment: place.environment)
    let config = try Config.parse(text, path: "c", onlyProfile: named, apis: .none, place: place)
    return try ResolvedProfile.resolve(config: config, overrides: overrides, environment: place.environment)
  }

  @Test func precedence() throws {
    let home = ["HOME": "/h"]
    let inAcme = Workplace(directory: "/h/src/acme/x", environment: home)
    let elsewhere = Workplace(directory: "/h/other", environment: home)
    let acme = try resolved(Self.withRules, at: inAcme)
    #expect(acme.name == "acme" && acme.profile.tenant == "https://a.example.com")
    #expect(acme.reason.description == "chosen by context ~/src/acme (config line 10)")
    let other = try resolved(Self.withRules, at: elsewhere)
    #expect(other.name == "personal" && other.reason == .defaultProfile)
    let flagged = try resolved(Self.withRules, at: inAcme, overrides: ProfileOverrides(profile: "personal"))
    #expect(flagged.name == "personal" && flagged.reason == .flag)
    let byVariable = try resolved(
      Self.withRules,
      at: Workplace(
        directory: "/h/src/acme", environment: home.merging(["STRIVACITY_PROFILE": "personal"]) { a, _ in a }))
    #expect(byVariable.name == "personal" && byVariable.reason == .environment)
    let noDefault = Self.withRules.replacing("default_profile = \"personal\"", with: "")
    #expect(try resolved(noDefault, at: elsewhere).reason == .fallback)
    // Without rules the narrowed read is what it was.
    #expect(try resolved(Self.profiles, at: inAcme).name == "personal")
  }

  // MARK: use, use --here

  @Test func writingDefaultProfileAndRules() throws {
    let set = try ConfigWriter.settingTopLevel(
      Self.withRules, key: "default_profile", value: .string("acme"), path: "c")
    #expect(try Config.parse(set, path: "c").defaultProfile == "acme")
    let fresh = try ConfigWriter.settingTopLevel(
      Self.profiles.replacing("default_profile = \"personal\"\n", with: ""), key: "default_profile",
      value: .string("acme"), path: "c")
    #expect(fresh.hasPrefix("default_profile = \"acme\"\n"))
    let added = try ConfigWriter.addingContext(
      Self.withRules, match: ("git_remote", "github.com/acme/w"), profile: "personal", path: "c")
    #expect(try Config.parse(added, path: "c").contexts.map(\.profile) == ["personal", "acme"])
    #expect(throws: ConfigError.self) {
      try ConfigWriter.addingContext(Self.profiles, match: ("directory", "/x"), profile: "nope", path: "c")
    }
  }

  @Test func theRuleHere() {
    let place = Workplace(directory: "/h/src/w", environment: ["HOME": "/h"])
    #expect(Contexts.ruleHere(place, remotes: ["git@github.com:acme/w.git"])! == ("git_remote", "github.com/acme/w"))
    #expect(Contexts.ruleHere(place, remotes: [])! == ("directory", "~/src/w"))
    #expect(
      Contexts.ruleHere(Workplace(directory: "/srv/x", environment: ["HOME": "/h"]), remotes: ["/local/path"])! == (
        "directory", "/srv/x"
      ))
  }
}

import Testing

@testable import StrivacityConfig
@testable import StrivacityCore

@Suite struct ConfigTests {
  static let sample = """
    default_profile = "work"
    store = "file"
    colour = "always"

    [profiles.work]
    tenant = "https://work.example.com"
    client_id = "cli-work"
    scopes = ["openid", "offline_access"]
    redirect_uri = "http://127.0.0.1:8400/callback"
    git_hosts = ["git.work.example.com"]
    frobnicate = true

    [profiles.home]
    tenant = "https://home.example.com"
    client_id = "cli-home"
    scope = "openid profile"
    store = "secret-service"
    """

  @Test func parsesProfilesAndWarnsAboutUnknownKeys() throws {
    let config = try Config.parse(Self.sample, path: "/c.toml")
    #expect(config.defaultProfile == "work")
    #expect(config.defaultStore == .file)
    #expect(config.profiles.map(\.name) == ["work", "home"])
    let work = try #require(config.profile(named: "work"))
    #expect(work.tenant == "https://work.example.com")
    #expect(work.scopes == ["openid", "offline_access"])
    #expect(work.gitHosts.map(\.description) == ["git.work.example.com"])
    #expect(config.profile(named: "home")?.scopes == ["openid", "profile"])
    #expect(
      config.warnings.map(\.description) == [
        "/c.toml:3: unknown key 'colour' ignored",
        "/c.toml:11: unknown key 'frobnicate' in [profiles.work] ignored",
      ])
  }

  @Test func syntaxErrorsCarryPathLineAndColumn() {
    #expect(
      throws: ConfigError.syntax(
        path: "/c.toml", position: .init(line: 2, column: 10), message: "expected a value after '='")
    ) {
      try Config.parse("[profiles.x]\ntenant = \n", path: "/c.toml")
    }
    do {
      _ = try Config.parse("[profiles.x]\ntenant = \n", path: "/c.toml")
    } catch {
      #expect(error.description == "/c.toml:2:10: expected a value after '='")
    }
  }

  @Test func typeErrorsAreReported() {
    #expect(
      throws: ConfigError.invalid(
        path: "p", position: .init(line: 2, column: 1), message: "'tenant' must be a string, not an integer")
    ) {
      try Config.parse("[profiles.x]\ntenant = 5", path: "p")
    }
    #expect(
      throws: ConfigError.invalid(
        path: "p", position: .init(line: 1, column: 1),
        message: "store must be \"secret-service\" or \"file\", not \"plaintext\"")
    ) {
      try Config.parse("store = \"plaintext\"", path: "p")
    }
    #expect(throws: ConfigError.self) { try Config.parse("[profiles.\"a/b\"]\ntenant = \"x\"", path: "p") }
    #expect(throws: ConfigError.self) { try Config.parse("profiles = 1", path: "p") }
  }

  @Test func resolutionPrefersFlagsThenEnvironmentThenFile() throws {
    let config = try Config.parse(Self.sample, path: "/c.toml")
    var resolved = try ResolvedProfile.resolve(config: config, overrides: .init(), environment: [:])
    #expect(resolved.name == "work")
    #expect(resolved.store == .file)
    #expect(resolved.isConfigured)

    resolved = try ResolvedProfile.resolve(
      config: config, overrides: .init(), environment: ["STRIVACITY_PROFILE": "home"])
    #expect(resolved.name == "home")
    #expect(resolved.store == .secretService)

    resolved = try ResolvedProfile.resolve(
      config: config, overrides: .init(profile: "work", store: .secretService),
      environment: [
        "STRIVACITY_PROFILE": "home", "STRIVACITY_TENANT": "https://env.example", "STRIVACITY_CLIENT_ID": "env-client",
      ])
    #expect(resolved.name == "work")
    #expect(resolved.profile.tenant == "https://env.example")
    #expect(resolved.profile.clientID == "env-client")
    #expect(resolved.store == .secretService)

    resolved = try ResolvedProfile.resolve(
      config: config, overrides: .init(tenant: "https://flag.example"),
      environment: ["STRIVACITY_TENANT": "https://env.example"])
    #expect(resolved.profile.tenant == "https://flag.example")
  }

  @Test func missingProfilesAndSettingsSayWhatToDo() throws {
    let none = try ResolvedProfile.resolve(config: nil, overrides: .init(), environment: [:])
    #expect(none.name == "default")
    #expect(!none.isConfigured)
    #expect(throws: ConfigError.profileNotConfigured(name: "default", path: "/c.toml", configured: [])) {
      try none.requireTenant(configPath: "/c.toml")
    }
    let adHoc = try ResolvedProfile.resolve(
      config: nil, overrides: .init(),
      environment: ["STRIVACITY_TENANT": "https://t.example", "STRIVACITY_CLIENT_ID": "c"])
    #expect(try adHoc.requireTenant(configPath: "x") == "https://t.example")

    let config = try Config.parse("[profiles.half]\ntenant = \"https://t.example\"", path: "/c.toml")
    let half = try ResolvedProfile.resolve(config: config, overrides: .init(profile: "half"), environment: [:])
    #expect(
      throws: ConfigError.missingSetting(
        profile: "half", setting: "client_id", flag: "--client-id", env: "STRIVACITY_CLIENT_ID")
    ) {
      try half.requireClientID(configPath: "/c.toml")
    }
    #expect(throws: ConfigError.invalidProfileName("../etc")) {
      try ResolvedProfile.resolve(config: nil, overrides: .init(profile: "../etc"), environment: [:])
    }
  }

  @Test func anUnknownProfileListsTheConfiguredOnesAndTheNearest() throws {
    let config = try Config.parse(
      "[profiles.default]\ntenant = \"https://t.example\"\nclient_id = \"c\"\n[profiles.ci-bot]\n", path: "/c.toml")
    let typo = try ResolvedProfile.resolve(config: config, overrides: .init(profile: "defualt"), environment: [:])
    #expect(typo.configuredNames == ["default", "ci-bot"])
    do {
      _ = try typo.requireTenant(configPath: "/c.toml")
      Issue.record("a profile the file does not have resolved")
    } catch {
      #expect(
        error.description
          == "profile 'defualt' is not configured in /c.toml; did you mean 'default'? (it has default, ci-bot; "
          + "to add 'defualt': `strivacity login --profile defualt --tenant URL --client-id ID`)")
    }
    // As the small binary reads it (one profile's table): the names from the headers, no parse.
    let text = "[profiles.default]\ntenant = \"https://t.example\"\n[profiles.ci-bot]\nnonsense = = =\n"
    let narrowed = try Config.parse(text, path: "/c.toml", onlyProfile: "defualt")
    #expect(narrowed.profiles.isEmpty && narrowed.profileNames == ["default", "ci-bot"])
    let resolved = try ResolvedProfile.resolve(config: narrowed, overrides: .init(profile: "defualt"), environment: [:])
    #expect(resolved.configuredNames == ["default", "ci-bot"])
    #expect(try Config.parse(text, path: "/c.toml", onlyProfile: "default").profileNames == nil)
    let far = ConfigError.profileNotConfigured(name: "prod", path: "/c.toml", configured: ["default", "ci-bot"])
    #expect(!far.description.contains("did you mean"))
    #expect(far.description.contains("(it has default, ci-bot;"))
  }

  @Test func pathsFollowXDG() {
    var paths = Paths(environment: ["HOME": "/home/u"])
    #expect(paths.config == "/home/u/.config/strivacity/config.toml")
    #expect(paths.stateDir == "/home/u/.local/state/strivacity")
    // Not under /tmp, where another user could create it first.
    #expect(paths.runtimeDir == "/home/u/.local/state/strivacity/locks")
    paths = Paths(environment: [
      "HOME": "/home/u", "XDG_CONFIG_HOME": "/x/c", "XDG_STATE_HOME": "/x/s", "XDG_RUNTIME_DIR": "/run/user/1000",
    ])
    #expect(paths.config == "/x/c/strivacity/config.toml")
    #expect(paths.stateDir == "/x/s/strivacity")
    #expect(paths.runtimeDir == "/run/user/1000/strivacity")
    paths = Paths(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "relative", "STRIVACITY_CONFIG": "/etc/s.toml"])
    #expect(paths.config == "/etc/s.toml")
  }
}

/// Resolving one profile parses only its table: the others are skipped line by line.
@Suite struct ConfigNarrowingTests {
  static let text = """
    default_profile = "work"
    store = "file"

    [profiles.home]
    tenant = "https://home.example.com"
    client_id = ["not", "a", "string"]

    [profiles.work]
    tenant = "https://work.example.com"
    client_id = "w"
    git_hosts = [
      "git.example.com",
    ]

    [ profiles . other ]   # spaces and a comment
    nonsense = = =
    """

  @Test func onlyTheWantedProfileIsParsed() throws {
    let work = try Config.parse(Self.text, path: "c.toml", onlyProfile: "work")
    #expect(work.profiles.map(\.name) == ["work"])
    #expect(work.profile(named: "work")?.gitHosts.map(\.description) == ["git.example.com"])
    #expect(work.defaultStore == .file)
    // Without a name, default_profile decides.
    #expect(try Config.parse(Self.text, path: "c.toml", onlyProfile: nil).profiles.map(\.name) == ["work"])
  }

  /// A top-level array may hold a line that starts with "[": the scan cannot tell it from a
  /// header, and the whole file decides.
  @Test func aLineThatLooksLikeAHeaderInsideAnArrayIsNotOne() throws {
    let text = "extra = [\n[1, 2],\n]\n\n[profiles.work]\ntenant = \"https://w.example\"\nclient_id = \"c\"\n"
    #expect(try Config.parse(text, path: "c.toml", onlyProfile: "work").profile(named: "work")?.clientID == "c")
  }

  @Test func mistakesInTheWantedProfileKeepTheirLineNumbers() {
    #expect(
      throws: ConfigError.invalid(
        path: "c.toml", position: SourcePosition(line: 6, column: 1),
        message: "'client_id' must be a string, not an array")
    ) {
      try Config.parse(Self.text, path: "c.toml", onlyProfile: "home")
    }
    #expect(throws: (any Error).self) { try Config.parse(Self.text, path: "c.toml") }
  }

  @Test func headersItDoesNotUnderstandAreKept() {
    let quoted =
      "[profiles.\"a\"]\ntenant = \"https://a.example.com\"\n[profiles.b]\ntenant = \"https://b.example.com\"\n"
    #expect(Config.keepingOnly(quoted, profile: "b") == quoted)
    #expect(Config.keepingOnly(quoted, profile: nil) == "[profiles.\"a\"]\ntenant = \"https://a.example.com\"\n\n\n")
    // A dotted profile name is written quoted, so its table is kept and parsed.
    let dotted = "[profiles.\"a.b\"]\ntenant = \"https://a.example.com\"\n"
    #expect(Config.keepingOnly(dotted, profile: "b") == dotted)
  }
}

/// A mistake inside a profile's table names the profile, since the one in use may be another.
@Suite struct ConfigMistakeTableTests {
  @Test func theTableOfAMistakeIsNamed() {
    let text = "agent = true\n[profiles.home]\nclient_id = 5\n[profiles.work.apis.x]\nurl = = \n[trust]\n"
    #expect(Config.profileTable(holding: 1, in: text) == nil)
    #expect(Config.profileTable(holding: 3, in: text) == "home")
    #expect(Config.profileTable(holding: 5, in: text) == "work")
    #expect(Config.profileTable(holding: 6, in: text) == nil)
    #expect(
      throws: ConfigError.invalid(
        path: "c", position: SourcePosition(line: 3, column: 1),
        message: "in [profiles.home]: 'client_id' must be a string, not an integer")
    ) {
      try Config.parse("[profiles.home]\ntenant = \"https://h.example\"\nclient_id = 5\n[profiles.work]\n", path: "c")
    }
    do {
      _ = try Config.parse(text.replacing("url = = ", with: ""), path: "c")
    } catch {
      #expect(error.profileTable == "home")
    }
  }
}

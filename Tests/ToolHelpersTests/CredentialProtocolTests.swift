import StrivacityConfig
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct CredentialProtocolTests {
  func parse(_ text: String) throws -> CredentialRequest { try CredentialProtocol.parse(Array(text.utf8)) }

  @Test func parsesWhatGitSends() throws {
    let request = try parse(
      "protocol=https\nhost=git.example.com\npath=org/repo.git\ncapability[]=authtype\ncapability[]=state\n"
        + "wwwauth[]=Basic realm=\"git\"\nunknown=kept\n\nignored=after-blank\n"
    )
    #expect(request.scheme == "https")
    #expect(request.host == "git.example.com")
    #expect(request.url == "https://git.example.com/org/repo.git")
    #expect(request.capabilities == ["authtype", "state"])
    #expect(request.lists["wwwauth"] == ["Basic realm=\"git\""])
    #expect(request.attributes["unknown"] == "kept")
    #expect(request.attributes["ignored"] == nil)
  }

  @Test func edgeCases() throws {
    #expect(try parse("").attributes.isEmpty)
    #expect(try parse("a==b\r\n").attributes["a"] == "=b")
    #expect(try parse("host=x\nhost=y\n").host == "y", "the last value wins")
    #expect(
      try parse("capability[]=a\ncapability[]=\ncapability[]=b\n").capabilities == ["b"], "an empty value resets a list"
    )
    #expect(
      try parse("url=https://h.example/p\n").url == nil, "git's url input attribute is never sent to helpers, nor used")
    #expect(throws: CredentialParseError.malformedLine(number: 2)) { try parse("host=x\nno-equals-sign\n") }
    #expect(throws: CredentialParseError.malformedLine(number: 1)) { try parse("=value\n") }
    #expect(throws: CredentialParseError.tooLarge) {
      try CredentialProtocol.parse([UInt8](repeating: 65, count: (1 << 20) + 1))
    }
    do {
      _ = try parse("password=SECRET\nbroken\n")
    } catch {
      #expect(!"\(error)".contains("SECRET"))
    }
  }

  @Test func answers() throws {
    let plain = try parse("protocol=https\nhost=h\n")
    #expect(
      CredentialProtocol.answer(request: plain, token: "tok", username: "oauth2", expiresAt: 1_800_000_000)
        == "username=oauth2\npassword=tok\npassword_expiry_utc=1800000000\n")
    let bearer = try parse("protocol=https\nhost=h\ncapability[]=authtype\n")
    #expect(
      CredentialProtocol.answer(request: bearer, token: "tok", username: "oauth2", expiresAt: nil)
        == "capability[]=authtype\nauthtype=Bearer\ncredential=tok\nephemeral=true\n")
    #expect(
      CredentialProtocol.encode([("a", "x\ny"), ("b", "ok"), ("c=d", "no")]) == "b=ok\n",
      "nothing that could inject a line")
  }

  @Test(arguments: [
    ("protocol=https\nhost=git.example.com\n", ["git.example.com"], true),
    ("protocol=https\nhost=GIT.example.com\n", ["git.example.com"], true),
    ("protocol=https\nhost=git.example.com:8443\n", ["git.example.com"], false),
    ("protocol=https\nhost=git.example.com:443\n", ["git.example.com"], true),
    ("protocol=https\nhost=git.example.com\n", ["git.example.com:443"], true),
    // The path as the server reads it: dot segments resolved, encoded dots and slashes refused.
    ("protocol=https\nhost=git.example.com\npath=org/../other/repo.git\n", ["https://git.example.com/org/"], false),
    ("protocol=https\nhost=git.example.com\npath=org/./repo.git\n", ["https://git.example.com/org/"], true),
    ("protocol=https\nhost=git.example.com\npath=org/x/../repo.git\n", ["https://git.example.com/org/"], true),
    ("protocol=https\nhost=git.example.com\npath=org/%2e%2e/other/repo.git\n", ["https://git.example.com/org/"], false),
    ("protocol=https\nhost=git.example.com\npath=org%2f..%2fother\n", ["https://git.example.com/org/"], false),
    ("protocol=https\nhost=git.example.com\npath=org\\..\\other\n", ["https://git.example.com/org/"], false),
    ("protocol=https\nhost=git.example.com\npath=org/..;x/other\n", ["https://git.example.com/org/"], false),
    ("protocol=https\nhost=git.example.com:8443\n", ["git.example.com:8443"], true),
    ("protocol=http\nhost=git.example.com\n", ["git.example.com"], false),
    ("protocol=http\nhost=127.0.0.1:9000\n", ["127.0.0.1:9000"], true),
    ("protocol=https\nhost=evil.example\n", ["git.example.com"], false),
    ("protocol=https\nhost=git.example.com.evil.example\n", ["git.example.com"], false),
    ("protocol=https\nhost=git.example.com\npath=org/repo.git\n", ["https://git.example.com/org/"], true),
    ("protocol=https\nhost=git.example.com\npath=other/repo.git\n", ["https://git.example.com/org/"], false),
    ("protocol=https\nhost=git.example.com\npath=organisation/x\n", ["https://git.example.com/org"], false),
    ("protocol=https\nhost=git.example.com\n", ["https://git.example.com/"], true),
    ("protocol=ssh\nhost=git.example.com\n", ["git.example.com"], false),
    ("host=git.example.com\n", ["git.example.com"], false),
    // Exactly what git sends: a host is a host, and git's `url` input attribute is not used.
    ("protocol=https\nhost=evil.com@git.example.com\n", ["git.example.com"], false),
    ("protocol=https\nhost=git.example.com/x\n", ["git.example.com"], false),
    ("protocol=https\nhost=git.example.com:0\n", ["git.example.com"], false),
    ("protocol=https\nhost=git example.com\n", ["git.example.com"], false),
    ("url=https://git.example.com/\n", ["git.example.com"], false),
    ("protocol=https\nhost=evil.example\nurl=https://git.example.com/\n", ["git.example.com"], false),
    ("protocol=https\nhost=[::1]:8443\n", ["[::1]:8443"], true),
    ("protocol=https\nhost=git.example.com\npath=org/a?b\n", ["https://git.example.com/org/"], false),
  ])
  func hostMatching(_ input: String, _ entries: [String], _ expected: Bool) throws {
    #expect(try parse(input).isFor(entries.map { try HostEntry(admitting: $0) }) == expected)
  }

  /// A bounded fuzz run: arbitrary bytes never crash the parser, and anything it accepts can be
  /// answered without injecting lines. (libFuzzer goes further: Scripts/fuzz credential; kept
  /// inputs in Tests/Fuzz/credential are replayed by FuzzRegressionTests.)
  @Test func randomInputNeverCrashes() {
    var generator = SystemRandomNumberGenerator()
    let alphabet: [UInt8] = Array("=[]\n\r\0abchostpasswordcapability:/.-_ ".utf8) + [0xff, 0xc3, 0x28, 7]
    for _ in 0..<20_000 {
      let length = Int.random(in: 0..<80, using: &generator)
      let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
      if let request = try? CredentialProtocol.parse(bytes) {
        let answer = CredentialProtocol.answer(
          request: request, token: BearerToken("t"), username: request.attributes["username"] ?? "u", expiresAt: nil)
        #expect(answer.split(separator: "\n").allSatisfy { $0.contains("=") })
        _ = request.isFor(["git.example.com", "https://x.example/p/"].map { try! HostEntry(admitting: $0) })
      }
    }
  }
}

/// git's `get` as both binaries answer it.
@Suite struct CredentialInvocationTests {
  func profile(_ name: String, _ hosts: [String]) throws -> Profile {
    var profile = Profile(name: name)
    profile.gitHosts = try hosts.map { try HostEntry(admitting: $0) }
    return profile
  }

  @Test func theFirstProfileCoveringTheRequestAnswers() throws {
    let request = try CredentialProtocol.parse(Array("protocol=https\nhost=git.example.com\n".utf8))
    let profiles = [
      try profile("a", ["other.example"]), try profile("b", ["git.example.com"]), try profile("c", ["git.example.com"]),
    ]
    #expect(CredentialInvocation(request: request).matchingProfile(in: profiles)?.name == "b")
    #expect(CredentialInvocation(request: request, profile: "c").matchingProfile(in: profiles)?.name == "c")
    #expect(CredentialInvocation(request: request, profile: "a").matchingProfile(in: profiles) == nil)
    let answer = CredentialInvocation(request: request).answer(
      TokenSet(accessToken: "at", expiresAt: 5, obtainedAt: 0), profile: profiles[1])
    #expect(answer == "username=\(profiles[1].gitUser)\npassword=at\npassword_expiry_utc=5\n")
  }

  /// Without --profile, the profile a context chooses answers among those covering the host: the
  /// rules matched where git runs, or, when git sends the path (useHttpPath), against its URL.
  @Test func aContextsProfileAnswersFirst() throws {
    let text = """
      [profiles.b]
      git_hosts = ["git.example.com"]
      [profiles.c]
      git_hosts = ["git.example.com"]
      [[contexts]]
      git_remote = "git.example.com/acme"
      profile = "c"
      """
    var config = try Config.parse(text, path: "c")
    config.place = Workplace(directory: "/elsewhere", environment: [:])
    let plain = try CredentialProtocol.parse(Array("protocol=https\nhost=git.example.com\n".utf8))
    let acme = try CredentialProtocol.parse(Array("protocol=https\nhost=git.example.com\npath=acme/w.git\n".utf8))
    let other = try CredentialProtocol.parse(Array("protocol=https\nhost=git.example.com\npath=zed/w.git\n".utf8))
    #expect(CredentialInvocation(request: plain).matchingProfile(in: config.profiles, config: config)?.name == "b")
    #expect(CredentialInvocation(request: acme).matchingProfile(in: config.profiles, config: config)?.name == "c")
    #expect(CredentialInvocation(request: other).matchingProfile(in: config.profiles, config: config)?.name == "b")
    #expect(
      CredentialInvocation(request: acme, profile: "b").matchingProfile(in: config.profiles, config: config)?.name
        == "b")
    // Where git runs, the repository's rule chose already (Config.load's choice).
    config.contextChoice = config.choose(
      at: Workplace(directory: "/r", environment: [:], remotes: ["git@git.example.com:acme/w"]), read: { _ in .missing }
    )
    #expect(CredentialInvocation(request: plain).matchingProfile(in: config.profiles, config: config)?.name == "c")
    #expect(config.profilesContextFirst.map(\.name) == ["c", "b"])
  }
}

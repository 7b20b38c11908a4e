// "Did you mean …?" for a mistyped name: only a near one, never a guess between two.
import StrivacityCore
import Testing

@testable import StrivacityConfig

@Suite struct SuggestionTests {
  static let commands = ["login", "token", "status", "doctor", "userinfo", "logout", "revoke", "exec", "curl", "agent"]

  @Test(
    arguments: [
      ("tokne", "token"),  // two letters swapped
      ("tokn", "token"),  // one left out
      ("statsu", "status"),
      ("Doctr", "doctor"),
      ("logni", "login"),
      ("xyz", nil),  // nothing near
      ("token", nil),  // the name itself: nothing to suggest
      ("no-such-command", nil),
      ("", nil),
    ] as [(String, String?)])
  func theNearestNameIsSuggested(_ typed: String, _ expected: String?) {
    #expect(Suggestion.nearest(to: typed, among: Self.commands) == expected)
  }

  @Test func twoEquallyNearNamesSuggestNeither() {
    #expect(Suggestion.nearest(to: "ab1", among: ["ab2", "ab3"]) == nil)
  }
}

/// Every suggester goes through `Suggestion.nearest`: config keys (the table's own keys, the line
/// named), API names, curl options refused by the allow-list (strivacity's own meant, or a curl
/// one). The command line's (unknown command, `help NAME`) are CLITests'.
@Suite struct SuggestersTests {
  @Test func aMistypedConfigKeyNamesTheLineAndTheKeyOfItsTable() throws {
    let config = try Config.parse(
      """
      defualt_profile = "w"
      [profiles.w]
      tenant = "https://t.example.com"
      client-id = "c"
      git_host = ["git.example.com"]
      [profiles.w.apis.a]
      url = "https://api.example.com/"
      audiance = "x"
      [profiles.w.sinks.s]
      path = "/tmp/t"
      fromat = "raw"
      """, path: "/c.toml")
    #expect(
      config.warnings.map(\.description) == [
        "/c.toml:1: unknown key 'defualt_profile' ignored; did you mean 'default_profile'?",
        "/c.toml:4: unknown key 'client-id' in [profiles.w] ignored; did you mean 'client_id'?",
        "/c.toml:5: unknown key 'git_host' in [profiles.w] ignored; did you mean 'git_hosts'?",
        "/c.toml:8: unknown key 'audiance' in [profiles.w.apis.a] ignored; did you mean 'audience'?",
        "/c.toml:11: unknown key 'fromat' in [profiles.w.sinks.s] ignored; did you mean 'format'?",
      ])
  }

  /// The lists suggested from are keys the parser takes: none of them is warned about as unknown.
  @Test(arguments: [
    (ConfigKeys.topLevel, "", ""),
    (ConfigKeys.profile, "[profiles.w]\n", ""),
    (ConfigKeys.api, "[profiles.w.apis.a]\n", "url = \"https://api.example.com/\"\n"),
    (ConfigKeys.sink, "[profiles.w.sinks.s]\n", "path = \"/tmp/t\"\n"),
  ])
  func everyKeySuggestedIsOneTheParserTakes(keys: [String], header: String, needed: String) {
    for key in keys where !needed.hasPrefix(key + " ") {
      // Whatever the value makes of it (an error about its value is fine), never "unknown key".
      let text = header + needed + "\(key) = 1\n"
      let warnings = (try? Config.parse(text, path: "/c.toml"))?.warnings ?? []
      #expect(!warnings.contains { $0.message.contains("unknown key") }, "\(key): \(warnings)")
    }
  }

  @Test func anAPINameNearOneOfTheProfilesIsSuggested() throws {
    let config = try Config.parse(
      """
      [profiles.w.apis.orders]
      url = "https://orders.example.com/"
      [profiles.w.apis.billing]
      url = "https://billing.example.com/"
      [profiles.e]
      tenant = "https://t.example.com"
      """, path: "/c.toml")
    let w = try #require(config.profile(named: "w"))
    #expect(w.noAPI(named: "ordrs") == "profile w has no API 'ordrs'; did you mean 'orders'?")
    #expect(w.noAPI(named: "shipping") == "profile w has no API 'shipping'; its APIs: orders, billing")
    #expect(w.noAPI(named: "\u{1B}[2J") == "profile w has no API '^[[2J'; its APIs: orders, billing")
    let e = try #require(config.profile(named: "e"))
    #expect(e.noAPI(named: "x") == "profile e has no API 'x'; it has none: add a [profiles.e.apis.NAME] section")
  }

  @Test(arguments: [
    ("--profle", "(did you mean strivacity's --profile? it comes before curl's arguments, written in full)"),
    ("--verbsoe", "(did you mean strivacity's --verbose?"),
    ("--profile", "(strivacity's --profile comes before curl's arguments)"),
    ("--hedaer", "(did you mean --header?)"),
    ("--hea", "(write options in full, e.g. --head)"),
    ("--zzzzzzzz", "(only the listed options pass, written in full)"),
  ])
  func aCurlOptionRefusedNamesTheOneMeant(option: String, hint: String) {
    #expect(throws: (any Error).self) { try CurlArguments.parse([option, "https://api.example.com/"]) }
    do {
      _ = try CurlArguments.parse([option, "https://api.example.com/"])
    } catch {
      #expect("\(error)".contains(hint), "\(error)")
    }
  }
}

import Testing

@testable import StrivacityConfig
@testable import StrivacityCore

/// `[profiles.P.sinks.NAME]` (issue 30): token files the agent keeps fresh, every value admitted
/// when the file is read, and what each format writes.
@Suite struct SinkConfigTests {
  static let text = """
    [profiles.work]
    tenant = "https://t.example"
    client_id = "c"

    [profiles.work.apis.orders]
    url = "https://api.example.com/orders/"

    [profiles.work.sinks.deploy]
    path = "/run/user/1000/deploy.token"

    [profiles.work.sinks.orders]
    path = "/srv/app/orders.json"
    api = "orders"
    format = "json"
    mode = "0640"

    [profiles.other]
    tenant = "https://t.example"
    """

  @Test func sinksAreReadInOrderWithTheirDefaults() throws {
    let config = try Config.parse(Self.text, path: "c.toml")
    #expect(config.warnings.isEmpty)
    let work = try #require(config.profile(named: "work"))
    #expect(
      work.sinks == [
        Sink(name: "deploy", path: "/run/user/1000/deploy.token"),
        Sink(name: "orders", path: "/srv/app/orders.json", api: "orders", format: .json, mode: 0o640),
      ])
    #expect(config.profile(named: "other")?.sinks == [])
    // A narrowed read keeps the profile's sinks; with its APIs unread, a sink's api is not checked.
    for apis in [APITables.all, .none, .named("orders"), .named("nope")] {
      let narrowed = try Config.parse(Self.text, path: "c.toml", onlyProfile: "work", apis: apis)
      #expect(narrowed.profile(named: "work")?.sinks == work.sinks)
    }
    #expect(try Config.parse(Self.text, path: "c.toml", onlyProfile: "other").profile(named: "work") == nil)
  }

  struct Bad: CustomTestStringConvertible, Sendable {
    var table: String
    var line: Int
    var says: String
    var testDescription: String { says }
  }

  static let bad: [Bad] = [
    Bad(table: "path = \"relative/x\"", line: 2, says: "absolute path"),
    Bad(table: "path = \"/a/../etc/x\"", line: 2, says: "'..'"),
    Bad(table: "path = \"/a/./x\"", line: 2, says: "'..'"),
    Bad(table: "path = \"/a//x\"", line: 2, says: "empty segments"),
    Bad(table: "path = \"/a/x/\"", line: 2, says: "absolute path to a file"),
    Bad(table: "path = \"/a/x\\n\"", line: 2, says: "control characters"),
    Bad(table: "path = 5", line: 2, says: "must be a string"),
    Bad(table: "format = \"raw\"", line: 1, says: "has no path"),
    Bad(table: "path = \"/a/x\"\nformat = \"yaml\"", line: 3, says: "format must be"),
    Bad(table: "path = \"/a/x\"\nmode = \"0644\"", line: 3, says: "never world-readable"),
    Bad(table: "path = \"/a/x\"\nmode = 600", line: 3, says: "mode must be"),
    Bad(table: "path = \"/a/x\"\napi = \"billing\"", line: 3, says: "not one of its"),
    Bad(table: "path = \"/a/x\"\napi = \"a b\"", line: 3, says: "not an API name"),
  ]

  @Test(arguments: bad)
  func badEntriesAreConfigErrorsNamingTheLine(_ bad: Bad) throws {
    let text = "[profiles.p.apis.orders]\nurl = \"https://a.example/\"\n[profiles.p.sinks.s]\n\(bad.table)\n"
    do {
      _ = try Config.parse(text, path: "c.toml")
      Issue.record("parsed: \(bad.table)")
    } catch {
      #expect(error.description.contains("c.toml:\(bad.line + 2):"), "\(error)")
      #expect(error.description.contains(bad.says), "\(error)")
    }
  }

  @Test func twoSinksOfOnePathAreAnErrorInOneProfileOrTwo() {
    let text = "[profiles.p.sinks.a]\npath = \"/a/x\"\n[profiles.p.sinks.b]\npath = \"/a/x\"\n"
    #expect(throws: ConfigError.self) { try Config.parse(text, path: "c.toml") }
    let twoProfiles = "[profiles.p.sinks.a]\npath = \"/a/x\"\n[profiles.q.sinks.a]\npath = \"/a/x\"\n"
    #expect(
      throws: ConfigError.invalid(
        path: "c.toml", position: SourcePosition(line: 3, column: 1),
        message: "[profiles.q.sinks.a] has the path of a sink of [profiles.p]")
    ) {
      try Config.parse(twoProfiles, path: "c.toml")
    }
  }

  @Test func eachFormatWritesOnlyTheToken() throws {
    let tokens = TokenSet(accessToken: "abc.def", scope: nil, expiresAt: 1_800_000_000, obtainedAt: 1_799_999_000)
    #expect(String(decoding: TokenRenderer.keptFile(tokens, as: .raw), as: UTF8.self) == "abc.def")
    #expect(
      String(decoding: TokenRenderer.keptFile(tokens, as: .header), as: UTF8.self) == "Authorization: Bearer abc.def\n")
    let json = try #require(JSONValue.parse(TokenRenderer.keptFile(tokens, as: .json)))
    #expect(json["access_token"] == "abc.def")
    #expect(json["token_type"] == "Bearer")
    #expect(json["expires_at"] == "2027-01-15T08:00:00Z")
    #expect(json.object?.count == 3)
    for format in SinkFormat.allCases { #expect(TokenRenderer.keptFile(nil, as: format).isEmpty) }
  }
}

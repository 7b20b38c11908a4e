import Testing

@testable import StrivacityConfig
@testable import StrivacityCore

@Suite struct ConfigWriterTests {
  @Test func addsAProfileToAnEmptyFile() throws {
    let text = try ConfigWriter.update(
      "", profile: "default",
      settings: [
        ("tenant", .string("https://t.example/")), ("client_id", .string("c")),
        ("scopes", .strings(["openid", "offline_access"])),
      ], path: "c")
    #expect(
      text
        == "[profiles.default]\ntenant = \"https://t.example/\"\nclient_id = \"c\"\nscopes = [\"openid\", "
        + "\"offline_access\"]\n"
    )
    #expect(try Config.parse(text, path: "c").profile(named: "default")?.scopes == ["openid", "offline_access"])
  }

  @Test func updatesInPlaceAndKeepsEverythingElse() throws {
    let original = """
      # my settings
      default_profile = "work"

      [profiles.work]   # the day job
      tenant = "https://old.example/"
      # a comment inside
      client_id = "keep-me"

      [profiles.home]
      tenant = "https://home.example/"
      """
    let text = try ConfigWriter.update(
      original, profile: "work",
      settings: [
        ("tenant", .string("https://new.example/")), ("sdk_mode", .string("web-minimal")),
      ], path: "c")
    #expect(
      text == """
        # my settings
        default_profile = "work"

        [profiles.work]   # the day job
        tenant = "https://new.example/"
        # a comment inside
        client_id = "keep-me"
        sdk_mode = "web-minimal"

        [profiles.home]
        tenant = "https://home.example/"

        """)
  }

  @Test func quotesWhatNeedsQuoting() throws {
    let text = try ConfigWriter.update(
      "[profiles.\"x\"]\n", profile: "x", settings: [("tenant", .string("a\"b\\c\u{1}"))], path: "c")
    #expect(try Config.parse(text, path: "c").profile(named: "x")?.tenant == "a\"b\\c\u{1}")
    let dotted = try ConfigWriter.update("", profile: "a.b", settings: [("tenant", .string("t"))], path: "c")
    #expect(dotted.hasPrefix("[profiles.\"a.b\"]"))
    #expect(try Config.parse(dotted, path: "c").profile(named: "a.b")?.tenant == "t")
  }

  /// An API's table (setup-api): added after the profile's, updated in place, and never taken
  /// for the profile's own header (nor the profile's for it).
  @Test func writesAnAPIsTable() throws {
    let start = "[profiles.work.apis.orders]\nurl = \"https://a.example/orders/\"\n\n[profiles.work]\ntenant = \"t\"\n"
    let profile = try ConfigWriter.update(start, profile: "work", settings: [("client_id", .string("c"))], path: "c")
    #expect(profile.hasSuffix("[profiles.work]\ntenant = \"t\"\nclient_id = \"c\"\n"), "\(profile)")
    let api = try ConfigWriter.update(
      profile, table: ["profiles", "work", "apis", "orders"],
      settings: [("url", .string("https://a.example/v2/")), ("scopes", .strings(["orders:read"]))], path: "c")
    #expect(api.hasPrefix("[profiles.work.apis.orders]\nurl = \"https://a.example/v2/\"\nscopes = [\"orders:read\"]\n"))
    let added = try ConfigWriter.update(
      api, table: ["profiles", "work", "apis", "billing"], settings: [("url", .string("https://b.example/"))], path: "c"
    )
    #expect(added.hasSuffix("\n\n[profiles.work.apis.billing]\nurl = \"https://b.example/\"\n"), "\(added)")
    let config = try Config.parse(added, path: "c")
    #expect(config.profile(named: "work")?.apis.map(\.name) == ["orders", "billing"])
  }

  /// What the setup commands' --undo removes: keys of one table, or a whole table, every other
  /// byte (comments, other tables, the keys of a table beneath) kept.
  @Test func removesKeysOrATableKeepingTheRest() throws {
    let text = """
      # mine
      [profiles.work]
      tenant = "https://t.example/"
      proxy = "http://p.example:3128"   # the office
      proxy_user = "alice"

      [profiles.work.apis.orders]
      url = "https://o.example/"
      proxy = "not this one"

      [profiles.home]
      tenant = "https://h.example/"

      """
    let keys = try ConfigWriter.removing(text, table: ["profiles", "work"], keys: ["proxy", "proxy_user"], path: "c")
    #expect(
      keys == text.replacing("proxy = \"http://p.example:3128\"   # the office\nproxy_user = \"alice\"\n", with: ""))
    let table = try ConfigWriter.removing(text, table: ["profiles", "work", "apis", "orders"], keys: nil, path: "c")
    #expect(
      table
        == text.replacing(
          "[profiles.work.apis.orders]\nurl = \"https://o.example/\"\nproxy = \"not this one\"\n\n", with: ""))
    let last = try ConfigWriter.removing(text, table: ["profiles", "home"], keys: nil, path: "c")
    #expect(last.hasSuffix("proxy = \"not this one\"\n") && !last.contains("home"), "\(last)")
    #expect(try ConfigWriter.removing(text, table: ["profiles", "none"], keys: nil, path: "c") == text)
  }
}

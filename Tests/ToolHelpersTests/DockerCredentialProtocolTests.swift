import StrivacityConfig
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct DockerCredentialProtocolTests {
  static let config = """
    [profiles.work]
    tenant = "https://work.example.com"
    client_id = "cli"

    [profiles.work.apis.registry]
    url = "registry.example.com"
    audience = "https://registry.example.com"

    [profiles.work.apis.team]
    url = "https://registry.example.com/team/"
    username = "robot"

    [profiles.other]
    tenant = "https://other.example.com"
    client_id = "cli"

    [profiles.other.apis.local]
    url = "localhost:5000"

    [profiles.other.apis.shadowed]
    url = "registry.example.com"
    """

  func profiles() throws -> [Profile] { try Config.parse(Self.config, path: "config.toml").profiles }

  func url(_ text: String) throws(DockerCredentialError) -> String {
    try DockerCredentialProtocol.serverURL(Array(text.utf8)).url
  }

  @Test func addressesAreReadAsTheDestinationRuleReadsURLs() throws {
    #expect(try url("registry.example.com") == "https://registry.example.com/")
    #expect(try url("registry.example.com\n") == "https://registry.example.com/", "trimmed, as Docker's helpers do")
    #expect(try url("localhost:5000") == "http://localhost:5000/", "plain http on loopback only")
    #expect(try url("https://index.docker.io/v1/") == "https://index.docker.io/v1/")
    #expect(try url("registry.example.com/team/app") == "https://registry.example.com/team/app")
    #expect(
      try DockerCredentialProtocol.serverURL(Array(" registry.example.com \n".utf8)).address == "registry.example.com")
  }

  @Test func hostileAddressesAreRefusedWithoutBeingEchoed() throws {
    let hostile = [
      "user@registry.example.com", "https://user:pw@registry.example.com/", "registry.example.com/%2e%2e/x",
      "registry.example.com/a\\b", "http://registry.example.com/", "registry.example.com?x=1",
      "registry.example.com\u{1b}[31m", "ftp://registry.example.com/", "registry example.com", "reg\u{0}istry",
    ]
    for text in hostile {
      do {
        _ = try url(text)
        Issue.record("admitted \(text)")
      } catch {
        // Nothing raw: only the admitted part of an address (printable ASCII) is ever said.
        #expect(error.message.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "\(error.message)")
        #expect(!error.message.contains("user@") && !error.message.contains(":pw"), "\(error.message)")
        #expect(error != .notFound)
      }
    }
    #expect(throws: DockerCredentialError.missingServerURL) { try url(" \n") }
    #expect(throws: DockerCredentialError.tooLarge) {
      try DockerCredentialProtocol.serverURL([UInt8](repeating: 65, count: DockerCredentialProtocol.maxInput + 1))
    }
    #expect(throws: DockerCredentialError.self) { try DockerCredentialProtocol.serverURL([0xFF, 0xFE]) }
  }

  @Test func theFirstProfilesWholeHostAPIAnswersAndUnlistedRegistriesAreNotFound() throws {
    let profiles = try profiles()
    func api(_ text: String) throws -> String {
      let found = try DockerCredentialProtocol.api(for: try url(text), in: profiles)
      return "\(found.profile.name).\(found.api.name)"
    }
    #expect(try api("registry.example.com") == "work.registry")
    #expect(try api("registry.example.com/team/app") == "work.registry", "one credential for the whole host")
    #expect(try api("https://registry.example.com/teams") == "work.registry")
    #expect(try api("localhost:5000") == "other.local")
    #expect(throws: DockerCredentialError.notFound) { try api("registry.example.org") }
    #expect(throws: DockerCredentialError.notFound) { try api("registry.example.com:5000") }
    #expect(throws: DockerCredentialError.notFound) { try api("work.example.com") }
  }

  /// Addresses that look like a registry of the config's but are not (issue 46's controls): none
  /// is answered; each is "not found" or refused.
  @Test func lookalikeRegistryAddressesGetNoToken() throws {
    let profiles = try profiles()
    let lookalikes = [
      "registry.example.com.evil.net", "evil-registry.example.com", "registry-example.com", "registry.example.co",
      "registry.example.comm", "xregistry.example.com", "registry.examp1e.com", "registry.example.com:444",
      "registry.example.com:5000", "https://registry.example.com:8443/", "registry.example.com.",
      "evil.net/registry.example.com",
      "evil.net/registry.example.com/team", "localhost:5001", "127.0.0.1:5000", "localhost.evil.net:5000",
      "[::1]:5000", "registry.example.com@evil.net", "evil.net#registry.example.com", "evil.net?registry.example.com",
      "registry.example.com%2eevil.net", "registry%2eexample.com", "re\u{261}istry.example.com",
      "xn--registry-example-com.evil.net", "http://registry.example.com/",
    ]
    #expect(lookalikes.count == 25)
    for text in lookalikes {
      do {
        let found = try DockerCredentialProtocol.api(for: try url(text), in: profiles)
        Issue.record("\(text) got \(found.profile.name).\(found.api.name)'s token")
      } catch {
        // Not found, or refused: either way no token.
      }
    }
  }

  /// Docker hands one registry credential to every path of a host: only an API covering the
  /// whole host answers any address on it (Terraform's rule); an API on a path of it answers none,
  /// and `list` does not name it.
  @Test func anAPIOnOnlyAPathOfARegistrysHostAnswersNoAddressOnIt() throws {
    let profiles = try Config.parse(
      """
      [profiles.work]
      tenant = "https://work.example.com"
      client_id = "cli"

      [profiles.work.apis.team]
      url = "https://registry.example.com/team/"
      """, path: "config.toml"
    ).profiles
    for address in [
      "registry.example.com/team/app", "https://registry.example.com/team/", "registry.example.com/team",
      "registry.example.com",
    ] {
      #expect(throws: DockerCredentialError.notFound, "\(address)") {
        try DockerCredentialProtocol.api(for: try url(address), in: profiles)
      }
    }
    #expect(DockerCredentialProtocol.list(profiles) == "{}\n")
  }

  @Test func answersAreTheProtocolsJSON() throws {
    let profiles = try profiles()
    let registry = try #require(profiles[0].api(named: "registry"))
    let team = try #require(profiles[0].api(named: "team"))
    let token = try BearerToken(admitting: "eyJ.abc-_/+=")
    #expect(
      DockerCredentialProtocol.answer(address: "registry.example.com", api: registry, token: token)
        == "{\"ServerURL\":\"registry.example.com\",\"Username\":\"oauth2accesstoken\",\"Secret\":\"eyJ.abc-_/+=\"}\n")
    let parsed = try #require(
      JSONValue.parse(DockerCredentialProtocol.answer(address: "a\"b\\", api: team, token: token)))
    #expect(parsed["ServerURL"]?.string == "a\"b\\")
    #expect(parsed["Username"]?.string == "robot")
    #expect(
      DockerCredentialProtocol.list(profiles)
        == "{\"registry.example.com\":\"oauth2accesstoken\",\"localhost:5000\":\"oauth2accesstoken\"}\n",
      "an API on a path of a host is no registry's")
    #expect(DockerCredentialProtocol.errorOutput(.notFound) == "credentials not found in native keychain\n")
  }

  @Test func verbs() throws {
    #expect(try DockerCredentialProtocol.verb(["get"]) == .get)
    #expect(try DockerCredentialProtocol.verb(["list"]) == .list)
    for words in [[], ["GET"], ["get", "x"], ["--help-me"], ["version\u{1b}"]] {
      #expect(throws: DockerCredentialError.unknownVerb) { try DockerCredentialProtocol.verb(words) }
    }
  }

  @Test func usernamesAreAdmitted() throws {
    #expect(throws: ConfigError.self) {
      try Config.parse(Self.config.replacing("\"robot\"", with: "\"ro:bot\""), path: "c.toml")
    }
    #expect(try API.admitUsername("oauth2accesstoken") == "oauth2accesstoken")
    for bad in ["", "a b", "a\"b", String(repeating: "a", count: 257)] {
      #expect(throws: AdmissionError.self) { try API.admitUsername(bad) }
    }
  }
}

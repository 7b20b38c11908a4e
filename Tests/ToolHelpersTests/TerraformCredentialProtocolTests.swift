// Terraform's credentials helper protocol as its documentation states it (internals/
// credentials-helpers): `VERB HOST` in argv, `{"token": …}` or `{}` for `get`, `store` refused
// after its stdin is read, hostile hosts refused without being repeated. No terraform needed.
import StrivacityConfig
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct TerraformCredentialProtocolTests {
  static let config = """
    [profiles.work]
    tenant = "https://work.example.com"
    client_id = "cli"

    [profiles.work.apis.tfe]
    url = "tfe.example.com"
    audience = "https://tfe.example.com"

    [profiles.work.apis.part]
    url = "https://part.example.com/api/"

    [profiles.work.apis.root]
    url = "https://root.example.com/"

    [profiles.other]
    tenant = "https://other.example.com"
    client_id = "cli"
    hosts = ["own.example.com"]

    [profiles.other.apis.local]
    url = "localhost:8443"

    [profiles.other.apis.shadowed]
    url = "tfe.example.com"
    """

  func profiles() throws -> [Profile] { try Config.parse(Self.config, path: "config.toml").profiles }

  func found(_ host: String) throws -> String? {
    let request = try TerraformCredentialProtocol.request(["get", host])
    return TerraformCredentialProtocol.api(for: request, in: try profiles()).map { "\($0.profile.name).\($0.api.name)" }
  }

  @Test func theVerbAndTheHostAreTheOnlyArguments() throws {
    let request = try TerraformCredentialProtocol.request(["get", "TFE.example.com"])
    #expect(request == TerraformRequest(verb: .get, host: "tfe.example.com", url: "https://tfe.example.com/"))
    #expect(try TerraformCredentialProtocol.request(["store", "tfe.example.com"]).verb == .store)
    #expect(
      try TerraformCredentialProtocol.request(["forget", "tfe.example.com:8443"]).url == "https://tfe.example.com:8443/"
    )
    #expect(try TerraformCredentialProtocol.request(["get", "localhost:8443"]).url == "http://localhost:8443/")
    for arguments in [
      [], ["get"], ["list", "tfe.example.com"], ["GET", "tfe.example.com"], ["get", "tfe.example.com", "x"],
      ["--host=x", "get", "tfe.example.com"], ["--help"],
    ] {
      #expect(throws: TerraformCredentialError.unknownVerb, "\(arguments)") {
        try TerraformCredentialProtocol.request(arguments)
      }
    }
  }

  @Test func hostileHostsAreRefusedWithoutBeingRepeated() {
    let hostile = [
      "", "user@tfe.example.com", "user:pw@tfe.example.com", "https://tfe.example.com", "tfe.example.com/x",
      "tfe.example.com/..;/x", "tfe.example.com/%2e%2e", "tfe.example.com?x", "tfe.example.com#x", "tfe.example.com.",
      ".tfe.example.com", "tfe..example.com", "-tfe.example.com", "tfe-.example.com", "tfe.example.com:",
      "tfe.example.com:0", "tfe.example.com:65536", "tfe.example.com:08443", "tfe.example.com:1:2",
      "tfe.example.com:x", "[::1]", "tfe .example.com", "tfe.example.com\n", "tfe.example.com\u{1b}[2J",
      "\u{1b}]52;c;aGk=\u{7}tfe.example.com", "tfé.example.com", "tfe_x.example.com",
      String(repeating: "a", count: 64) + ".example.com", String(repeating: "a.", count: 130) + "com",
      String(repeating: "tfe.example.com", count: 70_000),
    ]
    for host in hostile {
      do {
        _ = try TerraformCredentialProtocol.request(["get", host])
        Issue.record("\(host.debugDescription) was admitted")
      } catch {
        #expect(error.status == .usage)
        #expect(!host.isEmpty ? !error.message.contains(host) : true)
        #expect(!error.message.contains("user@") && !error.message.contains("aGk="))
        #expect(!error.message.contains("\u{1b}"))
      }
    }
  }

  /// Hosts that look like one an API covers but are not (issue 46's controls): `{}` or refused.
  @Test func lookalikeHostsGetNoToken() throws {
    let lookalikes = [
      "tfe.example.com.evil.net", "evil-tfe.example.com", "tfe-example.com", "tfe.example.co", "xtfe.example.com",
      "tfe.examp1e.com", "tfe.example.com:8443", "localhost:8444", "part.example.com", "part.example.com.evil.net",
      "own.example.com.evil.net", "root.example.com:444",
    ]
    #expect(lookalikes.count == 12)
    for host in lookalikes {
      #expect((try? found(host)) ?? nil == nil, "\(host) got a token")
    }
  }

  @Test func aHostGetsTheTokenOfTheFirstAPICoveringAllOfIt() throws {
    #expect(try found("tfe.example.com") == "work.tfe", "the first profile's, in the config's order")
    #expect(try found("TFE.EXAMPLE.COM") == "work.tfe")
    #expect(try found("root.example.com") == "work.root")
    #expect(try found("localhost:8443") == "other.local")
    // Terraform sends the token to every path of the host: an API on part of it is not enough.
    #expect(try found("part.example.com") == nil)
    // Never the sign-in's own token: the tenant's host, a profile's hosts, another port.
    for host in ["work.example.com", "own.example.com", "tfe.example.com:8443", "example.com", "x.tfe.example.com"] {
      #expect(try found(host) == nil, "\(host)")
    }
  }

  @Test func answersAreTheDocumentedJSON() throws {
    let token = try BearerToken(admitting: "eyJ.a-b_c.d")
    #expect(TerraformCredentialProtocol.answer(token) == "{\"token\":\"eyJ.a-b_c.d\"}\n")
    #expect(TerraformCredentialProtocol.noCredentials == "{}\n")
    #expect(JSONValue.parse(TerraformCredentialProtocol.answer(token))?["token"]?.string == "eyJ.a-b_c.d")
  }

  @Test func storeRefusesEverythingAndSaysWhy() {
    #expect(TerraformCredentialProtocol.storeRefusal(Array(#"{"token":"abc"}"#.utf8)) == .storeRefused)
    #expect(TerraformCredentialProtocol.storeRefusal(Array(#"{"token":"abc","extra":1}"#.utf8)) == .storeRefused)
    for bad in ["", "not json", "[1]", "\"token\"", "{\"token\":"] {
      #expect(TerraformCredentialProtocol.storeRefusal(Array(bad.utf8)) == .notAnObject, "\(bad)")
    }
    let large = [UInt8](repeating: UInt8(ascii: " "), count: TerraformCredentialProtocol.maxInput + 1)
    #expect(TerraformCredentialProtocol.storeRefusal(large) == .tooLarge)
    for refusal in [TerraformCredentialError.storeRefused, .notAnObject, .tooLarge] {
      #expect(refusal.status != .ok && !refusal.message.contains("abc"))
    }
  }

  @Test func tokenVariablesAreNamedAsTerraformNamesThem() {
    #expect(TerraformCredentialProtocol.tokenVariable("tfe.example.com") == "TF_TOKEN_tfe_example_com")
    #expect(TerraformCredentialProtocol.tokenVariable("my-tfe.example.com") == "TF_TOKEN_my__tfe_example_com")
    #expect(TerraformCredentialProtocol.tokenVariable("tfe.example.com:8443") == nil)
  }
}

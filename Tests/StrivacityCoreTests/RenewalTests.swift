// How a profile's tokens are renewed without a person (`Renewal`): chosen once from its grant
// when the profile is resolved, and what each way means for the rest of the code.
import StrivacityConfig
import StrivacityCore
import Testing

@Suite struct RenewalTests {
  static let config = """
    [profiles.person]
    tenant = "https://t.example"
    client_id = "cli"

    [profiles.explicit]
    tenant = "https://t.example"
    client_id = "cli"
    grant = "authorization_code"

    [profiles.ci]
    tenant = "https://t.example"
    client_id = "bot"
    grant = "client_credentials"
    client_secret_env = "CI_BOT_SECRET"

    [profiles.filed]
    tenant = "https://t.example"
    client_id = "bot"
    grant = "client_credentials"
    store = "file"

    [profiles.signer]
    tenant = "https://t.example"
    client_id = "bot"
    grant = "client_credentials"
    token_endpoint_auth = "private_key_jwt"
    private_key_file = "/etc/bot.pem"
    """

  func resolved(_ name: String?, store: StoreKind? = nil) throws -> ResolvedProfile {
    try ResolvedProfile.resolve(
      config: try Config.parse(Self.config, path: "/c.toml"), overrides: .init(profile: name, store: store),
      environment: [:])
  }

  @Test func theGrantChoosesIt() {
    #expect(Renewal(grant: .signIn) == .refreshToken)
    #expect(Renewal(grant: .clientCredentials) == .clientCredentials)
  }

  @Test func aResolvedProfileCarriesItsGrantsRenewal() throws {
    #expect(try resolved("person").renewal == .refreshToken)
    #expect(try resolved("explicit").renewal == .refreshToken)
    #expect(try resolved("ci").renewal == .clientCredentials)
    #expect(try resolved("signer").renewal == .clientCredentials)
    // A profile of flags and environment alone signs in.
    let adHoc = try ResolvedProfile.resolve(
      config: nil, overrides: .init(profile: "adhoc", tenant: "https://t.example", clientID: "c"), environment: [:])
    #expect(adHoc.renewal == .refreshToken)
  }

  @Test func aMachinesTokensAreNeverTheDesktopKeyrings() throws {
    #expect(try resolved("ci").store == .kernel)
    #expect(try resolved("ci", store: .secretService).store == .kernel)
    #expect(try resolved("ci", store: .file).store == .file)
    #expect(try resolved("filed").store == .file)
    #expect(try resolved("person").store == .secretService)
    #expect(try resolved("person", store: .file).store == .file)
    for chosen in StoreKind.allCases {
      #expect(Renewal.refreshToken.store(chosen) == chosen)
      #expect(Renewal.clientCredentials.store(chosen) == (chosen == .file ? .file : .kernel))
    }
  }

  @Test func eachWaySaysWhoIsThere() {
    #expect(Renewal.refreshToken.personSignsIn && !Renewal.refreshToken.clientProvesItself)
    #expect(!Renewal.clientCredentials.personSignsIn && Renewal.clientCredentials.clientProvesItself)
  }

  /// Only a machine profile that proves itself with a secret has a secret source.
  @Test func aSecretSourceIsAMachinesOnly() throws {
    #expect(try resolved("person").secretSource(environment: ["STRIVACITY_CLIENT_SECRET": "s"]) == nil)
    #expect(try resolved("ci").secretSource(environment: [:]) == .environment("CI_BOT_SECRET"))
    #expect(try resolved("filed").secretSource(environment: [:]) == .keyring)
    #expect(try resolved("signer").secretSource(environment: [:]) == nil)
  }
}

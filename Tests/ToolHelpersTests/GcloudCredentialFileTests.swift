// The credential configuration setup gcloud writes (GcloudCredentialFile.swift): its JSON, its
// checks, which files are ours. The real google-auth runs it end to end in CloudSDKTests.
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct GcloudCredentialFileTests {
  static let audience = "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/s"

  @Test func theConfigurationIsAnExternalAccountRunningTheSmallBinary() throws {
    let command = GoogleCredentialConfiguration.command(binary: "/usr/bin/strivacity", api: "gcp", profile: "ci")
    #expect(
      command == ["/usr/bin/strivacity", "token", "--format", "google-executable", "--api", "gcp", "--profile", "ci"])
    let configuration = GoogleCredentialConfiguration(audience: Self.audience, command: command)
    try configuration.check()
    let json = try #require(JSONValue.parse(configuration.json))
    #expect(json["type"]?.string == "external_account")
    #expect(json["audience"]?.string == Self.audience)
    #expect(json["subject_token_type"]?.string == GoogleExecutableInfo.jwt)
    #expect(json["token_url"]?.string == "https://sts.googleapis.com/v1/token")
    #expect(json["service_account_impersonation_url"] == nil)
    #expect(
      json["credential_source"]?["executable"]?["command"]?.string
        == "/usr/bin/strivacity token --format google-executable --api gcp --profile ci")
    #expect(json["credential_source"]?["executable"]?["timeout_millis"]?.int == 30_000)
    #expect(GoogleCredentialConfiguration.isOurs(configuration.json))

    var impersonating = configuration
    impersonating.impersonationURL =
      "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/ci@p.iam.gserviceaccount.com"
      + ":generateAccessToken"
    #expect(
      JSONValue.parse(impersonating.json)?["service_account_impersonation_url"]?.string
        == impersonating.impersonationURL)
  }

  @Test func aFileIsOursOnlyWhenItRunsTokenGoogleExecutable() {
    #expect(!GoogleCredentialConfiguration.isOurs(""))
    #expect(!GoogleCredentialConfiguration.isOurs("not json"))
    #expect(!GoogleCredentialConfiguration.isOurs(#"{"type":"service_account","private_key":"…"}"#))
    #expect(
      !GoogleCredentialConfiguration.isOurs(
        #"{"type":"external_account","credential_source":{"file":"/var/run/token"}}"#))
    #expect(
      !GoogleCredentialConfiguration.isOurs(
        #"{"type":"external_account","credential_source":{"executable":{"command":"/opt/other --format x"}}}"#))
    #expect(
      GoogleCredentialConfiguration.isOurs(
        #"{"type":"external_account","credential_source":{"executable":{"command":"/opt/s token --format "#
          + #"google-executable --api a"}}}"#))
  }

  @Test(arguments: [
    ("audience", "iam.googleapis.com/projects/1"), ("audience", "//iam.googleapis.com/a b"), ("audience", ""),
    ("token", "http://sts.example.com/v1/token"), ("token", "ftp://x"), ("token", "https://"),
    ("token", "https://sts.googleapis.com/v1/token\n"), ("impersonation", "http://iam.example.com/x"),
    ("command", "/opt/my tools/strivacity"),
  ])
  func badValuesAreRefused(field: String, value: String) {
    var configuration = GoogleCredentialConfiguration(
      audience: Self.audience,
      command: GoogleCredentialConfiguration.command(binary: "/usr/bin/strivacity", api: "gcp", profile: nil))
    switch field {
    case "audience": configuration.audience = value
    case "token": configuration.tokenURL = value
    case "impersonation": configuration.impersonationURL = value
    default: configuration.command[0] = value
    }
    #expect(throws: AdmissionError.self) { try configuration.check() }
  }

  @Test func aLoopbackTokenServiceIsAllowed() throws {
    for url in ["http://127.0.0.1:8080/v1/token", "http://localhost:9/v1/token", "http://[::1]:9/t"] {
      let configuration = GoogleCredentialConfiguration(
        audience: Self.audience, command: ["/s", "token"], tokenURL: url)
      try configuration.check()
    }
  }
}

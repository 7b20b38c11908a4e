// Google's executable-sourced credentials, in-process: what the client's variables may say
// (GoogleExecutableInfo.from), the response's error shape for every exit status, and the
// credential configuration setup-gcloud writes (its JSON, its checks, which files are ours).
// The real google-auth runs all of it end to end in CloudSDKTests.
import Testing

@testable import StrivacityCore

@Suite struct GoogleExecutableTests {
  @Test func theClientsTokenTypeIsAdmittedOrRefused() throws {
    #expect(try GoogleExecutableInfo.from([:]) == GoogleExecutableInfo(tokenType: GoogleExecutableInfo.jwt))
    #expect(try GoogleExecutableInfo.from(["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": ""]) == GoogleExecutableInfo())
    for type in GoogleExecutableInfo.tokenTypes {
      #expect(try GoogleExecutableInfo.from(["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": type]).tokenType == type)
    }
    // Interactive or not, an audience, an output file: nothing that changes the answer.
    let quiet = try GoogleExecutableInfo.from([
      "GOOGLE_EXTERNAL_ACCOUNT_INTERACTIVE": "1", "GOOGLE_EXTERNAL_ACCOUNT_AUDIENCE": "\u{1b}[2J",
      "GOOGLE_EXTERNAL_ACCOUNT_OUTPUT_FILE": "/etc/passwd",
    ])
    #expect(quiet == GoogleExecutableInfo())
    for hostile in [
      "urn:ietf:params:oauth:token-type:saml2", "jwt", "\u{1b}]0;x\u{7}", String(repeating: "x", count: 100_000),
    ] {
      do {
        _ = try GoogleExecutableInfo.from(["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": hostile])
        Issue.record("admitted \(hostile.prefix(40))")
      } catch {
        #expect(error.description.contains("subject_token_type"))
        #expect(!error.description.contains("\u{1b}") && error.description.utf8.count < 400)
      }
    }
  }

  @Test func everyExitStatusHasACodeAndTheErrorShapeIsOneLine() {
    let codes = ExitStatus.allCases.map(GoogleExecutableInfo.code)
    #expect(Set(codes).count == codes.count, "one code per status")
    #expect(GoogleExecutableInfo.code(.signInRequired) == "sign_in_required")
    #expect(GoogleExecutableInfo.code(.transient) == "transient")
    let shaped = GoogleExecutableInfo.failure(.transient, message: "the tenant\nis \u{1b}[31mdown")
    #expect(shaped.hasSuffix("\n") && shaped.dropLast().split(separator: "\n").count == 1)
    #expect(!shaped.contains("\u{1b}"))
    let parsed = JSONValue.parse(shaped)
    #expect(parsed?["version"]?.int == 1 && parsed?["success"]?.bool == false)
    #expect(parsed?["code"]?.string == "transient")
  }

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

// Cloud workload identity (issue 40) with the clouds' real SDKs, pinned from PyPI
// (Scripts/fetch-pytools), against stand-ins for their token services on loopback that check the
// subject token is strivacity's, for the right audience, from the right issuer:
// Google's google-auth runs `strivacity token --format google-executable` from the credential
// configuration `strivacity setup-gcloud` writes; AWS's botocore reads the web identity token
// file `strivacity exec --file-env AWS_WEB_IDENTITY_TOKEN_FILE` keeps. Each SDK must end up with
// its stand-in's credentials. The drivers are Tests/Fixtures/*_driver.py; python3 runs isolated
// (-I -S: nothing installed on the machine is on its path).
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct CloudSDKTests {
  /// The pinned google-auth and botocore, installed once into .build/tools (nil if that failed).
  static let site: String? = fetchedTool("fetch-pytools").flatMap {
    FileManager.default.fileExists(atPath: $0 + "/botocore") ? $0 : nil
  }

  static func fixture(_ name: String) -> String {
    TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Fixtures/" + name).path
  }

  /// The provider's audience (STS's `audience`); the subject token's own audience is the API's.
  static let provider = "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/ci/providers/strivacity"
  static let apiAudience = "https://api.example.com/orders"

  static func api(_ profile: String, _ name: String, url: String) -> String {
    """

    [profiles.\(profile).apis.\(name)]
    url = "\(url)"
    audience = "\(apiAudience)"
    resource = ["https://api.example.com/orders/"]
    scopes = ["orders:read"]
    """
  }

  /// The driver's one JSON line.
  func result(_ run: ProcessResult) throws -> JSONValue {
    let line = try #require(run.stdout.split(separator: "\n").last, "no output; stderr: \(run.stderr)")
    return try #require(JSONValue.parse(String(line)), "\(run.stdout) \(run.stderr)")
  }

  /// A machine profile (client credentials: the CI case): setup-gcloud's configuration, as
  /// google-auth loads it, gets the API's token from the command it names and exchanges it at
  /// the stand-in; the token is then the small binary's to answer alone, from the cache.
  @Test func googleAuthExchangesTheTokenOfTheConfigurationSetupGcloudWrites() throws {
    let site = try #require(Self.site, "google-auth: Scripts/fetch-pytools could not install it from PyPI")
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-basic", Self.api(h.profile, "gcp", url: "https://sts.googleapis.com/"))
    let file = h.home.file("gcloud/strivacity.json")
    let environment = h.environment.merging([
      "STRIVACITY_CLIENT_SECRET": "ci-basic-secret-1", "EXPECT_ISS": h.emulator.issuer,
      "EXPECT_AUD": Self.apiAudience, "EXPECT_GOOGLE_AUDIENCE": Self.provider,
    ]) { _, new in new }
    let exchange = try run(
      [
        "/usr/bin/env", "python3", "-I", "-S", "-B", Self.fixture("google_auth_driver.py"), site, file, "--",
        TestEnvironment.binary("strivacity"), "setup-gcloud", "--profile", h.profile, "--api", "gcp",
        "--audience", Self.provider, "--output", file,
      ], environment: environment)
    let found = try result(exchange)
    #expect(found["error"] == .null, "\(found)")
    #expect(found["problems"]?.array == [], "\(found)")
    #expect(found["exchanges"]?.int == 1)
    #expect(found["sdk_token"] != .null && found["sdk_token"] == found["issued"], "\(found)")
    #expect(found["kind"]?.string == "google.auth.pluggable")

    // The file: 0600, the small binary by absolute path with the profile and API.
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let written = try #require(JSONValue.parse(try String(contentsOfFile: file, encoding: .utf8)))
    let command = written["credential_source"]?["executable"]?["command"]?.string ?? ""
    #expect(command.hasPrefix("/") && command.contains("/strivacity token --format google-executable --api gcp"))
    #expect(command.hasSuffix("--profile \(h.profile)"), "\(command)")

    // Cached: answered by the small binary with no full command line beside it, no secret.
    let alone = try h.smallBinaryAlone(links: [])
    let cached = try run(
      [alone + "/strivacity", "token", "--format", "google-executable", "--api", "gcp", "--profile", h.profile],
      environment: h.environment)
    #expect(cached.status == 0 && cached.stderr.isEmpty, "\(cached.stderr)")
    let response = try #require(JSONValue.parse(cached.stdout))
    #expect(response["success"]?.bool == true && response["version"]?.int == 1)
    #expect((response["expiration_time"]?.int ?? 0) > Int(Date().timeIntervalSince1970))
    let claims = try jwtClaims(try #require(response["id_token"]?.string))
    #expect(claims["aud"]?.array?.contains(.string(Self.apiAudience)) == true)
    #expect(try h.stats()["client_credentials_requests"]?.int == 1, "google-auth's call was the only one")

    // A file that is not such a configuration is left alone, unless --force.
    let foreign = try h.home.write("gcloud/key.json", #"{"type":"service_account"}"#)
    let setup = [
      "setup-gcloud", "--profile", h.profile, "--api", "gcp", "--audience", Self.provider, "--output", foreign,
    ]
    let refused = try run([TestEnvironment.binary("strivacity")] + setup, environment: environment)
    #expect(refused.status == 2 && refused.stderr.contains("--force"), "\(refused.stderr)")
    #expect(try String(contentsOfFile: foreign, encoding: .utf8) == #"{"type":"service_account"}"#)
    let forced = try run([TestEnvironment.binary("strivacity")] + setup + ["--force"], environment: environment)
    #expect(forced.status == 0, "\(forced.stderr)")
    #expect(JSONValue.parse(try String(contentsOfFile: foreign, encoding: .utf8))?["type"] == "external_account")
  }

  /// A person's profile, its tokens from `strivacity agent` (no kernel cache): botocore's
  /// credential chain finds AWS_ROLE_ARN and the token file exec keeps, and assumes the role at
  /// the stand-in with the API's token; Google's format comes from the agent as well.
  @Test func botocoreAssumesTheRoleWithTheTokenFileExecKeeps() throws {
    let site = try #require(Self.site, "botocore: Scripts/fetch-pytools could not install it from PyPI")
    let h = try Harness(journey: "password")
    try h.writeProfile(Self.api(h.profile, "aws", url: "https://sts.amazonaws.com/"))
    try h.signIn()
    try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let google = try h.strivacity(["token", "--profile", h.profile, "--api", "aws", "--format", "google-executable"])
    #expect(google.status == 0 && google.stderr.isEmpty, "\(google.stderr)")
    #expect(JSONValue.parse(google.stdout)?["success"]?.bool == true, "\(google.stdout)")
    let status = try h.strivacity(["agent", "status"])
    let answered = Int(status.stdout.split(separator: "answered  ").last?.prefix { $0.isNumber } ?? "") ?? 0
    #expect(answered >= 1, "\(status.stdout)")
    let directory = h.home.file("exec")
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let environment = h.environment.merging([
      "EXPECT_ISS": h.emulator.issuer, "EXPECT_AUD": Self.apiAudience,
      "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/strivacity-ci",
    ]) { _, new in new }
    let assumed = try run(
      [
        TestEnvironment.binary("strivacity"), "exec", "--profile", h.profile, "--api", "aws", "--dir", directory,
        "--file-env", "AWS_WEB_IDENTITY_TOKEN_FILE", "--", "/usr/bin/env", "python3", "-I", "-S", "-B",
        Self.fixture("botocore_driver.py"), site,
      ], environment: environment)
    #expect(assumed.status == 0, "\(assumed.stderr)")
    let found = try result(assumed)
    #expect(found["error"] == .null, "\(found)")
    #expect(found["problems"]?.array == [], "\(found)")
    #expect(found["method"]?.string == "assume-role-with-web-identity")
    #expect(found["sdk_key"] != .null && found["sdk_key"] == found["issued"], "\(found)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "the token file is removed")
  }

  /// Never a sign-in, even on a terminal: without a token the client gets the response's error
  /// shape on stdout (exit 3) and one stderr line naming `strivacity login`, at once; no
  /// warning (the config's unknown key) on stderr, which Google's client reads with stdout.
  @Test func withoutATokenTheResponseIsTheErrorShapeAndNobodyIsAsked() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("unknown_key = 1\n" + Self.api(h.profile, "gcp", url: "https://sts.googleapis.com/"))
    let tty = try PTYSession(
      [
        TestEnvironment.binary("strivacity"), "token", "--format", "google-executable", "--api", "gcp",
        "--profile", h.profile, "--login",
      ], environment: h.environment.merging(["GOOGLE_EXTERNAL_ACCOUNT_INTERACTIVE": "1"]) { _, new in new })
    #expect(try tty.wait() == 3, "\(tty.transcript)")
    let response = try #require(JSONValue.parse(tty.stdout), "\(tty.stdout)")
    #expect(response["version"]?.int == 1 && response["success"]?.bool == false)
    #expect(response["code"]?.string == "sign_in_required")
    #expect(response["message"]?.string?.contains("strivacity login") == true, "\(response)")
    let lines = tty.transcript.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("strivacity login --profile \(h.profile)"), "\(tty.transcript)")
    #expect((try h.stats()["grants"]?.object ?? [:]).isEmpty, "no token was asked for")
  }
}

// AWS's credential_process with the real AWS CLI (PyPI awscli, pinned: Scripts/fetch-awscli)
// against a stand-in for AWS STS on loopback (Tests/Fixtures/awscli_driver.py) that checks the
// web identity token's issuer and audience and the role, and answers only calls signed with the
// credentials it issued: `aws sts get-caller-identity` runs `strivacity aws-credential-process`
// from its config, the API's token is exchanged once, kept credentials are answered by the small
// binary alone, credentials near expiry are asked for again, and every failure is one stderr
// line, a documented status and nothing on stdout.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct AWSCredentialProcessTests {
  /// The pinned AWS CLI, installed once into .build/tools (nil if that failed).
  static let site: String? = fetchedTool("fetch-awscli").flatMap {
    FileManager.default.fileExists(atPath: $0 + "/awscli/clidriver.py") ? $0 : nil
  }
  static let role = "arn:aws:iam::123456789012:role/strivacity-ci"

  static func api(_ profile: String, _ name: String, role: String?) -> String {
    CloudSDKTests.api(profile, name, url: "https://\(name).sts.example.com/")
      + (role.map { "\naws_role_arn = \"\($0)\"\n" } ?? "\n")
  }

  @Test func theAWSCLIGetsTheRolesCredentialsAndKeptOnesAreAnsweredByTheSmallBinary() throws {
    let site = try #require(Self.site, "awscli: Scripts/fetch-awscli could not install it from PyPI")
    let h = try Harness(journey: "password")
    try h.writeProfile(
      Self.api(h.profile, "aws", role: Self.role) + Self.api(h.profile, "short", role: Self.role + "-short")
        + Self.api(h.profile, "denied", role: "arn:aws:iam::123456789012:role/other")
        + Self.api(h.profile, "plain", role: nil))
    let binary = TestEnvironment.binary("strivacity")
    func command(_ api: String, _ program: String = binary) -> [String] {
      [program, "aws-credential-process", "--profile", h.profile, "--api", api]
    }

    // Not signed in: the login to run, nothing on stdout, before any request.
    let signedOut = try h.strivacity(Array(command("aws").dropFirst()))
    #expect(signedOut.status == 3 && signedOut.stdout.isEmpty, "\(signedOut.stderr)")
    #expect(signedOut.stderr.split(separator: "\n").count == 1, "\(signedOut.stderr)")
    #expect(signedOut.stderr.contains("aws credential_process: ") && signedOut.stderr.contains("strivacity login"))
    // An API without a role: what to add, where.
    let plain = try h.strivacity(Array(command("plain").dropFirst()))
    #expect(plain.status == 2 && plain.stdout.isEmpty, "\(plain.stderr)")
    #expect(plain.stderr.contains("aws_role_arn") && plain.stderr.contains("[profiles.\(h.profile).apis.plain]"))
    let none = try h.strivacity(Array(command("nope").dropFirst()))
    #expect(none.status == 2 && none.stdout.isEmpty && none.stderr.contains("has no API 'nope'"), "\(none.stderr)")

    try h.signIn()
    // The token goes to no STS but over https (or to loopback): a plain-http endpoint is refused.
    let plainHTTP = try run(
      command("aws"), environment: h.environment.merging(["AWS_ENDPOINT_URL_STS": "http://sts.example.com/"]) { $1 })
    #expect(plainHTTP.status == 2 && plainHTTP.stdout.isEmpty, "\(plainHTTP.stderr)")
    #expect(plainHTTP.stderr.split(separator: "\n").count == 1 && plainHTTP.stderr.contains("AWS_ENDPOINT_URL_STS: "))
    let alone = try h.smallBinaryAlone(links: [])
    let directory = h.home.file("aws")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let steps: [[String]] = [
      ["aws", "good"], ["aws", "good"], command("aws", alone + "/strivacity"), ["aws", "short"], ["aws", "short"],
      ["aws", "denied"], command("denied"),
    ]
    let environment = h.environment.merging([
      "EXPECT_ISS": h.emulator.issuer, "EXPECT_AUD": CloudSDKTests.apiAudience, "EXPECT_ROLE": Self.role,
      "DRIVER_DIR": directory, "PROCESS_GOOD": command("aws").joined(separator: " "),
      "PROCESS_SHORT": command("short").joined(separator: " "),
      "PROCESS_DENIED": command("denied").joined(separator: " "),
    ]) { _, new in new }
    let stepsJSON = String(decoding: try JSONEncoder().encode(steps), as: UTF8.self)
    let driven = try run(
      ["/usr/bin/env", "python3", "-I", "-S", "-B", CloudSDKTests.fixture("awscli_driver.py"), site, stepsJSON],
      environment: environment, timeout: 600)
    let line = try #require(driven.stdout.split(separator: "\n").last, "no output; stderr: \(driven.stderr)")
    let found = try #require(JSONValue.parse(String(line)), "\(driven.stdout) \(driven.stderr)")
    #expect(found["problems"]?.array == [], "\(found)")
    let results = try #require(found["steps"]?.array)
    try #require(results.count == steps.count, "\(found)")
    let issued = found["issued"]?.array?.compactMap(\.string) ?? []

    // The role assumed with the API's token; the CLI's call signed with what STS issued.
    #expect(results[0]["status"]?.int == 0, "\(results[0])")
    let identity = JSONValue.parse(results[0]["stdout"]?.string ?? "")
    #expect(identity?["Arn"]?.string == "arn:aws:sts::123456789012:assumed-role/strivacity-ci/strivacity-\(h.profile)")
    #expect(results[0]["assumed"]?.int == 1)
    // Kept: the second run and the small binary alone ask STS nothing.
    #expect(results[1]["status"]?.int == 0 && results[1]["assumed"]?.int == 1, "\(results[1])")
    #expect(results[2]["status"]?.int == 0 && results[2]["stderr"]?.string == "", "\(results[2])")
    #expect(results[2]["assumed"]?.int == 1)
    let answer = try #require(JSONValue.parse(results[2]["stdout"]?.string ?? ""), "\(results[2])")
    #expect(answer["Version"]?.int == 1 && issued.count >= 1 && issued.contains(answer["AccessKeyId"]?.string ?? ""))
    #expect(answer["SessionToken"]?.string?.isEmpty == false && answer["SecretAccessKey"]?.string?.isEmpty == false)
    let expiration = try #require(RFC3339.parse(answer["Expiration"]?.string ?? ""))
    #expect(expiration > Int64(Date().timeIntervalSince1970) + 3000)
    // Credentials within 15 minutes of their expiry are never answered from the cache: each
    // run asks STS again (botocore itself asks twice for them, refreshing at once).
    let short = (results[3]["assumed"]?.int ?? 0, results[4]["assumed"]?.int ?? 0)
    #expect(results[3]["status"]?.int == 0 && results[4]["status"]?.int == 0, "\(results[3]) \(results[4])")
    #expect(short.0 > 1 && short.1 > short.0, "\(short)")
    // STS's refusal: the CLI shows our line; run alone, it is one inert line, exit 5.
    #expect(results[5]["status"]?.int != 0 && results[5]["stderr"]?.string?.contains("AccessDenied") == true)
    let refused = results[6]
    #expect(refused["status"]?.int == 5 && refused["stdout"]?.string == "", "\(refused)")
    let words = refused["stderr"]?.string ?? ""
    #expect(words.split(separator: "\n").count == 1 && !words.contains("\u{1b}"), "\(words)")
    #expect(words.contains("AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity ^[]0;owned"))
    #expect(words.contains("aws_role_arn (arn:aws:iam::123456789012:role/other)"), "\(words)")

    // Signed out: the kept credentials are not answered, by either binary.
    #expect(try h.strivacity(["logout", "--profile", h.profile]).status == 0)
    for program in [binary, alone + "/strivacity"] {
      let after = try run(command("aws", program), environment: h.environment)
      #expect(after.status != 0 && after.stdout.isEmpty, "\(program): \(after.stdout)")
    }
  }

  /// `strivacity setup aws` writes the role and the AWS config's credential_process, the real
  /// AWS CLI then gets the role's credentials through it, and --undo gives the AWS config back
  /// byte for byte.
  @Test func setupAWSMakesTheAWSCLIGetTheRolesCredentialsAndUndoRestoresTheFile() throws {
    let site = try #require(Self.site, "awscli: Scripts/fetch-awscli could not install it from PyPI")
    let h = try Harness(journey: "password")
    try h.writeProfile(CloudSDKTests.api(h.profile, "aws", url: "https://aws.sts.example.com/"))
    let directory = h.home.file("aws")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let config = directory + "/config"
    let original =
      "# mine\r\n[default]\r\nregion = eu-west-1\r\n\r\n[profile work]\r\nregion = us-east-1\r\n"
      + "output = json\r\n\r\n[profile keys]\r\naws_access_key_id = AKIAEXAMPLE\r\n; \u{1b}]0;x\u{07} \u{ff}\r\n"
    try Data(original.utf8).write(to: URL(fileURLWithPath: config))
    let environment = h.environment.merging([
      "AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": directory + "/credentials",
      "AWS_ACCESS_KEY_ID": "AKIAFROMTHEENVIRONMENT",
    ]) { _, new in new }
    func setup(_ arguments: [String]) throws -> ProcessResult {
      try run(
        [TestEnvironment.binary("strivacity"), "setup", "aws", "--profile", h.profile] + arguments,
        environment: environment)
    }
    func configText() throws -> String {
      String(decoding: try Data(contentsOf: URL(fileURLWithPath: config)), as: UTF8.self)
    }

    // A section with keys of its own is refused, and nothing written; an API to add, shown.
    let refused = try setup(["--api", "aws", "--role-arn", Self.role, "--aws-profile", "keys"])
    #expect(refused.status == 2 && refused.stderr.contains("[profile keys] has aws_access_key_id"), "\(refused.stderr)")
    #expect(try configText() == original)
    let adding = try setup(["--api", "new", "--role-arn", Self.role, "--audience", "sts.amazonaws.com", "--dry-run"])
    #expect(adding.status == 0 && adding.stdout.contains("url = \"https://sts.amazonaws.com/\""), "\(adding.stderr)")
    #expect(adding.stdout.contains("[profile \(h.profile)]") && adding.stdout.contains("aws_role_arn"))
    #expect(try configText() == original)

    let done = try setup(["--api", "aws", "--role-arn", Self.role, "--session-name", "alice", "--aws-profile", "work"])
    #expect(done.status == 0, "\(done.stderr)")
    #expect(done.stderr.contains("AWS_ACCESS_KEY_ID is set"), "\(done.stderr)")
    // The small strivacity by its real path, after the section's last key; every other byte kept.
    let parts = original.components(separatedBy: "output = json\r\n")
    let written = try configText()
    #expect(written.hasPrefix(parts[0] + "output = json\r\ncredential_process = /"), "\(written)")
    #expect(written.hasSuffix("/strivacity aws-credential-process --api aws --profile \(h.profile)\r\n" + parts[1]))
    let toml = try h.home.readConfig()
    #expect(toml.contains("aws_role_arn = \"\(Self.role)\"") && toml.contains("aws_session_name = \"alice\""))

    try h.signIn()
    let driven = try run(
      [
        "/usr/bin/env", "python3", "-I", "-S", "-B", CloudSDKTests.fixture("awscli_driver.py"), site,
        #"[["aws", "work"]]"#,
      ],
      environment: h.environment.merging([
        "EXPECT_ISS": h.emulator.issuer, "EXPECT_AUD": CloudSDKTests.apiAudience, "EXPECT_ROLE": Self.role,
        "DRIVER_DIR": directory, "DRIVER_CONFIG": config,
      ]) { _, new in new }, timeout: 600)
    let line = try #require(driven.stdout.split(separator: "\n").last, "no output; stderr: \(driven.stderr)")
    let found = try #require(JSONValue.parse(String(line)), "\(driven.stdout) \(driven.stderr)")
    #expect(found["problems"]?.array == [], "\(found)")
    let step = try #require(found["steps"]?.array?.first)
    #expect(step["status"]?.int == 0 && step["assumed"]?.int == 1, "\(step)")
    let identity = JSONValue.parse(step["stdout"]?.string ?? "")
    #expect(identity?["Arn"]?.string == "arn:aws:sts::123456789012:assumed-role/strivacity-ci/alice", "\(step)")

    let undone = try setup(["--api", "aws", "--aws-profile", "work", "--undo"])
    #expect(undone.status == 0, "\(undone.stderr)")
    #expect(try configText() == original)
    let after = try h.home.readConfig()
    #expect(!after.contains("aws_role_arn") && !after.contains("aws_session_name") && after.contains("[profiles."))
  }
}

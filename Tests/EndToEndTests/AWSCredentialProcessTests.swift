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
}

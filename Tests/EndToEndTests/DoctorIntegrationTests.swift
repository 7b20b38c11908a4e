// `strivacity doctor` examines every tool set up to ask strivacity (issue 47, point 4): the real
// binary against the emulator, signed in, in a private HOME holding git's, Docker's and
// containers', cargo's, Terraform's, Google's and AWS's files as the setup commands write them. All
// well, then each misconfiguration in turn: its ✘ row, the command that fixes it, and exit 2.
import Foundation
import StrivacityConfig
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct DoctorIntegrationTests {
  /// A signed-in profile with APIs for a registry and a Terraform host, and every tool's file.
  final class SetUp {
    let h: Harness
    let binary = TestEnvironment.binary("strivacity")
    var base: [String: String]

    init() throws {
      h = try Harness(journey: "password")
      let p = h.profile
      try h.writeProfile(
        """
        git_hosts = ["git.example.com"]

        [profiles.\(p).apis.registry]
        url = "registry.example.com"

        [profiles.\(p).apis.tfe]
        url = "tfe.example.com"
        """)
      try h.signIn()
      let bin = h.home.file("bin")
      try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: bin + "/docker-credential-strivacity", withDestinationPath: binary)
      base = ["STRIVACITY_AGENT": "0", "PATH": bin + ":/usr/local/bin:/usr/bin:/bin"]
      try write(".gitconfig", "[credential \"https://git.example.com\"]\n\thelper = strivacity\n")
      let helpers = #"{"credHelpers": {"registry.example.com": "strivacity"}}"#
      try write(".docker/config.json", helpers)
      try write(".config/containers/auth.json", helpers)
      try write(".cargo/config.toml", cargo())
      try write(".terraformrc", "credentials_helper \"strivacity\" {\n  args = []\n}\n")
      let plugins = h.home.file(".terraform.d/plugins")
      try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: plugins + "/terraform-credentials-strivacity", withDestinationPath: binary)
    }

    func cargo(_ more: String = "") -> String {
      """
      [registries.internal]
      index = "sparse+https://registry.example.com/cargo/"
      credential-provider = ["\(binary)", "--profile", "\(h.profile)"]
      \(more)
      """
    }

    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String { try h.home.write(relative, text) }

    /// doctor's JSON report and exit status.
    func doctor(_ environment: [String: String] = [:]) throws -> (status: Int32, checks: [JSONValue], text: String) {
      let env = base.merging(environment) { $1 }
      let json = try h.strivacity(["doctor", "--profile", h.profile, "--format", "json"], environment: env)
      let text = try h.strivacity(["doctor", "--profile", h.profile], environment: env)
      #expect(json.status == text.status)
      return (json.status, JSONValue.parse(Array(json.stdout.utf8))?["checks"]?.array ?? [], text.stdout)
    }

    /// The ✘ row of `tool` whose detail holds `detail`, with `fix` in its fix, and exit 2.
    func expectFailure(
      _ tool: String, _ detail: String, fix: String, environment: [String: String] = [:],
      sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      let (status, checks, text) = try doctor(environment)
      #expect(status == 2, "\(text)", sourceLocation: sourceLocation)
      #expect(text.contains("✘ \(tool)"), "\(text)", sourceLocation: sourceLocation)
      let row = checks.first { $0["check"]?.string == tool && $0["detail"]?.string?.contains(detail) == true }
      #expect(row?["outcome"] == "fail", "\(checks)", sourceLocation: sourceLocation)
      #expect(
        row?["fix"]?.string?.contains(fix) == true, "\(row.map { "\($0)" } ?? "\(checks)")",
        sourceLocation: sourceLocation)
    }
  }

  @Test func everyToolSetUpIsExaminedAndEachMisconfigurationNamesItsFix() throws {
    let s = try SetUp()
    let home = s.h.home.path
    let p = s.h.profile
    // All well: a row for each tool, exit 0.
    let (status, checks, text) = try s.doctor()
    #expect(status == 0, "\(text)")
    let rows = Dictionary(checks.compactMap { c in c["check"]?.string.map { ($0, c) } }) { first, _ in first }
    #expect(rows["git"]?["detail"] == "git asks strivacity for https://git.example.com", "\(text)")
    #expect(
      rows["docker"]?["detail"] == "docker, podman and skopeo ask strivacity for registry.example.com (API registry)",
      "\(text)")
    #expect(rows["cargo"]?["detail"] == "cargo asks strivacity for registry internal", "\(text)")
    #expect(
      rows["terraform"]?["detail"] == "terraform and tofu ask strivacity for registry.example.com, tfe.example.com",
      "\(text)")

    // git: another helper asked first.
    try s.write(
      ".gitconfig", "[credential]\n\thelper = store\n[credential \"https://git.example.com\"]\n\thelper = strivacity\n")
    try s.expectFailure(
      "git", "git asks 'store' before strivacity for https://git.example.com",
      fix: "git config --global --add credential.https://git.example.com.helper ''; "
        + "strivacity setup git --profile \(p) --host git.example.com")
    try s.write(".gitconfig", "[credential \"https://git.example.com\"]\n\thelper = strivacity\n")

    // Docker: a registry no API covers.
    try s.write(
      ".docker/config.json",
      #"{"credHelpers": {"registry.example.com": "strivacity", "other.example.com": "strivacity"}}"#)
    try s.expectFailure(
      "docker", "no API covers other.example.com",
      fix: "strivacity setup docker --registry other.example.com --api NAME --profile \(p)")
    try s.write(".docker/config.json", #"{"credHelpers": {"registry.example.com": "strivacity"}}"#)

    // containers: a login saved where podman and skopeo look first.
    let runtime = home + "/run"
    try FileManager.default.createDirectory(
      atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let saved = try s.write("run/containers/auth.json", #"{"auths": {"registry.example.com": {"auth": "dTpw"}}}"#)
    try s.expectFailure(
      "docker", #"has a saved login (auths "registry.example.com"), which podman and skopeo use before"#,
      fix: "podman logout --authfile \(saved) registry.example.com", environment: ["XDG_RUNTIME_DIR": runtime])

    // cargo: a registry under none of the profile's places; a variable naming another provider.
    try s.write(
      ".cargo/config.toml",
      s.cargo(
        """

        [registries.elsewhere]
        index = "sparse+https://crates.elsewhere.example/"
        credential-provider = ["\(s.binary)", "--profile", "\(p)"]
        """))
    try s.expectFailure(
      "cargo", "is under none of profile \(p)'s places",
      fix: "strivacity setup cargo --registry elsewhere --profile \(p)")
    try s.write(".cargo/config.toml", s.cargo())
    try s.expectFailure(
      "cargo", "CARGO_REGISTRIES_INTERNAL_CREDENTIAL_PROVIDER is set",
      fix: "unset CARGO_REGISTRIES_INTERNAL_CREDENTIAL_PROVIDER",
      environment: ["CARGO_REGISTRIES_INTERNAL_CREDENTIAL_PROVIDER": "cargo:token"])

    // Terraform: a token terraform takes first (a variable, a saved login, a credentials block).
    try s.expectFailure(
      "terraform", "TF_TOKEN_tfe_example_com is set", fix: "unset TF_TOKEN_tfe_example_com",
      environment: ["TF_TOKEN_tfe_example_com": "t"])
    let tfrc = try s.write(
      ".terraform.d/credentials.tfrc.json", #"{"credentials": {"tfe.example.com": {"token": "t"}}}"#)
    try s.expectFailure(
      "terraform", "holds a token for tfe.example.com", fix: "remove \"tfe.example.com\" from \(tfrc)")
    try FileManager.default.removeItem(atPath: tfrc)
    let rc = try s.write(
      ".terraformrc",
      "credentials_helper \"strivacity\" {\n  args = []\n}\ncredentials \"tfe.example.com\" {\n  token = \"t\"\n}\n")
    try s.expectFailure(
      "terraform", "has a credentials \"tfe.example.com\" block",
      fix: "remove the credentials \"tfe.example.com\" block from \(rc)")
    try s.write(".terraformrc", "credentials_helper \"strivacity\" {\n  args = []\n}\n")
    // gcloud: the configuration setup-gcloud wrote, which Google's clients run only when allowed.
    let google = home + "/gcloud.json"
    let setup = try s.h.strivacity(
      [
        "setup-gcloud", "--profile", p, "--api", "tfe", "--audience", CloudSDKTests.provider, "--output", google,
      ], environment: s.base)
    #expect(setup.status == 0, "\(setup.stderr)")
    let allowed = ["GOOGLE_APPLICATION_CREDENTIALS": google, "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES": "1"]
    let google1 = try s.doctor(allowed)
    #expect(google1.status == 0, "\(google1.text)")
    #expect(
      google1.checks.contains {
        $0["check"] == "gcloud" && $0["detail"]?.string == "Google's clients ask strivacity for API tfe (\(google))"
      },
      "\(google1.text)")
    try s.expectFailure(
      "gcloud", "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES is not 1",
      fix: "export GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1",
      environment: ["GOOGLE_APPLICATION_CREDENTIALS": google])
    // aws: a credential_process of strivacity's for an API without a role.
    let aws = try s.write(
      ".aws/config", "[profile dev]\ncredential_process = \(s.binary) aws-credential-process --api tfe --profile \(p)\n"
    )
    try s.expectFailure(
      "aws", "[profile dev] of \(aws) asks for API tfe, which has no aws_role_arn",
      fix: "strivacity setup aws --api tfe --role-arn ARN --aws-profile dev --profile \(p)")
    try FileManager.default.removeItem(atPath: aws)
    // The helper's link gone.
    try FileManager.default.removeItem(atPath: home + "/.terraform.d/plugins/terraform-credentials-strivacity")
    try s.expectFailure(
      "terraform", "is not a link to strivacity",
      fix: "strivacity setup terraform registry.example.com --api NAME --profile \(p)")
  }
}

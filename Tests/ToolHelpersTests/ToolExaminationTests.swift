// doctor's examinations as pure functions (ToolExamination): the tools examined come from the
// registry, and each tool's rows come from a machine given as tables (files, programs on PATH,
// links); the aws row in full (AWSHelper's examination: its section, its API and role, what shadows it).
import StrivacityConfig
import StrivacityCore
import Testing

@testable import ToolHelpers

/// A machine as tables.
struct TableMachine: ExaminedMachine {
  var environment: [String: String] = ["HOME": "/home/u"]
  var home: String { environment["HOME"] ?? "/" }
  var currentDirectory = "/home/u/src"
  var strivacity = "/usr/bin/strivacity"
  var files: [String: ExaminedFile] = [:]
  var outputs: [[String]: (status: Int32, output: String)] = [:]
  var onPath: Set<String> = []
  var executables: Set<String> = ["/usr/bin/strivacity"]
  var links: [String: String] = [:]

  func file(_ path: String) -> ExaminedFile? { files[path] }
  func run(_ arguments: [String]) -> (status: Int32, output: String)? { outputs[arguments] }
  func isOnPath(_ name: String) -> Bool { onPath.contains(name) }
  func isExecutable(_ path: String) -> Bool { executables.contains(path) }
  func linkTarget(_ path: String) -> String? { links[path] }

  mutating func write(_ path: String, _ text: String) { files[path] = .bytes(Array(text.utf8)) }
}

@Suite struct ToolExaminationTests {
  static let config = """
    [profiles.work]
    tenant = "https://work.example.com"
    client_id = "cli"

    [profiles.work.apis.aws]
    url = "https://sts.amazonaws.com/"
    aws_role_arn = "arn:aws:iam::123456789012:role/dev"

    [profiles.work.apis.plain]
    url = "https://api.example.com/"
    """

  static let ours = "credential_process = /usr/bin/strivacity aws-credential-process --api aws --profile work\n"

  func examined(_ unnamed: String = "default") throws -> ExaminedProfile {
    let profiles = try Config.parse(Self.config, path: "config.toml").profiles
    return ExaminedProfile(
      profile: profiles[0], profiles: profiles, unnamed: unnamed, tenant: "https://work.example.com")
  }

  func rows(_ machine: TableMachine) throws -> [DoctorCheck] { AWSHelper.examine(try examined(), on: machine) }

  func machine(_ config: String) -> TableMachine {
    var machine = TableMachine()
    machine.write("/home/u/.aws/config", config)
    return machine
  }

  @Test func theExaminedToolsAreTheRegistrysInTheirRowsOrder() {
    #expect(
      ToolExaminations.all.map { $0.examinedTool } == [
        "git", "kubectl", "docker", "cargo", "terraform", "aws", "gcloud",
      ])
  }

  @Test func noRowWithoutASectionOfOursForTheProfile() throws {
    #expect(try rows(TableMachine()).isEmpty)
    #expect(try rows(machine("[default]\nregion = eu-west-1\n")).isEmpty)
    #expect(try rows(machine("[profile x]\ncredential_process = /opt/other --api aws --profile work\n")).isEmpty)
    #expect(
      try rows(
        machine("[profile x]\ncredential_process = strivacity aws-credential-process --api aws --profile home\n")
      )
      .isEmpty)
    // A command naming no profile is the unnamed one's.
    let unnamed = machine("[profile x]\ncredential_process = strivacity aws-credential-process --api aws\n")
    #expect(AWSHelper.examine(try examined(), on: unnamed).isEmpty)
    #expect(!AWSHelper.examine(try examined("work"), on: unnamed).isEmpty)
    // A relative AWS_CONFIG_FILE is not looked for.
    var relative = machine("[profile work]\n" + Self.ours)
    relative.environment["AWS_CONFIG_FILE"] = "aws/config"
    #expect(try rows(relative).isEmpty)
  }

  @Test func aSectionThatIsWellPasses() throws {
    var machine = TableMachine()
    machine.environment["AWS_CONFIG_FILE"] = "/etc/aws.ini"
    machine.write("/etc/aws.ini", "[default]\nregion = x\n\r\n[profile 'work']\r\n  \(Self.ours)")
    let checks = try rows(machine)
    #expect(checks.map(\.outcome) == [.pass], "\(checks)")
    #expect(checks[0].id == "aws")
    #expect(checks[0].detail == "the AWS CLI and SDKs ask strivacity for [profile work] (API aws) in /etc/aws.ini")
  }

  @Test func anAPIMissingOrWithoutARoleFailsNamingTheSetup() throws {
    let missing = try rows(
      machine(
        "[profile dev]\ncredential_process = /usr/bin/strivacity aws-credential-process --api gone --profile work\n"))
    #expect(missing.map(\.outcome) == [.fail])
    #expect(
      missing[0].detail == "[profile dev] of /home/u/.aws/config asks for API gone, which profile work has not")
    #expect(missing[0].fix == "strivacity setup aws --api gone --role-arn ARN --aws-profile dev --profile work")
    #expect(missing[0].status == .usage)
    let roleless = try rows(
      machine("[default]\ncredential_process = /usr/bin/strivacity aws-credential-process --api plain --profile work\n")
    )
    #expect(roleless.map(\.outcome) == [.fail])
    #expect(roleless[0].detail.contains("asks for API plain, which has no aws_role_arn"))
    #expect(roleless[0].fix == "strivacity setup aws --api plain --role-arn ARN --aws-profile default --profile work")
    // Its program gone.
    let gone = try rows(
      machine("[profile work]\ncredential_process = /gone/strivacity aws-credential-process --api aws --profile work\n")
    )
    #expect(gone.map(\.detail) == ["[profile work] of /home/u/.aws/config runs /gone/strivacity, which is not there"])
    #expect(gone[0].fix == "strivacity setup aws --api aws --role-arn ARN --profile work")
  }

  @Test func whatTheSDKsTakeFirstIsSaidWithItsFix() throws {
    var machine = machine("[profile work]\n" + Self.ours)
    machine.environment["AWS_ACCESS_KEY_ID"] = "AKIA"
    machine.environment["AWS_WEB_IDENTITY_TOKEN_FILE"] = "/t"
    machine.environment["AWS_SHARED_CREDENTIALS_FILE"] = "/home/u/creds"
    machine.write("/home/u/creds", "[work]\naws_access_key_id = A\naws_secret_access_key = S\n")
    let checks = try rows(machine)
    #expect(checks.map(\.outcome) == [.fail, .fail, .fail], "\(checks)")
    #expect(checks[0].detail.hasPrefix("AWS_ACCESS_KEY_ID is set") && checks[0].detail.hasSuffix("([profile work])"))
    #expect(checks[0].fix == "unset it (and AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN)")
    #expect(checks[1].detail.hasPrefix("AWS_WEB_IDENTITY_TOKEN_FILE is set"))
    #expect(checks[2].detail.hasPrefix("/home/u/creds has aws_access_key_id, aws_secret_access_key in [work]"))
    #expect(checks[2].fix == "remove them from it")
    // AWS_PROFILE choosing another profile: a warning, the row otherwise passing.
    var chosen = self.machine("[profile work]\n" + Self.ours)
    chosen.environment["AWS_PROFILE"] = "other"
    let warned = try rows(chosen)
    #expect(warned.map(\.outcome) == [.warn, .pass], "\(warned)")
    #expect(warned[0].fix == "set AWS_PROFILE=work, or unset it and pass --profile work")
  }

  @Test func theShadowsAreSaidOnceWhateverTheSections() throws {
    var machine = machine("[profile work]\n" + Self.ours + "[profile w2]\n" + Self.ours)
    machine.environment["AWS_ACCESS_KEY_ID"] = "AKIA"
    let checks = try rows(machine)
    #expect(checks.filter { $0.detail.hasPrefix("AWS_ACCESS_KEY_ID") }.count == 2, "one a section: \(checks)")
    #expect(Set(checks.map(\.detail)).count == checks.count)
  }

  @Test func hostileBytesAreReadAsNothingOfOurs() throws {
    var machine = TableMachine()
    machine.files["/home/u/.aws/config"] = .bytes([0xFF, 0xFE, 0x5B, 0x0A] + Array(repeating: 0x5B, count: 1 << 16))
    #expect(try rows(machine).isEmpty)
    machine.files["/home/u/.aws/config"] = .unreadable("is not a regular file")
    #expect(try rows(machine).isEmpty)
  }

  @Test func kubectlsUsersRunningStrivacityForTheProfile() throws {
    let view = JSONValue.parse(
      Array(
        #"""
        {"users": [{"name": "a", "user": {"exec": {"command": "/usr/bin/strivacity",
                                                    "args": ["token", "--profile", "work"]}}},
                   {"name": "b", "user": {"exec": {"command": "kubelogin", "args": ["--profile", "work"]}}},
                   {"name": "c", "user": {"token": "REDACTED"}}]}
        """#.utf8))
    #expect(KubectlExamination.users(try #require(view), profile: "work") == ["a"])
    #expect(KubectlExamination.users(try #require(view), profile: "home").isEmpty)
  }
}

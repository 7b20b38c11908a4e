// doctor's aws row: each section of the AWS config (AWS_CONFIG_FILE, else ~/.aws/config) whose
// credential_process runs strivacity's aws-credential-process for the profile names an API that
// is there with a role (aws_role_arn), runs a program that is there, and nothing the AWS CLI and
// SDKs take first shadows it (AWSConfigFile.shadows).
import StrivacityConfig
import StrivacityCore

extension AWSHelper: ToolExamination {
  public static func examine(_ examined: ExaminedProfile, on machine: some ExaminedMachine) -> [DoctorCheck] {
    var rows = ExaminationRows(examinedTool)
    let environment = machine.environment
    let home = machine.home
    let named = environment["AWS_CONFIG_FILE"] ?? ""
    guard named.isEmpty || named.hasPrefix("/") else { return [] }
    let path = named.isEmpty ? home + "/.aws/config" : named
    guard let bytes = machine.file(path)?.bytes else { return [] }
    let sections = AWSConfigFile.processes(bytes).filter {
      AWSConfigFile.isOurs($0.process) && ($0.option("--profile") ?? examined.unnamed) == examined.name
    }
    guard !sections.isEmpty else { return [] }
    let credentialsPath = machine.path("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials"
    let credentials = machine.file(credentialsPath)?.bytes
    var served: [String] = []
    for section in sections {
      let api = section.option("--api") ?? ""
      let shown = AWSConfigFile.header(section.profile)
      let fix =
        "strivacity setup aws --api \(api.isEmpty ? "NAME" : api) --role-arn ARN"
        + (section.profile == examined.name ? "" : " --aws-profile \(section.profile)") + examined.flag
      let failed = rows.failed
      if let program = section.words.first, !machine.isExecutable(program) {
        rows.fail("\(shown) of \(path) runs \(program), which is not there", fix: fix)
      }
      if let found = examined.profile.api(named: api) {
        if found.aws == nil {
          rows.fail(
            "\(shown) of \(path) asks for API \(api), which has no aws_role_arn: the AWS CLI gets no credentials",
            fix: fix)
        }
      } else {
        rows.fail("\(shown) of \(path) asks for API \(api), which profile \(examined.name) has not", fix: fix)
      }
      for shadow in AWSConfigFile.shadows(
        environment, profile: section.profile, credentials: credentials, credentialsPath: credentialsPath)
      where !rows.checks.contains(where: { $0.detail == DoctorCheck.line(shadow.what + " (\(shown))") }) {
        rows.add(shadow.chosen ? .warn : .fail, shadow.what + " (\(shown))", fix: shadow.fix, status: .usage)
      }
      if rows.failed == failed { served.append("\(shown) (API \(api))") }
    }
    if !rows.failed {
      rows.add(.pass, "the AWS CLI and SDKs ask strivacity for \(served.joined(separator: ", ")) in \(path)")
    }
    return rows.checks
  }
}

extension AWSConfigFile {
  /// A section's credential_process.
  struct Process {
    /// The AWS profile (`default` for `[default]`).
    var profile: String
    var process: String
    var words: [String] { shellWords(process) }

    /// The word after `flag` in the command.
    func option(_ flag: String) -> String? {
      let words = words
      return zip(words, words.dropFirst()).first { $0.0 == flag }?.1
    }
  }

  /// Every profile section's credential_process, in the file's order.
  static func processes(_ file: [UInt8]) -> [Process] {
    let ini = INI(file)
    return ini.lines.indices.compactMap { index in
      guard case .header(let name) = ini.lines[index].kind else { return nil }
      let words = name.split(whereSeparator: { $0 == " " || $0 == "\t" })
      let profile: Substring
      if name == "default" {
        profile = "default"
      } else if words.count == 2, words[0] == "profile" {
        profile =
          words[1].count >= 2 && (words[1].first == "\"" || words[1].first == "'") && words[1].last == words[1].first
          ? words[1].dropFirst().dropLast() : words[1]
      } else {
        return nil
      }
      let entry = ini.entries(index..<ini.sectionEnd(index)).first { $0.key == key }
      return entry.map { Process(profile: String(profile), process: ini.value($0)) }
    }
  }
}

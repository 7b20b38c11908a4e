// doctor's terraform row: Terraform's CLI config names strivacity's helper, the helper's link is
// there, and for each host an API of the profile serves, nothing Terraform takes first gives a
// token (TerraformExamination).
import StrivacityConfig
import StrivacityCore

extension TerraformHelper: ToolExamination {
  public static func examine(_ examined: ExaminedProfile, on machine: some ExaminedMachine) -> [DoctorCheck] {
    var rows = ExaminationRows("terraform")
    let home = machine.home
    guard let paths = configFiles(machine) else { return [] }
    let texts = paths.compactMap { path in
      machine.file(path)?.bytes.flatMap { String(validating: $0, as: UTF8.self) }.map { (path: path, text: $0) }
    }
    let helpers = texts.map { TerraformExamination.helper($0.text) }
    guard helpers.contains(.ours) else { return [] }
    let hosts = TerraformExamination.hosts(of: examined.profile, in: examined.profiles)
    let fix = "strivacity setup terraform \(hosts.first ?? "HOST") --api NAME\(examined.flag)"
    for (file, helper) in zip(texts, helpers) {
      if case .other(let name) = helper {
        rows.add(
          .warn,
          "\(file.path) names credentials helper \"\(HostEntry.shown(name))\": the tool that reads it "
            + "asks that one, not strivacity", fix: "remove that block from \(file.path), then \(fix)")
      }
    }
    let link = TerraformSetup.link(home: home)
    if !(machine.linkTarget(link).map { CargoExamination.isOurs([$0]) } ?? false) || !machine.isExecutable(link) {
      rows.fail("\(link) is not a link to strivacity: terraform cannot run the helper", fix: fix)
    }
    guard !hosts.isEmpty else {
      rows.fail(
        "terraform and tofu ask strivacity, but no API of profile \(examined.name) covers a whole "
          + "host: every host gets no token", fix: fix)
      return rows.checks
    }
    let saved = TerraformSetup.savedTokens(home: home)
    let savedHosts = machine.file(saved)?.bytes.map(TerraformExamination.savedHosts) ?? []
    for host in hosts {
      for file in texts where TerraformConfig.credentialsHosts(file.text).contains(where: { $0.lowercased() == host }) {
        rows.fail(
          "\(file.path) has a credentials \"\(host)\" block, which terraform uses before asking "
            + "strivacity", fix: "remove the credentials \"\(host)\" block from \(file.path)")
      }
      for variable in TerraformExamination.tokenVariables(for: host, in: machine.environment) {
        rows.fail(
          "\(variable) is set, and terraform uses it for \(host) before asking strivacity", fix: "unset \(variable)")
      }
      if savedHosts.contains(host) {
        rows.fail(
          "\(saved) holds a token for \(host) (terraform login), which terraform uses before "
            + "asking strivacity", fix: "remove \"\(host)\" from \(saved)")
      }
    }
    if !rows.failed { rows.add(.pass, "terraform and tofu ask strivacity for \(hosts.joined(separator: ", "))") }
    return rows.checks
  }

  /// The CLI configs: $TF_CLI_CONFIG_FILE alone when set (nil when it is not an absolute path),
  /// else ~/.terraformrc and ~/.tofurc.
  static func configFiles(_ machine: some ExaminedMachine) -> [String]? {
    if let named = machine.environment["TF_CLI_CONFIG_FILE"], !named.isEmpty {
      return named.hasPrefix("/") ? [named] : nil
    }
    return [machine.home + "/.terraformrc", machine.home + "/.tofurc"]
  }
}

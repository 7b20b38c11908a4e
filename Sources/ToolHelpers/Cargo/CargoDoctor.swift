// doctor's cargo row: each registry of $CARGO_HOME's config whose credential-provider runs
// strivacity for the profile has an index under the profile's places, and nothing cargo reads
// first (a variable, a project's config) names another provider (CargoExamination).
import StrivacityConfig
import StrivacityCore

extension CargoHelper: ToolExamination {
  public static func examine(_ examined: ExaminedProfile, on machine: some ExaminedMachine) -> [DoctorCheck] {
    var rows = ExaminationRows("cargo")
    let environment = machine.environment
    guard let path = configPath(machine), case .bytes(let bytes)? = machine.file(path) else { return [] }
    var served: [String] = []
    for registry in CargoExamination.registries(bytes) {
      guard let provider = registry.provider, CargoExamination.isOurs(provider) else { continue }
      let name = registry.name
      let fix = "strivacity setup cargo --registry \(name)\(examined.flag)"
      let request = CargoRequest(
        kind: .get(operation: "read"), indexURL: registry.index ?? "", args: Array(provider.dropFirst()))
      guard let invocation = try? CargoInvocation(request: request) else {
        rows.fail("registry \(name)'s credential-provider in \(path) has arguments strivacity refuses", fix: fix)
        continue
      }
      guard (invocation.profile ?? examined.unnamed) == examined.name else { continue }
      if !machine.isExecutable(provider[0]) {
        rows.fail("registry \(name)'s credential-provider runs \(provider[0]), which is not there", fix: fix)
      }
      let variable = CargoExamination.providerVariable(name)
      if let value = environment[variable], !value.isEmpty,
        !CargoExamination.isOurs(value.split(separator: " ").map(String.init))
      {
        rows.fail("\(variable) is set, and cargo runs it for registry \(name) instead", fix: "unset \(variable)")
      }
      let projects = CargoExamination.projectConfigs(from: machine.currentDirectory).filter { $0 != path }
      for project in projects {
        guard let theirs = machine.file(project)?.bytes,
          let other = CargoExamination.registries(theirs).first(where: {
            $0.name == name
          }), let provider = other.provider, !CargoExamination.isOurs(provider)
        else { continue }
        rows.fail(
          "\(project) names another credential-provider for registry \(name), which cargo takes there instead",
          fix: "remove credential-provider from [registries.\(name)] in \(project)")
      }
      guard let index = registry.index else {
        rows.add(
          .warn, "registry \(name) has no index in \(path)",
          fix: "add index = \"sparse+https://…\" to [registries.\(name)]")
        continue
      }
      switch invocation.decision(for: examined.profile, tenant: examined.tenant) {
      case .notOurs:
        rows.fail(
          "registry \(name)'s index (\(HostEntry.shown(index))) is under none of profile \(examined.name)'s "
            + "places: cargo gets no token for it", fix: fix)
      case .refused(let reason):
        rows.fail("registry \(name): \(reason)", fix: fix)
      default:
        served.append(name)
      }
    }
    if !served.isEmpty, !rows.failed {
      rows.add(
        .pass, "cargo asks strivacity for registr\(served.count == 1 ? "y" : "ies") \(served.joined(separator: ", "))")
    }
    return rows.checks
  }

  /// $CARGO_HOME's config (config.toml, else the older config when only it is there); nil
  /// when CARGO_HOME is not an absolute path.
  static func configPath(_ machine: some ExaminedMachine) -> String? {
    let named = machine.environment["CARGO_HOME"] ?? ""
    guard named.isEmpty || named.hasPrefix("/") else { return nil }
    let (current, older) = CargoSetup.configPaths(cargoHome: named.isEmpty ? nil : named, home: machine.home)
    return machine.file(current) == nil && machine.file(older) != nil ? older : current
  }
}

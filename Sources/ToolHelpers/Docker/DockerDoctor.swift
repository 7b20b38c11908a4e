// doctor's docker row: Docker's config and containers' auth files, each registry whose
// `credHelpers` names strivacity served by an API, no saved login that podman or skopeo read
// first shadowing it (DockerExamination), and the helper's link on PATH.
import StrivacityConfig
import StrivacityCore

extension DockerHelper: ToolExamination {
  public static func examine(_ examined: ExaminedProfile, on machine: some ExaminedMachine) -> [DoctorCheck] {
    var rows = ExaminationRows("docker")
    let (dockerFile, paths) = DockerExamination.files(machine.environment)
    var files: [DockerExamination.File?] = []
    var unreadable: [String] = []
    for path in paths {
      switch machine.file(path) {
      case nil: files.append(nil)
      case .unreadable(let why)?:
        files.append(nil)
        unreadable.append("\(path) \(why)")
      case .bytes(let bytes)?:
        do {
          files.append(try DockerExamination.read(bytes, helper: "strivacity", legacy: path.hasSuffix("/.dockercfg")))
        } catch {
          files.append(nil)
          unreadable.append("\(path) \(error)")
        }
      }
    }
    var registries: [String] = []
    for file in files.compactMap({ $0 }) { registries += file.routed.filter { !registries.contains($0) } }
    guard !registries.isEmpty else { return [] }
    for problem in unreadable {
      rows.fail("\(problem): docker, podman or skopeo cannot read it", fix: "correct it")
    }
    let flag = examined.flag
    if let link = names.link, !machine.isOnPath(link) {
      rows.fail(
        "\(link) is not on PATH: docker cannot run it", fix: "ln -s '\(machine.strivacity)' ~/.local/bin/\(link)")
    }
    var served: [String] = []
    for registry in registries {
      let fix = "strivacity setup docker --registry \(registry) --api NAME\(flag)"
      guard let entry = try? HostEntry(admitting: registry), case .host = entry.form else {
        rows.fail(
          "credHelpers names strivacity for '\(HostEntry.shown(registry))', which is not a registry "
            + "host (host or host:port)", fix: "remove it from credHelpers")
        continue
      }
      let url = entry.gitURL + "/"
      if let (profile, api) = API.serving(url, in: examined.profiles) {
        let whose = profile.name == examined.name ? "API \(api.name)" : "profile \(profile.name)'s"
        served.append("\(registry) (\(whose))")
      } else if let partial = examined.profile.apiOnPartOfHost(of: url) {
        rows.fail(
          "API \(partial.name) covers only \(partial.url), and docker sends one credential to every path "
            + "of \(registry): docker-credential-strivacity answers it with none", fix: fix)
      } else {
        rows.fail("no API covers \(registry): docker-credential-strivacity answers it with none", fix: fix)
      }
      if files[paths.firstIndex(of: dockerFile)!]?.routed.contains(registry) != true {
        rows.add(.warn, "\(dockerFile) does not name strivacity for \(registry): docker does not ask it", fix: fix)
      }
      let routedIn = files.firstIndex { $0?.routed.contains(registry) == true } ?? 0
      if let (index, shadow, saved) = DockerExamination.shadowing(registry, routedIn: routedIn, files: files) {
        rows.fail(
          "\(paths[index]) has \(shadow), which podman and skopeo use before strivacity's entry in \(paths[routedIn])",
          fix: saved
            ? "podman logout --authfile \(paths[index]) \(registry)"
            : "remove \"\(registry)\" from credHelpers in \(paths[index])")
      }
    }
    if !rows.failed {
      rows.add(.pass, "docker, podman and skopeo ask strivacity for \(served.joined(separator: ", "))")
    }
    return rows.checks
  }
}

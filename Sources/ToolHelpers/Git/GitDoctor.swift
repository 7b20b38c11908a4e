// doctor's git row: each of the profile's git hosts asks strivacity (`credential.URL.helper`),
// and git asks no other helper first (GitExamination reads git's own listing of them).
import StrivacityConfig
import StrivacityCore

extension GitHelper: ToolExamination {
  public static func examine(_ examined: ExaminedProfile, on machine: some ExaminedMachine) -> [DoctorCheck] {
    var rows = ExaminationRows("git")
    let hosts = examined.profile.gitHosts
    guard !hosts.isEmpty else {
      rows.add(.skipped, "not set up (strivacity setup git --host HOST)")
      return rows.checks
    }
    // Every file's helpers, in the order git reads them (status 1: none).
    guard let answer = machine.run(["git", "config", "--null", "--get-regexp", #"^credential\..*helper$"#]) else {
      rows.add(.warn, "git is not on PATH", fix: "install git")
      return rows.checks
    }
    let entries = GitExamination.entries(answer.output)
    let missing = hosts.map(\.gitURL).filter { url in
      !entries.contains { $0.key == "credential.\(url).helper" && $0.value.contains("strivacity") }
    }
    for host in hosts where !missing.contains(host.gitURL) {
      let asked = GitExamination.helpers(for: host.gitURL, in: entries)
      let first = GitExamination.before(strivacity: asked)
      let cleared = first.count == asked.count
      guard !first.isEmpty || cleared else { continue }
      let key = "credential.\(host.gitURL).helper"
      rows.fail(
        cleared
          ? "an empty credential helper after strivacity's clears it for \(host.gitURL): git never asks strivacity"
          : "git asks \(first.map { "'\($0)'" }.joined(separator: ", ")) before strivacity for \(host.gitURL): a "
            + "password kept there is sent instead, and strivacity's token is stored there",
        fix: "git config --global --unset-all \(key); git config --global --add \(key) ''; "
          + "strivacity setup git\(examined.flag) --host \(host)")
    }
    if missing.isEmpty {
      if !rows.failed { rows.add(.pass, "git asks strivacity for \(hosts.map(\.gitURL).joined(separator: ", "))") }
    } else {
      rows.add(
        .warn, "git does not ask strivacity for \(missing.joined(separator: ", "))",
        fix: "strivacity setup git --profile \(examined.name) --host \(missing[0])")
    }
    return rows.checks
  }
}

// doctor's kubectl row: a user of kubectl's merged kubeconfig (as `kubectl config view -o json`
// shows it, its secrets redacted) runs strivacity for the profile.
import StrivacityConfig
import StrivacityCore

public enum KubectlExamination: ToolExamination {
  public static var examinedTool: String { "kubectl" }

  public static func examine(_ examined: ExaminedProfile, on machine: some ExaminedMachine) -> [DoctorCheck] {
    var rows = ExaminationRows(examinedTool)
    guard !examined.profile.kubeClusters.isEmpty else {
      rows.add(.skipped, "not set up (strivacity setup kubectl)")
      return rows.checks
    }
    let fix = "strivacity setup kubectl --profile \(examined.name)"
    guard let answer = machine.run(["kubectl", "config", "view", "-o", "json"]), answer.status == 0,
      let view = JSONValue.parse(Array(answer.output.utf8))
    else {
      rows.add(.warn, "kubectl is not on PATH, or cannot read its kubeconfig", fix: "install kubectl; then \(fix)")
      return rows.checks
    }
    let names = users(view, profile: examined.name)
    if names.isEmpty {
      rows.add(.warn, "no kubeconfig user runs strivacity for this profile", fix: fix)
    } else {
      rows.add(.pass, "kubeconfig user \(names.joined(separator: ", ")) runs strivacity for this profile")
    }
    return rows.checks
  }

  /// The names of the users of `view` (kubectl's JSON) whose exec runs strivacity for `profile`.
  public static func users(_ view: JSONValue, profile: String) -> [String] {
    (view["users"]?.array ?? []).filter { entry in
      // The small binary or, where it is not installed, the full one (as setup names them).
      guard let exec = entry["user"]?["exec"], let command = exec["command"]?.string,
        CargoExamination.isOurs([command])
      else { return false }
      let arguments = (exec["args"]?.array ?? []).compactMap(\.string)
      return zip(arguments, arguments.dropFirst()).contains { $0 == "--profile" && $1 == profile }
    }.compactMap { $0["name"]?.string }
  }
}

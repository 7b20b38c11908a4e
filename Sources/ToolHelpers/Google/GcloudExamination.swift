// doctor's gcloud row: the Google credential configuration GOOGLE_APPLICATION_CREDENTIALS names,
// when strivacity wrote it for the profile: Google's clients may run it, its program is there,
// and it asks for an API the profile has.
import StrivacityConfig
import StrivacityCore

public enum GcloudExamination: ToolExamination {
  public static var examinedTool: String { "gcloud" }

  public static func examine(_ examined: ExaminedProfile, on machine: some ExaminedMachine) -> [DoctorCheck] {
    var rows = ExaminationRows(examinedTool)
    let environment = machine.environment
    guard let path = environment["GOOGLE_APPLICATION_CREDENTIALS"], !path.isEmpty,
      let text = machine.file(path)?.bytes.flatMap({ String(validating: $0, as: UTF8.self) }),
      GoogleCredentialConfiguration.isOurs(text),
      let command = JSONValue.parse(text)?["credential_source"]?["executable"]?["command"]?.string
    else { return [] }
    let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
    func value(_ flag: String) -> String? {
      words.firstIndex(of: flag).flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
    }
    guard (value("--profile") ?? examined.unnamed) == examined.name else { return [] }
    let api = value("--api") ?? ""
    let fix = "strivacity setup gcloud --api NAME --audience AUDIENCE --output \(path)\(examined.flag)"
    if environment["GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES"] != "1" {
      rows.fail(
        "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES is not 1: Google's clients do not run "
          + "strivacity for \(path)", fix: "export GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1")
    }
    if !machine.isExecutable(words[0]) {
      rows.fail("\(path) runs \(words[0]), which is not there", fix: fix)
    }
    if examined.profile.api(named: api) == nil {
      rows.fail("\(path) asks for API \(api), which profile \(examined.name) has not", fix: fix)
    }
    if !rows.failed { rows.add(.pass, "Google's clients ask strivacity for API \(api) (\(path))") }
    return rows.checks
  }
}

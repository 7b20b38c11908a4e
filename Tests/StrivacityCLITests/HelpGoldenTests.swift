// Every command's --help, as a person reads it at 80 columns (and at 40 and 200: a narrow
// split pane, a wide window), against a golden file in Tests/StrivacityCLITests/Golden
// (re-record with RECORD_SNAPSHOTS=1 and review the diff). The
// man page and the completions are checked against the committed ones by DocsTests.
import Foundation
import StrivacityTestSupport
import Testing

@Suite struct HelpGoldenTests {
  /// Every command but the hidden ones (generate-man); a new one fails DocsTests until listed.
  static let commands = [
    "", "login", "token", "status", "doctor", "userinfo", "logout", "revoke", "credential", "cargo-credential",
    "setup-git",
    "setup-cargo", "setup-terraform",
    "setup-kubectl", "setup-api", "setup-proxy", "setup-gcloud", "exec", "curl",
    "agent",
  ]

  @Test(arguments: commands, [80, 40, 200])
  func help(command: String, columns: Int) throws {
    let result = try Sandbox().strivacity(
      (command.isEmpty ? [] : [command]) + ["--help"], extra: ["COLUMNS": "\(columns)"])
    #expect(result.status == 0 && result.ownStderr.isEmpty, "\(result.stderr)")
    let name = (command.isEmpty ? "help" : "help-\(command)") + (columns == 80 ? "" : "@\(columns)")
    let path = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/StrivacityCLITests/Golden/\(name).txt").path
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
      try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    }
    let expected = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    #expect(result.stdout == expected, "golden \(name).txt differs; re-record with RECORD_SNAPSHOTS=1")
    #expect(!result.stdout.contains("). (default:"), "a default said twice")
  }
}

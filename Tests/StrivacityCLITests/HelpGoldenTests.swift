// Every command's --help, as a person reads it at 80 columns (and at 40 and 200: a narrow
// split pane, a wide window), against a golden file in Tests/StrivacityCLITests/Golden
// (re-record with RECORD_SNAPSHOTS=1 and review the diff). The
// man page and the completions are checked against the committed ones by DocsTests.
import Foundation
import StrivacityTestSupport
import Testing

@Suite struct HelpGoldenTests {
  /// Every command but the hidden ones (the old setup-TOOL names); a new one fails DocsTests
  /// until listed.
  static let commands = [
    "", "login", "token", "status", "doctor", "userinfo", "logout", "revoke", "curl", "exec", "agent", "use", "setup",
    "setup git", "setup docker", "setup cargo", "setup terraform", "setup kubectl", "setup gcloud", "setup aws",
    "setup api", "setup proxy", "credential", "docker-credential", "cargo-credential", "terraform-credential",
    "aws-credential-process",
  ]

  @Test(arguments: commands, [80, 40, 200])
  func help(command: String, columns: Int) throws {
    let words = command.split(separator: " ").map(String.init)
    let result = try Sandbox().strivacity(words + ["--help"], extra: ["COLUMNS": "\(columns)"])
    #expect(result.status == 0 && result.ownStderr.isEmpty, "\(result.stderr)")
    let name =
      (command.isEmpty ? "help" : "help-" + words.joined(separator: "-")) + (columns == 80 ? "" : "@\(columns)")
    let path = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/StrivacityCLITests/Golden/\(name).txt").path
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
      try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    }
    let expected = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    #expect(result.stdout == expected, "golden \(name).txt differs; re-record with RECORD_SNAPSHOTS=1")
    #expect(!result.stdout.contains("). (default:"), "a default said twice")
  }

  /// `--help` lists the commands people type, then the tool protocols under their own heading;
  /// `strivacity` alone does the same; the old setup-TOOL names work, unlisted.
  @Test func theCommandsPeopleTypeComeFirst() throws {
    let typed = [
      "login", "token", "status", "doctor", "userinfo", "logout", "revoke", "curl", "exec", "agent", "use", "setup",
    ]
    let protocols = [
      "credential", "docker-credential", "cargo-credential", "terraform-credential", "aws-credential-process",
    ]
    let help = try Sandbox().strivacity(["--help"]).stdout
    let sections = help.components(separatedBy: "TOOL PROTOCOL SUBCOMMANDS:")
    #expect(sections.count == 2, "\(help)")
    let listed = { (text: String) in
      text.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.compactMap {
        $0.split(separator: " ").first.map(String.init)
      }.filter { !$0.hasPrefix("-") }
    }
    #expect(listed(String(sections[0].split(separator: "SUBCOMMANDS:").last ?? "")) == typed)
    #expect(listed(sections[1]).filter { $0 != "See" } == protocols)
    let alone = try Sandbox().strivacity([]).stderr.components(separatedBy: "run by the tools")
    #expect(alone.count == 2 && protocols.allSatisfy { alone[1].contains("  \($0) ") } && alone[0].contains("  setup "))
    for tool in ["git", "docker", "cargo", "terraform", "kubectl", "gcloud", "api", "proxy"] {
      #expect(!help.contains("setup-\(tool)"))
      let old = try Sandbox().strivacity(["setup-\(tool)", "--help"])
      #expect(old.status == 0 && old.stdout.contains("--dry-run") && old.stdout.contains("--undo"), "setup-\(tool)")
    }
  }

  /// `help X` and `X --help` say the same, the protocols whose words are passed through too.
  @Test(arguments: [
    "docker-credential", "terraform-credential", "credential", "cargo-credential", "aws-credential-process",
    "setup git", "setup aws",
  ])
  func helpAgrees(command: String) throws {
    let words = command.split(separator: " ").map(String.init)
    let asked = try Sandbox().strivacity(["help"] + words)
    let flag = try Sandbox().strivacity(words + ["--help"])
    #expect(asked.status == 0 && flag.status == 0 && flag.stdout.contains("USAGE: strivacity \(command)"))
    #expect(asked.stdout == flag.stdout)
  }

  /// `version`, which docker-credential-helpers answer, in their shape.
  @Test func theDockerHelperSaysItsVersion() throws {
    for word in ["version", "--version", "-v"] {
      let result = try Sandbox().strivacity(["docker-credential", word])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(
        result.stdout.range(
          of: #"^docker-credential-strivacity \(strivacity\) \d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil,
        "\(result.stdout)")
    }
  }
}

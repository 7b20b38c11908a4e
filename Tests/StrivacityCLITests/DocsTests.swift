// The committed completions and man pages are what the binary generates, and the man pages
// pass `man --warnings` silently.
import Foundation
import StrivacityTestSupport
import Testing

@Suite struct DocsTests {
  static let generated: [(file: String, arguments: [String])] = [
    ("completions/strivacity.bash", ["strivacity", "--generate-completion-script", "bash"]),
    ("completions/_strivacity", ["strivacity", "--generate-completion-script", "zsh"]),
    ("completions/strivacity.fish", ["strivacity", "--generate-completion-script", "fish"]),
    ("man/strivacity.1", ["strivacity-docs", "man", "strivacity"]),
    ("man/git-credential-strivacity.1", ["strivacity-docs", "man", "git-credential-strivacity"]),
    ("man/docker-credential-strivacity.1", ["strivacity-docs", "man", "docker-credential-strivacity"]),
    ("man/terraform-credentials-strivacity.1", ["strivacity-docs", "man", "terraform-credentials-strivacity"]),
    ("man/strivacity-emulator.1", ["strivacity-docs", "man", "strivacity-emulator"]),
  ]

  @Test(arguments: generated.map(\.file))
  func committedFilesAreCurrent(_ file: String) throws {
    let arguments = try #require(Self.generated.first { $0.file == file }?.arguments)
    let fresh = try run(
      [TestEnvironment.binary(arguments[0])] + arguments.dropFirst(), environment: ["HOME": "/nonexistent"])
    #expect(fresh.status == 0, "\(fresh.stderr)")
    let committed = try String(contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent(file), encoding: .utf8)
    #expect(fresh.stdout == committed, "\(file) is out of date: run Scripts/generate-docs")
  }

  /// The pages come from the registry of tool helpers: each one listed is committed, and each
  /// committed one is listed (so each is checked above).
  @Test func everyListedPageIsCommittedAndChecked() throws {
    let listed = try run([TestEnvironment.binary("strivacity-docs"), "man", "--list"], environment: [:])
    #expect(listed.status == 0)
    let pages = Set(listed.stdout.split(separator: "\n").map { "man/\($0).1" })
    let committed = try FileManager.default.contentsOfDirectory(
      atPath: TestEnvironment.repositoryRoot.appendingPathComponent("man").path
    ).filter { $0.hasSuffix(".1") }.map { "man/\($0)" }
    #expect(pages == Set(committed))
    #expect(pages == Set(Self.generated.map(\.file).filter { $0.hasPrefix("man/") }))
  }

  @Test(arguments: [
    "man/strivacity.1", "man/git-credential-strivacity.1", "man/docker-credential-strivacity.1",
    "man/terraform-credentials-strivacity.1", "man/strivacity-emulator.1",
  ])
  func manPagesHaveNoWarnings(_ file: String) throws {
    let path = TestEnvironment.repositoryRoot.appendingPathComponent(file).path
    let result = try run(
      ["/usr/bin/man", "--warnings", "-l", path],
      environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "80", "LANG": "C.UTF-8"])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    #expect(result.stdout.contains("EXIT STATUS") || file.contains("-credential"))
  }

  /// strivacity-emulator(1) is written by hand: every option its --help lists is in it.
  @Test func theEmulatorsPageNamesEveryOption() throws {
    let help = try run(
      [TestEnvironment.binary("strivacity-emulator"), "--help"], environment: ["HOME": "/nonexistent"])
    let options = Set(
      help.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," }).filter {
        $0.hasPrefix("--") && $0.count > 2 && $0.allSatisfy { $0.isLetter || $0 == "-" }
      }.map(String.init))
    #expect(options.count >= 12, "\(options)")
    let page = try String(
      contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("man/strivacity-emulator.1"), encoding: .utf8)
    for option in options.subtracting(["--help"]) {
      #expect(page.contains(".It Fl \(option.dropFirst())"), "man/strivacity-emulator.1 lacks \(option)")
    }
  }

  /// What a reader of strivacity(1) needs once: the common options in their own section (not
  /// under every command), every command's synopsis with its options, every configuration key
  /// with its type, the prompt conventions, and no word broken at a hyphen.
  @Test func theManPageSaysEachThingOnce() throws {
    let path = TestEnvironment.repositoryRoot.appendingPathComponent("man/strivacity.1").path
    let page = try run(
      ["/usr/bin/man", "-l", path], environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "80", "LANG": "C.UTF-8"]
    ).stdout
    for section in ["COMMON OPTIONS", "COMMANDS", "CONFIGURATION", "PROMPTS", "EXIT STATUS", "ENVIRONMENT", "FILES"] {
      #expect(page.contains("\n\(section)\n"), "no \(section) section")
    }
    #expect(
      page.components(separatedBy: "--profile name").count == 2, "--profile is described once, under COMMON OPTIONS")
    #expect(page.contains("strivacity token [common-options] [--min-ttl seconds] [--refresh]"))
    for key in [
      "default_profile", "tenant", "client_id", "scopes", "redirect_uri", "sdk_mode", "store", "git_hosts",
      "git_username", "hosts", "kube_clusters", "min_ttl",
    ] {
      #expect(page.range(of: "\n     \(key) (", options: []) != nil, "CONFIGURATION lacks \(key)")
    }
    #expect(!page.contains("\n   help"), "no 'help' entry")
    #expect(!page.contains("setup-\n") && !page.contains("setup\u{2010}\n"), "setup-git broken across lines")
  }

  /// The commands a `--help` lists (each SUBCOMMANDS section), by name.
  static func listedCommands(_ arguments: [String]) throws -> [String] {
    let help = try run([TestEnvironment.binary("strivacity")] + arguments, environment: ["HOME": "/nonexistent"]).stdout
    var inside = false
    var names: [String] = []
    for line in help.split(separator: "\n") {
      if !line.hasPrefix(" ") {
        inside = line.hasSuffix("SUBCOMMANDS:")
      } else if inside, line.dropFirst(2).first?.isLowercase == true {
        names.append(String(line.dropFirst(2).prefix { $0 != " " }))
      }
    }
    return names
  }

  /// README's command lists name exactly the commands `--help` shows (and every `setup` tool);
  /// Install names every helper link and cargo's --cargo-plugin; each link has its man page, and
  /// strivacity(1) a section for every command.
  @Test func theReadmeListsEveryCommandAndLink() throws {
    let root = TestEnvironment.repositoryRoot
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let commands = try #require(readme.components(separatedBy: "\n## Commands and exit codes\n").last)
      .components(separatedBy: "\n## ")[0].split(separator: "\n").filter { $0.hasPrefix("strivacity ") }
      .map { $0.split(separator: " ").map(String.init) }
    let shown = try Self.listedCommands(["--help"])
    #expect(shown.count == 17, "\(shown)")
    #expect(Set(commands.map { $0[1] }.filter { !$0.hasPrefix("-") }) == Set(shown))
    let tools = try Self.listedCommands(["setup", "--help"])
    #expect(tools.count == 9, "\(tools)")
    #expect(Set(commands.filter { $0[1] == "setup" && $0[2] != "TOOL" }.map { $0[2] }) == Set(tools))
    let install = try #require(readme.components(separatedBy: "\n## Install\n").last).components(separatedBy: "\n## ")[
      0]
    let page = try String(contentsOf: root.appendingPathComponent("man/strivacity.1"), encoding: .utf8)
    for link in ["git-credential-strivacity", "docker-credential-strivacity", "terraform-credentials-strivacity"] {
      #expect(install.contains("`\(link)`"), "Install does not name \(link)")
      #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("man/\(link).1").path))
    }
    #expect(install.contains("--cargo-plugin"))
    for name in shown + tools.map({ "setup " + $0 }) {
      #expect(page.contains("\n.Ss \(name)\n"), "strivacity(1) has no section for \(name)")
    }
  }

  @Test func profileNamesCompleteFromTheConfig() throws {
    let home = try ScratchDirectory("completion")
    try home.writeConfig(
      "[profiles.work]\ntenant = \"https://w.example\"\n[profiles.home]\ntenant = \"https://h.example\"\n")
    let bin = home.file("bin")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: bin + "/strivacity", withDestinationPath: TestEnvironment.binary("strivacity"))
    // The generated scripts call back into the binary for --profile's values...
    for script in ["completions/strivacity.bash", "completions/_strivacity", "completions/strivacity.fish"] {
      let text = try String(contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent(script), encoding: .utf8)
      #expect(text.contains("---completion"), "\(script)")
    }
    // ...as bash does for `strivacity status --profile w<TAB>` (word 3, cursor 1 into it).
    let result = try run(
      ["strivacity", "---completion", "status", "--", "--profile", "3", "1", "strivacity", "status", "--profile", "w"]
        .enumerated().map { $0.offset == 0 ? bin + "/strivacity" : $0.element },
      environment: ["HOME": home.path, "PATH": bin + ":/usr/bin:/bin"])
    #expect(result.stdout == "work\n", "\(result.stdout) \(result.stderr)")
  }
}

// `strivacity setup TOOL`: the setup commands as one group, each with --undo and --dry-run
// (SetupChange), the old `setup-TOOL` names kept working, hidden, for a release (Renamed), and
// the API a tool routed by host gets its token from (RoutedAPI: --api NAME, added when missing).
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO

struct Setup: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "setup",
    abstract:
      "Make git, docker, cargo, terraform, kubectl, gcloud or aws use strivacity; add an API or a proxy.",
    discussion: """
      Each writes the tool's own config (keeping everything else in it) and what the profile \
      needs in strivacity's config. --dry-run prints what would be written or run (nothing is \
      changed); --undo removes what it wrote.

      EXAMPLES:
        strivacity setup git --host git.example.com
        strivacity setup docker --registry registry.example.com --dry-run
        strivacity setup terraform tfe.example.com --api tfe
      """,
    subcommands: tools)

  static let tools: [ParsableCommand.Type] = [
    SetupGit.self, SetupDocker.self, SetupCargo.self, SetupTerraform.self, SetupKubectl.self, SetupGcloud.self,
    SetupAWS.self, SetupAPI.self, SetupProxy.self,
  ]

  /// `setup-git` … `setup-proxy`, the names before `setup TOOL` (aws came after): hidden, kept for
  /// a release.
  static let renamed = tools.filter { $0 != SetupAWS.self }.map { $0.renamed }
}

extension ParsableCommand {
  fileprivate static var renamed: ParsableCommand.Type { Renamed<Self>.self }
}

/// `setup-TOOL`, the same command as `setup TOOL`, not listed.
struct Renamed<Command: ParsableCommand>: ParsableCommand {
  static var configuration: CommandConfiguration {
    var configuration = Command.configuration
    configuration.commandName = "setup-" + Command._commandName
    configuration.shouldDisplay = false
    return configuration
  }

  @OptionGroup var command: Command

  mutating func run() throws { try command.run() }
}

/// --undo and --dry-run, and the changes a setup command makes, done or (--dry-run) printed on
/// stdout, each as "would write FILE:" and its lines, or "would run: COMMAND".
struct SetupChange: ParsableArguments {
  @Flag(help: "Remove what this setup wrote.")
  var undo = false

  @Flag(name: .customLong("dry-run"), help: "Print what would be written or run; change nothing.")
  var dryRun = false

  /// `settings` written to the config's table `table`.
  func config(_ context: Context, table: [String], _ settings: [(key: String, value: ConfigValue)]) throws {
    if dryRun {
      print(context.paths.config, [ConfigWriter.headerLine(table)] + settings.map { "\($0.key) = \($0.value.toml)" })
    } else {
      try context.updateConfig(table: table, settings: settings)
    }
  }

  /// `keys` (nil: the whole table) removed from the config's table `table`.
  func remove(_ context: Context, table: [String], keys: [String]?) throws {
    let file = try ToolConfigFile.open(context.paths.config)
    let text = try ToolConfigFile.text(file) ?? ""
    let edited = try ConfigWriter.removing(text, table: table, keys: keys, path: file.path)
    guard edited != text else { return }
    if dryRun {
      let header = ConfigWriter.headerLine(table)
      print(file.path, [keys.map { "remove from \(header): " + $0.joined(separator: ", ") } ?? "remove \(header)"])
    } else {
      try ToolConfigFile.write(Array(edited.utf8), to: file, newMode: 0o644)
    }
  }

  /// A tool's file replaced with `bytes`; `shown`, the lines said for it (the file may hold
  /// others' secrets: Docker's does), else its new text.
  func write(
    _ bytes: [UInt8], to file: EditedFile, shown: [String]? = nil, newMode: UInt32 = 0o600, mode: UInt32? = nil
  )
    throws
  {
    if dryRun {
      print(file.path, shown ?? String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    } else {
      try ToolConfigFile.write(bytes, to: file, newMode: newMode, mode: mode)
    }
  }

  /// `program` run with `arguments` (by `perform`); printed instead on --dry-run.
  func run(_ program: String, _ arguments: [String], _ perform: ([String]) throws -> Void) rethrows {
    if dryRun {
      let words = ([program] + arguments).map { word in
        word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./:=@,+".contains($0)) }
          ? word : "'" + word.replacing("'", with: "'\\''") + "'"
      }
      Console.writeStdout("would run: " + words.joined(separator: " ") + "\n")
    } else {
      try perform(arguments)
    }
  }

  /// Something else done (a link made, a file removed); printed on --dry-run.
  func other(_ description: String, _ perform: () throws -> Void) rethrows {
    if dryRun { Console.writeStdout("would \(description)\n") } else { try perform() }
  }

  /// What is said once done; nothing on --dry-run (nothing was).
  func note(_ text: String) { if !dryRun { Console.note(text) } }

  private func print(_ path: String, _ lines: [String]) {
    Console.writeStdout("would write \(path):\n" + lines.map { "  \($0)\n" }.joined())
  }
}

/// --api NAME of a tool that sends one token to every path of a host (Docker, Terraform,
/// cargo's registry): the profile's API whose url covers it, or the one named, added with
/// url = the host (and --audience, --scope) when the profile has none of that name: no
/// metadata needed, nor any editing by hand.
struct RoutedAPI: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "The profile's API whose token it gets (added with url = the host if missing).", valueName: "name"),
    completion: .custom { words, _, prefix in Context().apiNames(words).filter { $0.hasPrefix(prefix) } })
  var api: String?

  @Option(help: ArgumentHelp("The audience of the API --api adds.", valueName: "audience"))
  var audience: String?

  @Option(
    name: .customLong("scope"), help: ArgumentHelp("A scope of the API --api adds (repeatable).", valueName: "scope"))
  var scopes: [String] = []

  func validate() throws {
    if let api {
      do { _ = try API.admitName(api) } catch { throw ValidationError("--api: \(error.description)") }
    }
    if let audience {
      do { _ = try Admit.audience(audience) } catch { throw ValidationError("--audience: \(error.description)") }
    }
    for scope in scopes {
      do { _ = try Admit.scopeToken(scope) } catch { throw ValidationError("--scope: \(error.description)") }
    }
    if api == nil, audience != nil || !scopes.isEmpty { throw ValidationError("--audience and --scope go with --api") }
  }

  /// The API of `profile` whose url covers `url` (`entry`; one on part of its host refused when
  /// `wholeHost`): --api's, added to the config (through `change`) when the profile has no API
  /// of that name, else the one that does. `tool` names who gets the token, in refusals.
  func choose(
    _ entry: HostEntry, url: String, profile: Profile, context: Context, change: SetupChange, tool: String,
    wholeHost: Bool = true
  ) throws -> String {
    let covering = try? profile.api(for: url)
    switch (covering ?? nil, api) {
    case (let found?, nil):
      return found.name
    case (let found?, let named?):
      if audience != nil || !scopes.isEmpty { throw Self.notAdded(found, profile: profile) }
      guard found.name == named else {
        throw CLIFailure(
          "\(entry) is under API \(found.name) of profile \(profile.name), not \(named): \(tool) would get "
            + "\(found.name)'s token; leave out --api, or change the APIs' urls", status: .usage)
      }
      return named
    case (nil, let named?):
      if let existing = profile.api(named: named) {
        if wholeHost, !existing.coversWholeHost {
          throw Self.onlyPart(existing, of: entry, profile: profile, tool: tool)
        }
        throw CLIFailure(
          "API \(named) of profile \(profile.name) has url \(existing.url), which does not cover \(entry)",
          status: .usage)
      }
      try add(named, url: entry, profile: profile, context: context, change: change)
      return named
    case (nil, nil):
      if wholeHost, let partial = profile.apiOnPartOfHost(of: url) {
        throw Self.onlyPart(partial, of: entry, profile: profile, tool: tool)
      }
      throw CLIFailure(
        "no API of profile \(profile.name) covers \(entry): name one to add with --api NAME (url = \"\(entry)\"), "
          + "or add one with `strivacity setup api` or a [profiles.\(profile.name).apis.NAME] section", status: .usage)
    }
  }

  /// API `named` added to `profile` (through `change`): url = `entry`, --audience, --scope, and
  /// `settings`.
  func add(
    _ named: String, url entry: HostEntry, profile: Profile, context: Context, change: SetupChange,
    _ settings: [(key: String, value: ConfigValue)] = []
  ) throws {
    var table: [(key: String, value: ConfigValue)] = [("url", .string(entry.description))]
    if let audience { table.append(("audience", .string(audience))) }
    if !scopes.isEmpty { table.append(("scopes", .strings(scopes))) }
    try change.config(context, table: ["profiles", profile.name, "apis", named], table + settings)
    change.note(
      "API \(named) added to profile \(profile.name): url = \(entry) (\(context.paths.config))"
        + (audience == nil && scopes.isEmpty ? "; give it the audience or scopes the token service wants" : ""))
  }

  /// --audience or --scope for an API that is there already: its table is the user's to change.
  static func notAdded(_ api: API, profile: Profile) -> CLIFailure {
    CLIFailure(
      "profile \(profile.name) has API \(api.name) already: --audience and --scope are for an API --api adds; "
        + "change its table in the config file instead", status: .usage)
  }

  /// The refusal of an API on only a path of the host: the tool sends one token to every path of
  /// it, so the helper never answers with such an API (`API.serving`).
  private static func onlyPart(_ api: API, of entry: HostEntry, profile: Profile, tool: String) -> CLIFailure {
    CLIFailure(
      "API \(api.name) of profile \(profile.name) covers only \(api.url), and \(tool) sends one token to every path "
        + "of \(entry): the helper would not answer with it; give an API url = \"\(entry)\" (--api NAME adds one)",
      status: .usage)
  }
}

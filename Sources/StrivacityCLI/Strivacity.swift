// The command tree and the entry point.
import ArgumentParser
import Broker
import SignIn
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerminalUI
import ToolHelpers

public struct Strivacity: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "strivacity",
    abstract: "Sign in to Strivacity from the terminal and hand out fresh tokens.",
    discussion: """
      Profiles live in $XDG_CONFIG_HOME/strivacity/config.toml (or --config, \
      STRIVACITY_CONFIG). Tokens live in the Secret Service keyring, or in a \
      0600 file when a profile says store = "file".

      ENVIRONMENT:
        STRIVACITY_PROFILE    profile to use (else default_profile, "default")
        STRIVACITY_TENANT     tenant URL, overriding the profile's
        STRIVACITY_CLIENT_ID  OAuth client id, overriding the profile's
        STRIVACITY_CONFIG     path of the config file
        STRIVACITY_TIMEOUT    seconds per request to the tenant (default 30)
        STRIVACITY_KEYRING_TIMEOUT
                              seconds each keyring operation may take (default 5)
        STRIVACITY_KEYRING_PROMPT_TIMEOUT
                              seconds a keyring's dialog may wait for you (default
                              120 on a terminal, 15 for git and scripts)
        STRIVACITY_TOKEN_CACHE=off
                              no access-token cache in the kernel keyring
        STRIVACITY_AGENT=1|0  ask `strivacity agent` for tokens, or not, this call
        NO_COLOR              disables colour

      \(ExitStatus.helpText)
      """,
    version: "strivacity \(strivacityVersion)",
    // The commands people type; then, apart, the protocols tools run (under their own heading).
    subcommands: [
      Login.self, Token.self, Status.self, Doctor.self, Userinfo.self, Logout.self, Revoke.self, Curl.self, Exec.self,
      Agent.self, Use.self, Setup.self,
    ] + Setup.renamed,
    groupedSubcommands: [CommandGroup(name: toolProtocols, subcommands: toolHelpers)]
  )

  /// The protocols tools run strivacity for, and their heading ("… SUBCOMMANDS" in --help).
  static let toolProtocols = "Tool protocol"
  static let toolHelpers: [ParsableCommand.Type] = ToolHelpers.all.map { helperCommand($0) }

  public init() {}

  /// Parses `arguments`, runs the command, and exits with a documented code.
  public static func runMain(_ arguments: [String] = Strivacity.arguments()) -> Never {
    // Tokens and passwords live in this process's memory: never let it be written to a core file.
    forbidCoreDumps()
    // `strivacity` alone: what there is to run, on stderr, as a usage error (git and gh do the
    // same; the whole help is `strivacity --help`).
    if arguments.isEmpty {
      Console.writeStderr(shortUsage())
      exit(withStatus: .usage)
    }
    if VersionReport.asked(arguments) {
      Console.writeStdout(VersionReport.text())
      exit(withStatus: .ok)
    }
    if let unknown = unknownCommand(arguments) { report(unknown) }
    do {
      var command = try parseAsRoot(arguments)
      try command.run()
      exit(withStatus: .ok)
    } catch {
      // A program run on the user's behalf (curl) ended: its status is ours, silently.
      if let passedOn = error as? ExitCode { Self.exit(withError: passedOn) }
      if let failure = CLIFailure(recognising: error) { report(failure) }
      // Parse errors, --help and --version come from ArgumentParser.
      let code = exitCode(for: error)
      let text = fullMessage(for: error)
      if code == .success {
        if !text.isEmpty { Console.writeStdout(text + "\n") }
        exit(withStatus: .ok)
      }
      if code.rawValue == ExitCode.validationFailure.rawValue || code.rawValue == 64 {
        let line = usageError(message: message(for: error), full: text)
        report(CLIFailure(line, status: .usage))
      }
      report(CLIFailure("\(error)", status: .failure))
    }
  }

  /// The command line; as `git-credential-strivacity` (a link to `strivacity`, which hands over
  /// with argv[0] unchanged) it is the credential helper (SystemIO's commandLineArguments).
  public static func arguments() -> [String] { commandLineArguments() }

  /// A parse or validation error as one line in the documented form, with where to read more:
  /// "unexpected argument 'x' (see 'strivacity token --help')". Lists of allowed values are
  /// joined onto the line.
  static func usageError(message: String, full: String) -> String {
    var line = ""
    for raw in message.split(separator: "\n") {
      let text = raw.drop(while: \.isWhitespace)
      if text.hasPrefix("- ") {
        line += (line.hasSuffix(":") ? " " : ", ") + text.dropFirst(2)
      } else {
        line += (line.isEmpty ? "" : " ") + text
      }
    }
    if line.hasPrefix("Error: ") { line.removeFirst(7) }
    line = line.replacing(". Please provide one of the following:", with: "; use one of:").replacing(
      ". Please provide one of ", with: "; use one of "
    ).replacing(". Did you mean ", with: "; did you mean ")
    if line.hasSuffix(".") { line.removeLast() }
    if let first = line.first, first.isUppercase, line.dropFirst().first?.isLowercase == true {
      line = first.lowercased() + line.dropFirst()
    }
    // ArgumentParser's full message ends with "See 'strivacity token --help' for more information."
    var command = "strivacity"
    if let see = full.firstRange(of: "See '"), let end = full[see.upperBound...].firstIndex(of: "'") {
      command = String(full[see.upperBound..<end]).replacing(" --help", with: "")
    }
    return "\(line) (see '\(command) --help')"
  }

  /// A first word that names no command (nor `help NAME` with such a NAME): said before any
  /// option after it is judged, with the command it most likely meant, as git does
  /// ("unknown command 'tokne'; did you mean 'token'?"). nil when the words start with an option
  /// or a command.
  static func unknownCommand(_ arguments: [String]) -> CLIFailure? {
    guard var typed = arguments.first, !typed.hasPrefix("-") else { return nil }
    if typed == "help" {
      guard let named = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }) else { return nil }
      typed = named
    }
    let commands = configuration.subcommands
    guard !commands.contains(where: { $0._commandName == typed || $0.configuration.aliases.contains(typed) }) else {
      return nil
    }
    let shown = TerminalSafe.text(String(typed.prefix(64)), multiline: false)
    // The old setup-TOOL names too, suggested as `setup TOOL`.
    let names = commands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
    let near = Suggestion.nearest(to: typed, among: names + Setup.renamed.map { $0._commandName }).map {
      "; did you mean '\($0.replacing("setup-", with: "setup "))'?"
    }
    return CLIFailure("unknown command '\(shown)'\(near ?? "") (see 'strivacity --help')", status: .usage)
  }

  /// The commands and what they do, for `strivacity` run alone; the tool protocols apart.
  static func shortUsage() -> String {
    let commands = configuration.ungroupedSubcommands.filter { $0.configuration.shouldDisplay }
    let width = (commands + toolHelpers).map { $0._commandName.count }.max() ?? 0
    func lines(_ commands: [ParsableCommand.Type]) -> String {
      commands.map {
        "  " + $0._commandName + String(repeating: " ", count: width - $0._commandName.count) + "  "
          + $0.configuration.abstract + "\n"
      }.joined()
    }
    return "usage: strivacity <command> [options]\n\n" + lines(commands) + "\n\(toolProtocols)s (run by the tools):\n"
      + lines(toolHelpers) + "\nSee 'strivacity --help' or 'strivacity <command> --help'.\n"
  }

  static func report(_ failure: CLIFailure) -> Never {
    if !failure.message.isEmpty { Console.error(failure.message) }
    exit(withStatus: failure.status)
  }

  static func exit(withStatus status: ExitStatus) -> Never {
    Self.exit(withError: status == .ok ? nil : ExitCode(status.rawValue))
  }
}

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
  @Option(
    name: .long, help: ArgumentHelp("Profile to use.", valueName: "name"),
    completion: .custom { _, _, prefix in Context().profileNames().filter { $0.hasPrefix(prefix) } })
  var profile: String?

  @Option(
    name: .long,
    help: ArgumentHelp("Where tokens are kept: the Secret Service keyring, or a 0600 file.", valueName: "store"))
  var store: StoreChoice?

  @Option(
    name: .long,
    help: ArgumentHelp("Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).", valueName: "path"),
    completion: .file())
  var config: String?

  @Flag(name: .shortAndLong, help: "Describe each step on stderr (secrets are redacted).")
  var verbose = false

  var overrides: ProfileOverrides {
    ProfileOverrides(profile: profile, store: store?.kind)
  }

  var log: Log { Log(verbose: verbose) }

  func context() -> Context { Context(configPath: config) }
}

enum StoreChoice: String, ExpressibleByArgument, CaseIterable {
  case secretService = "secret-service"
  case file

  var kind: StoreKind { self == .file ? .file : .secretService }
}

extension TokenBroker {
  /// The broker for the profile the global options (and `profile`) name.
  convenience init(context: Context, options: GlobalOptions, profile: String? = nil, apis: APITables = .all) throws {
    try self.init(context: context, overrides: options.overrides, log: options.log, profile: profile, apis: apis)
    signIn = TokenBroker.signInOnTerminal
    progress = Spinner()
  }

  /// The broker of a profile the config file has (a setup command writes to its table): one
  /// given only by flags or the environment is a configuration error naming the file.
  static func configured(context: Context, options: GlobalOptions) throws -> TokenBroker {
    let broker = try TokenBroker(context: context, options: options)
    try context.requireConfigured(broker.resolved)
    return broker
  }
}

extension Context {
  func resolveProfile(_ options: GlobalOptions) throws(ConfigError) -> ResolvedProfile {
    try resolveProfile(options.overrides)
  }

  /// The profile asked for, which the config file must have (a setup command writes to its
  /// table): one given only by flags or the environment is a configuration error naming the file.
  func configuredProfile(_ options: GlobalOptions) throws(ConfigError) -> ResolvedProfile {
    let resolved = try resolveProfile(options)
    try requireConfigured(resolved)
    return resolved
  }

  func requireConfigured(_ resolved: ResolvedProfile) throws(ConfigError) {
    guard resolved.isConfigured else {
      throw .profileNotConfigured(name: resolved.name, path: paths.config, configured: resolved.configuredNames)
    }
  }
}

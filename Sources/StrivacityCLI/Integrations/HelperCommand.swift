// Every tool's credential helper in the full command line, as one generic command
// (`HelperCommand`, a subcommand per row of ToolHelpers.all: `helperCommand`): its name, help and
// the words it takes (`HelperHelp.takes`, one of four shapes) from the row, and one way to
// answer: the helper's step (ToolHelpers), a `get` routed by the function the small binary routes
// it with (`HelperGet.route`), the token from the broker (or what the helper makes from it), every
// failure in the helper's voice (`ToolHelper.reply`): its protocol's shape on stdout, one line on
// stderr. stdin and stdout belong to the protocol; nobody is asked to sign in, but git's person.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerminalUI
import ToolHelpers

/// The words a helper's command takes, as the protocol reads them.
protocol HelperArguments: ParsableArguments {
  /// The words after the subcommand, as the small binary reads them.
  var words: [String] { get }
  /// The global options, for a helper that takes them.
  var options: GlobalOptions? { get }
}

/// The subcommand of `helper`, with the words its row says it takes.
func helperCommand<Helper: HelperGet>(_ helper: Helper.Type) -> ParsableCommand.Type {
  switch Helper.help.takes {
  case .protocolWords: HelperCommand<Helper, ProtocolWords<Helper>>.self
  case .action: HelperCommand<Helper, ActionWords<Helper>>.self
  case .options: HelperCommand<Helper, OptionsOnly>.self
  case .api: HelperCommand<Helper, APIWords<Helper>>.self
  }
}

struct HelperCommand<Helper: HelperGet, Arguments: HelperArguments>: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: Helper.names.subcommand, abstract: Helper.help.abstract, discussion: Helper.help.discussion)
  }

  @OptionGroup var arguments: Arguments

  func run() throws {
    let words = arguments.words
    let context = arguments.options?.context() ?? Context(configPath: nil)
    context.attended = false  // the tool waits: a keyring prompt gets the short bound
    func serve(_ input: [UInt8]) throws -> ExitStatus {
      try HelperAnswer.serve(
        Helper.self, words, input, context: context, options: arguments.options, command: Self.self)
    }
    guard case .lines(let hello, let handedOn, let maxLine) = Helper.session else {
      // What the tool sent; when the small `strivacity` could not answer it, it handed over what
      // it read as this process's stdin (Launcher.handOff).
      var input = HelperAnswer.read(Helper.input(words), Helper.self)
      defer { input.wipe() }
      let status = try serve(input)
      if status != .ok { exitProcess(status.rawValue) }
      return
    }
    // Handed on by the small binary, which said the hello already (the tool reads it once).
    if environmentVariable(handedOn) == nil { Console.writeStdout(hello) } else { takeFromEnvironment(handedOn) }
    var reader = LineReader(fd: 0)
    while var line = reader.next(limit: maxLine) {
      defer { line.wipe() }
      if line.last == 10 { line.removeLast() }
      let status = try serve(line)
      if status != .ok { exitProcess(status.rawValue) }
    }
  }
}

/// The protocol's words, read by it (docker's, Terraform's verbs).
struct ProtocolWords<Helper: ToolHelper>: HelperArguments {
  @Argument(
    parsing: .captureForPassthrough, help: ArgumentHelp(Helper.help.words), completion: .list(Helper.help.verbs))
  var words: [String] = []

  var options: GlobalOptions? { nil }
}

/// The global options and one action (git's).
struct ActionWords<Helper: ToolHelper>: HelperArguments {
  @OptionGroup var global: GlobalOptions

  @Argument(help: ArgumentHelp(Helper.help.words), completion: .list(Helper.help.verbs))
  var action: String

  var words: [String] { [action] + (global.profile.map { ["--profile", $0] } ?? []) }
  var options: GlobalOptions? { global }
}

/// The global options only (cargo's: the request names the rest).
struct OptionsOnly: HelperArguments {
  @OptionGroup var global: GlobalOptions

  var words: [String] { [] }
  var options: GlobalOptions? { global }
}

/// The global options and the API.
struct APIWords<Helper: ToolHelper>: HelperArguments {
  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp(Helper.help.words, valueName: "name"))
  var api: String

  var words: [String] { ["--api", api] + (global.profile.map { ["--profile", $0] } ?? []) }
  var options: GlobalOptions? { global }
}

enum HelperAnswer {
  /// Answers one request (`words` after the subcommand, `input` from stdin); the exit status it
  /// asks for. A failure outside the token's (the config's, say) is said in the helper's voice too.
  static func serve(
    _ helper: any HelperGet.Type, _ words: [String], _ input: [UInt8], context: Context, options: GlobalOptions?,
    command: ParsableCommand.Type
  ) throws -> ExitStatus {
    do {
      switch try helper.step(words, input, config: { try context.config() }) {
      case .help: throw CleanExit.helpRequest(command)
      case .reply(let reply): return written(reply)
      case .forget(let rejected, let otherwise):
        let forgot = try forget(helper, words, input, rejected: rejected, context: context, options: options)
        return forgot ? .ok : otherwise.map(written) ?? .ok
      case .get:
        guard let route = helper.route(words, input, config: try context.config(), environment: context.environment)
        else { try unrouted(helper, words, input, context: context, options: options) }
        switch route {
        case .reply(let reply): return written(reply)
        case .token(let ask):
          do {
            Console.writeStdout(try answer(helper, ask, context: context, options: options))
            return .ok
          } catch {
            return written(helper.reply(failure(error, profile: ask.resolved.name)))
          }
        }
      }
    } catch let exit as CleanExit {
      throw exit
    } catch {
      // Not the token's: a line protocol goes on, another exits with the failure's status.
      let failure = failure(error, profile: options?.profile ?? "default")
      let status = written(helper.reply(failure))
      guard status == .ok, case .one = helper.session else { return status }
      return failure.status
    }
  }

  /// A request the helper could not route: the profile it names is not the config's.
  static func unrouted(
    _ helper: any HelperGet.Type, _ words: [String], _ input: [UInt8], context: Context, options: GlobalOptions?
  ) throws -> Never {
    var options = options ?? GlobalOptions()
    if case .profile(let named?) = helper.configScope(words, input, environment: context.environment) {
      options.profile = named
    }
    let resolved = try context.resolveProfile(options)
    throw ConfigError.profileNotConfigured(
      name: resolved.name, path: context.paths.config, configured: resolved.configuredNames)
  }

  /// The tool says the credential failed (`erase`, `forget`): the kept access token that would
  /// answer the request expires, its refresh token and the sign-in stay, so the next `get`
  /// refreshes. False: the request is no API's (nothing to drop).
  static func forget(
    _ helper: any HelperGet.Type, _ words: [String], _ input: [UInt8], rejected: String?, context: Context,
    options: GlobalOptions?
  ) throws -> Bool {
    let route = helper.route(words, input, config: try context.config(), environment: context.environment)
    guard case .token(let ask)? = route, rejected != nil || ask.api != nil else { return false }
    // Only the token the tool rejects, when it names one (git's): one renewed since is kept.
    try broker(ask, context: context, options: options).expireKept(ask.api, onlyIf: rejected)
    return true
  }

  /// The token `ask` needs, or what the helper makes from it (Derivation): never through a
  /// sign-in (the tool waits, and may have no terminal) but a helper's that `signsInOnTerminal`,
  /// on one; a margin the tenant's tokens cannot meet said with the helper's prefix.
  static func answer(_ helper: any HelperGet.Type, _ ask: TokenAsk, context: Context, options: GlobalOptions?)
    throws -> String
  {
    let attended = helper.signsInOnTerminal
    func once() throws -> String {
      let session = try broker(ask, context: context, options: options)
      if !attended {
        session.signIn = nil
        session.progress = nil
      }
      let freshness = ask.freshness
      let tokens = try session.helperTokens(api: ask.api, challenge: ask.challenge, freshness)
      session.sayShortfall(tokens, freshness, prefix: helper.names.messagePrefix)
      guard let derived = ask.derived else { return ask.answer(tokens) }
      return try session.derivedAnswer(derived, token: tokens.accessToken)
    }
    do {
      return try once()
    } catch let failure as BrokerError where failure.status == .signInRequired && attended && TTY() != nil {
      Console.writeStderr("strivacity: \(failure.message)\n")
      try Login.parse(["--profile", ask.resolved.name] + (options?.config.map { ["--config", $0] } ?? [])).run()
      return try once()
    }
  }

  /// The broker for `ask`'s profile, with the command line's options when the helper takes them.
  static func broker(_ ask: TokenAsk, context: Context, options: GlobalOptions?) throws -> TokenBroker {
    guard var options else {
      return try TokenBroker(
        context: context, overrides: ProfileOverrides(profile: ask.resolved.name), log: Log(verbose: false))
    }
    options.profile = ask.resolved.name
    return try TokenBroker(context: context, options: options, profile: ask.resolved.name)
  }

  /// The broker's failure in the helpers' words.
  static func failure(_ error: any Error, profile: String) -> HelperFailure {
    if let failure = error as? HelperFailure { return failure }
    let failure = CLIFailure(recognising: error)
    if let failure, failure.status == .signInRequired { return .notSignedIn(profile: profile, why: failure.message) }
    return .refused(CLIFailure.describe(error), status: failure?.status ?? .failure)
  }

  /// What `input` says to read of stdin (all of it for `drained`, the rest dropped, zeroed); a
  /// person who typed the command gets told how to end it.
  static func read(_ input: HelperInput, _ helper: any ToolHelper.Type) -> [UInt8] {
    let limit: Int
    switch input {
    case .none: return []
    case .upTo(let bytes): limit = bytes
    case .drained(let bytes): limit = bytes + 1
    }
    if isTerminal(0) {
      Console.writeStderr(
        "strivacity: reading a request (\(helper.names.messagePrefix.dropLast(2))), end it with Ctrl-D\n")
    }
    let kept = readStdin(limit: limit)
    guard case .drained(let bytes) = input, kept.count > bytes else { return kept }
    while true {
      var more = readStdin(limit: bytes)
      let ended = more.count <= bytes
      more.wipe()
      if ended { return kept }
    }
  }

  /// `reply` written; the exit status it asks for.
  static func written(_ reply: HelperReply) -> ExitStatus {
    if !reply.stdout.isEmpty { Console.writeStdout(reply.stdout) }
    if let line = reply.stderr { Console.writeStderr(line) }
    return reply.status
  }
}

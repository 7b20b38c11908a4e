// `strivacity exec -- COMMAND`: COMMAND runs with the access token in its environment and/or in
// a file it can re-read, which is kept fresh while COMMAND runs (KeepFresh decides when) and
// removed when it ends, however it ends. The token is never in an argument.
import ArgumentParser
import Broker
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore
import SystemIO

struct Exec: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run a command with a fresh token in its environment or in a file kept fresh.",
    discussion: """
      COMMAND gets the profile's access token (an API's with --api) in the environment \
      variable --env names (STRIVACITY_ACCESS_TOKEN when neither --env nor --file-env is \
      given), and/or the path of a file holding it in the variable --file-env names (e.g. \
      AWS_WEB_IDENTITY_TOKEN_FILE). The file is private (0600, in $XDG_RUNTIME_DIR/strivacity, \
      or in the directory --dir names: a 0700 directory of yours, below directories only you \
      or root can write (or sticky ones, as /tmp) and no other user's symbolic link, for CI \
      runners and containers without XDG_RUNTIME_DIR; never elsewhere), replaced atomically with a new \
      token half-way through each token's life, and removed when COMMAND ends (a file left by \
      an exec that was killed is removed by the next one). A token in the environment cannot \
      be renewed: long jobs want \
      --file-env. When a renewal fails the file keeps the token it holds, which is still \
      valid, a line goes to stderr and the renewal is retried, backing off; at expiry the \
      file is emptied (never a stale token) until a renewal succeeds, and with \
      --fail-on-expiry COMMAND gets SIGTERM and exec exits with the renewal's failure status.

      SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to strivacity go to COMMAND (a terminal's \
      Ctrl-C reaches COMMAND by itself). The exit status is COMMAND's (128+N when signal N \
      ended it); 127 when COMMAND is not found, 126 when it cannot be run.

      EXAMPLES:
        strivacity exec -- terraform apply
        strivacity exec --api orders --file-env AWS_WEB_IDENTITY_TOKEN_FILE -- ./pipeline.sh
        strivacity exec --env API_TOKEN -- sh -c 'curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com/'
      """)

  @OptionGroup var global: GlobalOptions

  @Option(
    help: ArgumentHelp("A token for this API of the profile ([profiles.P.apis.NAME]).", valueName: "name"),
    completion: .custom { words, _, prefix in Context().apiNames(words).filter { $0.hasPrefix(prefix) } })
  var api: String?

  @Option(
    name: .customLong("env"),
    help: ArgumentHelp("The variable COMMAND finds the token in (default STRIVACITY_ACCESS_TOKEN).", valueName: "name"))
  var envName: String?

  @Option(
    name: .customLong("file-env"),
    help: ArgumentHelp("The variable COMMAND finds the kept-fresh token file's path in.", valueName: "name"))
  var fileEnv: String?

  @Option(
    name: .customLong("dir"),
    help: ArgumentHelp(
      "The directory for --file-env's file, in place of $XDG_RUNTIME_DIR/strivacity (yours, mode 0700).",
      valueName: "dir"),
    completion: .directory)
  var directory: String?

  @Flag(name: .customLong("fail-on-expiry"), help: "Stop COMMAND (SIGTERM) when its token expires unrenewed.")
  var failOnExpiry = false

  @Argument(
    parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
  var command: [String] = []

  func validate() throws {
    guard !command.isEmpty else {
      throw ValidationError("give the command after --: strivacity exec [OPTIONS] -- COMMAND")
    }
    for (flag, name) in [("--env", envName), ("--file-env", fileEnv)] {
      guard let name else { continue }
      guard ExecPlan.isVariableName(name) else {
        throw ValidationError("\(flag) must be a variable name: letters, digits and _, not starting with a digit")
      }
    }
    if let envName, envName == fileEnv { throw ValidationError("--env and --file-env name the same variable") }
    if directory != nil && fileEnv == nil { throw ValidationError("--dir is for --file-env's file") }
    if failOnExpiry && fileEnv == nil {
      throw ValidationError("--fail-on-expiry is for --file-env: a variable is never renewed")
    }
  }

  func run() throws {
    let context = global.context()
    let session = try TokenBroker(context: context, options: global, apis: api.map { .named($0) } ?? .none)
    let chosen: API?
    if let api {
      guard let found = session.resolved.profile.apis.first(where: { $0.name == api }) else {
        // The session read only the API named; the message names them all.
        let profile =
          (try? ResolvedProfile.resolve(
            config: context.config(warn: false), overrides: global.overrides, environment: context.environment))?
          .profile ?? session.resolved.profile
        throw CLIFailure(profile.noAPI(named: api), status: .usage)
      }
      chosen = found
    } else {
      chosen = nil
    }
    func fresh(_ freshness: Freshness) throws -> TokenSet {
      try chosen.map { try session.apiTokens($0, freshness) } ?? session.freshTokens(freshness)
    }
    let plan = ExecPlan(command: command, envName: envName, fileEnv: fileEnv, failOnExpiry: failOnExpiry)
    do {
      // The file's place first: a runtime directory that will not do is said before anything is asked.
      let file = try fileEnv.map { _ throws(ExecFailure) in
        try TokenFile.create(environment: context.environment, directory: directory)
      }
      let initial = try fresh(Freshness.asked(nil, profile: session.resolved.profile))
      let status = try ExecRunner.run(
        plan, initial: initial, file: file, now: TokenBroker.now,
        renew: { freshness in
          do {
            return .tokens(try fresh(freshness))
          } catch {
            let failure = CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .failure)
            return .failed(failure.status, failure.message)
          }
        },
        say: { Console.writeStderr("strivacity: \($0)\n") })
      throw ExitCode(status)
    } catch let failure as ExecFailure {
      if !failure.message.isEmpty { Console.error(failure.message) }
      throw ExitCode(failure.status)
    }
  }
}

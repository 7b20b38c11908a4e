// `strivacity exec` answered by the small binary when the token is at hand (the access-token
// cache, or the agent): COMMAND starts without loading the full command line. Renewals of a
// kept-fresh file run the full command line's `token` (the only process that refreshes), and
// the token is taken from its output. Anything else — an option not among the plain ones, a
// token to fetch, a sign-in — is the full command line's (handOff), which gives the errors.
//
// A machine's client secret in the environment is withheld from COMMAND, so no process that
// holds it may be open to COMMAND: a renewal started while COMMAND runs is an ordinary process
// of the user's from its execve until it makes itself undumpable, and COMMAND could take the
// secret out of it then (pidfd_getfd(2) on the descriptor it arrives on, or PTRACE_SEIZE and
// read its memory later). So a kept-fresh file with such a secret is the full command line's:
// it takes the secret before COMMAND exists, undumpable, and renews in its own process.
import StrivacityConfig
import StrivacityCore
import SystemIO

extension HotPath {
  static func exec(_ arguments: ArraySlice<String>, _ environment: [String: String]) -> Outcome {
    var rest = arguments.dropFirst()
    var values: [String: String] = [:]
    var failOnExpiry = false
    while let first = rest.first, first != "--" {
      switch first {
      case "--profile", "--api", "--env", "--file-env", "--dir":
        guard let value = rest.dropFirst().first, values[first] == nil else { return .handOff(stdin: nil) }
        values[first] = value
        rest = rest.dropFirst(2)
      case "--fail-on-expiry":
        failOnExpiry = true
        rest = rest.dropFirst()
      default:
        return .handOff(stdin: nil)
      }
    }
    let command = Array(rest.dropFirst())
    let envName = values["--env"]
    let fileEnv = values["--file-env"]
    guard rest.first == "--", !command.isEmpty, envName.map(ExecPlan.isVariableName) ?? true,
      fileEnv.map(ExecPlan.isVariableName) ?? true, envName == nil || envName != fileEnv,
      !failOnExpiry || fileEnv != nil, values["--dir"] == nil || fileEnv != nil
    else { return .handOff(stdin: nil) }

    let paths = Paths(environment: environment)
    let overrides = ProfileOverrides(profile: values["--profile"])
    let named = ResolvedProfile.requestedName(overrides: overrides, environment: environment)
    let apiName = values["--api"]
    let scope = ConfigScope.profile(named, apis: apiName.map { .named($0) } ?? .none)
    guard
      let config = try? Config.load(
        paths.config, scope, place: workplace(environment), read: { readFile($0, regularOnly: true) }),
      config.warnings.isEmpty,
      let resolved = try? ResolvedProfile.resolve(config: config, overrides: overrides, environment: environment)
    else { return .handOff(stdin: nil) }
    let api = apiName.flatMap { name in resolved.profile.apis.first { $0.name == name } }
    guard apiName == nil || api != nil else { return .handOff(stdin: nil) }
    // A machine's client secret in this process's environment, if any: never COMMAND's.
    let secretVariable: String? =
      if case .environment(let name) = resolved.secretSource(environment: environment), environment[name] != nil {
        name
      } else {
        nil
      }
    // A file to keep fresh with such a secret: renewed where the secret is already held, never by
    // a process COMMAND could inspect (above). Handed on with it.
    if fileEnv != nil, let secretVariable {
      Launcher.secretVariable = secretVariable
      return .handOff(stdin: nil)
    }
    let freshness = Freshness.asked(nil, profile: resolved.profile)
    let found = current(
      config: config, resolved: resolved, freshness: freshness, environment: environment, paths: paths,
      api: api)
    guard case .tokens(let tokens) = found else { return handOffPast(found, stdin: nil) }

    var plan = ExecPlan(command: command, envName: envName, fileEnv: fileEnv, failOnExpiry: failOnExpiry)
    // Without a file there is no renewal: the secret is only taken out of the environment (and
    // the token at hand is all COMMAND gets).
    if let secretVariable {
      plan.withheld = [secretVariable]
      takeFromEnvironment(secretVariable)
    }
    let status: Int32
    do {
      let file = try fileEnv.map { _ throws(ExecFailure) in
        try TokenFile.create(environment: environment, directory: values["--dir"])
      }
      status = try ExecRunner.run(
        plan, initial: tokens, file: file, now: wallClockSeconds,
        renew: { renewal(profile: resolved.name, api: api?.name, freshness: $0) },
        say: { writeTerminal(2, "strivacity: \($0)\n") })
    } catch {
      writeTerminal(2, "strivacity: error: \(error.message)\n")
      exitProcess(error.status)
    }
    exitProcess(status)
  }

  /// A renewal by the full command line: `strivacity-cli token … --min-ttl N --format env`, its
  /// errors on our stderr, its status the failure's. It is handed no secret: one in the
  /// environment never gets here (`exec` hands such a run on), and a file or kept secret is one
  /// COMMAND could read itself.
  static func renewal(profile: String, api: String?, freshness: Freshness) -> ExecRenewal {
    guard let full = Launcher.fullCommandPath() else {
      return .failed(.failure, "\(Launcher.fullName) is missing; reinstall strivacity")
    }
    var arguments = [full, "token", "--profile", profile, "--min-ttl", "\(freshness.seconds)", "--format", "env"]
    if let api { arguments += ["--api", api] }
    let output: PipeEnds
    do {
      output = try PipeEnds.make(inherited: [.read, .write])
    } catch {
      return .failed(.failure, "pipe: \(error)")
    }
    let descriptors: [ChildDescriptor] = [.duplicate(output.write, as: 1), .close(output.read), .close(output.write)]
    let spawned = withSpawnEnvironment(withholding: [SecretHandover.variable]) { envp in
      spawnProgram(arguments, descriptors: descriptors, searchingPath: false, environment: envp)
    }
    closeDescriptor(output.write)
    defer { closeDescriptor(output.read) }
    let pid: Int32
    switch spawned {
    case .success(let started): pid = started
    case .failure(let error): return .failed(.failure, "cannot run \(full): \(error)")
    }
    var text = (try? readAll(output.read, limit: 65_536).get()) ?? []
    defer { text.wipe() }
    let code = waitForExit(pid)
    guard code == 0 else {
      return .failed(ExitStatus(rawValue: code) ?? .failure, "strivacity token exited with \(code)")
    }
    // STRIVACITY_ACCESS_TOKEN='…' and STRIVACITY_TOKEN_EXPIRES_IN=N (TokenFormat.env).
    var token: String?
    var expiresIn: Int64?
    for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
      if line.hasPrefix("STRIVACITY_ACCESS_TOKEN='"), line.hasSuffix("'") {
        token = String(line.dropFirst("STRIVACITY_ACCESS_TOKEN='".count).dropLast())
      } else if line.hasPrefix("STRIVACITY_TOKEN_EXPIRES_IN=") {
        expiresIn = Int64(line.dropFirst("STRIVACITY_TOKEN_EXPIRES_IN=".count))
      }
    }
    let now = wallClockSeconds()
    guard let token, let admitted = try? BearerToken(admitting: token) else {
      return .failed(.server, "strivacity token printed no token")
    }
    return .tokens(TokenSet(accessToken: admitted, expiresAt: expiresIn.map { now + $0 }, obtainedAt: now))
  }
}

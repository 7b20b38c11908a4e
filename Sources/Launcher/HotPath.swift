// `strivacity token`, and every tool's credential helper asking for a token (HotHelper.swift),
// from the access-token cache (KernelTokenCache; a machine profile's private files where the
// kernel refuses keyrings, MachineTokenFiles), or from `strivacity agent` when it is enabled,
// answered by the small `strivacity` binary itself: no argument parser, no libsecret, no D-Bus,
// none of the full command line's code loaded. Only the plain forms are answered here — `token`
// with --profile, --format, --min-ttl, --api, --for and an ad hoc API (--audience, --resource,
// --scope); a helper's `get` without options — and only with a token that is not due for
// refresh and a config that parses without a word to say; everything else (and any doubt) is
// handed to the full command line (Launcher.handOff), which gives the errors and warnings.
import Agent
import StrivacityConfig
import StrivacityCore
import SystemIO
import TokenCache
import ToolHelpers

public enum HotPath {
  public enum Outcome {
    case answered
    /// The agent refused (a transient tenant error, say): said on stderr already; exit with it.
    case failed(status: ExitStatus)
    /// Not answered here; `stdin` is what was read from stdin to find out, if anything.
    case handOff(stdin: [UInt8]?)
  }

  /// Answers `arguments` (argv without the program name, as `commandLineArguments`) if it can.
  public static func answer(_ arguments: [String]) -> Outcome {
    guard let first = arguments.first else { return .handOff(stdin: nil) }
    if first == "token" || first == "exec" {
      // As in the full command line: a token in this process's memory never goes to a core file.
      forbidCoreDumps()
      let environment = processEnvironment()
      return first == "exec" ? exec(arguments[...], environment) : token(arguments[...], environment)
    }
    let words = Array(arguments.dropFirst())
    guard let tool = ToolHelpers.named(first), tool.asksForToken(words) else { return .handOff(stdin: nil) }
    forbidCoreDumps()
    return helper(tool, words, processEnvironment())
  }

  enum Current {
    case tokens(TokenSet)
    /// The agent's final refusal (AgentMessage.finalRefusal): its exit status and message.
    case refused(ExitStatus, String)
    /// Not known here; `askedAgent`: the agent was asked, and had no tokens to give.
    case unknown(askedAgent: Bool)
  }

  /// The current set of a profile (`api`'s, `adHoc`'s, else the sign-in's), if it is not due for
  /// refresh by `freshness`: from the access-token cache (which the full command line fills for
  /// the Secret Service, the file store and a machine's kernel keyring alike), else, for the
  /// Secret Service and a machine, from `strivacity agent` when it is enabled and answers. An
  /// API's is looked for in the slot its table's settings name (`API.slot`), so a token asked
  /// before they changed is never answered.
  static func current(
    config: Config, resolved: ResolvedProfile, freshness: Freshness, environment: [String: String], paths: Paths,
    api: API?, adHoc: AdHocTarget? = nil
  ) -> Current {
    // A bad number in the environment is the full command line's to say (exit 2), whichever
    // binary would have answered.
    guard (try? EnvironmentLimits.admit(environment)) != nil,
      resolved.store == .secretService || resolved.store == .kernel || resolved.store == .file,
      var key = try? resolved.storeKey(configPath: paths.config)
    else { return .unknown(askedAgent: false) }
    // A machine profile's secret may be in this process's environment (read by strivacity-cli
    // only, which takes it out): closed to the user's other processes here too, as there, and
    // handed to strivacity-cli on a socket if this call is handed on.
    if resolved.renewal.clientProvesItself { _ = AgentSocket.makeUndumpable() }
    if case .environment(let name) = resolved.secretSource(environment: environment) {
      Launcher.secretVariable = name
    }
    key.slot = adHoc?.slot ?? api?.slot ?? .signIn
    if KernelTokenCache.enabled(environment), let tokens = cached(key, machine: resolved.store == .kernel, environment),
      !tokens.needsRefresh(now: wallClockSeconds(), freshness)
    {
      return .tokens(tokens)
    }
    // The agent keeps an API's tokens as it keeps the sign-in's (per profile and slot); it keeps
    // none of the file store's.
    guard resolved.store != .file, AgentClient.enabled(environment, config: config),
      resolved.agentServes(environment: environment),
      let request = AgentClient.tokenRequest(
        profile: resolved.name, freshness: freshness, idToken: false, configPath: paths.config,
        environment: environment,
        target: adHoc.map { .adHoc($0) } ?? api.map { .api($0.name, extraScopes: []) } ?? .signIn)
    else {
      return .unknown(askedAgent: false)
    }
    guard
      case .answered(let answer) = AgentSocket.ask(
        request, environment: environment, timeout: AgentClient.timeout, notice: AgentClient.waitNotice)
    else {
      return .unknown(askedAgent: true)
    }
    if let tokens = answer.tokenSet { return .tokens(tokens) }
    if let refusal = answer.finalRefusal { return .refused(refusal.status, refusal.message) }
    return .unknown(askedAgent: true)
  }

  /// The access-token cache's set for `key`; for a machine profile where the kernel refuses
  /// keyrings (a container's seccomp profile), its private file (MachineTokenStore's place).
  static func cached(_ key: StoreKey, machine: Bool, _ environment: [String: String]) -> TokenSet? {
    if let tokens = KernelTokenCache.get(key) { return tokens }
    guard machine, KernelTokenCache.refusal() != nil else { return nil }
    return MachineTokenFiles(environment: environment).get(key, now: wallClockSeconds())
  }

  /// An explicit margin the token handed out does not meet, said on stderr as the full command
  /// line says it.
  static func sayShortfall(_ tokens: TokenSet, _ freshness: Freshness, profile: String, prefix: String = "") {
    guard let warning = freshness.shortfallWarning(tokens, now: wallClockSeconds(), profile: profile, prefix: prefix)
    else {
      return
    }
    writeTerminal(2, "strivacity: warning: \(TerminalSafe.text(warning, multiline: false))\n")
  }

  /// Whatever the agent said short of tokens, the full command line is not to ask it again
  /// (a tenant outage tried twice, a stalled agent waited for twice): it does the work itself.
  static func handOffPast(_ current: Current, stdin: [UInt8]?) -> Outcome {
    switch current {
    case .refused, .unknown(askedAgent: true): setEnvironmentVariable("STRIVACITY_AGENT", "0")
    default: break
    }
    return .handOff(stdin: stdin)
  }

  static func token(_ arguments: ArraySlice<String>, _ environment: [String: String]) -> Outcome {
    // Only the plain forms; anything else (and a value the full command line refuses) is its to do.
    guard let invocation = TokenInvocation(plainArguments: arguments.dropFirst()) else { return .handOff(stdin: nil) }
    // The output with what its program said (`TokenOutput`): a context it does not understand is
    // the full command line's to refuse.
    guard let output = try? TokenOutput(invocation.format, environment: environment) else {
      return .handOff(stdin: nil)
    }

    let paths = Paths(environment: environment)
    let overrides = ProfileOverrides(profile: invocation.profile)
    let named = ResolvedProfile.requestedName(overrides: overrides, environment: environment)
    // Only the API tables the call needs, as the full command line reads them.
    let scope = ConfigScope.profile(named, apis: invocation.apiTables)
    guard
      let config = try? Config.load(
        paths.config, scope, place: workplace(environment), read: { readFile($0, regularOnly: true) }),
      config.warnings.isEmpty
    else {
      return .handOff(stdin: nil)
    }
    guard let resolved = try? ResolvedProfile.resolve(config: config, overrides: overrides, environment: environment)
    else { return .handOff(stdin: nil) }
    // The output's cluster decision (kubectl's API server): a refusal is the full command line's to say.
    guard output.clusterDecision(resolved.profile.kubeClusters, profile: resolved.name) == .allow else {
      return .handOff(stdin: nil)
    }
    // An API the profile does not have, or a URL under none: the full command line's to refuse.
    let api: API?
    do {
      api = try invocation.chosenAPI(resolved.profile, tenant: resolved.profile.tenant ?? "")
    } catch {
      return .handOff(stdin: nil)
    }
    let freshness = invocation.freshness(resolved.profile)
    let found = current(
      config: config, resolved: resolved, freshness: freshness, environment: environment, paths: paths,
      api: api, adHoc: invocation.adHoc)
    switch found {
    case .tokens(let tokens):
      if output.attended { sayShortfall(tokens, freshness, profile: resolved.name) }
      writeStdout(
        invocation.printed(
          tokens.accessToken, tokens: tokens, as: output, profile: resolved.name, now: wallClockSeconds()))
      return .answered
    case .refused(let status, let message) where status != .signInRequired:
      // The tenant or the network (the full command line would say the same, the same way).
      if let shaped = output.failure(status, message: message) { writeStdout(shaped) }
      writeTerminal(2, "strivacity: error: \(TerminalSafe.text(message, multiline: false))\n")
      return .failed(status: status)
    default:
      // "Sign in" is the full command line's to handle (--login, a prompt); anything that may be
      // the agent's own trouble it does itself.
      return handOffPast(found, stdin: nil)
    }
  }
}

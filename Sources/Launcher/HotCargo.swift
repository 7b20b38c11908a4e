// cargo's credential provider (`strivacity --cargo-plugin`, protocol v1) in the small binary:
// the hello, then each `get` for a registry of the profile's answered from the access-token
// cache or the agent, and each registry of no API or place of the profile's answered
// `url-not-supported`, without loading the full command line. Anything else (a request that is
// not cargo's, a token to renew, a challenge to answer, login and logout, any doubt) is handed
// on with the request it came in, the hello already said (`CargoProtocol.helloSentVariable`).
import GitCredential
import StrivacityConfig
import StrivacityCore
import SystemIO

extension HotPath {
  static func cargo(_ environment: [String: String]) -> Outcome {
    writeStdout(CargoProtocol.hello)
    var reader = LineReader(fd: 0)
    while var line = reader.next(limit: CargoProtocol.maxLine) {
      let answer = cargoAnswer(line, environment)
      guard case .line(let text)? = answer else {
        // Handed on whole (the full command line zeroes it); the agent, if it was asked and had
        // nothing, is not asked again.
        setEnvironmentVariable(CargoProtocol.helloSentVariable, "1")
        var askedAgent = false
        if case .handOff(let asked)? = answer { askedAgent = asked }
        return handOffPast(.unknown(askedAgent: askedAgent), stdin: line + reader.pending)
      }
      line.wipe()
      writeStdout(text)
    }
    return .answered
  }

  enum CargoAnswer {
    case line(String)
    case handOff(agentAsked: Bool)
  }

  /// The answer to one request line, when it is this binary's to give; nil: the full command line's.
  static func cargoAnswer(_ line: [UInt8], _ environment: [String: String]) -> CargoAnswer? {
    guard line.last == 10, let request = try? CargoProtocol.parse(line.dropLast()),
      case .get = request.kind, let invocation = try? CargoInvocation(request: request),
      invocation.challenge == nil
    else { return nil }
    let paths = Paths(environment: environment)
    let overrides = ProfileOverrides(profile: invocation.profile)
    let named = ResolvedProfile.requestedName(overrides: overrides, environment: environment)
    guard let config = try? Config.load(paths.config, .profile(named, apis: .all), read: { readFile($0) }),
      config.warnings.isEmpty,
      let resolved = try? ResolvedProfile.resolve(config: config, overrides: overrides, environment: environment),
      resolved.isConfigured
    else { return nil }
    let api: API?
    switch invocation.decision(for: resolved.profile, tenant: resolved.profile.tenant ?? "") {
    case .notOurs: return .line(CargoProtocol.errorAnswer(.urlNotSupported))
    case .refused: return nil
    case .token(let chosen): api = chosen
    }
    let freshness = invocation.freshness(resolved.profile)
    let found = current(
      config: config, resolved: resolved, freshness: freshness, environment: environment, paths: paths,
      api: api)
    switch found {
    case .tokens(let tokens):
      sayShortfall(tokens, freshness, profile: resolved.name, prefix: CargoInvocation.messagePrefix)
      return .line(CargoProtocol.tokenAnswer(tokens.accessToken, expiresAt: tokens.expiresAt))
    case .unknown(let askedAgent): return .handOff(agentAsked: askedAgent)
    case .refused: return .handOff(agentAsked: true)
    }
  }
}

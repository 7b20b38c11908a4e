import StrivacityConfig
import StrivacityCore
import SystemIO
import TokenCache
// AWS's credential_process (`strivacity aws-credential-process --api NAME [--profile P]`) in the
// small binary: the credentials kept in the kernel's keyring for the API's role, when they were
// made from the API's current token (itself from the cache or the agent, not due) and have more
// than AWSCredentialProcess.margin left. Anything else — no such API or role, no kept
// credentials, a token due, a config with something to say — is the full command line's, which
// asks STS or says on stderr what is wrong.
import ToolHelpers

extension HotPath {
  static func awsCredentialProcess(_ arguments: ArraySlice<String>, _ environment: [String: String]) -> Outcome {
    guard let asked = AWSCredentialProcess.plainArguments(arguments), KernelTokenCache.enabled(environment) else {
      return .handOff(stdin: nil)
    }
    let paths = Paths(environment: environment)
    let overrides = ProfileOverrides(profile: asked.profile)
    let named = ResolvedProfile.requestedName(overrides: overrides, environment: environment)
    guard let config = try? Config.load(paths.config, .profile(named, apis: .named(asked.api)), read: { readFile($0) }),
      config.warnings.isEmpty,
      let resolved = try? ResolvedProfile.resolve(config: config, overrides: overrides, environment: environment),
      let api = resolved.profile.api(named: asked.api), let role = api.aws,
      let endpoint = try? AWSCredentialProcess.endpoint(role, environment: environment),
      let key = try? resolved.storeKey(configPath: paths.config)
    else { return .handOff(stdin: nil) }
    let freshness = Freshness.asked(nil, profile: resolved.profile)
    let found = current(
      config: config, resolved: resolved, freshness: freshness, environment: environment, paths: paths, api: api)
    switch found {
    case .tokens(let tokens):
      sayShortfall(tokens, freshness, profile: resolved.name, prefix: AWSCredentialProcess.messagePrefix)
      let cacheKey = AWSCredentialProcess.cacheKey(
        key, api: api, role: role, profile: resolved.name, endpoint: endpoint)
      guard var record = KernelTokenCache.record(cacheKey) else { return .handOff(stdin: nil) }
      defer { record.wipe() }
      guard let credentials = AWSCredentialProcess.cached(record, token: tokens.accessToken, now: wallClockSeconds())
      else { return .handOff(stdin: nil) }
      writeStdout(AWSCredentialProcess.answer(credentials))
      return .answered
    default: return handOffPast(found, stdin: nil)
    }
  }
}

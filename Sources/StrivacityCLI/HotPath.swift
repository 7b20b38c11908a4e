// `strivacity token` and git's `credential get` from the access-token cache (KernelTokenCache),
// before anything else starts: no argument parser, no libsecret, no D-Bus. Only the plain forms
// are answered here — `token` with --profile, --format and --min-ttl; `credential get` without
// options — and only with a cached token that is not due for refresh and a config that parses
// without a word to say; everything else (and any doubt) goes the ordinary way, which gives the
// errors and warnings.
import GitCredential
import Glibc
import SecretStore
import StrivacityCore

/// The command line; as `git-credential-strivacity` (a link to this binary) it is the
/// credential helper: `git-credential-strivacity get` means `strivacity credential get`.
public func commandLineArguments() -> [String] {
  let rest = Array(CommandLine.arguments.dropFirst())
  let name = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
  return name == "git-credential-strivacity" ? ["credential"] + rest : rest
}

public enum HotPath {
  /// Answers `arguments` (argv without the program name, as `commandLineArguments`) if it
  /// can; true when it did.
  public static func answer(_ arguments: [String]) -> Bool {
    guard arguments.first == "token" || arguments == ["credential", "get"] else { return false }
    // As in runMain: a token in this process's memory never goes to a core file.
    var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
    setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore)
    if arguments.first == "credential" { return credentialGet() }
    return token(arguments[...])
  }

  /// git's `get`, for a host of a profile's git_hosts, with a cached access token. The request
  /// read from stdin is handed to the ordinary path when the answer is not here.
  static func credentialGet() -> Bool {
    var input = Credential.readRequest()
    let context = Context()
    guard KernelTokenCache.enabled(context.environment),
      let request = try? CredentialProtocol.parse(input),
      let config = try? context.config(warn: false), config.warnings.isEmpty,
      let profile = config.profiles.first(where: { HostMatch.matches(request, entries: $0.gitHosts) }),
      let (tokens, _) = cached(context: context, config: config, profile: profile.name, minTTL: 60)
    else {
      Credential.preread = input  // handed on whole; the ordinary path zeroes it
      return false
    }
    for i in input.indices { input[i] = 0 }
    Console.writeStdout(CredentialProtocol.answer(
      request: request, token: tokens.accessToken, username: profile.gitUsername ?? "oauth2", expiresAt: tokens.expiresAt))
    return true
  }

  /// The cached set of a profile on the Secret Service, if it is not due for refresh.
  static func cached(context: Context, config: Config, profile: String?, minTTL: Int64) -> (TokenSet, ResolvedProfile)? {
    var overrides = ProfileOverrides()
    overrides.profile = profile
    guard let resolved = try? ResolvedProfile.resolve(config: config, overrides: overrides, environment: context.environment),
      resolved.store == .secretService,
      let tenant = try? resolved.requireTenant(configPath: context.paths.config),
      let clientID = try? resolved.requireClientID(configPath: context.paths.config)
    else { return nil }
    let key = StoreKey(profile: resolved.name, issuer: TenantURL.base(tenant), clientID: clientID)
    guard let tokens = KernelTokenCache.get(key), !tokens.needsRefresh(now: ProfileSession.now(), minTTL: minTTL) else { return nil }
    return (tokens, resolved)
  }

  static func token(_ arguments: ArraySlice<String>) -> Bool {
    var options: [String: String] = [:]
    var rest = arguments.dropFirst()
    while let argument = rest.popFirst() {
      let (name, inline) = argument.firstIndex(of: "=").map { (String(argument[..<$0]), String(argument[argument.index(after: $0)...])) }
        ?? (argument, nil)
      guard ["--profile", "--format", "--min-ttl"].contains(name), options[name] == nil else { return false }
      guard let value = inline ?? rest.popFirst() else { return false }
      options[name] = value
    }
    let format = TokenFormat(rawValue: options["--format"] ?? "raw")
    let minTTL = options["--min-ttl"].map { Int64($0) } ?? 60
    guard let format, let minTTL, minTTL >= 0 else { return false }

    let context = Context()
    guard KernelTokenCache.enabled(context.environment) else { return false }
    let named = ResolvedProfile.requestedName(overrides: ProfileOverrides(profile: options["--profile"]), environment: context.environment)
    guard let config = try? context.config(onlyProfile: named, warn: false), config.warnings.isEmpty,
      let (tokens, resolved) = cached(context: context, config: config, profile: options["--profile"], minTTL: minTTL)
    else { return false }
    Console.writeStdout(format.render(token: tokens.accessToken, tokens: tokens, profile: resolved.name, idToken: false, now: ProfileSession.now()))
    return true
  }
}

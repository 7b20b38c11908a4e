// `strivacity token` from the access-token cache, before anything else starts: no argument
// parser, no libsecret, no D-Bus. Only the plain forms are answered here — `token` with
// --profile, --format and --min-ttl — and only with a cached token that is not due for refresh
// and a config that parses without a word to say; everything else (and any doubt) goes the
// ordinary way, which gives the errors and warnings.
import Glibc
import SecretStore
import StrivacityCore

public enum HotPath {
  /// Answers `arguments` (argv without the program name) if it can; true when it did.
  public static func answer(_ arguments: ArraySlice<String>) -> Bool {
    guard arguments.first == "token" else { return false }
    // As in runMain: a token in this process's memory never goes to a core file.
    var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
    setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore)
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
    var overrides = ProfileOverrides()
    overrides.profile = options["--profile"]
    let named = ResolvedProfile.requestedName(overrides: overrides, environment: context.environment)
    guard let config = try? context.config(onlyProfile: named, warn: false), config.warnings.isEmpty,
      let resolved = try? ResolvedProfile.resolve(config: config, overrides: overrides, environment: context.environment),
      resolved.store == .secretService,
      let tenant = try? resolved.requireTenant(configPath: context.paths.config),
      let clientID = try? resolved.requireClientID(configPath: context.paths.config)
    else { return false }
    let key = StoreKey(profile: resolved.name, issuer: TenantURL.base(tenant), clientID: clientID)
    let now = ProfileSession.now()
    guard let tokens = KernelTokenCache.get(key), !tokens.needsRefresh(now: now, minTTL: minTTL) else { return false }
    Console.writeStdout(format.render(token: tokens.accessToken, tokens: tokens, profile: resolved.name, idToken: false, now: now))
    return true
  }
}

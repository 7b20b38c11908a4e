// Resolving the effective profile from flags, environment and the config file
// (in that order of precedence).
import StrivacityCore

/// Where the config file lives: $STRIVACITY_CONFIG, else $XDG_CONFIG_HOME/strivacity/config.toml,
/// else ~/.config/strivacity/config.toml.
public struct Paths: Sendable, Equatable {
  public var config: String
  /// $XDG_STATE_HOME/strivacity (file store).
  public var stateDir: String
  /// $XDG_RUNTIME_DIR/strivacity, else `locks` in the state directory (refresh locks). Never
  /// a name under /tmp: another local user could create it first (cron, ssh without logind).
  public var runtimeDir: String
  /// $XDG_RUNTIME_DIR/strivacity alone (nil without it): for what may go nowhere else (a token
  /// file of `exec`: memory, private, emptied at logout).
  public var userRuntimeDir: String?

  public init(environment env: [String: String]) {
    let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
    func xdg(_ name: String, _ fallback: String) -> String {
      if let value = env[name], value.hasPrefix("/") { return value }
      return home + "/" + fallback
    }
    if let explicit = env["STRIVACITY_CONFIG"], !explicit.isEmpty {
      config = explicit
    } else {
      config = xdg("XDG_CONFIG_HOME", ".config") + "/strivacity/config.toml"
    }
    stateDir = xdg("XDG_STATE_HOME", ".local/state") + "/strivacity"
    if let runtime = env["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { userRuntimeDir = runtime + "/strivacity" }
    runtimeDir = userRuntimeDir ?? stateDir + "/locks"
  }
}

/// Values given on the command line for one invocation.
public struct ProfileOverrides: Sendable, Equatable {
  public var profile: String?
  public var tenant: String?
  public var clientID: String?
  public var store: StoreKind?
  public init(profile: String? = nil, tenant: String? = nil, clientID: String? = nil, store: StoreKind? = nil) {
    self.profile = profile
    self.tenant = tenant
    self.clientID = clientID
    self.store = store
  }
}

/// How this profile's tokens are renewed without a person. Decided once, when the profile is
/// resolved (`ResolvedProfile.renewal`, from its `grant`); wherever a profile a person signs in to
/// and a machine profile differ, the code asks this value (a `switch`, or one of its properties
/// that names the behaviour), never the grant, so that another way (a device code's, say) is a
/// new case the compiler asks about everywhere.
public enum Renewal: Sendable, Equatable, CaseIterable {
  /// A person signs in; the refresh token held renews the set (none held: only a sign-in does).
  case refreshToken
  /// The client asks anew with its own credentials (RFC 6749 §4.4, `grant =
  /// "client_credentials"`): no person, no ID token, no refresh token.
  case clientCredentials

  /// The renewal of a profile with `grant`: the one place a grant becomes one.
  public init(grant: Grant) {
    switch grant {
    case .signIn: self = .refreshToken
    case .clientCredentials: self = .clientCredentials
    }
  }

  /// Whether a person signs in for the tokens: then a profile without its set is "not signed
  /// in", a person may be asked to sign in (again), an ID token and userinfo describe them, and an
  /// API's token comes from the sign-in's set. Without one the client's tokens are all there is.
  public var personSignsIn: Bool {
    switch self {
    case .refreshToken: return true
    case .clientCredentials: return false
    }
  }

  /// Whether the client proves itself with credentials of its own (a client secret, perhaps kept
  /// by `login --client-secret-stdin`, or a private key): the process that may hold them is not
  /// dumpable, logout forgets a kept secret, and status and doctor report them.
  public var clientProvesItself: Bool {
    switch self {
    case .refreshToken: return false
    case .clientCredentials: return true
    }
  }

  /// Where the tokens are kept when `chosen` is the store asked for: a machine's are never the
  /// desktop keyring's (the kernel's keyring, or a chosen file).
  public func store(_ chosen: StoreKind) -> StoreKind {
    switch self {
    case .refreshToken: return chosen
    case .clientCredentials: return chosen == .file ? .file : .kernel
    }
  }
}

/// The profile an invocation works with, after flags, environment and file are combined.
public struct ResolvedProfile: Sendable, Equatable {
  public var profile: Profile
  /// How its tokens are renewed without a person, chosen from its grant when it was resolved.
  public let renewal: Renewal
  public var store: StoreKind
  /// True when the profile exists in the config file (not only through flags or environment).
  public var isConfigured: Bool
  /// The names of the profiles the config file has (for an error naming the ones that exist).
  public var configuredNames: [String] = []
  /// Why this profile is the one (status and doctor say it).
  public var reason: ProfileReason = .fallback

  public var name: String { profile.name }

  /// The profile asked for by flag or environment (nil: the config's default one).
  public static func requestedName(overrides: ProfileOverrides, environment env: [String: String]) -> String? {
    overrides.profile ?? env["STRIVACITY_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// Combines flags > environment > file. Throws when the name is invalid.
  public static func resolve(
    config: Config?, overrides: ProfileOverrides, environment env: [String: String]
  ) throws(ConfigError) -> ResolvedProfile {
    let reason = ProfileReason(config: config, overrides: overrides, environment: env)
    let name = requestedName(overrides: overrides, environment: env) ?? config?.chosenProfile ?? "default"
    guard ProfileName.isValid(name) else { throw .invalidProfileName(name) }
    let configured = config?.profile(named: name)
    var profile = configured ?? Profile(name: name)
    if let tenant = overrides.tenant ?? env["STRIVACITY_TENANT"].flatMap({ $0.isEmpty ? nil : $0 }) {
      profile.tenant = tenant
    }
    if let client = overrides.clientID ?? env["STRIVACITY_CLIENT_ID"].flatMap({ $0.isEmpty ? nil : $0 }) {
      profile.clientID = client
    }
    let renewal = Renewal(grant: profile.grant)
    let store = renewal.store(overrides.store ?? profile.store ?? config?.defaultStore ?? .secretService)
    return ResolvedProfile(
      profile: profile, renewal: renewal, store: store, isConfigured: configured != nil,
      configuredNames: config.map { $0.profileNames ?? $0.profiles.map(\.name) } ?? [], reason: reason)
  }

  /// A machine profile's secret source as this environment resolves it: the configured one; else
  /// `STRIVACITY_CLIENT_SECRET` when it is set; else the keyring (`login --client-secret-stdin`).
  /// nil for a profile that signs in, or that signs with a private key.
  public func secretSource(environment: [String: String]) -> SecretSource? {
    switch renewal {
    case .refreshToken: return nil
    case .clientCredentials where profile.machine?.auth == .privateKeyJWT: return nil
    case .clientCredentials: break
    }
    if let configured = profile.machine?.secret { return configured }
    if let value = environment[SecretSource.defaultVariable], !value.isEmpty {
      return .environment(SecretSource.defaultVariable)
    }
    return .keyring
  }

  /// Whether `strivacity agent` can answer for this profile: a machine profile's secret in this
  /// process's environment is not the agent's (nor sent to it), so such a profile is served here.
  public func agentServes(environment: [String: String]) -> Bool {
    if case .environment = secretSource(environment: environment) { return false }
    return true
  }

  /// The tenant URL, or an error that says how to provide it.
  public func requireTenant(configPath: String) throws(ConfigError) -> String {
    if let tenant = profile.tenant, !tenant.isEmpty { return tenant }
    if !isConfigured { throw .profileNotConfigured(name: name, path: configPath, configured: configuredNames) }
    throw .missingSetting(profile: name, setting: "tenant", flag: "--tenant", env: "STRIVACITY_TENANT")
  }

  /// The client id, or an error that says how to provide it.
  public func requireClientID(configPath: String) throws(ConfigError) -> String {
    if let client = profile.clientID, !client.isEmpty { return client }
    if !isConfigured { throw .profileNotConfigured(name: name, path: configPath, configured: configuredNames) }
    throw .missingSetting(profile: name, setting: "client_id", flag: "--client-id", env: "STRIVACITY_CLIENT_ID")
  }

  /// Where this profile's tokens are kept (and, for the access-token cache, under which
  /// description): the one derivation the full command line and the small binary share.
  public func storeKey(configPath: String) throws(ConfigError) -> StoreKey {
    StoreKey(
      profile: name, issuer: TenantURL.base(try requireTenant(configPath: configPath)),
      clientID: try requireClientID(configPath: configPath))
  }
}

/// Why a call works with the profile it does, in the order they are asked.
public enum ProfileReason: Sendable, Equatable, CustomStringConvertible {
  /// `--profile`.
  case flag
  /// STRIVACITY_PROFILE.
  case environment
  /// A `[[contexts]]` rule matched (its description, and its line).
  case context(String, line: Int)
  /// The config's `default_profile`.
  case defaultProfile
  /// None of those: "default".
  case fallback

  public init(config: Config?, overrides: ProfileOverrides, environment env: [String: String]) {
    if overrides.profile != nil {
      self = .flag
    } else if env["STRIVACITY_PROFILE"].map({ !$0.isEmpty }) ?? false {
      self = .environment
    } else if let rule = config?.contextChoice?.rule {
      self = .context(rule.description, line: rule.position.line)
    } else if config?.defaultProfile != nil {
      self = .defaultProfile
    } else {
      self = .fallback
    }
  }

  /// "chosen by context ~/src/acme (line 12)", "chosen by STRIVACITY_PROFILE", …
  public var description: String {
    switch self {
    case .flag: return "chosen by --profile"
    case .environment: return "chosen by STRIVACITY_PROFILE"
    case .context(let rule, let line): return "chosen by context \(rule) (config line \(line))"
    case .defaultProfile: return "the config's default_profile"
    case .fallback: return "no --profile, STRIVACITY_PROFILE, context or default_profile chose another"
    }
  }
}

extension Freshness {
  /// What a command asks for: `asked` (its --min-ttl), else the profile's `min_ttl`, else the
  /// default.
  public static func asked(_ asked: Int64?, profile: Profile?, force: Bool = false) -> Freshness {
    if let seconds = asked ?? profile?.minTTL { return Freshness(seconds: seconds, explicit: true, force: force) }
    return Freshness(seconds: TokenSet.defaultMinTTL, explicit: false, force: force)
  }
}

// The composition root: environment, paths, config file and the chosen store for one run.
import CurlTransport
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore
import SystemIO

package final class Context {
  package let environment: [String: String]
  package let paths: Paths
  private var loadedConfig: Config??

  /// A secret handed to this process (SecretHandover), read once, undumpable from before then.
  private static let handedSecret = SecretHandover.receive { TokenBroker.holdSecrets() }

  /// Whether `environment` is this process's own (not a client's, inside the agent).
  package let isProcessEnvironment: Bool

  /// The secret handed to this process, if any: never part of `environment`.
  private var handed: (name: String, value: String)?

  /// The environment a machine profile's secret source is resolved in: `environment`, plus the
  /// variable a secret was handed over as. Only TokenBroker's secret source reads it, so a
  /// handed name serves as a client secret and as nothing else (not a proxy, not a path).
  package var secretEnvironment: [String: String] {
    guard let handed, environment[handed.name] == nil else { return environment }
    return environment.merging([handed.name: handed.value]) { kept, _ in kept }
  }

  package init(
    environment: [String: String] = processEnvironment(), configPath: String? = nil, isProcessEnvironment: Bool = true
  ) {
    self.isProcessEnvironment = isProcessEnvironment
    var environment = environment
    // A machine's secret the small binary handed over on a socket instead of the environment:
    // read at once (before anything is spawned), and kept apart (`secretEnvironment`).
    if isProcessEnvironment {
      environment[SecretHandover.variable] = nil
      handed = Self.handedSecret
    }
    if let configPath { environment["STRIVACITY_CONFIG"] = configPath }
    self.environment = environment
    paths = Paths(environment: environment)
  }

  /// The config file, or nil when it does not exist. Warnings are printed once.
  package func config(warn: Bool = true) throws(ConfigError) -> Config? {
    if let loadedConfig { return loadedConfig }
    let config = try readConfig(.whole, warn: warn)
    loadedConfig = .some(config)
    return config
  }

  /// Only what one profile needs (`name`, else the default one): the other profiles' tables
  /// are not parsed, so `token` costs the same among thousands of profiles. Not cached.
  /// `apis`: which of the profile's API tables are read (`token` reads as the small binary does).
  package func config(onlyProfile name: String?, apis: APITables = .all, warn: Bool = true) throws(ConfigError)
    -> Config?
  {
    if let loadedConfig { return loadedConfig }
    return try readConfig(.profile(name, apis: apis), warn: warn)
  }

  private func readConfig(_ scope: ConfigScope, warn: Bool) throws(ConfigError) -> Config? {
    // A client's environment inside the agent has no place: the client named its profile.
    let place = isProcessEnvironment ? workplace(environment) : nil
    let config = try Config.load(paths.config, scope, place: place, read: { readFile($0, regularOnly: true) })
    if warn, let config { for warning in config.warnings { self.warn(warning.description) } }
    return config
  }

  /// Profile names from the config file, for shell completion (nothing on any error).
  package func profileNames() -> [String] {
    ((try? config())??.profiles.map(\.name)) ?? []
  }

  /// For completing --api: the API names of the profile the words typed so far name (--profile
  /// NAME or --profile=NAME), else of the one STRIVACITY_PROFILE or the config names by default.
  package func apiNames(_ words: [String]) -> [String] {
    var named: String?
    for (index, word) in words.enumerated() {
      if word == "--profile", index + 1 < words.count { named = words[index + 1] }
      if word.hasPrefix("--profile=") { named = String(word.dropFirst("--profile=".count)) }
    }
    guard let config = (try? config()) ?? nil else { return [] }
    let name =
      ResolvedProfile.requestedName(overrides: ProfileOverrides(profile: named), environment: environment)
      ?? config.chosenProfile
    return config.profile(named: name)?.apis.map(\.name) ?? []
  }

  package func resolveProfile(_ overrides: ProfileOverrides) throws(ConfigError) -> ResolvedProfile {
    try ResolvedProfile.resolve(config: config(), overrides: overrides, environment: environment)
  }

  /// The environment's numbers (EnvironmentLimits, as the small binary admits them); a bad one
  /// is a usage error.
  package func limits() throws -> EnvironmentLimits {
    do {
      return try EnvironmentLimits.admit(environment)
    } catch {
      throw BrokerError.configuration(error.description)
    }
  }

  /// The CAs `profile`'s requests trust under `config` (read by the caller already; CATrust),
  /// checked: a bad path, or a file that is not there, not readable or holds no certificate, is
  /// a configuration error naming it and where it came from.
  package func trust(for profile: Profile?, config: Config?) throws -> CATrust {
    let trust: CATrust
    do {
      trust = try CATrust.resolve(profile: profile, config: config, environment: environment)
    } catch {
      throw BrokerError.configuration(error.description)
    }
    switch trust.kind {
    case .system: break
    case .file(let path):
      switch readFile(path, limit: 16 * 1_048_576) {
      case .contents(let bytes):
        guard String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
          throw BrokerError.configuration(
            "the CA bundle \(path) (from \(trust.source)) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
      case .missing:
        throw BrokerError.configuration("the CA bundle \(path) (from \(trust.source)) does not exist")
      case .failed(let why):
        throw BrokerError.configuration("cannot read the CA bundle \(path) (from \(trust.source)): \(why)")
      }
    case .directory(let path):
      guard case .success(let info) = FileStatus.of(path), info.kind == .directory else {
        throw BrokerError.configuration("the CA directory \(path) (from \(trust.source)) is not a directory")
      }
    }
    return trust
  }

  /// The proxy `profile`'s requests go through under `config` (ProxyChoice); a bad variable is
  /// a configuration error naming it.
  package func proxy(for profile: Profile?, config: Config?) throws -> ProxyChoice {
    do {
      return try ProxyChoice.resolve(profile: profile, config: config, environment: environment)
    } catch {
      throw BrokerError.configuration(error.description)
    }
  }

  /// The password for `proxy`'s user, and where it came from: the proxy URL's own when the user
  /// is the URL's, else STRIVACITY_PROXY_PASSWORD (text without controls), else the one
  /// `setup-proxy` kept for the profile of `key` (nil: not looked for). nil: none found.
  package func proxyPassword(for proxy: ProxyChoice, key: StoreKey?, store: StoreKind?) throws -> (
    password: String, source: String
  )? {
    guard let user = proxy.user else { return nil }
    if let url = proxy.proxy, url.user == user, let password = url.password {
      return (password, "the password in the proxy's URL")
    }
    if let value = environment["STRIVACITY_PROXY_PASSWORD"], !value.isEmpty {
      guard Self.isProxyPassword(value) else {
        throw BrokerError.configuration(
          "STRIVACITY_PROXY_PASSWORD must be at most 1024 bytes of text without control characters")
      }
      return (value, "the password in STRIVACITY_PROXY_PASSWORD")
    }
    guard let key, let store else { return nil }
    // Kept by setup-proxy (admitted again as it is read: it goes into curl's config lines); an
    // unusable keyring or item is "none found", and the 407 then says so.
    guard let kept = try? secretStore(for: store).load(SecretKey(key, .proxyPassword)),
      let text = String(validating: kept, as: UTF8.self), Self.isProxyPassword(text)
    else { return nil }
    return (text, "the password setup proxy kept (run it again to replace it)")
  }

  /// A proxy password as every source must give it: at most 1024 bytes of text without control
  /// characters (the child curl's config takes it on one quoted line).
  package static func isProxyPassword(_ text: String) -> Bool {
    text.utf8.count <= 1024 && text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
  }

  /// Where secrets a person hands over (a machine's client secret, `setup-proxy`'s password:
  /// `KeptSecret`) are kept for a profile whose tokens go to `kind`: items of their own beside
  /// the tokens, never token sets: the keyring, or files of their own with the file store.
  package func secretStore(for kind: StoreKind) throws -> SecretItemStore {
    if let secrets { return secrets(kind) }
    if kind == .file { return FileSecretStore(stateDirectory: paths.stateDir) }
    return KeyringSecretStore(try keyring())
  }

  /// An HTTP client for `profile` under `config`: its CAs and its proxy (`trust(for:config:)`,
  /// `proxy(for:config:)`).
  package func httpClient(for profile: Profile?, config: Config?, key: StoreKey? = nil, store: StoreKind? = nil) throws
    -> CurlHTTPClient
  {
    try httpClient(
      trust: trust(for: profile, config: config), proxy: proxy(for: profile, config: config), key: key, store: store)
  }

  /// An HTTP client with the user's timeouts: STRIVACITY_TIMEOUT seconds per request (30 by
  /// default, 0.1 to 3600), connecting within a third of that (at most 10 s); trusting `trust`
  /// and going through `proxy`.
  package func httpClient(trust: CATrust, proxy: ProxyChoice, key: StoreKey? = nil, store: StoreKind? = nil) throws
    -> CurlHTTPClient
  {
    var options = CurlHTTPClient.Options()
    switch trust.kind {
    case .file(let path): options.caFile = path
    case .directory(let path): options.caDirectory = path
    case .system: break
    }
    options.trust = trust.description
    options.trustFix = trust.fix
    options.proxy = proxy
    if let (password, source) = try proxyPassword(for: proxy, key: key, store: store) {
      options.proxyPassword = password
      options.proxyPasswordSource = source
    }
    options.userAgent = "strivacity/\(strivacityVersion)"
    if let seconds = try limits().httpTimeout {
      options.totalTimeout = seconds
      options.connectTimeout = min(10, max(0.1, seconds / 3))
    }
    return CurlHTTPClient(options: options)
  }

  /// Inside `strivacity agent`: the agent's own store (memory over the keyring) for every
  /// Secret Service profile, and no asking the agent.
  package var agentStore: TokenStore?

  /// Whether a person runs this command, rather than git: a keyring prompt (KeePassXC's access
  /// dialog, an unlock) may wait 120 s for a person at a terminal, 15 s otherwise.
  package var attended = true

  /// Whether warnings go to stderr: not when whoever runs strivacity reads stderr together with
  /// the data (a `token` output that is not `attended`): then only a failure's line.
  package var warns = true

  /// A warning on stderr, unless this run says none (`warns`).
  package func warn(_ message: String) {
    if warns { Console.warning(message) }
  }

  /// `strivacity login`: a keyring without a default collection is asked to create one, on a
  /// terminal (the provider's own dialog: KWallet's new wallet, gnome-keyring's new keyring).
  package var createsKeyring = false

  /// Inside `strivacity agent`: its memory over machine profiles' kernel stores, by profile key.
  package var agentMachineStore: ((StoreKey) -> TokenStore)?

  // MARK: the edges a test replaces (Tests/BrokerTests)

  /// The store of each kind, in place of the keyring, the files and the kernel's (a test's store
  /// in memory); nil: the real ones.
  package var stores: ((StoreKind) -> TokenStore)?
  /// The kept secrets' store for a profile whose tokens go to each kind, in place of the
  /// keyring's and the files' (a test's store in memory); nil: the real ones.
  package var secrets: ((StoreKind) -> SecretItemStore)?
  /// The HTTP client in place of libcurl's (a test's fake tenant); nil: CurlHTTPClient.
  package var transport: (() -> HTTPClient)?
  /// Unix seconds now: the clock a broker reads token lifetimes by.
  package var now: () -> Int64 = { wallClockSeconds() }

  /// The chosen store for the profile of `key`, with what goes over it (StoreStack): inside the
  /// agent, its own.
  package func store(for kind: StoreKind, key: StoreKey) throws -> TokenStore {
    if let stores { return stores(kind) }
    switch kind {
    case .secretService:
      if let agentStore { return agentStore }
      return StoreStack.command(over: try keyring(), environment: environment)
    case .file: return StoreStack.file(FileStore(stateDirectory: paths.stateDir), environment: environment)
    case .kernel:
      if let agentMachineStore { return agentMachineStore(key) }
      return StoreStack.machine(key, environment: environment)
    }
  }

  /// The Secret Service store alone, bounded by STRIVACITY_KEYRING_TIMEOUT seconds per operation
  /// (5 by default, 0.1 to 600) and STRIVACITY_KEYRING_PROMPT_TIMEOUT per prompt.
  package func keyring() throws -> SecretServiceStore {
    let onTerminal = isTerminal(2)
    var prompts = KeyringPrompts.defaults(attended: attended, onTerminal: onTerminal)
    prompts.createCollection = createsKeyring
    let limits = try limits()
    let timeout = limits.keyringTimeout ?? SecretServiceStore.defaultTimeout
    if let bound = limits.keyringPromptBound { prompts.bound = bound }
    return SecretServiceStore(timeout: timeout, prompts: prompts)
  }

  /// Writes `settings` into the profile's table of the config file, atomically.
  package func updateConfig(profile: String, settings: [(key: String, value: ConfigValue)]) throws {
    try updateConfig(table: ["profiles", profile], settings: settings)
  }

  /// Writes `settings` into the table `table` names (`["profiles", P, "apis", NAME]`), atomically,
  /// where the file was read (`EditedFile`: a dotfiles link is written through, one that another
  /// user could have planted or swapped is refused); a new file 0644, an old one in its own mode.
  package func updateConfig(table: [String], settings: [(key: String, value: ConfigValue)]) throws {
    try editConfig { text, path throws(ConfigError) in
      try ConfigWriter.update(text, table: table, settings: settings, path: path)
    }
  }

  /// Writes what `edit` makes of the config's text (ConfigWriter's), as `updateConfig` does.
  package func editConfig(_ edit: (String, String) throws(ConfigError) -> String) throws {
    let path = paths.config
    do {
      let file = try EditedFile.open(path)
      let text = file.bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
      let updated = try edit(text, path)
      try file.replace(with: Array(updated.utf8), mode: file.permissions ?? 0o644)
    } catch let refusal as EditRefusal {
      throw CLIFailure(editing: path, refusal)
    }
    loadedConfig = nil
  }
}

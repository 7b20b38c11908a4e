// `strivacity login` without its argument parser (StrivacityCLI/Login/Login.swift turns the
// options into a `LoginRequest`): a person's sign-in inside the terminal, its tokens stored and
// the profile remembered; or, for a machine profile, its client credentials checked.
import Broker
import JourneyCore
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerminalUI

/// What `strivacity login` was asked: its options as values.
package struct LoginRequest {
  /// --profile and --store.
  package var overrides: ProfileOverrides
  package var tenant: String?
  package var clientID: String?
  package var log: Log
  /// --scope, split at spaces.
  package var scopes: [String]?
  package var redirectURI: String?
  package var sdkMode: String?
  package var loginHint: String?
  package var prompt: String?
  package var uiLocales: String?
  /// --browser: the whole sign-in on the tenant's pages in a browser.
  package var browserOnly: Bool
  /// Not --no-browser: the browser is started, not only its address printed.
  package var openBrowser: Bool
  /// --timeout: seconds to wait for the browser (nil: 300).
  package var browserTimeout: Double?
  package var extras: SignInExtras
  /// --field ID=VALUE and --field-env ID=VARIABLE, split at the first "=".
  package var fields: [(id: String, value: String)]
  package var fieldEnvironment: [(id: String, value: String)]
  /// --action FORM-ID, in order.
  package var actions: [String]
  /// --client-secret-stdin: how a machine profile's secret is read (given the client id); nil
  /// without the flag.
  package var clientSecret: ((_ clientID: String) throws -> ClientSecret)?

  package init(
    overrides: ProfileOverrides, tenant: String?, clientID: String?, log: Log, scopes: [String]?, redirectURI: String?,
    sdkMode: String?, loginHint: String?, prompt: String?, uiLocales: String?, browserOnly: Bool, openBrowser: Bool,
    browserTimeout: Double?, extras: SignInExtras, fields: [(id: String, value: String)],
    fieldEnvironment: [(id: String, value: String)], actions: [String],
    clientSecret: ((_ clientID: String) throws -> ClientSecret)?
  ) {
    self.overrides = overrides
    self.tenant = tenant
    self.clientID = clientID
    self.log = log
    self.scopes = scopes
    self.redirectURI = redirectURI
    self.sdkMode = sdkMode
    self.loginHint = loginHint
    self.prompt = prompt
    self.uiLocales = uiLocales
    self.browserOnly = browserOnly
    self.openBrowser = openBrowser
    self.browserTimeout = browserTimeout
    self.extras = extras
    self.fields = fields
    self.fieldEnvironment = fieldEnvironment
    self.actions = actions
    self.clientSecret = clientSecret
  }

  /// Signs in (or checks a machine profile's credentials) and says so on stderr. `context`
  /// makes the run's context; a machine profile's check gets a new one, which reads the flags
  /// just saved to the config.
  package func run(context makeContext: () -> Context) throws {
    let context = makeContext()
    var overrides = overrides
    overrides.tenant = tenant
    overrides.clientID = clientID
    var resolved = try ResolvedProfile.resolve(
      config: context.config(), overrides: overrides, environment: context.environment)
    // Without a person, `login` checks the client's own credentials (and may keep its secret).
    if !resolved.renewal.personSignsIn {
      try rememberFlags(context: context, profile: resolved.name)
      return try machineLogin(context: makeContext(), profile: resolved.name)
    }
    if clientSecret != nil {
      throw CLIFailure(
        "--client-secret-stdin is for machine profiles (grant = \"client_credentials\" in the profile)", status: .usage)
    }
    let configPath = context.paths.config
    let tenantURL = try resolved.requireTenant(configPath: configPath)
    let client = try resolved.requireClientID(configPath: configPath)
    do {
      _ = try URLPolicy.check(tenantURL)
    } catch {
      // A URL without its scheme is most likely a typing shortcut: name the one it most likely is.
      if let suggested = TenantURL.withScheme(tenantURL) {
        throw CLIFailure("refusing tenant \(tenantURL): it has no scheme; did you mean \(suggested)?", status: .usage)
      }
      throw CLIFailure(
        "refusing tenant \(tenantURL): it must be https (plain http only on a loopback address)", status: .usage)
    }
    let scopes = self.scopes ?? resolved.profile.scopes ?? Profile.defaultScopes
    let settings = LoginSettings(
      tenant: tenantURL, clientID: client, scopes: scopes, redirectURI: redirectURI ?? resolved.profile.redirectURI,
      sdkMode: sdkMode ?? resolved.profile.sdkMode ?? "web", loginHint: loginHint, prompt: prompt,
      uiLocales: uiLocales, browserOnly: browserOnly, openBrowser: openBrowser, browserTimeout: browserTimeout ?? 300,
      apis: resolved.profile.apis, extras: extras)

    // The store must be usable before anyone types a password (a keyring with no default
    // collection is asked for one here). No Secret Service at all (an SSH session, a container):
    // a person at a terminal is offered the file store, and the choice is remembered.
    context.createsKeyring = true
    let key = try resolved.storeKey(configPath: configPath)
    let terminal = TTY()
    let (store, fileStoreChosen) = try usableStore(context: context, resolved: resolved, key: key, terminal: terminal)
    if fileStoreChosen { resolved.store = .file }

    let style = Style(colour: terminal != nil && colourWanted(fd: 2, environment: context.environment))
    let prompter = Prompter(
      terminal: terminal, style: style, provided: try providedAnswers(context.environment),
      fromArguments: Set(fields.map(\.id)).subtracting(fieldEnvironment.map(\.id)), actions: actions)
    let result = try LoginFlow.signIn(
      settings, prompter: prompter, context: context, profile: resolved.name, key: key, store: store, log: log)
    if resolved.store == .file && !fileStoreChosen { Console.warning(FileStore.warning) }
    try rememberFlags(context: context, profile: resolved.name, fileStoreChosen: fileStoreChosen)
    Console.writeStderr(
      "strivacity: signed in to \(tenantURL) as \(LoginFlow.who(result.claims)) (profile \(resolved.name))\n")
  }

  /// `login` on a machine profile (no person, no journey): one token request checks its
  /// credentials; with --client-secret-stdin, the secret read from stdin (or typed, hidden, on
  /// a terminal), which is stored only once the tenant took it.
  private func machineLogin(context: Context, profile: String) throws {
    let session = try TokenBroker(context: context, overrides: overrides, log: log, profile: profile)
    session.signIn = TokenBroker.signInOnTerminal
    session.progress = Spinner()
    var given: ClientSecret?
    if let clientSecret {
      let machine = session.resolved.profile.machine
      if machine?.auth == .privateKeyJWT || machine?.secret != nil {
        let source = machine?.auth == .privateKeyJWT ? "its private_key_file" : "\(machine!.secret!)"
        throw CLIFailure(
          "profile \(profile) takes its credentials from \(source); --client-secret-stdin stores a secret for a "
            + "machine profile that names no client_secret_env or client_secret_file", status: .usage)
      }
      TokenBroker.holdSecrets()
      given = try clientSecret(session.clientID)
      session.secretSource = .keyring
      session.heldSecret = given!.value
    }
    let tokens = try session.machineTokens(nil, Freshness(seconds: 0, explicit: false, force: true))
    var stored = ""
    if let given {
      try session.storeSecret(given)
      stored = "; the client secret is kept in \(session.resolved.store == .file ? "the file store" : "the keyring")"
      if context.environment[SecretSource.defaultVariable].map({ !$0.isEmpty }) == true {
        stored += " (\(SecretSource.defaultVariable), which is set now, comes first)"
      }
    }
    let left =
      tokens.expiresAt.map { " (it expires in \(Elapsed.describe(seconds: $0 - TokenBroker.now())))" } ?? ""
    Console.writeStderr(
      "strivacity: profile \(profile) works: the tenant \(session.tenant) gave client \(session.clientID) a token by "
        + "client credentials\(left)\(stored)\n")
  }

  /// The profile's store, read once to show it works; with no Secret Service to reach and no
  /// store chosen (no --store, none in the profile's table or at the file's top), the file store
  /// when the person at `terminal` takes it (`fileStoreChosen`).
  private func usableStore(context: Context, resolved: ResolvedProfile, key: StoreKey, terminal: TTY?) throws
    -> (store: TokenStore, fileStoreChosen: Bool)
  {
    let store = try context.store(for: resolved.store, key: key)
    do {
      _ = try store.load(key)
      return (store, false)
    } catch {
      let chosen =
        overrides.store != nil || resolved.profile.store != nil || (try? context.config())??.defaultStore != nil
      guard !chosen, resolved.store == .secretService, let terminal,
        Self.offersFileStore(error, profile: resolved.name, on: terminal)
      else { throw error }
    }
    let file = try context.store(for: .file, key: key)
    _ = try file.load(key)
    return (file, true)
  }

  /// Whether the person at `terminal` takes the file store when `error` says there is no Secret
  /// Service to keep tokens in (said once, Enter takes it); false for any other store failure.
  static func offersFileStore(_ error: StoreError, profile: String, on terminal: TTY) -> Bool {
    let why: String
    switch error {
    case .noSessionBus: why = "no D-Bus session bus"
    case .noSecretService: why = "no Secret Service on the session bus"
    default: return false
    }
    Console.writeStderr(
      "strivacity: no keyring here (\(why)), as on a server or in a container without a desktop.\n"
        + "strivacity: the file store keeps tokens in a file only you can read (0600), protected by its "
        + "permissions alone.\n")
    return terminal.confirm("Use the file store for profile \(profile), now and from now on?")
  }

  /// --field and --field-env answers by widget id.
  private func providedAnswers(_ environment: [String: String]) throws -> [String: String] {
    var answers: [String: String] = [:]
    for (id, value) in fields { answers[id] = value }
    for (id, variable) in fieldEnvironment {
      guard let value = environment[variable] else {
        throw CLIFailure(
          "--field-env \(id)=\(variable): the environment variable \(variable) is not set", status: .usage)
      }
      answers[id] = value
    }
    return answers
  }

  /// Saves the flags given on this command line to the profile.
  private func rememberFlags(context: Context, profile: String, fileStoreChosen: Bool = false) throws {
    var settings: [(key: String, value: ConfigValue)] = []
    if let tenant { settings.append(("tenant", .string(tenant))) }
    if let clientID { settings.append(("client_id", .string(clientID))) }
    if let scopes { settings.append(("scopes", .strings(scopes))) }
    if let redirectURI { settings.append(("redirect_uri", .string(redirectURI))) }
    if let sdkMode { settings.append(("sdk_mode", .string(sdkMode))) }
    if let store = overrides.store ?? (fileStoreChosen ? .file : nil) {
      settings.append(("store", .string(store.rawValue)))
    }
    guard !settings.isEmpty else { return }
    try context.updateConfig(profile: profile, settings: settings)
  }
}

extension LoginFlow {
  /// One sign-in (`LoginFlow`) and its set stored for `key`: `login`'s, and `signInAgain`'s.
  static func signIn(
    _ settings: LoginSettings, prompter: Prompter, context: Context, profile: String, key: StoreKey,
    store: TokenStore, log: Log
  ) throws -> LoginResult {
    let flow = LoginFlow(
      settings: settings,
      http: try context.httpClient(for: try context.config()?.profile(named: profile), config: context.config()),
      prompter: prompter, spinner: Spinner(), log: log,
      environment: context.environment)
    let result = try flow.run()

    // Under the refresh lock, so a refresh already in flight cannot overwrite the new set. The
    // code is spent and the tokens are fresh: a lock problem never costs them.
    let lock: RefreshLock?
    do {
      lock = try RefreshLock(directory: context.paths.runtimeDir, profile: profile, timeout: 45)
    } catch let failure as BrokerError {
      Console.warning("\(failure.message); storing the new tokens without the refresh lock")
      lock = nil
    }
    try withExtendedLifetime(lock) {
      // The APIs' tokens kept from the sign-in before are another person's when the subject
      // changed, and from a weaker authentication when this one was a step-up: asked anew.
      // (Only when there are some: an ordinary sign-in costs no keyring deletion, a first one
      // not even a search. A store that cannot say is taken to hold some.)
      if let previous = try? store.reload(key) {
        let before = previous.idToken.flatMap { try? JWT(compact: $0.value).claims["sub"] }
        try dropAPITokens(
          profile, store: store, log: log,
          if: settings.extras.stepsUp || before == nil || before != result.claims["sub"])
      }
      try store.save(result.tokens, for: key)
    }
    return result
  }

  /// Deletes the profile's sets (`store` has no other way to reach every API slot) when `condition`
  /// holds and there are API tokens; the sign-in's set is saved again right after.
  private static func dropAPITokens(_ profile: String, store: TokenStore, log: Log, if condition: Bool) throws {
    if condition,
      (try? store.keys())?.contains(where: { $0.profile == profile && $0.slot != .signIn }) ?? true
    {
      log.note("dropping \(profile)'s API tokens of the sign-in before")
      try store.delete(profile: profile)
    }
  }

  /// Who signed in, from the ID token's claims: tenant text, made inert for the terminal.
  static func who(_ claims: [String: JSONValue]) -> String {
    TerminalSafe.text(whoClaims(claims), multiline: false)
  }

  private static func whoClaims(_ claims: [String: JSONValue]) -> String {
    let name = claims["name"]?.string ?? claims["preferred_username"]?.string
    let email = claims["email"]?.string
    switch (name, email) {
    case (let name?, let email?): return "\(name) <\(email)>"
    case (let name?, nil): return name
    case (nil, let email?): return email
    default: return claims["sub"]?.string ?? "an unnamed user"
    }
  }
}

/// The spinner says what a broker's slow request is for (`TokenBroker.progress`).
extension Spinner: ProgressIndicator {}

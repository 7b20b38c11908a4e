// `strivacity login`: sign in inside the terminal, store the tokens, remember the profile.
import ArgumentParser
import Broker
import CurlTransport
import JourneyCore
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerminalUI

struct Login: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Sign in to a Strivacity tenant in the terminal and keep the tokens.",
    discussion: """
      Runs the tenant's journey screen by screen on the terminal (/dev/tty). Steps a \
      terminal cannot do (passkeys, unknown widgets) continue in the browser, and the \
      redirect comes back to a one-shot listener on 127.0.0.1. Tokens are stored only \
      after the ID token's signature, issuer, audience, expiry and nonce check out.

      Flags given here are saved to the profile, so later commands need none.

      AUTOMATION: answer widgets by id with --field ID=VALUE, or --field-env \
      ID=VARIABLE for secrets (never put a password on the command line); choose \
      actions with --action FORM-ID. Without a terminal, a field left unanswered \
      fails the login and names the field.
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("Tenant URL (https, or http on a loopback address).", valueName: "url"))
  var tenant: String?

  @Option(name: .customLong("client-id"), help: ArgumentHelp("OAuth client id.", valueName: "id"))
  var clientID: String?

  @Option(
    help: ArgumentHelp(
      "Scopes to request, space-separated (default: openid profile offline_access).", valueName: "scopes"))
  var scope: String?

  @Option(
    name: .customLong("redirect-uri"),
    help: ArgumentHelp("Loopback redirect URI (default: http://127.0.0.1:<free port>/callback).", valueName: "uri"))
  var redirectURI: String?

  @Option(
    name: .customLong("sdk-mode"),
    help: ArgumentHelp(
      "Journey API mode: web, web-minimal, ios, ios-minimal, android, android-minimal (default: web).",
      valueName: "mode"),
    completion: .list(Login.sdkModes))
  var sdkMode: String?

  @Option(name: .customLong("login-hint"), help: ArgumentHelp("Passed to the tenant as login_hint.", valueName: "text"))
  var loginHint: String?

  @Option(
    help: ArgumentHelp("Passed to the tenant as prompt (none, login, create).", valueName: "value"),
    completion: .list(["none", "login", "create"]))
  var prompt: String?

  @Option(
    name: .customLong("acr-values"), help: ArgumentHelp("Passed to the tenant as acr_values.", valueName: "values"))
  var acrValues: String?

  @Option(
    name: .customLong("max-age"),
    help: ArgumentHelp(
      "Passed to the tenant as max_age: sign in again unless the last sign-in is this recent.", valueName: "seconds"))
  var maxAge: Int?

  @Option(
    name: .customLong("add-scope"),
    help: ArgumentHelp("Also ask for this scope at this sign-in, not saved (repeatable).", valueName: "scope"))
  var addScopes: [String] = []

  @Option(
    name: .customLong("resource"),
    help: ArgumentHelp(
      "Also ask for this resource (RFC 8707) at this sign-in, not saved (repeatable).", valueName: "uri"))
  var resources: [String] = []

  @Option(help: ArgumentHelp("Also ask for this audience at this sign-in, not saved.", valueName: "audience"))
  var audience: String?

  @Option(
    name: .customLong("ui-locales"), help: ArgumentHelp("Passed to the tenant as ui_locales.", valueName: "locales"))
  var uiLocales: String?

  @Option(
    name: .customLong("field"),
    help: ArgumentHelp("Answer a widget by id without asking (repeatable).", valueName: "id=value"))
  var fields: [String] = []

  @Option(
    name: .customLong("field-env"),
    help: ArgumentHelp("Answer a widget from an environment variable (repeatable).", valueName: "id=variable"))
  var fieldEnvironment: [String] = []

  @Option(
    name: .customLong("action"),
    help: ArgumentHelp("Take this action (form id) when a screen offers it (repeatable).", valueName: "form-id"))
  var actions: [String] = []

  @Flag(help: "Do the whole sign-in on the tenant's pages in a browser.")
  var browser = false

  @Flag(name: .customLong("no-browser"), help: "Print the browser address instead of opening it.")
  var noBrowser = false

  @Option(help: ArgumentHelp("Seconds to wait for the browser (default: 300).", valueName: "seconds"))
  var timeout: Double?  // 300; optional so that help says "300", not "300.0" twice

  @Flag(
    name: .customLong("client-secret-stdin"),
    help: "A machine profile: read its client secret from stdin, check it, and keep it in the keyring.")
  var clientSecretStdin = false

  static let sdkModes = ["web", "web-minimal", "ios", "ios-minimal", "android", "android-minimal"]

  func validate() throws {
    if let sdkMode, !Self.sdkModes.contains(sdkMode) {
      throw ValidationError("--sdk-mode must be one of \(Self.sdkModes.joined(separator: ", "))")
    }
    if let timeout, !(timeout.isFinite && timeout > 0 && timeout <= 86_400) {
      throw ValidationError("--timeout must be a positive number of seconds, at most 86400")
    }
    // Never quote the argument: it may be a password given the wrong way.
    for field in fields where !field.contains("=") || field.hasPrefix("=") {
      throw ValidationError("--field takes ID=VALUE (a widget id, then '=', then the answer)")
    }
    for field in fieldEnvironment where !field.contains("=") || field.hasPrefix("=") {
      throw ValidationError(
        "--field-env takes ID=VARIABLE (a widget id, then '=', then an environment variable's name)")
    }
    _ = try extras
  }

  /// What this sign-in asks for besides the profile's usual, each value admitted as a tenant's
  /// challenge would be (`SignInExtras`).
  var extras: SignInExtras {
    get throws {
      func admitted<T>(_ option: String, _ work: () throws -> T) throws -> T {
        do {
          return try work()
        } catch let error as AdmissionError {
          throw ValidationError("--\(option): \(error.description)")
        }
      }
      return SignInExtras(
        scopes: try admitted("add-scope") { try addScopes.map(Admit.scopeToken) },
        resources: try admitted("resource") { try resources.map(Admit.resource) },
        audience: try admitted("audience") { try audience.map(Admit.audience) },
        acrValues: try admitted("acr-values") { try acrValues.map(Admit.acrValues) },
        maxAge: try admitted("max-age") { try maxAge.map(Admit.maxAge) })
    }
  }

  func run() throws {
    let context = global.context()
    var overrides = global.overrides
    overrides.tenant = tenant
    overrides.clientID = clientID
    var resolved = try ResolvedProfile.resolve(
      config: context.config(), overrides: overrides, environment: context.environment)
    // Without a person, `login` checks the client's own credentials (and may keep its secret).
    if !resolved.renewal.personSignsIn {
      try rememberFlags(context: context, profile: resolved.name)
      return try machineLogin(context: global.context(), profile: resolved.name)
    }
    if clientSecretStdin {
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
    let scopes =
      scope.map { $0.split(separator: " ").map(String.init) } ?? resolved.profile.scopes ?? Profile.defaultScopes
    let settings = LoginSettings(
      tenant: tenantURL, clientID: client, scopes: scopes, redirectURI: redirectURI ?? resolved.profile.redirectURI,
      sdkMode: sdkMode ?? resolved.profile.sdkMode ?? "web", loginHint: loginHint, prompt: prompt,
      uiLocales: uiLocales, browserOnly: browser, openBrowser: !noBrowser, browserTimeout: timeout ?? 300,
      apis: resolved.profile.apis, extras: try extras)

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
      fromArguments: Set(fields.map { split($0).0 }).subtracting(fieldEnvironment.map { split($0).0 }), actions: actions
    )
    let result = try Self.signIn(
      settings, prompter: prompter, context: context, profile: resolved.name, key: key, store: store, log: global.log)
    if resolved.store == .file && !fileStoreChosen { Console.warning(FileStore.warning) }
    try rememberFlags(context: context, profile: resolved.name, fileStoreChosen: fileStoreChosen)
    Console.writeStderr(
      "strivacity: signed in to \(tenantURL) as \(Self.who(result.claims)) (profile \(resolved.name))\n")
  }

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

  /// --field and --field-env answers by widget id.
  private func providedAnswers(_ environment: [String: String]) throws -> [String: String] {
    var answers: [String: String] = [:]
    for field in fields {
      let (id, value) = split(field)
      answers[id] = value
    }
    for field in fieldEnvironment {
      let (id, variable) = split(field)
      guard let value = environment[variable] else {
        throw CLIFailure(
          "--field-env \(id)=\(variable): the environment variable \(variable) is not set", status: .usage)
      }
      answers[id] = value
    }
    return answers
  }

  private func split(_ text: String) -> (String, String) {
    let eq = text.firstIndex(of: "=")!
    return (String(text[..<eq]), String(text[text.index(after: eq)...]))
  }

  /// Saves the flags given on this command line to the profile.
  /// `login` on a machine profile (no person, no journey): one token request checks its
  /// credentials; with --client-secret-stdin, the secret read from stdin (or typed, hidden, on
  /// a terminal), which is stored only once the tenant took it.
  private func machineLogin(context: Context, profile: String) throws {
    let session = try TokenBroker(context: context, options: global, profile: profile)
    var given: ClientSecret?
    if clientSecretStdin {
      let machine = session.resolved.profile.machine
      if machine?.auth == .privateKeyJWT || machine?.secret != nil {
        let source = machine?.auth == .privateKeyJWT ? "its private_key_file" : "\(machine!.secret!)"
        throw CLIFailure(
          "profile \(profile) takes its credentials from \(source); --client-secret-stdin stores a secret for a "
            + "machine profile that names no client_secret_env or client_secret_file", status: .usage)
      }
      TokenBroker.holdSecrets()
      given = try Self.readSecret(clientID: session.clientID)
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

  /// The secret from stdin (SecretInput). Never shown.
  private static func readSecret(clientID: String) throws -> ClientSecret {
    let text = try SecretInput.read(
      prompt: "Client secret for \(clientID): ", what: "client secret", limit: ClientSecret.maxBytes)
    do {
      return try ClientSecret(admitting: text)
    } catch {
      throw CLIFailure("the client secret on stdin: \(error.description)", status: .usage)
    }
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
      let chosen = global.store != nil || resolved.profile.store != nil || (try? context.config())??.defaultStore != nil
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

  private func rememberFlags(context: Context, profile: String, fileStoreChosen: Bool = false) throws {
    var settings: [(key: String, value: ConfigValue)] = []
    if let tenant { settings.append(("tenant", .string(tenant))) }
    if let clientID { settings.append(("client_id", .string(clientID))) }
    if let scope { settings.append(("scopes", .strings(scope.split(separator: " ").map(String.init)))) }
    if let redirectURI { settings.append(("redirect_uri", .string(redirectURI))) }
    if let sdkMode { settings.append(("sdk_mode", .string(sdkMode))) }
    if let store = global.store ?? (fileStoreChosen ? .file : nil) {
      settings.append(("store", .string(store.rawValue)))
    }
    guard !settings.isEmpty else { return }
    try context.updateConfig(profile: profile, settings: settings)
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

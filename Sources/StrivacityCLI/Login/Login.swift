// `strivacity login`: sign in inside the terminal, store the tokens, remember the profile.
// Its options become a `LoginRequest`; the sign-in itself is the SignIn target's.
import ArgumentParser
import Broker
import SignIn
import StrivacityConfig
import StrivacityCore

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
    let secret: ((String) throws -> ClientSecret)? = clientSecretStdin ? { try Self.readSecret(clientID: $0) } : nil
    try LoginRequest(
      overrides: global.overrides, tenant: tenant, clientID: clientID, log: global.log,
      scopes: scope.map { $0.split(separator: " ").map(String.init) },
      redirectURI: redirectURI, sdkMode: sdkMode, loginHint: loginHint, prompt: prompt, uiLocales: uiLocales,
      browserOnly: browser, openBrowser: !noBrowser, browserTimeout: timeout, extras: try extras,
      fields: fields.map(Self.split), fieldEnvironment: fieldEnvironment.map(Self.split), actions: actions,
      clientSecret: secret
    ).run(context: global.context)
  }

  /// ID=VALUE (validated: there is an "=" after the id).
  private static func split(_ text: String) -> (id: String, value: String) {
    let eq = text.firstIndex(of: "=")!
    return (String(text[..<eq]), String(text[text.index(after: eq)...]))
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
}

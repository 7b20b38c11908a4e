// One sign-in: discovery, the PKCE authorization request, the journey loop, finalize or the
// browser fallback, the code exchange and ID token validation (protocol §2–§10, §14).
// Tokens are returned only when everything checked out; storing them is the caller's job.
import Broker
import JourneyCore
import OAuthCore
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerminalUI

struct LoginSettings {
  var tenant: String
  var clientID: String
  var scopes: [String]
  var redirectURI: String?
  var sdkMode: String
  var loginHint: String?
  var prompt: String?
  var uiLocales: String?
  /// Run the whole sign-in on the hosted pages in a browser.
  var browserOnly: Bool
  var openBrowser: Bool
  var browserTimeout: Double
  /// The profile's APIs: the sign-in asks for their resources and scopes too, so that consent
  /// covers the tokens asked for them later (RFC 8707 §2.1).
  var apis: [API] = []
  /// What this sign-in asks for besides the profile's usual (`login --add-scope`, `--resource`,
  /// `--audience`, `--acr-values`, `--max-age`, or `signInAgain`'s).
  var extras = SignInExtras()
}

struct LoginResult {
  var tokens: TokenSet
  var claims: [String: JSONValue]
  var issuer: String
}

final class LoginFlow {
  let settings: LoginSettings
  let prompter: Prompter
  let spinner: Spinner
  let log: Log
  let environment: [String: String]
  /// Every request to the tenant, logged and timed, with the spinner saying what it is for.
  private let tenantClient: TenantClient
  private var discovery: Discovery!
  private var listener: RedirectListener!
  /// The configured tenant's origin (the issuer's, once discovery checked out): the journey API
  /// lives there, and every endpoint that gets a secret and every address opened in the
  /// browser must be on it.
  private var tenantOrigin: Origin!

  init(
    settings: LoginSettings, http: HTTPClient, prompter: Prompter, spinner: Spinner, log: Log,
    environment: [String: String]
  ) {
    self.settings = settings
    self.prompter = prompter
    self.spinner = spinner
    self.log = log
    self.environment = environment
    tenantClient = TenantClient(tenant: settings.tenant, log: log, spinner: spinner) { http }
  }

  func run() throws -> LoginResult {
    guard let tenant = URLParts(settings.tenant) else {
      throw CLIFailure("the tenant URL is not an absolute URL", status: .usage)
    }
    tenantOrigin = tenant.origin
    discovery = try fetchDiscovery()
    listener = try RedirectListener(requested: settings.redirectURI)
    defer { listener.stop() }
    var attempts = 0
    while true {
      attempts += 1
      let request = settings.authorizationRequest(redirectURI: listener.redirectURI)
      listener.expect(state: request.state)
      do {
        let code = try obtainCode(request)
        return try exchange(code: code, request: request)
      } catch JourneyError.sessionExpired where attempts < 3 {
        guard prompter.interactive, confirm("The sign-in session expired. Start over?") else {
          throw CLIFailure("the sign-in session expired; run strivacity login again", status: .signInRequired)
        }
      }
    }
  }

  // MARK: discovery and authorization

  /// The tenant's discovery document (issuer checked by TenantClient), with every endpoint that
  /// gets the code, the PKCE verifier or the session on the tenant's own origin.
  private func fetchDiscovery() throws -> Discovery {
    let discovery: Discovery
    do {
      discovery = try tenantClient.fetchDiscovery("Contacting \(settings.tenant)")
    } catch let failure as TenantClient.DiscoveryFailure {
      switch failure {
      case .answer(let response): throw httpFailure(response, what: "the discovery document")
      case .unusable(_, json: false):
        throw CLIFailure("the tenant's discovery document is not JSON", status: .server)
      case .unusable(let error, json: true): throw CLIFailure(error.description, status: .server)
      case .otherIssuer:
        throw CLIFailure(
          "the tenant's discovery document names another issuer; refusing it "
            + "(the tenant URL must be the issuer, \(tenantOrigin!))",
          status: .server)
      }
    }
    for (name, endpoint) in [("authorization", discovery.authorizationEndpoint), ("token", discovery.tokenEndpoint)] {
      guard tenantClient.isOnTenantOrigin(endpoint) else {
        throw CLIFailure("the tenant's \(name) endpoint is not on \(tenantOrigin!); refusing it", status: .server)
      }
    }
    if let jwksURI = discovery.jwksURI, (try? URLPolicy.check(jwksURI)) == nil {
      throw CLIFailure("the tenant's jwks_uri is not https; refusing it", status: .server)
    }
    return discovery
  }

  /// Runs the authorization request and whatever follows it until a code arrives.
  private func obtainCode(_ request: AuthorizationRequest) throws -> String {
    if settings.browserOnly {
      let url = request.url(endpoint: discovery.authorizationEndpoint, sdk: nil)
      return try code(from: try browser(url, reason: "signing in with the browser (--browser)"), request)
    }
    var native = try nativeURL(request.url(endpoint: discovery.authorizationEndpoint, sdk: settings.sdkMode))
    while true {
      let query = FormURLEncoding.query(of: native)
      if let sessionID = query["session_id"] {
        log.note("journey session started")
        native = try runJourney(sessionID: sessionID, request: request)
        let next = FormURLEncoding.query(of: native)
        if next["session_id"] != nil && next["code"] == nil { continue }  // resumed after the browser
      }
      return try code(from: native, request)
    }
  }

  /// Follows the authorization answer to the "native URL": hops of 3xx to https or loopback
  /// hosts, stopping at our redirect URI; or a 200 whose body is a URL (protocol §3.3).
  private func nativeURL(_ start: String) throws -> String {
    var url = start
    for _ in 0..<10 {
      let response = try send(
        HTTPRequest(url: url, headers: [HTTPHeader("Accept", "text/html")]), "Starting the sign-in")
      switch response.status {
      case 301, 302, 303, 307, 308:
        guard let location = response.header("Location") else {
          throw CLIFailure("the tenant redirected without a Location", status: .server)
        }
        let next = Self.resolve(location, against: url)
        if listener.isOurs(next) || URLParts(next)?.scheme.hasPrefix("http") == false { return next }
        url = next
      case 200:
        let body = response.bodyText.trimming(" \r\n\t")
        if URLParts(body) != nil { return body }
        // An error page on the tenant carries the error in its own URL (protocol §3.3).
        if URLParts(url)?.pathAndQuery.hasPrefix("/oauth2/error") == true { return url }
        throw CLIFailure("the tenant's authorization answer is not a URL", status: .server)
      default:
        throw httpFailure(response, what: "the authorization request")
      }
    }
    throw CLIFailure("the tenant redirected too many times", status: .server)
  }

  // MARK: the journey

  /// Runs the screens of one journey session; returns the redirect URL that ends it.
  private func runJourney(sessionID: String, request: AuthorizationRequest) throws -> String {
    var machine = JourneyMachine()
    var budget = JourneyBudget()
    var response = try journeyPost(
      "flow/api/v1/init", sessionID: sessionID, body: .object([:]), label: "Loading the sign-in")
    while true {
      let step = machine.receive(status: response.status, body: response.body)
      log.note("journey answer HTTP \(response.status) → \(Self.describe(step))")
      switch step {
      case .render(let plan, let ask):
        let action = try prompter.fill(&machine, plan: plan, ask: ask)
        let body = machine.body(for: action.formID)
        if let stop = budget.submit(screen: machine.screen?.id, formID: action.formID, body: body) {
          throw CLIFailure(stop, status: .server)
        }
        response = try journeyPost(
          "flow/api/v1/form/" + action.formID, sessionID: sessionID, body: body, label: "Checking",
          secrets: machine.secretAnswers(for: action.formID))
      case .finalize(let url):
        return try finalize(url, sessionID: sessionID)
      case .fallback(let url, let reason):
        let callback = try browser(url, reason: reason)
        let query = FormURLEncoding.query(of: callback)
        if let resumed = query["session_id"], query["code"] == nil {
          // The browser handed the journey back (protocol §3.5): carry on in the terminal.
          return try runJourney(sessionID: resumed, request: request)
        }
        return callback
      case .sessionExpired:
        throw JourneyError.sessionExpired
      case .failed(let error):
        throw error
      }
    }
  }

  /// A journey request. Its `secrets` (a password, a passcode) are kept out of a failed answer's
  /// words; the session is not: a failed screen's hosted URL carries it, rightly.
  private func journeyPost(
    _ path: String, sessionID: String, body: JSONValue, label: String, secrets: [String] = []
  ) throws -> HTTPResponse {
    let session = try admitSession(sessionID)
    var headers = [
      .authorization(session), HTTPHeader("Content-Type", "application/json"),
      HTTPHeader("Accept", "application/json"),
    ]
    if let language = Self.acceptLanguage(environment) { headers.append(HTTPHeader("Accept-Language", language)) }
    var request = HTTPRequest(
      method: "POST", url: "\(tenantOrigin!)/" + path, headers: headers, body: body.serialized())
    request.sentSecrets = secrets
    return try send(request, label)
  }

  /// GET finalizeUrl with the session's Bearer and cookies; the redirect comes back as a 3xx
  /// Location or a 200 body (protocol §10.1).
  private func finalize(_ url: String, sessionID: String) throws -> String {
    guard tenantClient.isOnTenantOrigin(url) else {
      throw CLIFailure("the tenant's finalize URL is not on \(tenantOrigin!); refusing it", status: .server)
    }
    let session = try admitSession(sessionID)
    let response = try send(
      HTTPRequest(url: url, headers: [.authorization(session), HTTPHeader("Accept", "text/html")]),
      "Finishing")
    switch response.status {
    case 301, 302, 303, 307, 308:
      guard let location = response.header("Location") else {
        throw CLIFailure("the finalize answer has no Location", status: .server)
      }
      return Self.resolve(location, against: url)
    case 200:
      return response.bodyText.trimming(" \r\n\t")
    default:
      throw httpFailure(response, what: "finishing the sign-in")
    }
  }

  /// The journey session id goes into an Authorization header: only as a bearer token.
  private func admitSession(_ sessionID: String) throws -> BearerToken {
    do {
      return try BearerToken(admitting: sessionID, what: "journey session id")
    } catch {
      throw CLIFailure("\(error.description); refusing it", status: .server)
    }
  }

  /// Continues in the browser: prints and opens `url`, then waits for the redirect on the
  /// loopback listener, or for the final URL pasted into the terminal.
  private func browser(_ rawURL: String, reason: String) throws -> String {
    spinner.stop()
    let url: BrowserURL
    do {
      url = try BrowserURL(admitting: rawURL, origin: tenantOrigin)
    } catch {
      throw CLIFailure(
        "\(error.description); refusing to open it (\(TerminalSafe.text(reason, multiline: false)))",
        status: .server)
    }
    Console.writeStderr("strivacity: continuing in the browser: \(reason)\n")
    Console.writeStderr("  \(url.value)\n")
    // Without a terminal nothing is started behind the caller's back where no browser can run.
    if !prompter.interactive && !Self.browserAvailable(environment) {
      throw CLIFailure(
        "this step needs a browser (\(TerminalSafe.text(reason, multiline: false))), and there is no terminal "
          + "and no $BROWSER, $DISPLAY or $WAYLAND_DISPLAY; run strivacity login on a terminal or with $BROWSER "
          + "set (the address above is where the step continues)",
        status: .signInRequired)
    }
    if settings.openBrowser && !openBrowser(url, environment: environment) {
      Console.writeStderr("strivacity: could not start a browser; open the address above yourself\n")
    }
    if prompter.interactive {
      Console.writeStderr(
        "Waiting for the browser… (if it runs on another machine, paste the address it ends on here)\n")
    } else {
      Console.writeStderr("Waiting for the browser…\n")
    }
    guard let callback = listener.wait(timeout: settings.browserTimeout, terminal: prompter.terminal) else {
      throw CLIFailure(
        "no answer from the browser within \(Int(settings.browserTimeout)) s; run strivacity login again",
        status: .signInRequired)
    }
    log.note("browser redirect received")
    return callback
  }

  /// Checks the redirect that ends the authorization (ours, our state) and returns its code.
  private func code(from url: String, _ request: AuthorizationRequest) throws -> String {
    let query = FormURLEncoding.query(of: url)
    // The tenant's own error page carries the refusal in its URL too (protocol §3.3, §3.4).
    let errorPage =
      URLParts(url).map {
        $0.origin == URLParts(discovery.issuer)?.origin
          && $0.pathAndQuery.hasPrefix("/oauth2/error")
      } ?? false
    if listener.isOurs(url) || errorPage, let error = query["error"] {
      let text = TenantWords.of(error: error, description: query["error_description"])
      let fix = error == "invalid_client" || error == "unauthorized_client" ? "; check the client id (--client-id)" : ""
      // "…this tenant.; check": the tenant's full stop gives way to what follows it.
      let said = !fix.isEmpty && text.hasSuffix(".") ? String(text.dropLast()) : text
      throw CLIFailure(
        "the tenant refused the sign-in: \(said)\(fix)",
        status: error == "access_denied" ? .interrupted : .server)
    }
    guard listener.isOurs(url) else {
      throw CLIFailure(
        "the sign-in ended at an address that is not this client's redirect URI; refusing it", status: .server)
    }
    guard query["state"] == request.state else {
      throw CLIFailure(
        "the sign-in redirect carries the wrong state; refusing it (possible cross-site request forgery)",
        status: .server)
    }
    guard let code = query["code"], !code.isEmpty else {
      throw CLIFailure("the sign-in redirect carries no authorization code", status: .server)
    }
    return code
  }

  // MARK: tokens

  private func exchange(code: String, request: AuthorizationRequest) throws -> LoginResult {
    let exchange = TokenRequest(
      grant: .authorizationCode(code: code, verifier: request.pkce.verifier, redirectURI: listener.redirectURI),
      client: .none(clientID: settings.clientID))
    let tokens: TokenResponse
    switch try tenantClient.send(exchange, to: discovery.tokenEndpoint, "Getting tokens") {
    case .tokens(let response): tokens = response
    case .serverError(200, let error?):
      throw CLIFailure("the token response is unusable: \(error)", status: .server)
    case let failure: throw httpFailure(failure, what: "the token request")
    }
    let now = wallClockSeconds()
    var claims: [String: JSONValue] = [:]
    if settings.scopes.contains("openid") {
      guard let idToken = tokens.idToken else {
        throw CLIFailure("the tenant sent no ID token although openid was requested", status: .server)
      }
      claims = try validate(idToken, nonce: request.nonce, now: now)
    } else if settings.extras.maxAge != nil || settings.extras.acrValues != nil {
      // Nothing would say whether the step-up happened.
      throw CLIFailure(
        "--max-age and --acr-values need the openid scope (the ID token says how the user signed in)",
        status: .usage)
    }
    try checkAuthentication(claims, now: now)
    var set = tokens.tokenSet(now: now)
    set.endpoints = discovery.cacheable  // refreshes need no discovery request
    return LoginResult(tokens: set, claims: claims, issuer: discovery.issuer)
  }

  private func validate(_ idToken: IDToken, nonce: String, now: Int64) throws -> [String: JSONValue] {
    do {
      return try IDTokenCheck.verify(idToken, discovery: discovery, clientID: settings.clientID, nonce: nonce, now: now)
      {
        try send($0, "Checking the ID token")
      }
    } catch let failure as IDTokenCheck.Failure {
      switch failure {
      case .jwksAnswer(let response): throw httpFailure(response, what: "the JWKS")
      case .invalid: throw CLIFailure("\(failure); nothing was stored", status: .server)
      default: throw CLIFailure("\(failure)", status: .server)
      }
    }
  }

  /// A step-up's answer (OpenID Connect Core §3.1.2.1, §3.1.3.7): with `max_age` the ID token's
  /// `auth_time` must be recent enough, or nothing is stored; the `acr` asked for is the tenant's
  /// to grant, so another one is said (a warning) and kept: the API that wants it will say so.
  private func checkAuthentication(_ claims: [String: JSONValue], now: Int64) throws {
    if let maxAge = settings.extras.maxAge {
      do {
        try AuthenticationCheck.authTime(claims, maxAge: maxAge, now: now)
      } catch {
        throw CLIFailure("the ID token failed validation: \(error); nothing was stored", status: .server)
      }
    }
    guard let asked = settings.extras.acrValues else { return }
    let (acr, matches) = AuthenticationCheck.acr(claims, asked: asked)
    let shown = acr.map { TerminalSafe.text($0, multiline: false) }
    log.note("the ID token's acr: \(shown ?? "none")")
    if !matches {
      Console.warning(
        "the tenant signed you in with \(shown.map { "acr \($0)" } ?? "no acr") rather than the acr_values asked "
          + "(\(asked)); an API that demands more may still refuse")
    }
  }

  // MARK: plumbing

  private func send(_ request: HTTPRequest, _ label: String) throws -> HTTPResponse {
    try tenantClient.send(request, label)
  }

  /// A failed answer, with the tenant's words when it said any (an OAuth error, a page's text).
  private func httpFailure(_ response: HTTPResponse, what: String) -> CLIFailure {
    let words = TenantWords.of(response.body, contentType: response.header("Content-Type"))
    return CLIFailure(
      "\(what) failed with HTTP \(response.status)" + (words.map { ": the tenant says \($0)" } ?? ""),
      status: TokenEndpointOutcome.failure(response).failureStatus)
  }

  /// A failed answer in the sign-in's words: transient or a server error (a dead code is the
  /// tenant's refusal of this sign-in, not a reason to sign in again).
  private func httpFailure(_ outcome: TokenEndpointOutcome, what: String) -> CLIFailure {
    let status = outcome.failureStatus
    if let oauth = outcome.error, let words = TenantWords.quoted(oauth.description) {
      return CLIFailure("\(what) failed: \(words)", status: status)
    }
    return CLIFailure("\(what) failed with HTTP \(outcome.status)", status: status)
  }

  private func confirm(_ question: String) -> Bool {
    guard let terminal = prompter.terminal else { return false }
    return terminal.confirm(question)
  }

  static func resolve(_ location: String, against base: String) -> String {
    if URLParts(location) != nil || location.contains("://") { return location }
    guard let origin = URLParts(base)?.origin else { return location }
    if location.hasPrefix("/") { return "\(origin)" + location }
    let path = base.prefix { $0 != "?" }
    return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) + "/" + location
  }

  /// Whether a browser can be started here: one is named, or there is a display for xdg-open.
  static func browserAvailable(_ environment: [String: String]) -> Bool {
    ["BROWSER", "DISPLAY", "WAYLAND_DISPLAY"].contains { !(environment[$0] ?? "").isEmpty }
  }

  static func acceptLanguage(_ environment: [String: String]) -> String? {
    guard let lang = environment["LC_ALL"] ?? environment["LC_MESSAGES"] ?? environment["LANG"],
      let code = lang.split(separator: ".").first, code != "C", code != "POSIX", !code.isEmpty
    else { return nil }
    return String(code).replacing("_", with: "-")
  }

  static func describe(_ step: JourneyMachine.Step) -> String {
    switch step {
    case .render(let plan, let ask): return "screen (\(plan.actions.count) actions, asking \(ask.count))"
    case .finalize: return "finalize"
    case .fallback(_, let reason): return "browser: \(reason)"
    case .sessionExpired: return "session expired"
    case .failed(let error): return "failed: \(error)"
    }
  }
}

/// A bound on one journey: a tenant (or a client bug) that goes round in circles ends the
/// sign-in with a message naming the screen instead of looping. At most `maxSteps` submissions,
/// and the same answer to the same screen at most `maxRepeats` times (in a row or not: a
/// "Not you?" loop alternates between two screens).
struct JourneyBudget {
  static let maxSteps = 60
  static let maxRepeats = 3
  private var steps = 0
  private var seen: [(screen: String?, formID: String, body: JSONValue, count: Int)] = []

  /// Counts one submission; a sentence saying why to stop, or nil to go on.
  mutating func submit(screen: String?, formID: String, body: JSONValue) -> String? {
    steps += 1
    let name = TerminalSafe.text(screen ?? formID, multiline: false)
    let index = seen.firstIndex { $0.screen == screen && $0.formID == formID && $0.body == body }
    let count: Int
    if let index {
      seen[index].count += 1
      count = seen[index].count
    } else {
      seen.append((screen, formID, body, 1))
      count = 1
    }
    if count > Self.maxRepeats {
      return
        "the sign-in is going round in circles: screen \"\(name)\" was answered the same way (\(formID)) "
        + "\(count - 1) times without getting anywhere; stopping"
    }
    if steps > Self.maxSteps {
      return "the sign-in did not finish within \(Self.maxSteps) steps (last screen \"\(name)\"); stopping"
    }
    return nil
  }
}

extension LoginSettings {
  /// The authorization request of one attempt (protocol §3.1, §3.2): a new verifier, state and
  /// nonce, and the OpenID Connect parameters that were given (empty ones are left out).
  func authorizationRequest(redirectURI: String) -> AuthorizationRequest {
    var extra: [FormParameter] = []
    let given = [
      ("prompt", prompt), ("acr_values", extras.acrValues), ("max_age", extras.maxAge.map(String.init)),
      ("login_hint", loginHint), ("ui_locales", uiLocales),
    ]
    for (key, value) in given {
      if let value, !value.isEmpty { extra.append(FormParameter(key, value)) }
    }
    // The configured APIs' resources, then this sign-in's own, each once (RFC 8707 §2.1).
    var resources = APITarget.authorizationResources(apis.flatMap(\.resources)).map(\.value)
    for resource in extras.resources where !resources.contains(resource) { resources.append(resource) }
    extra += resources.map { FormParameter("resource", $0) }
    if let audience = extras.audience { extra.append(FormParameter("audience", audience)) }
    var asked = scopes
    for scope in (apis.flatMap(\.scopes) + extras.scopes).map(\.value) where !asked.contains(scope) {
      asked.append(scope)
    }
    return AuthorizationRequest(
      clientID: clientID, redirectURI: redirectURI, scopes: asked, additionalParameters: extra)
  }
}

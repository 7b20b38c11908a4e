// `strivacity token`: a fresh access token on stdout, for scripts, curl and kubectl. The cached
// path reads the config and the keyring only: no network, no libcurl.
import ArgumentParser
import Broker
import OAuthCore
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerminalUI

extension TokenFormat: ExpressibleByArgument {}

struct Token: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print a fresh access token (refreshing it when needed).",
    discussion: """
      Only the token (or the chosen format) goes to stdout. When the access token expires \
      within a minute (at most half its lifetime), or within --min-ttl seconds when given \
      (or the profile's min_ttl), it is refreshed first; --refresh refreshes it whatever \
      its expiry. Many processes asking at once make one refresh. A token that lives less \
      than --min-ttl even fresh from the tenant is printed, and said on stderr. Formats: raw, header, json, env (for \
      eval), curl (for curl -K -), exec-credential (a Kubernetes ExecCredential, in the \
      apiVersion kubectl asks for: client.authentication.k8s.io/v1 or v1beta1), \
      google-executable (Google's executable-sourced credential response, for workload \
      identity federation: see `setup gcloud`).

      google-executable never signs in, --login or not, and says nothing on stderr when it \
      answers: a failure is the response's error shape on stdout, {"version":1,"success":false,\
      "code":…,"message":…} (the code names the exit status: sign_in_required, transient, …), \
      one line on stderr, and the exit status.

      --api NAME and --for URL ask for a token of one of the profile's APIs \
      ([profiles.P.apis.NAME]); --audience and --resource (with --scope) for an API named \
      here, without a config entry. Either is kept beside the sign-in's tokens (the same ad \
      hoc options are answered from it the next time) and renewed with the sign-in's refresh \
      token; through the agent too when it runs.

      EXAMPLES:
        curl -H @<(strivacity token --format header) https://api.example.com/
        strivacity token --format curl | curl -K - https://api.example.com/
        eval "$(strivacity token --format env)"
        strivacity token --audience https://api.example.com/orders --scope orders:read
      """)

  @OptionGroup var global: GlobalOptions

  @Option(
    name: .customLong("min-ttl"),
    help: ArgumentHelp(
      "Refresh when the token expires within this many seconds (default: 60, at most half its lifetime).",
      valueName: "seconds"))
  var minTTL: Int64?

  @Flag(help: "Refresh now, whatever the token's expiry (roles changed).")
  var refresh = false

  @Option(
    help: ArgumentHelp(
      "What to print: the token alone, or a header, JSON, shell, curl, Kubernetes or Google form.",
      valueName: "format"))
  var format: TokenFormat = .raw

  @Flag(name: .customLong("id-token"), help: "Print the ID token instead of the access token.")
  var idToken = false

  @Flag(help: "Sign in on the terminal when there is no usable token.")
  var login = false

  @Option(
    help: ArgumentHelp("A token for this API of the profile ([profiles.P.apis.NAME]).", valueName: "name"),
    completion: .custom { words, _, prefix in Context().apiNames(words).filter { $0.hasPrefix(prefix) } })
  var api: String?

  @Option(
    name: .customLong("for"),
    help: ArgumentHelp(
      "A token for the API this URL is under (else the profile's own, for its hosts).", valueName: "url"))
  var forURL: String?

  @Option(
    help: ArgumentHelp(
      "A token for an API named here, not in the config: the audience parameter it is asked with.",
      valueName: "audience"))
  var audience: String?

  @Option(
    name: .customLong("resource"),
    help: ArgumentHelp(
      "A token for an API named here: an RFC 8707 resource it is asked for (repeatable).", valueName: "uri"))
  var resources: [String] = []

  @Option(
    name: .customLong("scope"),
    help: ArgumentHelp(
      "With --api, --for, --audience or --resource: a scope the API's token must carry too (repeatable).",
      valueName: "scope"))
  var scopes: [String] = []

  /// --scope's values, each admitted as one scope token.
  var extraScopes: [Scope] {
    get throws(AdmissionError) { try scopes.map { text throws(AdmissionError) in try Admit.scopeToken(text) } }
  }

  /// --audience and --resource (with --scope): an API named on the command line, admitted as an
  /// `apis` table's values are; nil without them.
  var adHoc: AdHocTarget? {
    get throws(AdmissionError) {
      guard audience != nil || !resources.isEmpty else { return nil }
      return try AdHocTarget(audience: audience, resources: resources, scopes: scopes)
    }
  }

  func validate() throws {
    do {
      try validateOptions()
    } catch let error as ValidationError {
      // Google's client reads stdout: the refusal in its shape too.
      Self.failShaped(format, CLIFailure(error.message, status: .usage))
      throw error
    }
  }

  func validateOptions() throws {
    do { _ = try extraScopes } catch { throw ValidationError("--scope: \(error.description)") }
    let adHoc: AdHocTarget?
    do { adHoc = try self.adHoc } catch { throw ValidationError(error.description) }
    if adHoc != nil && (api != nil || forURL != nil) {
      throw ValidationError("--audience and --resource name an API of their own: use them without --api and --for")
    }
    if !scopes.isEmpty && api == nil && forURL == nil && adHoc == nil {
      throw ValidationError("--scope needs --api or --for (or --audience or --resource)")
    }
    if let minTTL, !TokenInvocation.minTTLRange.contains(minTTL) {
      throw ValidationError(TokenInvocation.minTTLRefusal)
    }
    if api != nil && forURL != nil { throw ValidationError("use either --api or --for") }
    if idToken && (api != nil || forURL != nil || adHoc != nil) {
      throw ValidationError("--id-token is the sign-in's; it cannot be asked for an API")
    }
  }

  /// The invocation both binaries answer alike (the small one answers its plain forms from the cache).
  var invocation: TokenInvocation {
    TokenInvocation(
      profile: global.profile, format: format, minTTL: minTTL, refresh: refresh, idToken: idToken, login: login,
      api: api, forURL: forURL, adHoc: try? adHoc)
  }

  func run() throws {
    do {
      try answer()
    } catch {
      // Google's client reads stdout only (stderr merged into it): every failure in its shape.
      if !(error is ExitCode) {
        Self.failShaped(format, CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .failure))
      }
      throw error
    }
  }

  /// A failure in the format's own shape on stdout (google-executable), one line on stderr, and
  /// its exit status; a format without a shape of its own returns, for the failure to be thrown.
  static func failShaped(_ format: TokenFormat, _ failure: CLIFailure) {
    guard let shaped = format.failure(failure.status, message: failure.message) else { return }
    Console.writeStdout(shaped)
    if !failure.message.isEmpty { Console.error(failure.message) }
    exitProcess(failure.status.rawValue)
  }

  func answer() throws {
    let context = global.context()
    let invocation = self.invocation
    // For kubectl: the apiVersion it asks for, whether it lets the plugin talk to a person, the
    // API server; for Google's client: the token type it asks for.
    let output: TokenOutput
    do {
      output = try TokenOutput(format, environment: context.environment)
    } catch {
      throw CLIFailure(error.description, status: .usage)
    }
    // Google's client waits without a terminal (a keyring's dialog gets the short bound) and
    // reads stderr with stdout: no warning may go there (a config's, a refresh's, a margin's).
    context.attended = output.attended
    context.warns = output.attended
    // kubectl's API server must be among the profile's kube_clusters, decided before the keyring
    // is opened or anything refreshed.
    if case .execCredential = output {
      let resolved = try context.resolveProfile(global)
      if case .refuse(let message) = output.clusterDecision(resolved.profile.kubeClusters, profile: resolved.name) {
        throw CLIFailure(message, status: .usage)
      }
    }
    let session = try TokenBroker(context: context, options: global, apis: invocation.apiTables)
    if !output.attended {
      // Never a sign-in, nothing drawn on stderr: a refused refresh names `strivacity login`.
      session.signIn = nil
      session.progress = nil
    }
    if idToken && !session.renewal.personSignsIn {
      throw CLIFailure("profile \(session.name) is a machine profile: it has no ID token", status: .usage)
    }
    let chosen: API?
    do {
      chosen = try invocation.chosenAPI(session.resolved.profile, tenant: session.tenant)
    } catch {
      // Only the asked API's table was read: the APIs there are come from the profile's whole table.
      var message = error.description
      if api != nil,
        let whole = try context.config(onlyProfile: session.name, warn: false)?.profile(named: session.name)
      {
        do { _ = try invocation.chosenAPI(whole, tenant: session.tenant) } catch { message = error.description }
      }
      throw CLIFailure(message, status: .usage)
    }
    if chosen == nil && invocation.adHoc == nil && !scopes.isEmpty {
      throw CLIFailure("--scope is for an API's token: --for names a URL under none of the APIs", status: .usage)
    }
    var freshness = invocation.freshness(session.resolved.profile)
    func fresh() throws -> TokenSet {
      if let adHoc = invocation.adHoc { return try session.apiTokens(adHoc, freshness) }
      if let chosen {
        return try session.apiTokens(chosen, freshness, extraScopes: extraScopes)
      }
      return try session.freshTokens(freshness, idToken: idToken)
    }
    let tokens: TokenSet
    do {
      tokens = try fresh()
    } catch let failure as BrokerError where failure.status == .signInRequired {
      // kubectl with interactiveMode Never (or no terminal to offer): at once, naming the command.
      guard !failure.signInOffered, output.offersSignIn, session.renewal.personSignsIn,
        signInAllowed(failure, profile: session.name)
      else {
        throw failure
      }
      let login = try Login.parse(
        ["--profile", session.name] + (global.verbose ? ["--verbose"] : [])
          + (global.config.map { ["--config", $0] } ?? []))
      try login.run()
      freshness.force = false  // just signed in
      tokens = try fresh()
    }
    if !idToken { session.sayShortfall(tokens, freshness) }  // not said when unattended (context.warns)
    let token: BearerToken
    if idToken {
      guard let id = tokens.idToken else {
        throw CLIFailure(
          "no ID token is held for \(session.name) (was openid among the scopes?)", status: .signInRequired)
      }
      do {
        token = try BearerToken(admitting: id.value, what: "ID token")
      } catch {
        throw CLIFailure("\(error.description); sign in again", status: .store)
      }
    } else {
      token = tokens.accessToken
    }
    Console.writeStdout(
      invocation.printed(token, tokens: tokens, as: output, profile: session.name, now: TokenBroker.now()))
  }

  /// With --login, or when the person at the terminal agrees.
  private func signInAllowed(_ failure: BrokerError, profile: String) -> Bool {
    guard let tty = TTY() else { return false }
    if login { return true }
    guard isTerminal(2) else { return false }
    let answer =
      (try? tty.readLine(prompt: "strivacity: \(failure.message)\nSign in now? [y/N]: ", hidden: false)) ?? ""
    return answer.lowercased().hasPrefix("y")
  }
}

struct Userinfo: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Print the userinfo endpoint's claims as JSON.")

  @OptionGroup var global: GlobalOptions

  func run() throws {
    let session = try TokenBroker(context: global.context(), options: global)
    guard session.renewal.personSignsIn else {
      throw CLIFailure(
        "profile \(session.name) is a machine profile: its tokens are the client's own, there is no user to describe",
        status: .usage)
    }
    let tokens = try session.freshTokens(Freshness(seconds: 30, explicit: false))
    let tenant = session.tenantClient
    let endpoint = try tenant.endpoint(\.userinfoEndpoint, "userinfo endpoint")
    let response = try tenant.send(
      HTTPRequest(
        url: endpoint, headers: [.authorization(tokens.accessToken), HTTPHeader("Accept", "application/json")],
        sentSecrets: [tokens.accessToken.value]))
    switch response.status {
    case 200:
      guard let claims = JSONValue.parse(response.body), claims.object != nil else {
        throw CLIFailure("the userinfo answer is not a JSON object", status: .server)
      }
      Console.writeStdout(String(decoding: claims.serialized(pretty: true), as: UTF8.self) + "\n")
    case 401:
      throw CLIFailure(
        "the tenant no longer accepts the access token for \(session.name): run strivacity login",
        status: .signInRequired)
    default:
      throw CLIFailure(
        "userinfo failed with HTTP \(response.status)", status: response.failureStatus)
    }
  }
}

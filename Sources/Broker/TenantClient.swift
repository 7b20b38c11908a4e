// The tenant as the command line talks to it: discovery with its issuer and origin checks, every
// request sent with --verbose logging and timing, and the token endpoint's answer read once
// (TokenEndpointOutcome). The sign-in, the refresh, logout, revoke and userinfo go through it and
// keep only their own logic (and their own sentences).
import OAuthCore
import StrivacityCore
import SystemIO

/// What says a request is under way (the command line's spinner on a terminal).
package protocol ProgressIndicator: AnyObject {
  func start(_ text: String)
  func stop()
}

package final class TenantClient {
  /// The tenant URL: the issuer its discovery document must name, and the origin every endpoint
  /// that gets a secret must be on.
  package let tenant: String
  package let log: Log
  private let spinner: (any ProgressIndicator)?
  /// Makes the HTTP client on first use: a command that needs no network never loads libcurl.
  private let connect: () throws -> HTTPClient
  private var http: HTTPClient?
  /// The discovery document in use: fetched, or rebuilt from the endpoints kept with the tokens.
  package private(set) var currentDiscovery: Discovery?
  /// The endpoints kept with the stored tokens (used instead of a discovery request).
  private var keptEndpoints: [String: String]?
  /// Whether `currentDiscovery` came from `keptEndpoints` rather than the tenant just now.
  package private(set) var discoveryFromStore = false

  package init(
    tenant: String, log: Log, spinner: (any ProgressIndicator)? = nil, http connect: @escaping () throws -> HTTPClient
  ) {
    self.tenant = tenant
    self.log = log
    self.spinner = spinner
    self.connect = connect
  }

  /// The tenant's origin (scheme, host and port); nil when the tenant URL is not a URL.
  package var origin: Origin? { URLParts(tenant)?.origin }

  /// Sends `request`, logged with --verbose (method, URL without its query, status, time); with a
  /// `label`, a spinner says it meanwhile. Transport errors pass through. A failed answer comes
  /// back with every secret the request carried redacted from its body (`redactingFailure`), so
  /// no message, report or helper's answer quotes a tenant that echoes what it was sent.
  package func send(_ request: HTTPRequest, _ label: String? = nil) throws -> HTTPResponse {
    if let label { spinner?.start(label + "…") }
    defer { if label != nil { spinner?.stop() } }
    if http == nil { http = try connect() }
    let started = monotonicSeconds()
    do {
      let response = try http!.send(request)
      log.request(request, status: response.status, seconds: monotonicSeconds() - started)
      return response.redactingFailure(request.sentSecrets + http!.sentSecrets)
    } catch {
      log.request(request, status: nil, seconds: monotonicSeconds() - started)
      throw error
    }
  }

  /// Sends a token request and reads its answer.
  package func send(_ request: TokenRequest, to url: String, _ label: String? = nil) throws -> TokenEndpointOutcome {
    TokenEndpointOutcome(try send(request.httpRequest(url: url), label))
  }

  // MARK: discovery

  /// Why a discovery document was not taken; each command says it in its own words.
  package enum DiscoveryFailure: Error {
    /// Another status than 200.
    case answer(HTTPResponse)
    /// Not a usable document; `json` says whether the body was JSON at all.
    case unusable(OAuthError, json: Bool)
    /// It names another issuer than the tenant URL.
    case otherIssuer
  }

  /// The tenant's discovery document, fetched now. OpenID Connect Discovery §4.3: the issuer is
  /// the tenant URL it was fetched from. Throws `DiscoveryFailure`; transport errors pass through.
  package func fetchDiscovery(_ label: String? = nil) throws -> Discovery {
    let url = Discovery.url(forTenant: tenant)
    let response = try send(HTTPRequest(url: url, headers: [HTTPHeader("Accept", "application/json")]), label)
    return try Self.discovery(from: response, tenant: tenant)
  }

  /// The discovery document `response` holds, taken only as `tenant`'s (OpenID Connect
  /// Discovery §4.3). Throws `DiscoveryFailure`.
  package static func discovery(from response: HTTPResponse, tenant: String) throws -> Discovery {
    guard response.status == 200 else { throw DiscoveryFailure.answer(response) }
    let json = JSONValue.parse(response.body)
    let discovery: Discovery
    do {
      discovery = try Discovery(json: json ?? .null)
    } catch {
      throw DiscoveryFailure.unusable(error, json: json != nil)
    }
    guard TenantURL.base(discovery.issuer) == TenantURL.base(tenant) else { throw DiscoveryFailure.otherIssuer }
    return discovery
  }

  /// Endpoints kept with the stored tokens, to use instead of a discovery request.
  package func keep(endpoints: [String: String]?) { keptEndpoints = endpoints }

  /// Forgets the document in use and the kept endpoints: the next `discovery()` asks the tenant.
  package func forgetDiscovery() {
    currentDiscovery = nil
    keptEndpoints = nil
  }

  /// The document for the broker commands: the kept endpoints if they still name this tenant as
  /// issuer, else the tenant's (fetched once); failures as BrokerErrors.
  package func discovery() throws -> Discovery {
    if let currentDiscovery { return currentDiscovery }
    if let keptEndpoints, let kept = try? Discovery(cached: keptEndpoints),
      TenantURL.base(kept.issuer) == TenantURL.base(tenant)
    {
      currentDiscovery = kept
      discoveryFromStore = true
      return kept
    }
    discoveryFromStore = false
    do {
      currentDiscovery = try fetchDiscovery()
      return currentDiscovery!
    } catch let failure as DiscoveryFailure {
      switch failure {
      case .answer(let response):
        throw BrokerError.discoveryFailed(http: response.status, status: response.failureStatus)
      case .unusable(let error, _):
        throw BrokerError.tenantUnusable("the tenant's discovery document is unusable: \(error)")
      case .otherIssuer:
        throw BrokerError.tenantUnusable("the tenant's discovery document names another issuer; refusing it")
      }
    }
  }

  /// Whether `url` may get a secret: an allowed URL (https, or http on loopback) on the tenant's
  /// own origin (scheme, host and port).
  package func isOnTenantOrigin(_ url: String) -> Bool {
    guard let origin else { return false }
    return (try? URLPolicy.check(url)) != nil && URLPolicy.sameOrigin(url, as: origin)
  }

  /// An advertised endpoint, only if it is on the tenant's own origin: tokens go nowhere else.
  package func endpoint(_ field: KeyPath<Discovery, String?>, _ what: String) throws -> String {
    guard let url = try discovery()[keyPath: field] else {
      throw BrokerError.tenantUnusable("the tenant advertises no \(what)")
    }
    try requireTenantOrigin(url, what)
    return url
  }

  package func endpoint(_ field: KeyPath<Discovery, String>, _ what: String) throws -> String {
    let url = try discovery()[keyPath: field]
    try requireTenantOrigin(url, what)
    return url
  }

  /// When `url` is not on the tenant's origin (`isOnTenantOrigin`), the origin it is on and the
  /// tenant's, as messages name them; nil when it is.
  package func offOrigin(_ url: String) -> (url: String, tenant: String)? {
    guard !isOnTenantOrigin(url) else { return nil }
    return (URLParts(url).map { "\($0.origin)" } ?? "an invalid URL", origin.map { "\($0)" } ?? tenant)
  }

  private func requireTenantOrigin(_ url: String, _ what: String) throws {
    if let (shown, tenantOrigin) = offOrigin(url) {
      throw BrokerError.tenantUnusable("refusing the tenant's \(what) on \(shown): tokens go only to \(tenantOrigin)")
    }
  }
}

/// --verbose: one line per request (method, URL without its query, status, time) and journey
/// step on stderr. Queries, headers and bodies are never printed: they carry secrets.
package struct Log {
  package let verbose: Bool

  package init(verbose: Bool) { self.verbose = verbose }

  package func request(_ request: HTTPRequest, status: Int?, seconds: Double) {
    guard verbose else { return }
    let url = request.url.prefix { $0 != "?" } + (request.url.contains("?") ? "?…" : "")
    let outcome = status.map { "HTTP \($0)" } ?? "no answer"
    // The URL may be the tenant's (a Location it sent): made inert like any tenant text.
    let shown = TerminalSafe.text(String(url), multiline: false)
    Console.writeStderr("strivacity: \(request.method) \(shown) → \(outcome) (\(Int(seconds * 1000)) ms)\n")
  }

  package func note(_ text: String) {
    guard verbose else { return }
    Console.writeStderr("strivacity: \(TerminalSafe.text(text, multiline: false))\n")
  }
}

// doctor's network rows: the CA and proxy in use, the tenant reached (DNS, TCP, TLS), its
// discovery document, its JWKS, and the clock against the tenant's.
import Broker
import CurlTransport
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore
import SystemIO

extension Examination {
  // MARK: 2. the connection to the tenant

  /// The CA and proxy in use, then one GET of the discovery document (through TenantClient: a
  /// spinner on a terminal while it waits, --verbose's log); the client for the checks that
  /// follow, nil when the tenant cannot be reached (they are skipped).
  func connection(_ session: TokenBroker) -> (TenantClient, HTTPResponse)? {
    let trust: CATrust
    do {
      trust = try session.trust()
      add("ca", .pass, trust.description)
    } catch {
      add("ca", .fail, message(error), fix: CATrust.fix, status: .usage)
      skipNetwork("the CA bundle is unusable")
      return nil
    }
    let proxy: ProxyChoice
    let kept: Bool
    do {
      proxy = try context.proxy(for: session.resolved.profile, config: session.config)
      kept = keptProxyPassword(proxy, session)
      let (detail, passwordMissing) = try proxyDetail(proxy, session, kept: kept)
      if passwordMissing {
        add(
          "proxy", .warn, detail,
          fix: "set STRIVACITY_PROXY_PASSWORD, or run strivacity setup proxy --password-stdin to keep it")
      } else {
        add("proxy", .pass, detail)
      }
    } catch {
      add("proxy", .fail, message(error), fix: "correct the proxy setting the message names", status: .usage)
      skipNetwork("the proxy setting is unusable")
      return nil
    }
    let client: TenantClient
    do {
      var settings = try context.httpClient(
        trust: trust, proxy: proxy, key: kept ? session.key : nil, store: kept ? session.resolved.store : nil
      ).options
      settings.connectTimeout = Examination.connectTimeout
      settings.totalTimeout = Examination.requestTimeout
      client = TenantClient(tenant: session.tenant, log: session.log, spinner: progress) {
        CurlHTTPClient(options: settings)
      }
    } catch {
      add("tenant", .fail, message(error), fix: "correct the setting the message names", status: .usage)
      skipNetwork("no HTTP client")
      return nil
    }
    let url = Discovery.url(forTenant: session.tenant)
    let parts = URLParts(url)
    let origin = parts.map { "\($0.origin)" } ?? session.tenant
    let proxied = parts.flatMap { proxy.proxy(forHost: $0.host, loopback: $0.isLoopback) }
    let started = monotonicSeconds()
    do {
      let response = try client.send(
        HTTPRequest(url: url, headers: [HTTPHeader("Accept", "application/json")]), "reaching the tenant")
      let millis = Int((monotonicSeconds() - started) * 1000)
      let tls = origin.hasPrefix("https:") ? "TLS verified against \(trust.description)" : "plain http on loopback"
      let path = proxied.map { "through \($0.address)" } ?? "DNS, TCP"
      add("tenant", .pass, "\(origin) answered in \(millis) ms (\(path), \(tls))")
      return (client, response)
    } catch {
      let (step, fix) = Self.step(of: error, proxy: proxy)
      add("tenant", .fail, "\(step): \(message(error))", fix: fix, status: .transient)
      skipNetwork("the tenant cannot be reached")
      return nil
    }
  }

  /// The proxy in use for the tenant and where it came from, who it is told we are and where
  /// the password comes from (never the password); or why the tenant is reached directly.
  /// `passwordMissing`: a proxy user is set and no source gives its password.
  func proxyDetail(_ proxy: ProxyChoice, _ session: TokenBroker, kept: Bool) throws -> (
    detail: String, passwordMissing: Bool
  ) {
    guard let chosen = proxy.proxy else { return (proxy.description, false) }
    if let parts = URLParts(session.tenant), proxy.proxy(forHost: parts.host, loopback: parts.isLoopback) == nil {
      let why = parts.isLoopback ? "loopback is never proxied" : "\(proxy.noProxySource ?? "no_proxy") names it"
      return ("\(proxy.description), but not for the tenant: \(why)", false)
    }
    var detail = "\(chosen.address) (from \(proxy.source))"
    var missing = false
    if let user = proxy.user {
      let source: String
      if let given = try context.proxyPassword(for: proxy, key: nil, store: nil) {
        source = given.source
      } else {
        source = kept ? "the password setup proxy kept" : "no password"
        missing = !kept
      }
      detail += "; user \(user), \(source)"
    }
    if let caBundle = proxy.caBundle { detail += "; its CA \(caBundle)" }
    return (detail, missing)
  }

  /// Whether the proxy's password is one `setup proxy` kept, and can be read without a prompt:
  /// neither the proxy's URL nor the environment gives one, and the item is there, open to us.
  func keptProxyPassword(_ proxy: ProxyChoice, _ session: TokenBroker) -> Bool {
    guard proxy.user != nil, (try? context.proxyPassword(for: proxy, key: nil, store: nil)) ?? nil == nil else {
      return false
    }
    let key = SecretKey(session.key, .proxyPassword)
    switch session.resolved.store {
    case .file: return true
    case .secretService, .kernel:
      let item = (try? KeyringSecretStore(TokenBroker.quietKeyring()).inspect([key]))?.items.first ?? nil
      return item == .present(lockedToUs: false)
    }
  }

  /// Which step of reaching the tenant failed, and what fixes it.
  static func step(of error: any Error, proxy: ProxyChoice) -> (String, String) {
    let viaProxy = proxy.proxy == nil ? "" : " (through the proxy \(proxy.description))"
    guard let transport = error as? TransportError else { return ("request", "see the message") }
    switch transport {
    case .proxyUnreachable(_, _, let fix): return ("proxy", fix)
    case .proxyAuthentication(_, _, _, let fix): return ("proxy authentication", fix)
    case .proxyRefused(_, let host, _):
      return ("proxy CONNECT", "ask the proxy's administrators to allow \(host), or name it in no_proxy")
    case .proxyTimeout: return ("proxy time-out", proxy.fix)
    case .dns:
      return ("DNS", "check the tenant URL's host name, or the resolver (/etc/resolv.conf, VPN)\(viaProxy)")
    case .refused:
      return ("TCP", "nothing listens there: check the tenant URL's port and any firewall on the way\(viaProxy)")
    case .untrustedCertificate(_, _, _, let fix): return ("TLS", fix)
    case .tls: return ("TLS", "check the TLS path to the tenant (an intercepting proxy needs its CA: ca_bundle)")
    case .timeout:
      return (
        "time-out", "the tenant or something on the way does not answer: check a firewall, VPN or proxy\(viaProxy)"
      )
    case .insecureURL, .invalidURL: return ("URL", "the tenant URL must be https:// (http only on loopback)")
    default: return ("HTTP", "check the proxy and the network on the way\(viaProxy)")
    }
  }

  func skipNetwork(_ why: String) {
    for id in ["tenant", "discovery", "jwks", "clock"] where !report.checks.contains(where: { $0.id == id }) {
      add(id, .skipped, "skipped: \(why)")
    }
  }

  // MARK: 3. discovery, JWKS, clock

  /// The discovery document's check, as every command takes it (TenantClient.discovery(from:)).
  func tenant(_ session: TokenBroker, _ response: HTTPResponse) -> Discovery? {
    do {
      let discovery = try TenantClient.discovery(from: response, tenant: session.tenant)
      add("discovery", .pass, "issuer \(discovery.issuer) matches the tenant URL")
      return discovery
    } catch TenantClient.DiscoveryFailure.answer(let response) {
      let status = response.failureStatus
      add(
        "discovery", .fail, "the discovery document answered HTTP \(response.status)",
        fix: status == .transient
          ? "the tenant is in trouble: try again later" : "check the tenant URL (its path and host)",
        status: status)
    } catch TenantClient.DiscoveryFailure.unusable(let error, _) {
      add(
        "discovery", .fail, "the discovery document is unusable: \(error)",
        fix: "check the tenant URL: it must be the tenant's own", status: .server)
    } catch {
      let named = (try? Discovery(json: JSONValue.parse(response.body) ?? .null))?.issuer
      let issuer = named.flatMap(TenantWords.quoted) ?? "another issuer"
      add(
        "discovery", .fail, "it names the issuer \(issuer), not \(session.tenant)",
        fix: "set the profile's tenant to the issuer URL, exactly", status: .server)
    }
    return nil
  }

  func jwks(_ discovery: Discovery?, _ client: TenantClient?) {
    guard let client else { return }
    guard let discovery else {
      add("jwks", .skipped, "skipped: no usable discovery document")
      return
    }
    guard let url = discovery.jwksURI else {
      add("jwks", .fail, "the tenant publishes no jwks_uri", fix: "ask the tenant's administrator", status: .server)
      return
    }
    // Doctor's own requests stay on the tenant's origin (TenantClient.offOrigin). A sign-in and a
    // refresh still fetch a JWKS on any https origin (IDTokenCheck), so this is a warning.
    if let (shown, tenant) = client.offOrigin(url) {
      add(
        "jwks", .warn, "the jwks_uri is on \(shown), not the tenant's origin \(tenant): not fetched",
        fix: "ask the tenant's administrator to publish the JWKS on \(tenant) (a sign-in still fetches it there)")
      return
    }
    do {
      let response = try client.send(
        HTTPRequest(url: url, headers: [HTTPHeader("Accept", "application/json")], timeout: Examination.jwksTimeout),
        "fetching the JWKS")
      guard response.status == 200, let json = JSONValue.parse(response.body) else {
        add(
          "jwks", .fail, "the JWKS answered HTTP \(response.status)", fix: "ask the tenant's administrator",
          status: .server)
        return
      }
      let keys = try JWKS(json: json)
      guard !keys.keys.isEmpty else {
        add("jwks", .fail, "the JWKS holds no RSA signing key", fix: "ask the tenant's administrator", status: .server)
        return
      }
      add("jwks", .pass, "\(keys.keys.count) signing key\(keys.keys.count == 1 ? "" : "s")")
    } catch let error as TransportError {
      add("jwks", .fail, message(error), fix: "check the network path to the JWKS host", status: .transient)
    } catch {
      add("jwks", .fail, "the JWKS is unusable: \(error)", fix: "ask the tenant's administrator", status: .server)
    }
  }

  func clock(_ response: HTTPResponse) {
    guard let header = response.header("Date"), let theirs = HTTPDate.parse(header) else {
      add("clock", .skipped, "the tenant sent no Date header to compare with")
      return
    }
    let skew = wallClockSeconds() - theirs
    guard abs(skew) > Examination.skewLimit else {
      add("clock", .pass, "within \(Examination.skewLimit) s of the tenant's")
      return
    }
    add(
      "clock", .warn, "this machine's clock is \(abs(skew)) s \(skew > 0 ? "ahead of" : "behind") the tenant's",
      fix: "synchronise the clock (timedatectl set-ntp true): tokens may look expired or not yet valid")
  }
}

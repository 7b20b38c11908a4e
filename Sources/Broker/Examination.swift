// `strivacity doctor`'s checks (Doctor.swift in the command line prints them): one run, in order,
// from the config to git's and kubectl's set-up, each with its fix. The credentials are tried: a
// machine's by one client-credentials request (its token not kept), a person's refresh token by
// one refresh. It never prompts (no keyring unlock or access dialog), never shows a secret, and is
// bounded: the tenant is asked with short time-outs, and when it cannot be reached the other
// network checks, and the credentials' try, are skipped.
import Agent
import CurlTransport
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore
import SystemIO
import TokenCache

/// One run of the checks, in order, each adding its row.
package final class Examination {
  /// The discovery request's time-outs: connecting, and the whole request. With the certificate
  /// probe of an untrusted certificate (CurlHTTPClient, the connect time-out again), the JWKS
  /// and the keyring's own bound, the whole report stays within 10 s when the tenant is away.
  package static let connectTimeout = 3.0
  package static let requestTimeout = 4.0
  package static let jwksTimeout = 2.0
  /// Each keyring call's bound here (not the user's 5 s: the doctor must stay short).
  package static let keyringTimeout = 2.0
  package static let skewLimit: Int64 = 60

  package let context: Context
  package let overrides: ProfileOverrides
  package let log: Log
  /// What says the tenant is being asked (the command line's spinner).
  package let progress: (any ProgressIndicator)?
  package var report: DoctorReport

  package init(context: Context, overrides: ProfileOverrides, log: Log, progress: (any ProgressIndicator)? = nil) {
    self.context = context
    self.overrides = overrides
    self.log = log
    self.progress = progress
    report = DoctorReport(profile: nil)
  }

  private func add(
    _ id: String, _ outcome: DoctorCheck.Outcome, _ detail: String, fix: String = "", status: ExitStatus = .failure
  ) {
    report.add(DoctorCheck(id, outcome, detail, fix: fix, status: status))
  }

  private func message(_ error: any Error) -> String { CLIFailure.describe(error) }

  /// `error` as a message and exit status; `status` for an error of no layer of strivacity's.
  private func failure(_ error: any Error, else status: ExitStatus) -> CLIFailure {
    CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: status)
  }

  package func run() -> DoctorReport {
    guard let session = configAndProfile() else { return report }
    report.profile = DoctorCheck.line(session.name)
    let reached = connection(session)
    let discovery = reached.flatMap { tenant(session, $0.1) }
    jwks(discovery, reached?.0)
    if let (_, response) = reached { clock(response) }
    let inspection = store(session)
    kernelCache(session)
    agent(session)
    sinks(session)
    tokens(session, inspection, discovery)
    git(session)
    kubectl(session)
    return report
  }

  // MARK: 1. the config and the profile

  private func configAndProfile() -> TokenBroker? {
    let path = context.paths.config
    let config: Config?
    do {
      config = try context.config(warn: false)
    } catch {
      // Another profile's mistake: the one in use still parses (as `token` reads it), and is examined.
      let requested = ResolvedProfile.requestedName(overrides: overrides, environment: context.environment)
      let narrowed = try? context.config(onlyProfile: requested, warn: false)
      let inUse = requested ?? narrowed?.defaultProfile ?? "default"
      guard let other = error.profileTable, other != inUse, narrowed != nil else {
        add("config", .fail, message(error), fix: "correct \(path) where the message says", status: .usage)
        return nil
      }
      add(
        "config", .fail, message(error),
        fix: "correct [profiles.\(other)] in \(path); the profile in use, '\(inUse)', parses, but commands that "
          + "read every profile (status --all, setup-*) fail until then", status: .usage)
      return profile(in: narrowed, path: path)
    }
    guard let config else {
      add(
        "config", .fail, "no config file at \(path)",
        fix: "create one: strivacity login --profile NAME --tenant URL --client-id ID", status: .usage)
      return nil
    }
    let warnings = config.warnings.count
    add(
      "config", warnings == 0 ? .pass : .warn,
      "\(path) parses (\(config.profiles.count) profile\(config.profiles.count == 1 ? "" : "s"))"
        + (warnings == 0 ? "" : "; \(warnings) warning\(warnings == 1 ? "" : "s"): \(config.warnings[0].description)"),
      fix: warnings == 0 ? "" : "correct \(path) as the warning says")
    return profile(in: config, path: path)
  }

  private func profile(in config: Config?, path: String) -> TokenBroker? {
    do {
      let session = try TokenBroker(context: context, overrides: overrides, log: log)
      let kind =
        switch session.renewal {
        case .refreshToken: "signs in"
        case .clientCredentials: "machine profile (client credentials)"
        }
      add("profile", .pass, "\(session.name): \(session.tenant), client \(session.clientID), \(kind)")
      return session
    } catch {
      let name = ResolvedProfile.requestedName(overrides: overrides, environment: context.environment)
      add(
        "profile", .fail, message(error),
        fix:
          "add [profiles.\(name ?? config?.defaultProfile ?? "default")] to \(path), or choose another with --profile",
        status: .usage)
      return nil
    }
  }

  // MARK: 2. the connection to the tenant

  /// The CA and proxy in use, then one GET of the discovery document (through TenantClient: a
  /// spinner on a terminal while it waits, --verbose's log); the client for the checks that
  /// follow, nil when the tenant cannot be reached (they are skipped).
  private func connection(_ session: TokenBroker) -> (TenantClient, HTTPResponse)? {
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
          fix: "set STRIVACITY_PROXY_PASSWORD, or run strivacity setup-proxy --password-stdin to keep it")
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
  private func proxyDetail(_ proxy: ProxyChoice, _ session: TokenBroker, kept: Bool) throws -> (
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
        source = kept ? "the password setup-proxy kept" : "no password"
        missing = !kept
      }
      detail += "; user \(user), \(source)"
    }
    if let caBundle = proxy.caBundle { detail += "; its CA \(caBundle)" }
    return (detail, missing)
  }

  /// Whether the proxy's password is one `setup-proxy` kept, and can be read without a prompt:
  /// neither the proxy's URL nor the environment gives one, and the item is there, open to us.
  private func keptProxyPassword(_ proxy: ProxyChoice, _ session: TokenBroker) -> Bool {
    guard proxy.user != nil, (try? context.proxyPassword(for: proxy, key: nil, store: nil)) ?? nil == nil else {
      return false
    }
    let key = SecretKey(session.key, .proxyPassword)
    switch session.resolved.store {
    case .file: return true
    case .secretService, .kernel:
      let item = (try? KeyringSecretStore(quietKeyring()).inspect([key]))?.items.first ?? nil
      return item == .present(lockedToUs: false)
    }
  }

  /// Which step of reaching the tenant failed, and what fixes it.
  package static func step(of error: any Error, proxy: ProxyChoice) -> (String, String) {
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

  private func skipNetwork(_ why: String) {
    for id in ["tenant", "discovery", "jwks", "clock"] where !report.checks.contains(where: { $0.id == id }) {
      add(id, .skipped, "skipped: \(why)")
    }
  }

  // MARK: 3. discovery, JWKS, clock

  /// The discovery document's check, as every command takes it (TenantClient.discovery(from:)).
  private func tenant(_ session: TokenBroker, _ response: HTTPResponse) -> Discovery? {
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

  private func jwks(_ discovery: Discovery?, _ client: TenantClient?) {
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

  private func clock(_ response: HTTPResponse) {
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

  // MARK: 6. the store

  /// The keys this profile's store may hold: the sign-in's (or a machine's) and each API's.
  private func keys(_ session: TokenBroker) -> [StoreKey] {
    [session.key] + session.resolved.profile.apis.map { session.key(for: $0) }
  }

  /// A keyring that never prompts, under the doctor's short bound.
  private func quietKeyring() -> SecretServiceStore {
    SecretServiceStore(
      timeout: Examination.keyringTimeout, prompts: KeyringPrompts(bound: 0.1, requestUnlock: false),
      noticeOnTerminal: false)
  }

  private func store(_ session: TokenBroker) -> KeyringInspection? {
    switch session.resolved.store {
    case .file:
      let store = FileStore(stateDirectory: context.paths.stateDir)
      do {
        let held = try store.load(session.key) != nil
        add("store", .pass, "the 0600 file \(store.path(for: session.key))\(held ? "" : " (not there yet)")")
      } catch {
        add("store", .fail, message(error), fix: "correct the file as the message says", status: .store)
      }
      return nil
    case .kernel:
      machineStore()
      return nil
    case .secretService:
      do {
        let inspection = try quietKeyring().inspect(keys(session))
        if inspection.locked {
          // The store's own sentence: what is locked, then (after the first colon) the way out.
          let said = inspection.lockedMessage ?? "\(inspection.collection) is locked: unlock it, or use --store file"
          let colon = said.firstRange(of: ": ")
          add(
            "store", .fail, "\(inspection.provider): " + (colon.map { String(said[..<$0.lowerBound]) } ?? said),
            fix: colon.map { String(said[$0.upperBound...]) } ?? "", status: .keyringLocked)
        } else {
          var held = false
          if case .present? = inspection.items.first { held = true }
          add(
            "store", .pass,
            "\(inspection.provider): \(inspection.collection), unlocked; the profile's item is "
              + (held ? "there" : "not there"))
        }
        return inspection
      } catch {
        let failure = CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .store)
        add(
          "store", .fail, failure.message,
          fix: "start a Secret Service (gnome-keyring, KeePassXC, KWallet), or use --store file", status: failure.status
        )
        return nil
      }
    }
  }

  // MARK: 7. the kernel cache, 8. the agent

  private func kernelCache(_ session: TokenBroker) {
    guard KernelTokenCache.enabled(context.environment) else {
      add("kernel-cache", .skipped, "off (STRIVACITY_TOKEN_CACHE=off)")
      return
    }
    if let refusal = KernelTokenCache.refusal() {
      // A machine's store said where its tokens go instead; a person's tokens come from the store.
      if session.resolved.store == .kernel {
        add("kernel-cache", .skipped, "refused here (keyctl: \(refusal)); the store line says where tokens go")
      } else {
        add(
          "kernel-cache", .warn,
          "the access-token cache is off: the kernel's keyring is refused here (keyctl: \(refusal)); tokens come "
            + "from the store each time",
          fix: "nothing needed; a container's seccomp profile (Docker's default) forbids keyctl")
      }
      return
    }
    let name = "strivacity:doctor:\(processID())"
    KernelTokenCache.putNote("ok", name: name, seconds: 5)
    let works = KernelTokenCache.note(name: name) == "ok"
    KernelTokenCache.dropNote(name: name)
    if works {
      add("kernel-cache", .pass, "the kernel's user keyring takes and returns entries")
    } else if session.resolved.store == .kernel {
      add(
        "kernel-cache", .fail, "the kernel's user keyring is not usable here (keyctl)",
        fix: "use store = \"file\" for this machine profile (a container may forbid keyctl)", status: .store)
    } else {
      add(
        "kernel-cache", .warn, "the kernel's user keyring is not usable here: tokens come from the store each time",
        fix: "nothing needed; a container may forbid keyctl")
    }
  }

  /// A machine profile's store: the kernel's keyring, else (refused) its private files, checked
  /// as the first save would make them.
  private func machineStore() {
    let place = MachineTokenStore.Place(environment: context.environment)
    guard case .files(let files, _) = place, let note = place.note else {
      add("store", .pass, "the kernel's user keyring (a machine profile's tokens live only there)")
      return
    }
    do {
      try files.prepare()
      add("store", .pass, "tokens \(note)")
    } catch {
      add(
        "store", .fail,
        "tokens cannot be kept (\(error)) and the kernel's keyring is refused here: each call asks the tenant",
        fix: "make \(files.directory) a 0700 directory of yours, or use store = \"file\"", status: .store)
    }
  }

  private func agent(_ session: TokenBroker) {
    let enabled = AgentClient.enabled(context.environment, config: session.config)
    guard let answer = AgentClient.ping(context.environment, timeout: 1) else {
      if enabled {
        add(
          "agent", .warn, "enabled but not running",
          fix: "strivacity agent start (or systemctl --user start strivacity-agent.socket)")
      } else {
        add("agent", .skipped, "not in use")
      }
      return
    }
    let version = answer["version"] ?? "?"
    let pid = answer["pid"] ?? "?"
    if version == strivacityVersion {
      add("agent", .pass, "running (pid \(pid), version \(version))\(enabled ? "" : "; not asked by this profile")")
    } else {
      add(
        "agent", .warn,
        "running an older or newer strivacity (pid \(pid), version \(version); this is \(strivacityVersion))",
        fix: "restart it: strivacity agent stop, then strivacity agent start")
    }
  }

  /// A row per token file the agent keeps for this profile (`sink.NAME`): whether its place
  /// may be written, whether it holds a token, when it was last written.
  private func sinks(_ session: TokenBroker) {
    let running = report.checks.contains {
      $0.id == "agent" && $0.outcome != .skipped && $0.detail.hasPrefix("running")
    }
    for sink in session.resolved.profile.sinks {
      let id = "sink.\(sink.name)"
      let what = "\(sink.path) (\(sink.api.map { "api \($0), " } ?? "")\(sink.format.rawValue))"
      if let refusal = SinkFile.refusal(sink.path) {
        add(id, .warn, "\(what): refused, \(refusal)", fix: "give it a directory of yours that only you can write")
        continue
      }
      let now = TokenBroker.now()
      let look = SinkFile.look(sink.path)
      let state = look?.described(now: now) ?? "not written yet"
      if !running {
        add(id, .warn, "\(what): \(state); no agent keeps it fresh", fix: "strivacity agent start")
      } else if look?.holdsToken != true {
        add(
          id, .warn, "\(what): \(state)",
          fix: "see the agent's log (journalctl --user -u strivacity-agent) for why it is not written")
      } else {
        add(id, .pass, "\(what): \(state)")
      }
    }
  }

  // MARK: 9. tokens

  /// `discovery`: the tenant's document as fetched above; nil when the tenant was not reached
  /// or its document is unusable (then the credentials are not tried).
  private func tokens(_ session: TokenBroker, _ inspection: KeyringInspection?, _ discovery: Discovery?) {
    if report.failed("store") {
      add("tokens", .skipped, "skipped: the store cannot be used")
      if case .refreshToken = session.renewal { add("credentials", .skipped, "not tried: the store cannot be used") }
      return
    }
    let keys = keys(session)
    if session.renewal.clientProvesItself { machineCredentials(session, discovery: discovery) }
    let loaded = keys.enumerated().map { index, key in load(session, key, state: inspection?.items[safe: index]) }
    let now = TokenBroker.now()
    switch loaded[0] {
    case .failure(let problem) where problem.status == .keyringDenied:
      // KeePassXC asks before a process reads an item: a person's matter, not a fault.
      add("tokens", .warn, problem.message, fix: "strivacity status --profile \(session.name) asks for access")
    case .failure(let problem):
      add("tokens", .fail, problem.message, fix: "see the store's message", status: problem.status)
    case .success(nil):
      switch session.renewal {
      case .refreshToken:
        add(
          "tokens", .fail, "not signed in",
          fix: "strivacity login\(session.profileFlag)",
          status: .signInRequired)
      case .clientCredentials:
        add("tokens", .pass, "none kept yet (strivacity token asks for one)")
      }
    case .success(let tokens?):
      let left = tokens.expiresAt.map { $0 - now }
      let lifetime = left.map { $0 > 0 ? " valid for \($0) s" : " expired" } ?? " without an expiry"
      let scopes = tokens.scope.map { "; scopes \($0.value)" } ?? ""
      switch session.renewal {
      case .refreshToken:
        // Renewed by its refresh token: expired without one, only a sign-in helps.
        let refresh = tokens.refreshToken != nil
        let detail =
          "signed in; access token" + lifetime + (refresh ? "; refresh token held" : "; no refresh token") + scopes
        if let left, left <= 0, !refresh {
          add(
            "tokens", .fail, detail,
            fix: "strivacity login\(session.profileFlag)",
            status: .signInRequired)
        } else {
          add("tokens", .pass, detail)
        }
      case .clientCredentials:
        // Asked anew whenever it is due: never a failure.
        add("tokens", .pass, "access token" + lifetime + scopes)
      }
    }
    if case .refreshToken = session.renewal { refreshTried(session, loaded[0], discovery: discovery) }
    for (api, result) in zip(session.resolved.profile.apis, loaded.dropFirst()) {
      let id = "api \(api.name)"
      switch result {
      case .failure(let problem): add(id, .warn, problem.message)
      case .success(nil): add(id, .skipped, "no token yet (strivacity token --api \(api.name))")
      case .success(let tokens?):
        var detail =
          tokens.expiresAt.map { $0 > now ? "valid for \($0 - now) s" : "expired (renewed on next use)" }
          ?? "token held"
        if let scope = tokens.scope { detail += "; scopes \(scope.value)" }
        add(id, .pass, detail)
      }
    }
  }

  /// A kept set, read without a prompt: an item the keyring keeps locked to this process
  /// (KeePassXC until access is allowed) is not read.
  private func load(_ session: TokenBroker, _ key: StoreKey, state: KeyringInspection.ItemState??) -> Result<
    TokenSet?, CLIFailure
  > {
    do {
      switch session.resolved.store {
      case .file: return .success(try FileStore(stateDirectory: context.paths.stateDir).load(key))
      case .kernel:
        return .success(try MachineTokenStore(key, environment: context.environment) { TokenBroker.now() }.load(key))
      case .secretService:
        switch state {
        case .some(.some(.absent)): return .success(nil)
        case .some(.some(.present(lockedToUs: true))):
          return .failure(
            CLIFailure(
              "the keyring keeps the item locked to this process (access not allowed yet; not asked)",
              status: .keyringDenied))
        default: return .success(try quietKeyring().load(key))
        }
      }
    } catch {
      return .failure(CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .store))
    }
  }

  // MARK: 9b. the credentials, tried

  /// Why the tenant is not asked: it was not reached, or its discovery document is unusable.
  private func untried(_ discovery: Discovery?) -> String? {
    guard discovery == nil else { return nil }
    let reached = report.checks.contains { $0.id == "tenant" && $0.outcome == .pass }
    return reached ? "the tenant's discovery document is unusable" : "the tenant cannot be reached"
  }

  /// A machine profile's credentials: where its secret or key comes from and that it is there
  /// (read, never shown), then tried by one client-credentials request whose token is not kept.
  /// `discovery`: the tenant's document (nil: not reached, so not tried).
  package func machineCredentials(_ session: TokenBroker, discovery: Discovery?) {
    guard let found = machineProof(session) else { return }
    guard let discovery else {
      add("credentials", .skipped, "\(found); not tried: \(untried(nil)!)")
      return
    }
    // The document just fetched, so that the try is one request.
    session.tenantClient.keep(endpoints: discovery.cacheable)
    do {
      progress?.start("trying the client's credentials…")
      let answer = Result { try session.clientCredentialsAnswer() }
      progress?.stop()
      let (outcome, method) = try answer.get()
      do {
        _ = try session.machineAnswer(outcome, ask: nil, method: method)
        add(
          "credentials", .pass,
          "\(found): the tenant gave client \(session.clientID) a token for it (\(method); the token not kept)")
      } catch {
        let problem = failure(error, else: .server)
        let grant = ["unauthorized_client", "unsupported_grant_type"].contains(outcome.error?.code ?? "")
        let fix =
          switch problem.status {
          case .clientRefused where grant:
            "allow the client-credentials grant for client \(session.clientID) at the tenant"
          case .clientRefused: secretFix(session)
          case .transient: "try again later"
          default: "see the tenant's error in the message"
          }
        add("credentials", .fail, problem.message, fix: fix, status: problem.status)
      }
    } catch {
      // Before the tenant answered: the secret or key as read, the network.
      let problem = failure(error, else: .failure)
      add(
        "credentials", .fail, "\(found); the request failed: \(problem.message)",
        fix: problem.status == .transient ? "try again later" : "correct what the message names",
        status: problem.status)
    }
  }

  /// How to give the client its right secret or key, by where it comes from.
  private func secretFix(_ session: TokenBroker) -> String {
    let client = "client \(session.clientID)'s current secret"
    switch session.secretSource {
    case .environment(let variable)?: return "set \(variable) to \(client)"
    case .file(let path)?: return "write \(client) to \(path), readable only by you"
    case .keyring?:
      return "keep \(client): strivacity login --profile \(session.name) --client-secret-stdin "
        + "(or set \(SecretSource.defaultVariable))"
    case nil:
      return "register the key's public JWK for client \(session.clientID) at the tenant (strivacity status "
        + "--profile \(session.name) --jwk prints it), or set private_key_file to the registered key"
    }
  }

  /// What proves the client (the secret's source, or the key and its kid), read and there; nil
  /// when it is not, a row saying what was looked for and how to set it.
  private func machineProof(_ session: TokenBroker) -> String? {
    if session.resolved.profile.machine?.auth == .privateKeyJWT {
      let path = session.resolved.profile.machine?.privateKeyFile ?? ""
      do {
        let key = try session.signingKey()
        let kid = session.assertionKeyID.value(for: key) ?? key.thumbprint
        return "private key from \(path) (read, not shown), sent as kid \(kid)"
      } catch {
        add("credentials", .fail, message(error), fix: "correct private_key_file as the message says", status: .usage)
        return nil
      }
    }
    if case .keyring? = session.secretSource, session.resolved.store != .file, session.heldSecret == nil {
      return keptSecret(session)
    }
    do {
      _ = try session.clientSecret()
      return "client secret from \(session.secretSource.map { "\($0)" } ?? "?") (read, not shown)"
    } catch {
      add("credentials", .fail, message(error), fix: secretFix(session), status: .usage)
      return nil
    }
  }

  /// Neither the environment nor the config gives a secret: the one `login --client-secret-stdin`
  /// kept in the keyring, read only when the keyring gives it without asking anyone. What was
  /// looked for is said first; the keyring's own advice only when a keyring is there.
  private func keptSecret(_ session: TokenBroker) -> String? {
    let looked =
      "\(SecretSource.defaultVariable) is not set and [profiles.\(session.name)] names no client_secret_env or "
      + "client_secret_file"
    let configure =
      "set \(SecretSource.defaultVariable) to client \(session.clientID)'s secret, or name client_secret_env or "
      + "client_secret_file in [profiles.\(session.name)] of \(context.paths.config)"
    let kept: KeptSecretLook
    do {
      kept = try lookForKeptSecret(session)
    } catch let error as StoreError {
      switch error {
      case .noSessionBus, .noSecretService:
        // No keyring here at all (a CI runner, a container): the secret is simply not given.
        var what = "no Secret Service"
        if case .noSessionBus = error { what = "no D-Bus session bus" }
        add(
          "credentials", .fail,
          "no client secret: \(looked), and no keyring is here to keep one (\(what))", fix: configure, status: .usage)
      default:
        let problem = failure(error, else: .store)
        add(
          "credentials", .fail,
          "no client secret from the environment or the config (\(looked)); the keyring, where strivacity login "
            + "--client-secret-stdin keeps one, cannot be looked in: \(problem.message)",
          fix: "\(configure); or make the keyring usable as its message says", status: problem.status)
      }
      return nil
    } catch {
      add("credentials", .fail, message(error), fix: configure, status: .store)
      return nil
    }
    switch kept {
    case .absent:
      add(
        "credentials", .fail, "no client secret: \(looked), and the keyring holds none kept by strivacity login",
        fix: "strivacity login --profile \(session.name) --client-secret-stdin, or \(configure)", status: .usage)
      return nil
    case .locked(let what):
      add(
        "credentials", .fail,
        "no client secret from the environment or the config (\(looked)); \(what), where strivacity login "
          + "--client-secret-stdin keeps one, is locked (not unlocked here)",
        fix: "unlock it, or \(configure)", status: .keyringLocked)
      return nil
    case .lockedToUs:
      add(
        "credentials", .warn,
        "client secret kept in the keyring, locked to this process (access not allowed yet; not asked); not tried",
        fix: "strivacity token --profile \(session.name) asks for access")
      return nil
    case .readable:
      do {
        _ = try session.clientSecret()
        return "client secret kept in the keyring (read, not shown)"
      } catch {
        let problem = failure(error, else: .store)
        add("credentials", .fail, problem.message, fix: secretFix(session), status: problem.status)
        return nil
      }
    }
  }

  private enum KeptSecretLook {
    case absent, readable, lockedToUs
    /// The collection is locked (its items cannot be searched): which one.
    case locked(String)
  }

  /// The kept client secret looked for without a prompt (the keyring's inspection), in the
  /// context's kept secrets when a test replaced them.
  private func lookForKeptSecret(_ session: TokenBroker) throws -> KeptSecretLook {
    if context.secrets != nil { return try session.secretStore().contains(session.secretKey) ? .readable : .absent }
    let inspection = try KeyringSecretStore(quietKeyring()).inspect([session.secretKey])
    if inspection.locked { return .locked(inspection.collection) }
    switch inspection.items.first ?? nil {
    case .present(lockedToUs: true)?: return .lockedToUs
    case .present?: return .readable
    default: return .absent
    }
  }

  /// A person's refresh token, tried by one refresh through the broker's own path (the refresh
  /// lock; the new set stored as every refresh stores it, the agent told); or why it is not
  /// tried. A refused refresh token is dead: only a sign-in helps.
  package func refreshTried(_ session: TokenBroker, _ held: Result<TokenSet?, CLIFailure>, discovery: Discovery?) {
    let why: String? =
      switch held {
      case .failure: "the profile's tokens cannot be read"
      case .success(nil): "not signed in"
      case .success(let tokens?) where tokens.refreshToken == nil: "no refresh token is held"
      case .success: untried(discovery)
      }
    if let why {
      add("credentials", .skipped, "refresh token not tried: \(why)")
      return
    }
    let login = "strivacity login\(session.profileFlag)"
    do {
      // Up to the profile's own time-out: on a terminal, said while it waits.
      progress?.start("trying the refresh token…")
      defer { progress?.stop() }
      let tokens = try session.freshTokens(Freshness(seconds: 0, explicit: false, force: true))
      let left = tokens.expiresAt.map { "; access token valid for \($0 - session.now()) s" } ?? ""
      add("credentials", .pass, "the tenant took the refresh token (one refresh; the new tokens are kept\(left))")
    } catch {
      let problem = failure(error, else: .failure)
      let fix =
        switch problem.status {
        case .signInRequired: "sign in again: \(login)"
        case .transient: "try again later"
        default: "see the message"
        }
      add("credentials", .fail, problem.message, fix: fix, status: problem.status)
    }
  }

  // MARK: 10. git and kubectl

  private func git(_ session: TokenBroker) {
    let hosts = session.resolved.profile.gitHosts
    guard !hosts.isEmpty else {
      add("git", .skipped, "not set up (strivacity setup-git --host HOST)")
      return
    }
    var missing: [String] = []
    for host in hosts {
      let key = "credential.\(host.gitURL).helper"
      guard let answer = try? runProgram(["git", "config", "--get-all", key], quiet: true) else {
        add("git", .warn, "git is not on PATH", fix: "install git")
        return
      }
      if !answer.output.split(separator: "\n").contains(where: { $0.contains("strivacity") }) {
        missing.append(host.gitURL)
      }
    }
    if missing.isEmpty {
      add("git", .pass, "git asks strivacity for \(hosts.map(\.gitURL).joined(separator: ", "))")
    } else {
      add(
        "git", .warn, "git does not ask strivacity for \(missing.joined(separator: ", "))",
        fix: "strivacity setup-git --profile \(session.name) --host \(missing[0])")
    }
  }

  private func kubectl(_ session: TokenBroker) {
    guard !session.resolved.profile.kubeClusters.isEmpty else {
      add("kubectl", .skipped, "not set up (strivacity setup-kubectl)")
      return
    }
    let fix = "strivacity setup-kubectl --profile \(session.name)"
    // kubectl's own view of the merged kubeconfig, with its secrets redacted.
    guard let answer = try? runProgram(["kubectl", "config", "view", "-o", "json"], quiet: true), answer.status == 0,
      let view = JSONValue.parse(Array(answer.output.utf8))
    else {
      add(
        "kubectl", .warn, "kubectl is not on PATH, or cannot read its kubeconfig", fix: "install kubectl; then \(fix)")
      return
    }
    let users = (view["users"]?.array ?? []).filter { entry in
      guard let exec = entry["user"]?["exec"], let command = exec["command"]?.string,
        command.split(separator: "/").last == "strivacity"
      else { return false }
      let arguments = (exec["args"]?.array ?? []).compactMap(\.string)
      return zip(arguments, arguments.dropFirst()).contains { $0 == "--profile" && $1 == session.name }
    }
    if users.isEmpty {
      add("kubectl", .warn, "no kubeconfig user runs strivacity for this profile", fix: fix)
    } else {
      let names = users.compactMap { $0["name"]?.string }
      add("kubectl", .pass, "kubeconfig user \(names.joined(separator: ", ")) runs strivacity for this profile")
    }
  }
}

extension Array {
  fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

// A profile at work after sign-in: its store and key, fresh tokens (refreshing once per
// expiry, however many processes ask), and the tenant's endpoints. The network (and libcurl)
// is touched only when a refresh, revocation or userinfo call needs it.
import Agent
import OAuthCore
import StrivacityConfig
import StrivacityCore
import SystemIO

package final class TokenBroker {
  package let context: Context
  package let resolved: ResolvedProfile
  package let tenant: String
  package let clientID: String
  package let key: StoreKey
  package let store: TokenStore
  package let log: Log
  /// The tenant's endpoints (kept with the tokens, or discovered) and every request to them.
  package let tenantClient: TenantClient
  /// Whether fresh tokens are asked of `strivacity agent` first (AgentClient.enabled).
  package let asksAgent: Bool
  /// The config as read for this profile (its top level and the profile's table).
  package let config: Config?
  /// A machine profile's client secret source (MachineTokens.swift); nil for a profile that
  /// signs in, or one that signs with a private key.
  package var secretSource: SecretSource?
  /// A secret from the environment, taken out of it when the session starts (so that no child
  /// inherits it); or the one `login --client-secret-stdin` is checking.
  package var heldSecret: String?
  /// How a person is signed in again in the middle of a command (SignInAgain.swift); nil where
  /// nobody may be asked (the agent).
  package var signIn: SignIn?
  /// What says a slow request is under way (the command line's spinner); nil: nothing does.
  package var progress: (any ProgressIndicator)?
  /// How its tokens are renewed without a person, chosen once from the profile's grant.
  package let renewer: any Renewer

  /// `apis`: which of the profile's API tables are read from the config (`token` needs few).
  package init(
    context: Context, overrides: ProfileOverrides, log: Log, profile: String? = nil, apis: APITables = .all
  ) throws {
    self.context = context
    var overrides = overrides
    if let profile { overrides.profile = profile }
    let named = ResolvedProfile.requestedName(overrides: overrides, environment: context.environment)
    config = try context.config(onlyProfile: named, apis: apis)
    resolved = try ResolvedProfile.resolve(config: config, overrides: overrides, environment: context.environment)
    // Where a machine's secret is looked for: the environment, and what was handed over.
    let secretEnvironment = context.secretEnvironment
    // Not with --store: the agent resolves the store from the config alone.
    asksAgent =
      context.agentStore == nil && overrides.store == nil
      && (resolved.store == .secretService || resolved.store == .kernel)
      && resolved.agentServes(environment: secretEnvironment)
      && AgentClient.enabled(context.environment, config: config)
    key = try resolved.storeKey(configPath: context.paths.config)
    tenant = key.issuer
    clientID = key.clientID
    store = try context.store(for: resolved.store, key: key)
    self.log = log
    tenantClient = TenantClient(tenant: key.issuer, log: log) { [context, resolved, config, key] in
      if let transport = context.transport { return transport() }
      return try context.httpClient(for: resolved.profile, config: config, key: key, store: resolved.store)
    }
    renewer =
      switch resolved.renewal {
      case .refreshToken: RefreshTokenRenewer()
      case .clientCredentials: ClientCredentialsRenewer()
      }
    secretSource = resolved.secretSource(environment: secretEnvironment)
    if case .environment(let name) = secretSource {
      heldSecret = secretEnvironment[name]
      if context.isProcessEnvironment { Self.holdSecrets(); takeFromEnvironment(name) }
    }
  }

  /// How the profile's tokens are renewed without a person (ResolvedProfile.renewal), for the
  /// command line's words; the broker's work goes through `renewer`.
  package var renewal: Renewal { resolved.renewal }

  /// The CAs its requests trust, checked (Context.trust), for the curl `strivacity curl` runs too.
  package func trust() throws -> CATrust { try context.trust(for: resolved.profile, config: config) }

  /// The proxy its requests go through (Context.proxy), for the curl `strivacity curl` runs too,
  /// with the password for the proxy's user.
  package func proxy() throws -> (choice: ProxyChoice, password: String?) {
    let choice = try context.proxy(for: resolved.profile, config: config)
    return (choice, try context.proxyPassword(for: choice, key: key, store: resolved.store)?.password)
  }

  package var name: String { resolved.name }

  package var notSignedIn: BrokerError { .notSignedIn(profile: name) }

  /// Tokens whose access token lives at least the refresh margin more (`freshness`: an explicit
  /// one as asked, the default at most half the token's lifetime), by the profile's `renewer`.
  package func freshTokens(_ freshness: Freshness, idToken: Bool = false) throws -> TokenSet {
    try renewer.tokens(self, freshness, idToken: idToken)
  }

  /// A person's tokens, refreshed if needed or forced: one refresh however many processes ask.
  /// From the agent when it is enabled and answers (then without a refresh token; the ID token
  /// only with `idToken`); a forced refresh is done here.
  fileprivate func refreshedTokens(_ freshness: Freshness, idToken: Bool) throws -> TokenSet {
    if asksAgent, !freshness.force, let tokens = try agentTokens(freshness, idToken: idToken) { return tokens }
    // Forced: from the store itself (a cached copy may be older than what it holds).
    guard let tokens = try freshness.force ? store.reload(key) : store.load(key) else { throw notSignedIn }
    tenantClient.keep(endpoints: tokens.endpoints)
    if !tokens.needsRefresh(now: now(), freshness) { return tokens }
    guard refreshRequest(for: tokens) != nil else {
      if freshness.force, (tokens.secondsLeft(now: now()) ?? 1) > 0 {
        throw BrokerError.noRefreshToken(profile: name, .forced)
      }
      throw BrokerError.noRefreshToken(profile: name, .expired)
    }
    let lock = try RefreshLock(directory: context.paths.runtimeDir, profile: name, timeout: 45)
    defer { withExtendedLifetime(lock) {} }
    // Someone may have refreshed while we waited: the store is the truth (read past any copy in
    // memory: the agent's may be a minute old). A set written since we looked is taken as long
    // as it has not expired (a short-lived token may already be inside its margin again:
    // refreshing it once more would only race the others).
    guard let current = try store.reload(key) else { throw notSignedIn }
    let now = now()
    let replaced = current.obtainedAt != tokens.obtainedAt || current.accessToken != tokens.accessToken
    if !current.needsRefresh(now: now, freshness) || (replaced && (current.secondsLeft(now: now) ?? 1) > 0) {
      log.note("another process refreshed \(name)")
      return current
    }
    return try refresh(current)
  }

  /// An explicit margin (`freshness`) that `tokens`, handed out, do not meet: said on stderr,
  /// as the small binary says it (HotPath.sayShortfall). `prefix` names the caller for git.
  package func sayShortfall(_ tokens: TokenSet, _ freshness: Freshness, prefix: String = "") {
    if let warning = freshness.shortfallWarning(tokens, now: now(), profile: name, prefix: prefix) {
      context.warn(warning)
    }
  }

  /// The agent's answer for `target` (the sign-in's tokens, or an API's): tokens, or its refusal
  /// as this command's error; nil when there is no agent to ask or no usable answer (the work is
  /// done here, as without one: an agent from before APIs refuses an API's request as unknown).
  package func agentTokens(_ freshness: Freshness, idToken: Bool, target: AgentTokenTarget = .signIn) throws
    -> TokenSet?
  {
    guard
      let request = AgentClient.tokenRequest(
        profile: name, freshness: freshness, idToken: idToken, configPath: context.paths.config,
        environment: context.environment, target: target)
    else { return nil }
    switch AgentSocket.ask(
      request, environment: context.environment, timeout: AgentClient.timeout, notice: AgentClient.waitNotice)
    {
    case .answered(let answer):
      if let tokens = answer.tokenSet { return tokens }
      // The tenant's or the network's word is final (AgentMessage.finalRefusal); what may be the
      // agent's own (its keyring, its config) is tried here, as without an agent.
      if let refusal = answer.finalRefusal {
        throw BrokerError.agentRefused(message: refusal.message, status: refusal.status)
      }
      log.note("the agent could not (\(answer["message"] ?? "an answer that does not read")); doing without it")
      return nil
    case .unreachable(let why), .failed(let why):
      log.note("agent: \(why); doing without it")
      return nil
    }
  }

  /// How a person's stored set is renewed: its refresh token, when one is held. nil: only a
  /// sign-in renews it.
  package func refreshRequest(for tokens: TokenSet) -> TokenRequest? {
    guard let refreshToken = tokens.refreshToken else { return nil }
    return TokenRequest(grant: .refreshToken(refreshToken), client: .none(clientID: clientID))
  }

  private func refresh(_ current: TokenSet) throws -> TokenSet {
    // Interrupts are held only from sending the refresh to storing its answer (the old refresh
    // token may be rotated away by then); the new ID token is checked after that, with its
    // JWKS request, and kept only if it verifies.
    var (next, newIDToken) = try exchangeRefreshToken(current)
    guard let newIDToken else { return next }
    if let problem = refreshedIDTokenProblem(newIDToken, previous: current) {
      context.warn("the refreshed ID token for \(name) was refused (\(problem)); keeping the previous one")
      return next
    }
    next.idToken = newIDToken
    try store.save(next, for: key)
    return next
  }

  /// Sends the refresh and stores its answer, the previous ID token kept for now; returns the
  /// stored set and the new ID token, not yet verified.
  private func exchangeRefreshToken(_ current: TokenSet) throws -> (TokenSet, IDToken?) {
    guard let body = refreshRequest(for: current) else { throw notSignedIn }
    // Where to send it is settled first (a discovery request, if needed, is no reason to hold
    // Ctrl-C); interrupts are held from sending to storing the answer.
    var url = try tenantClient.endpoint(\.tokenEndpoint, "token endpoint")
    let keptEndpoint = tenantClient.discoveryFromStore
    if let stored = try withInterruptsHeld({
      try sendAndStore(body, to: url, current: current, keptEndpoint: keptEndpoint)
    }) {
      return stored
    }
    // The kept token endpoint is gone (the request was not taken, so it is safe to send again):
    // ask the tenant where it is now.
    tenantClient.forgetDiscovery()
    url = try tenantClient.endpoint(\.tokenEndpoint, "token endpoint")
    return try withInterruptsHeld { try sendAndStore(body, to: url, current: current, keptEndpoint: false)! }
  }

  /// One refresh request and its answer stored; nil when `keptEndpoint` and the endpoint is gone
  /// (HTTP 404, 405, 410: nothing was rotated, so the caller may ask discovery and send again).
  private func sendAndStore(
    _ body: TokenRequest, to url: String, current: TokenSet, keptEndpoint: Bool
  ) throws -> (TokenSet, IDToken?)? {
    // On a new connection (TokenRequest: a rotating refresh token is never sent twice).
    let outcome = try tenantClient.send(body, to: url)
    if keptEndpoint, [404, 405, 410].contains(outcome.status) {
      log.note("the kept token endpoint answered HTTP \(outcome.status); fetching discovery again")
      return nil
    }
    guard case .tokens(let parsed) = outcome else {
      if case .deadGrant = outcome {
        // The refresh token is dead (expired, revoked, or rotated elsewhere): forget it.
        var dead = current
        dead.refreshToken = nil
        try store.save(dead, for: key)
      }
      throw BrokerError(outcome, asking: .refresh(profile: name))
    }
    var admitted = parsed
    admitted.idToken = nil  // the one verified before stays until the new one verifies
    var next = admitted.tokenSet(now: now(), previous: current)
    if let discovery = tenantClient.currentDiscovery { next.endpoints = discovery.cacheable }
    try store.save(next, for: key)
    log.note("refreshed \(name)")
    return (next, parsed.idToken)
  }

  /// Why an ID token from a refresh cannot be stored, or nil when it verifies like the
  /// sign-in's (signature, iss, aud, azp, exp, iat; no nonce on refresh) and names the same
  /// subject as the one held (OpenID Connect Core §12.2).
  private func refreshedIDTokenProblem(_ idToken: IDToken, previous: TokenSet) -> String? {
    do {
      let claims = try IDTokenCheck.verify(
        idToken, discovery: tenantClient.discovery(), clientID: clientID, nonce: nil, now: now()
      ) { try self.tenantClient.send($0) }
      if let held = previous.idToken, let heldSubject = try? JWT(compact: held.value).claims["sub"],
        claims["sub"] != heldSubject
      {
        return "it names another subject"
      }
      return nil
    } catch let failure as IDTokenCheck.Failure {
      if case .invalid(let error) = failure { return "\(error)" }
      return "\(failure)"
    } catch let failure as BrokerError {
      return failure.message
    } catch {
      return "\(error)"
    }
  }

  /// Unix seconds now, by the context's clock (a test's own).
  package func now() -> Int64 { context.now() }

  /// Unix seconds now, for code that has no broker.
  package static func now() -> Int64 { wallClockSeconds() }
}

/// How a profile's tokens are renewed without a person, chosen once from its grant in
/// `TokenBroker.init`: a new grant is one new conforming type, in a file of its own.
package protocol Renewer {
  /// The profile's own tokens with at least `freshness` left (the ID token only with `idToken`).
  func tokens(_ broker: TokenBroker, _ freshness: Freshness, idToken: Bool) throws -> TokenSet
  /// A token for one of the profile's APIs (or an ad hoc one).
  func apiTokens(_ broker: TokenBroker, _ ask: TokenBroker.APIAsk, _ freshness: Freshness) throws -> TokenSet
  /// How the client proves itself at the revocation endpoint (RFC 7009 §2.1).
  func revocationClient(_ broker: TokenBroker) throws -> ClientAuthentication
  /// Whether a sign-in is needed before an API entry just added (`resource`, `scopes`) gets
  /// tokens, and the command that does it.
  func signInNeeded(_ broker: TokenBroker, resource: String, scopes: [String], apiName: String) -> String
}

/// A person's sign-in, renewed by its refresh token (narrowed to an API for the API's token:
/// APITokens.swift); a refused target or scope offers a sign-in again.
struct RefreshTokenRenewer: Renewer {
  func tokens(_ broker: TokenBroker, _ freshness: Freshness, idToken: Bool) throws -> TokenSet {
    try broker.refreshedTokens(freshness, idToken: idToken)
  }
  func apiTokens(_ broker: TokenBroker, _ ask: TokenBroker.APIAsk, _ freshness: Freshness) throws -> TokenSet {
    try broker.refreshedAPITokens(ask, freshness)
  }
  func revocationClient(_ broker: TokenBroker) -> ClientAuthentication { .none(clientID: broker.clientID) }
  func signInNeeded(_ broker: TokenBroker, resource: String, scopes: [String], apiName: String) -> String {
    broker.consentNeeded(forResource: resource, scopes: scopes, apiName: apiName)
  }
}

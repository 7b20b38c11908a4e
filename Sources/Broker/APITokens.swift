// A token for one of a profile's APIs (issue 27): kept in the API's slot beside the sign-in's
// set, and renewed with the sign-in's refresh token narrowed to the API (RFC 8707 §2.2: its
// audience, resources and scopes). The refresh token is one for all of them: a rotated one is
// stored in the sign-in's set before the API's token is stored or handed out, under the same
// lock as every refresh of the profile. A target or scope the tenant refuses needs a sign-in that
// asks for it: on a terminal, one is offered at once (`signInAgain`), then the token is asked
// for once more.
import Agent
import OAuthCore
import StrivacityConfig
import StrivacityCore
import SystemIO

extension TokenBroker {
  /// The store key of `api`'s token set.
  package func key(for api: API) -> StoreKey { key(for: api.slot) }

  package func key(for slot: TokenSlot) -> StoreKey { key.with(slot: slot) }

  /// What an API token is asked for, as this code and the agent's request name it.
  package struct APIAsk {
    /// How messages name it: "API orders", "the ad hoc API" (whose parameters the refusal names).
    package var label: String
    package var slot: TokenSlot
    package var target: APITarget
    /// Scopes asked besides the API's own: a kept token serves only when it has them.
    package var extraScopes: [Scope]
    /// The agent's name for it.
    package var wire: AgentTokenTarget

    /// Asked with scopes beyond the config's, its token is kept in a slot of its own, never the
    /// API's (`API.slot(extraScopes:)`).
    package static func api(_ api: API, extraScopes: [Scope] = []) -> APIAsk {
      APIAsk(
        label: "API \(api.name)", slot: api.slot(extraScopes: extraScopes),
        target: APITarget(api, extraScopes: extraScopes),
        extraScopes: extraScopes, wire: .api(api.name, extraScopes: extraScopes))
    }

    /// Its slot names its scopes: whatever is kept there was asked with them.
    package static func adHoc(_ target: AdHocTarget) -> APIAsk {
      APIAsk(
        label: "the ad hoc API", slot: target.slot, target: APITarget(target), extraScopes: [], wire: .adHoc(target))
    }

    /// Whether `kept` serves at `now`: not due by `freshness`, and carrying the extra scopes.
    package func serves(_ kept: TokenSet, _ freshness: Freshness, now: Int64) -> Bool {
      guard !kept.needsRefresh(now: now, freshness) else { return false }
      if extraScopes.isEmpty { return true }
      let granted = kept.scope?.value.split(separator: " ").map(String.init) ?? []
      return target.scopes.allSatisfy { granted.contains($0.value) }
    }
  }

  /// A token for `api` (with `extraScopes` besides its own) with at least `freshness` left: the
  /// one kept if it has the scopes, else a new one from the refresh grant narrowed to the API,
  /// checked to be for it (`APITarget.mismatch`). One with scopes beyond the API's own is kept
  /// apart from the API's (`APIAsk.api`).
  package func apiTokens(_ api: API, _ freshness: Freshness, extraScopes: [Scope] = []) throws -> TokenSet {
    try apiTokens(.api(api, extraScopes: extraScopes), freshness)
  }

  /// The same for an API named on the command line (`token --audience/--resource/--scope`).
  package func apiTokens(_ target: AdHocTarget, _ freshness: Freshness) throws -> TokenSet {
    try apiTokens(.adHoc(target), freshness)
  }

  /// From the agent when it is enabled and answers; else the kept one, or a new one. When the
  /// tenant refuses the target's audience, resources or scopes, a person at the terminal is
  /// signed in again asking for them and the token asked for once more; anyone else (and a
  /// second refusal) gets one line naming the API, the parameter and the tenant's error, exit 3.
  package func apiTokens(_ ask: APIAsk, _ freshness: Freshness) throws -> TokenSet {
    try renewer.apiTokens(self, ask, freshness)
  }

  /// A person's: the sign-in's refresh token narrowed to the API (RefreshTokenRenewer).
  func refreshedAPITokens(_ ask: APIAsk, _ freshness: Freshness) throws -> TokenSet {
    let target = ask.target
    do {
      return try apiTokensOnce(ask, freshness)
    } catch let refused as BrokerError where refused.signInMayCure {
      // The first attempt's lock is released here: the sign-in stores its set under it.
      try signInAgain(
        SignInExtras(scopes: target.scopes, resources: target.resources, audience: target.audience),
        reason: refused.message)
      do {
        return try apiTokensOnce(ask, freshness)
      } catch let again as BrokerError where again.signInMayCure {
        throw BrokerError.stillRefused(again)
      }
    }
  }

  private func apiTokensOnce(_ ask: APIAsk, _ freshness: Freshness) throws -> TokenSet {
    try keptOrRenewed(ask, freshness) { try narrowedRefresh(ask) }
  }

  /// The token kept for `ask` (nil: the profile's own) if it serves `freshness`, else `renew`'s,
  /// under the profile's refresh lock: one request however many processes ask. From the agent
  /// first when it is enabled and answers.
  func keptOrRenewed(_ ask: APIAsk?, _ freshness: Freshness, renew: () throws -> TokenSet) throws -> TokenSet {
    if asksAgent, !freshness.force,
      let tokens = try agentTokens(freshness, idToken: false, target: ask?.wire ?? .signIn)
    {
      return tokens
    }
    let slotKey = ask.map { key(for: $0.slot) } ?? key
    func serves(_ kept: TokenSet) -> Bool {
      ask?.serves(kept, freshness, now: now()) ?? !kept.needsRefresh(now: now(), freshness)
    }
    if !freshness.force, let kept = try store.load(slotKey), serves(kept) { return kept }
    let lock = try RefreshLock(directory: context.paths.runtimeDir, profile: name, timeout: 45)
    defer { withExtendedLifetime(lock) {} }
    // Someone may have asked while we waited.
    if !freshness.force, let kept = try store.reload(slotKey), serves(kept) {
      log.note("another process got \(name)'s token\(ask.map { " for \($0.label)" } ?? "")")
      return kept
    }
    return try renew()
  }

  /// A new token for `ask` by the sign-in's refresh token narrowed to it (RFC 8707 §2.2).
  private func narrowedRefresh(_ ask: APIAsk) throws -> TokenSet {
    guard let signIn = try store.reload(key) else { throw notSignedIn }
    guard var request = refreshRequest(for: signIn) else {
      throw BrokerError.noRefreshToken(profile: name, .api(ask.label))
    }
    request.additionalParameters += ask.target.parameters
    let url = try tenantClient.endpoint(\.tokenEndpoint, "token endpoint")
    return try withInterruptsHeld { try exchange(request, to: url, for: ask, signIn: signIn) }
  }

  private func exchange(_ request: TokenRequest, to url: String, for ask: APIAsk, signIn: TokenSet) throws -> TokenSet {
    let target = ask.target
    let outcome = try tenantClient.send(request, to: url)
    let now = now()
    guard case .tokens(let response) = outcome else {
      throw BrokerError(outcome, asking: .api(label: ask.label, target.narrowed))
    }
    // The rotated refresh token first: whatever becomes of this answer, it is not lost.
    if let rotated = response.refreshToken, rotated != signIn.refreshToken {
      var kept = signIn
      kept.refreshToken = rotated
      try store.save(kept, for: key)
    }
    if let mismatch = target.mismatch(accessToken: response.accessToken, responseScope: response.scope) {
      throw BrokerError.notForTarget(label: ask.label, mismatch: mismatch)
    }
    let tokens = TokenSet(
      accessToken: response.accessToken, tokenType: response.tokenType, scope: response.scope,
      expiresAt: response.expiresIn.map { now + $0 }, obtainedAt: now)
    try store.save(tokens, for: key(for: ask.slot))
    log.note("got \(name)'s token for \(ask.label)")
    return tokens
  }
}

extension APITarget {
  /// An API's, with `extraScopes` (a challenge's `scope=`, `--scope`) added after its own.
  package init(_ api: API, extraScopes: [Scope] = []) {
    self.init(audience: api.audience, resources: api.resources, scopes: Self.union(api.scopes, extraScopes))
  }

  /// An ad hoc target's (`token --audience/--resource/--scope`).
  package init(_ adHoc: AdHocTarget) {
    self.init(audience: adHoc.audience, resources: adHoc.resources, scopes: adHoc.scopes)
  }
}

extension TokenBroker {
  /// Makes `api`'s kept access token expired (a tool's helper said it failed: `erase`),
  /// its refresh token kept, so that the next ask renews it; under the profile's refresh lock.
  /// `api` nil: the sign-in's set. `onlyIf`: only while the kept access token is the one a tool
  /// rejected (git's `erase`): one renewed since is kept.
  package func expireKept(_ api: API?, onlyIf rejected: String? = nil) throws {
    let lock = try RefreshLock(directory: context.paths.runtimeDir, profile: name, timeout: 45)
    defer { withExtendedLifetime(lock) {} }
    let kept = api.map(key(for:)) ?? key
    guard var tokens = try store.load(kept), rejected.map({ tokens.accessToken.value == $0 }) ?? true else { return }
    tokens.expiresAt = min(tokens.expiresAt ?? 0, now() - 1)
    try store.save(tokens, for: kept)
  }

  /// Whether a sign-in is needed before an API entry with `resource` and `scopes`, just added,
  /// gets tokens, and the command that does it: a machine asks with its client credentials;
  /// a person's sign-in consented to the resources of the APIs configured when it asked
  /// (RFC 8707 §2.1), so a new resource, or a scope it was not granted, needs a new one.
  package func signInNeeded(forResource resource: String, scopes: [String], apiName: String) -> String {
    renewer.signInNeeded(self, resource: resource, scopes: scopes, apiName: apiName)
  }

  /// A person's: whether the current sign-in consented to `resource` and `scopes`.
  func consentNeeded(forResource resource: String, scopes: [String], apiName: String) -> String {
    let login = "strivacity login\(profileFlag)"
    let signIn: TokenSet?
    do {
      signIn = try store.load(key)
    } catch {
      return "unless the current sign-in asked for \(resource), sign in again to consent to it: \(login)"
    }
    guard let signIn, signIn.refreshToken != nil else { return "sign in to use it: \(login)" }
    let granted = Set((signIn.scope?.value ?? "").split(separator: " ").map(String.init))
    let others = resolved.profile.apis.filter { $0.name != apiName }
    let consented = others.contains { $0.resources.contains(resource) } && scopes.allSatisfy(granted.contains)
    if consented { return "no sign-in needed: the current sign-in already covers \(resource)" }
    return "sign in again to consent to it (the current sign-in did not ask for \(resource)): \(login); "
      + "on a terminal, strivacity token\(profileFlag) --api \(apiName) offers that itself"
  }
}

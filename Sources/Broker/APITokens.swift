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
    // A machine asks with its client credentials: no sign-in to offer (MachineTokens.swift).
    switch renewal {
    case .clientCredentials: return try machineTokens(ask, freshness)
    case .refreshToken: break
    }
    let target = ask.target
    do {
      return try apiTokensOnce(ask, freshness)
    } catch let refused as APIRefusal {
      // The first attempt's lock is released here: the sign-in stores its set under it.
      try signInAgain(
        SignInExtras(scopes: target.scopes, resources: target.resources, audience: target.audience),
        reason: refused.message)
      do {
        return try apiTokensOnce(ask, freshness)
      } catch let again as APIRefusal {
        var failure = CLIFailure("\(again.message), even after signing in again asking for it", status: .signInRequired)
        failure.signInOffered = true
        throw failure
      }
    }
  }

  /// The tenant's refusal of an API's target or scopes: what a sign-in asking for them may cure.
  private struct APIRefusal: Error {
    package var message: String
  }

  private func apiTokensOnce(_ ask: APIAsk, _ freshness: Freshness) throws -> TokenSet {
    if asksAgent, !freshness.force, let tokens = try agentTokens(freshness, idToken: false, target: ask.wire) {
      return tokens
    }
    let apiKey = key(for: ask.slot)
    if !freshness.force, let kept = try store.load(apiKey), ask.serves(kept, freshness, now: now()) { return kept }
    let lock = try RefreshLock(directory: context.paths.runtimeDir, profile: name, timeout: 45)
    defer { withExtendedLifetime(lock) {} }
    // Someone may have fetched it while we waited.
    if !freshness.force, let kept = try store.reload(apiKey), ask.serves(kept, freshness, now: now()) {
      log.note("another process renewed \(name)'s token for \(ask.label)")
      return kept
    }
    guard let signIn = try store.reload(key) else { throw notSignedIn }
    guard var request = renewalRequest(for: signIn) else {
      throw CLIFailure(
        "no refresh token is held for \(name), so no token for \(ask.label) can be asked for: run strivacity login",
        status: .signInRequired)
    }
    request.additionalParameters += ask.target.parameters
    let url = try tenantClient.endpoint(\.tokenEndpoint, "token endpoint")
    return try withInterruptsHeld { try exchange(request, to: url, for: ask, signIn: signIn) }
  }

  private func exchange(_ request: TokenRequest, to url: String, for ask: APIAsk, signIn: TokenSet) throws -> TokenSet {
    let target = ask.target
    let outcome = try tenantClient.send(request, to: url)
    let now = now()
    switch outcome {
    case .tokens(let response):
      // The rotated refresh token first: whatever becomes of this answer, it is not lost.
      if let rotated = response.refreshToken, rotated != signIn.refreshToken {
        var kept = signIn
        kept.refreshToken = rotated
        try store.save(kept, for: key)
      }
      if let mismatch = target.mismatch(accessToken: response.accessToken, responseScope: response.scope) {
        throw CLIFailure("\(ask.label): \(mismatch); it was not kept", status: .server)
      }
      let tokens = TokenSet(
        accessToken: response.accessToken, tokenType: response.tokenType, scope: response.scope,
        expiresAt: response.expiresIn.map { now + $0 }, obtainedAt: now)
      try store.save(tokens, for: key(for: ask.slot))
      log.note("got \(name)'s token for \(ask.label)")
      return tokens
    case .serverError(200, let error):
      let reason = error.map { "\($0)" } ?? "HTTP 200"
      throw CLIFailure("the answer for \(ask.label) is unusable: \(reason)", status: outcome.failureStatus)
    case _ where outcome.isTransient:
      throw CLIFailure(
        "a token for \(ask.label) failed with HTTP \(outcome.status); stored tokens are unchanged",
        status: outcome.failureStatus)
    case _ where outcome.error != nil:
      throw refusal(outcome.error!, for: ask)
    default:
      throw CLIFailure("a token for \(ask.label) failed with HTTP \(outcome.status)", status: outcome.failureStatus)
    }
  }

  /// The tenant's refusal of a token for `api`, in one line naming the API, the parameter and the
  /// tenant's error. A target or scope it refuses needs a sign-in that asks for it: an
  /// `APIRefusal` (what `apiTokens` answers with `signInAgain`).
  private func refusal(_ error: OAuthError, for ask: APIAsk) -> any Error {
    let target = ask.target
    guard case .server(let code, _, _) = error else {
      return CLIFailure("a token for \(ask.label) failed: \(error)", status: .server)
    }
    let parameter: String
    switch code {
    case "invalid_target":
      parameter = target.audience.map { "audience \($0)" } ?? "resource \(target.resources.joined(separator: " "))"
    case "invalid_scope", "invalid_grant":
      parameter = "scope \(target.scopes.map(\.value).joined(separator: " "))"
    default:
      return CLIFailure("the tenant refused a token for \(ask.label): \(error)", status: .server)
    }
    return APIRefusal(message: "the tenant refused a token for \(ask.label) (\(parameter)): \(error)")
  }
}

extension TokenBroker {
  /// A tool helper's token for `api` (a registry's `get`): with the profile's margin,
  /// never through a sign-in (a refused refresh, or no sign-in yet, is a failure naming
  /// `strivacity login`); a margin the tenant's tokens cannot meet is said with `prefix`.
  package func helperToken(_ api: API, prefix: String) throws -> BearerToken {
    let freshness = Freshness.asked(nil, profile: resolved.profile)
    let tokens = try apiTokens(api, freshness)
    sayShortfall(tokens, freshness, prefix: prefix)
    return tokens.accessToken
  }

  /// Makes `api`'s kept access token expired (a tool's helper said it failed: `erase`),
  /// its refresh token kept, so that the next ask renews it; under the profile's refresh lock.
  package func expireKept(_ api: API) throws {
    let lock = try RefreshLock(directory: context.paths.runtimeDir, profile: name, timeout: 45)
    defer { withExtendedLifetime(lock) {} }
    let apiKey = key(for: api)
    guard var tokens = try store.load(apiKey) else { return }
    tokens.expiresAt = min(tokens.expiresAt ?? 0, now() - 1)
    try store.save(tokens, for: apiKey)
  }

  /// Whether a sign-in is needed before an API entry with `resource` and `scopes`, just added,
  /// gets tokens, and the command that does it: a machine asks with its client credentials;
  /// a person's sign-in consented to the resources of the APIs configured when it asked
  /// (RFC 8707 §2.1), so a new resource, or a scope it was not granted, needs a new one.
  package func signInNeeded(forResource resource: String, scopes: [String], apiName: String) -> String {
    switch renewal {
    case .clientCredentials:
      return "no sign-in needed: a machine profile asks for its tokens with its own credentials"
    case .refreshToken: break
    }
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

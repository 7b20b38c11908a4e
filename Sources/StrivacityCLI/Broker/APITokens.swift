// A token for one of a profile's APIs (issue 27): kept in the API's slot beside the sign-in's
// set, and renewed with the sign-in's refresh token narrowed to the API (RFC 8707 §2.2: its
// audience, resources and scopes). The refresh token is one for all of them: a rotated one is
// stored in the sign-in's set before the API's token is stored or handed out, under the same
// lock as every refresh of the profile. A target or scope the tenant refuses needs a sign-in that
// asks for it: on a terminal, one is offered at once (`signInAgain`), then the token is asked
// for once more.
import OAuthCore
import StrivacityCore

extension ProfileSession {
  /// The store key of `api`'s token set.
  func key(for api: API) -> StoreKey {
    var key = self.key
    key.slot = api.slot
    return key
  }

  /// A token for `api` (with `extraScopes` besides its own) with at least `freshness` left: the
  /// one kept if it has the scopes, else a new one from the refresh grant narrowed to the API,
  /// checked to be for it (`APITarget.mismatch`). It replaces the one kept: a token with more
  /// scopes still serves the API. When the tenant refuses the API's audience, resources or
  /// scopes, a person at the terminal is signed in again asking for them and the token asked
  /// for once more; anyone else (and a second refusal) gets one line naming the API, the
  /// parameter and the tenant's error, exit 3.
  func apiTokens(_ api: API, _ freshness: Freshness, extraScopes: [Scope] = []) throws -> TokenSet {
    let target = APITarget(api, extraScopes: extraScopes)
    do {
      return try apiTokensOnce(api, freshness, target: target, extraScopes: extraScopes)
    } catch let refused as APIRefusal {
      // The first attempt's lock is released here: the sign-in stores its set under it.
      try signInAgain(
        SignInExtras(scopes: target.scopes, resources: target.resources, audience: target.audience),
        reason: refused.message)
      do {
        return try apiTokensOnce(api, freshness, target: target, extraScopes: extraScopes)
      } catch let again as APIRefusal {
        var failure = CLIFailure(
          "\(again.message), even after signing in again asking for it", status: .signInRequired)
        failure.signInOffered = true
        throw failure
      }
    }
  }

  /// The tenant's refusal of an API's target or scopes: what a sign-in asking for them may cure.
  private struct APIRefusal: Error {
    var message: String
  }

  private func apiTokensOnce(
    _ api: API, _ freshness: Freshness, target: APITarget, extraScopes: [Scope]
  ) throws -> TokenSet {
    let apiKey = key(for: api)
    func usable(_ kept: TokenSet) -> Bool {
      guard !kept.needsRefresh(now: Self.now(), freshness) else { return false }
      if extraScopes.isEmpty { return true }
      let granted = kept.scope?.value.split(separator: " ").map(String.init) ?? []
      return target.scopes.allSatisfy { granted.contains($0.value) }
    }
    if !freshness.force, let kept = try store.load(apiKey), usable(kept) { return kept }
    let lock = try RefreshLock(directory: context.paths.runtimeDir, profile: name, timeout: 45)
    defer { withExtendedLifetime(lock) {} }
    // Someone may have fetched it while we waited.
    if !freshness.force, let kept = try store.reload(apiKey), usable(kept) {
      log.note("another process renewed \(name)'s token for API \(api.name)")
      return kept
    }
    guard let signIn = try store.reload(key) else { throw notSignedIn }
    guard var request = renewalRequest(for: signIn) else {
      throw CLIFailure(
        "no refresh token is held for \(name), so no token for API \(api.name) can be asked for: run strivacity login",
        status: .signInRequired)
    }
    request.additionalParameters += target.parameters
    let url = try tenantClient.endpoint(\.tokenEndpoint, "token endpoint")
    return try withInterruptsHeld { try exchange(request, to: url, for: api, target: target, signIn: signIn) }
  }

  private func exchange(
    _ request: TokenRequest, to url: String, for api: API, target: APITarget, signIn: TokenSet
  ) throws -> TokenSet {
    let outcome = try tenantClient.send(request, to: url)
    let now = Self.now()
    switch outcome {
    case .tokens(let response):
      // The rotated refresh token first: whatever becomes of this answer, it is not lost.
      if let rotated = response.refreshToken, rotated != signIn.refreshToken {
        var kept = signIn
        kept.refreshToken = rotated
        try store.save(kept, for: key)
      }
      if let mismatch = target.mismatch(accessToken: response.accessToken, responseScope: response.scope) {
        throw CLIFailure("API \(api.name): \(mismatch); it was not kept", status: .server)
      }
      let tokens = TokenSet(
        accessToken: response.accessToken, tokenType: response.tokenType, scope: response.scope,
        expiresAt: response.expiresIn.map { now + $0 }, obtainedAt: now)
      try store.save(tokens, for: key(for: api))
      log.note("got \(name)'s token for API \(api.name)")
      return tokens
    case .serverError(200, let error):
      let reason = error.map { "\($0)" } ?? "HTTP 200"
      throw CLIFailure("the answer for API \(api.name) is unusable: \(reason)", status: .server)
    case _ where outcome.isTransient:
      throw CLIFailure(
        "a token for API \(api.name) failed with HTTP \(outcome.status); stored tokens are unchanged",
        status: .transient)
    case _ where outcome.error != nil:
      throw refusal(outcome.error!, api: api, target: target)
    default:
      throw CLIFailure("a token for API \(api.name) failed with HTTP \(outcome.status)", status: .server)
    }
  }

  /// The tenant's refusal of a token for `api`, in one line naming the API, the parameter and the
  /// tenant's error. A target or scope it refuses needs a sign-in that asks for it: an
  /// `APIRefusal` (what `apiTokens` answers with `signInAgain`).
  private func refusal(_ error: OAuthError, api: API, target: APITarget) -> any Error {
    guard case .server(let code, _, _) = error else {
      return CLIFailure("a token for API \(api.name) failed: \(error)", status: .server)
    }
    let parameter: String
    switch code {
    case "invalid_target":
      parameter = target.audience.map { "audience \($0)" } ?? "resource \(target.resources.joined(separator: " "))"
    case "invalid_scope", "invalid_grant":
      parameter = "scope \(target.scopes.map(\.value).joined(separator: " "))"
    default:
      return CLIFailure("the tenant refused a token for API \(api.name): \(error)", status: .server)
    }
    return APIRefusal(message: "the tenant refused a token for API \(api.name) (\(parameter)): \(error)")
  }
}

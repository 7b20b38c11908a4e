// A tool helper's answer made from a token rather than being it (ToolHelpers' Derivation:
// credentials a service trades for the token): the kept one while the helper finds it good for the current token, else
// one new request through the same HTTP client as every tenant request (libcurl, the profile's
// proxy and trust), its answer kept in the kernel's keyring for as long as the helper says —
// never in a file. The small binary answers the kept ones itself (HotHelper.swift).
import StrivacityConfig
import StrivacityCore
import TokenCache
import ToolHelpers

extension TokenBroker {
  /// The answer `derived` makes from `token`. Throws the helper's HelperFailure for a refusal.
  package func derivedAnswer(_ derived: Derivation, token: BearerToken) throws -> String {
    let cacheKey = derived.cacheKey(key)
    let caching = KernelTokenCache.enabled(context.environment)
    if caching, var record = KernelTokenCache.record(cacheKey) {
      defer { record.wipe() }
      if let kept = derived.cached(record, token, now()) { return kept }
    }
    let response = try tenantClient.send(derived.request(token), derived.asking)
    var made = try derived.made(response, token, now())
    defer { made.record.wipe() }
    log.note(made.note)
    if caching, let seconds = made.seconds { KernelTokenCache.putRecord(made.record, for: cacheKey, seconds: seconds) }
    return made.answer
  }
}

// The Secret Service store with the access-token cache (TokenCache) kept in step.
import StrivacityCore
import TokenCache

/// The Secret Service store with the access-token cache kept in step: every set read or written
/// through it is cached, every deletion drops the profile's entries. The cache is only ever
/// read by the small `strivacity` binary (Launcher's HotPath), never by this store.
public final class CachingSecretServiceStore: TokenStore {
  public let kind = StoreKind.secretService
  let base: SecretServiceStore
  let now: () -> Int64

  public init(_ base: SecretServiceStore, now: @escaping () -> Int64) {
    self.base = base
    self.now = now
  }

  public func load(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    let tokens = try base.load(key)
    if let tokens { KernelTokenCache.put(tokens, for: key, now: now()) } else { KernelTokenCache.drop(key) }
    return tokens
  }

  public func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    KernelTokenCache.drop(key)  // never newer than the store, even if the save fails
    try base.save(tokens, for: key)
    KernelTokenCache.put(tokens, for: key, now: now())
  }

  @discardableResult
  public func delete(profile: String) throws(StoreError) -> Bool {
    for key in (try? base.keys()) ?? [] where key.profile == profile { KernelTokenCache.drop(key) }
    return try base.delete(profile: profile)
  }

  public func keys() throws(StoreError) -> [StoreKey] { try base.keys() }
}

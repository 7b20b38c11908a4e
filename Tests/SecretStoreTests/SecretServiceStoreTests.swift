// These tests talk to a real gnome-keyring-daemon on a private session bus: run them through
// Scripts/with-keyring (which `make test` does). Without it they fail rather than skip, so a
// green run always means the keyring was exercised.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing
import TokenCache

@testable import SecretStore

@Suite(.serialized) struct SecretServiceStoreTests {
  init() throws {
    try #require(
      TestEnvironment.hasRealKeyring,
      "no real Secret Service: run the tests with `make test` (Scripts/with-keyring swift test)")
  }

  static func tokens(_ tag: String, expiresAt: Int64 = 2_000_000_000) -> TokenSet {
    TokenSet(
      accessToken: try! BearerToken(admitting: "access-\(tag)"), refreshToken: "refresh-\(tag)", idToken: "h.p.\(tag)",
      scope: "openid profile",
      expiresAt: expiresAt, obtainedAt: expiresAt - 3600)
  }

  @Test func storeLookupReplaceDeleteRoundTrip() throws {
    let store = SecretServiceStore()
    let key = StoreKey(profile: "roundtrip", issuer: "https://tenant.example/", clientID: "client-1")
    try store.delete(profile: key.profile)
    #expect(try store.load(key) == nil)

    try store.save(Self.tokens("one"), for: key)
    #expect(try store.load(key) == Self.tokens("one"))

    try store.save(Self.tokens("two"), for: key)
    #expect(try store.load(key) == Self.tokens("two"))
    #expect(try store.keys().filter { $0.profile == "roundtrip" } == [key])

    #expect(try store.delete(profile: key.profile))
    #expect(try store.load(key) == nil)
    #expect(try !store.delete(profile: key.profile))
  }

  @Test func itemsCarryOurLabelAndAttributes() throws {
    let store = SecretServiceStore()
    let key = StoreKey(profile: "labelled", issuer: "https://label.example/", clientID: "client-l")
    try store.save(Self.tokens("l"), for: key)
    defer { _ = try? store.delete(profile: key.profile) }

    // Cross-check with libsecret's own command-line tool, not our code.
    let result = try run(
      ["/usr/bin/secret-tool", "search", "--all", "profile", "labelled"],
      environment: ProcessInfo.processInfo.environment)
    #expect(result.status == 0, "\(result.stderr)")
    let text = result.stdout + result.stderr
    #expect(text.contains("label = strivacity: labelled (https://label.example/)"))
    #expect(text.contains("schema = com.strivacity.cli.TokenSet"))
    #expect(text.contains("attribute.profile = labelled"))
    #expect(text.contains("attribute.issuer = https://label.example/"))
    #expect(text.contains("attribute.client_id = client-l"))
    #expect(text.contains("access-l"), "the secret is the JSON token set")

    let lookup = try run(
      [
        "/usr/bin/secret-tool", "lookup", "profile", "labelled", "issuer", "https://label.example/", "client_id",
        "client-l",
      ],
      environment: ProcessInfo.processInfo.environment)
    let stored = try TokenSet.decode(Array(lookup.stdout.utf8), source: "secret-tool")
    #expect(stored == Self.tokens("l"))
  }

  @Test func aProfileHoldsOneSetEvenWhenItsTenantChanges() throws {
    let store = SecretServiceStore()
    let old = StoreKey(profile: "moved", issuer: "https://old.example/", clientID: "c")
    let new = StoreKey(profile: "moved", issuer: "https://new.example/", clientID: "c")
    try store.save(Self.tokens("old"), for: old)
    try store.save(Self.tokens("new"), for: new)
    defer { _ = try? store.delete(profile: "moved") }
    #expect(try store.keys().filter { $0.profile == "moved" } == [new])
    #expect(try store.load(old) == nil)
    #expect(try store.load(new) == Self.tokens("new"))
  }

  /// Another slot than the sign-in's (StoreKey.slot) is an item of its own with a `slot`
  /// attribute; saving either leaves the other, a deletion takes both. The sign-in's item has
  /// the three attributes only (itemsCarryOurLabelAndAttributes).
  @Test func eachSlotIsAnItemOfItsOwn() throws {
    let store = SecretServiceStore()
    let signIn = StoreKey(profile: "slots", issuer: "https://t.example/", clientID: "c")
    let slot = try #require(TokenSlot(stored: "api"))
    let api = StoreKey(profile: "slots", issuer: "https://t.example/", clientID: "c", slot: slot)
    defer { _ = try? store.delete(profile: "slots") }
    try store.save(Self.tokens("sign-in"), for: signIn)
    try store.save(Self.tokens("api"), for: api)
    try store.save(Self.tokens("sign-in-2"), for: signIn)
    #expect(try store.load(signIn) == Self.tokens("sign-in-2"))
    #expect(try store.load(api) == Self.tokens("api"))
    #expect(try Set(store.keys().filter { $0.profile == "slots" }) == [signIn, api])
    let listed = try run(
      ["/usr/bin/secret-tool", "search", "--all", "profile", "slots"], environment: ProcessInfo.processInfo.environment)
    let text = listed.stdout + listed.stderr
    #expect(text.contains("label = strivacity: slots api (https://t.example/)"))
    #expect(text.contains("attribute.slot = api"))
    #expect(try store.delete(profile: "slots"))
    #expect(try store.keys().filter { $0.profile == "slots" } == [])
  }

  @Test func theKernelCacheNamesTheSignInsSetAsBefore() throws {
    let key = StoreKey(profile: "p", issuer: "https://t.example/", clientID: "c")
    #expect(KernelTokenCache.description(key) == "strivacity:v2:p:https://t.example/:c")
    let slot = try #require(TokenSlot(stored: "api"))
    let api = StoreKey(profile: "p", issuer: "https://t.example/", clientID: "c", slot: slot)
    #expect(KernelTokenCache.description(api) == "strivacity:v2+api:p:https://t.example/:c")
  }

  @Test func profilesAreKeptApart() throws {
    let store = SecretServiceStore()
    let a = StoreKey(profile: "apart-a", issuer: "https://t.example/", clientID: "c")
    let b = StoreKey(profile: "apart-b", issuer: "https://t.example/", clientID: "c")
    try store.save(Self.tokens("a"), for: a)
    try store.save(Self.tokens("b"), for: b)
    try store.delete(profile: "apart-a")
    #expect(try store.load(a) == nil)
    #expect(try store.load(b) == Self.tokens("b"))
    try store.delete(profile: "apart-b")
  }

  @Test func foreignItemsWithOurAttributesAreNotOurs() throws {
    // secret-tool stores without our schema name: our lookups must not pick that up.
    let env = ProcessInfo.processInfo.environment
    let stored = try run(
      [
        "/usr/bin/secret-tool", "store", "--label", "impostor", "profile", "impostor", "issuer", "https://t.example/",
        "client_id", "c",
      ],
      environment: env, stdin: "not-a-token-set")
    #expect(stored.status == 0, "\(stored.stderr)")
    let store = SecretServiceStore()
    #expect(try store.load(StoreKey(profile: "impostor", issuer: "https://t.example/", clientID: "c")) == nil)
    #expect(try !store.keys().contains { $0.profile == "impostor" })
  }

  @Test func unreadableSecretsAreReportedWithoutTheirContent() throws {
    let env = ProcessInfo.processInfo.environment
    // A schema-tagged item whose secret is not a token set (written by someone else).
    let stored = try run(
      [
        "/usr/bin/secret-tool", "store", "--label", "x", "xdg:schema", SecretServiceStore.schemaName,
        "profile", "garbled", "issuer", "https://t.example/", "client_id", "c",
      ],
      environment: env, stdin: "SECRET-GARBAGE")
    #expect(stored.status == 0, "\(stored.stderr)")
    let store = SecretServiceStore()
    defer { _ = try? store.delete(profile: "garbled") }
    expectCorrupt(hiding: "SECRET-GARBAGE", "garbage accepted") {
      _ = try store.load(StoreKey(profile: "garbled", issuer: "https://t.example/", clientID: "c"))
    }
  }
}

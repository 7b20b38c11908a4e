// A machine profile's store where the kernel refuses keyrings (MachineTokenStore's `.files`
// place): every slot saved, listed and deleted with the profile; off keeps nothing.
import Broker
import Foundation
import StrivacityConfig
import StrivacityCore
import Testing
import TokenCache

@Suite struct MachineTokenStoreTests {
  let key = StoreKey(profile: "ci", issuer: "https://t.example/", clientID: "bot")
  let now: Int64 = 1_900_000_000

  @Test func inFilesEverySlotIsKeptListedAndDeleted() throws {
    var template = Array((NSTemporaryDirectory() + "/strivacity-machine-XXXXXX").utf8CString)
    let home = String(cString: try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }))
    defer { try? FileManager.default.removeItem(atPath: home) }
    let files = MachineTokenFiles(environment: ["HOME": home])
    let place = MachineTokenStore.Place.files(files, refusal: "EPERM")
    #expect(
      place.note == "kept in a private file on disk in \(files.directory) (the kernel's keyring is refused here: EPERM)"
    )
    let store = MachineTokenStore(key, place: place) { now }
    let tokens = TokenSet(accessToken: "at-1", expiresAt: now + 600, obtainedAt: now)
    let api = key.with(slot: try #require(TokenSlot(apiName: "orders")))
    try store.save(tokens, for: key)
    try store.save(tokens, for: api)
    #expect(try store.load(key) == tokens && store.load(api) == tokens)
    #expect(try store.keys() == [key, api])
    #expect(try store.delete(profile: "ci"))
    #expect(try store.keys() == [] && store.load(key) == nil)
    #expect(try !store.delete(profile: "ci"))

    let off = MachineTokenStore(key, place: .nowhere) { now }
    try off.save(tokens, for: key)
    #expect(try off.load(key) == nil && off.keys() == [])
    #expect(MachineTokenStore.Place.nowhere.note == nil && MachineTokenStore.Place.kernel.note == nil)
  }

  /// An API's slots name its settings (API.slot, issue 46): the one of settings the config no
  /// longer has, the current one's, and the longest API name's are each kept apart, listed and
  /// deleted with the profile, in files and in the kernel's keyring.
  @Test func apiSlotsNamingTheirSettingsAreListedAndDeleted() throws {
    var template = Array((NSTemporaryDirectory() + "/strivacity-machine-XXXXXX").utf8CString)
    let home = String(cString: try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }))
    defer { try? FileManager.default.removeItem(atPath: home) }
    let url = try HostEntry(admitting: "https://api.example.com/orders/")
    let before = API(name: "orders", url: url, audience: "https://a.example/one")
    var after = before
    after.audience = "https://a.example/two"
    let longest = API(name: String(repeating: "o", count: 64), url: url, audience: "https://a.example/one")
    var places: [MachineTokenStore.Place] = [.files(MachineTokenFiles(environment: ["HOME": home]), refusal: "EPERM")]
    if KernelTokenCache.refusal() == nil { places.append(.kernel) }
    for place in places {
      // A profile of its own: the kernel's keyring is the user's, shared with other tests.
      let profileKey = StoreKey(profile: "ci-\(UInt32.random(in: 0...UInt32.max))", issuer: key.issuer, clientID: "bot")
      let store = MachineTokenStore(profileKey, place: place) { now }
      let keys = [before, after, longest].map { profileKey.with(slot: $0.slot) }
      let tokens: [BearerToken] = ["at-0", "at-1", "at-2"]
      for (token, key) in zip(tokens, keys) {
        try store.save(TokenSet(accessToken: token, expiresAt: now + 600, obtainedAt: now), for: key)
      }
      let listed = try store.keys()
      #expect(Set(listed) == Set(keys), "\(place): \(listed.map(\.slot))")
      #expect(try keys.map { try store.load($0)?.accessToken } == tokens)
      #expect(try store.delete(profile: profileKey.profile))
      #expect(try store.keys() == [] && keys.allSatisfy { try store.load($0) == nil }, "\(place)")
    }
  }

  /// A machine profile whose only token is its own (the sign-in's slot) lists it: its note in the
  /// kernel's keyring names that slot alone, which must not read back as no note at all.
  @Test func theSignInsSlotAloneIsListed() throws {
    guard KernelTokenCache.refusal() == nil else { return }
    let profileKey = StoreKey(profile: "ci-\(UInt32.random(in: 0...UInt32.max))", issuer: key.issuer, clientID: "bot")
    let store = MachineTokenStore(profileKey, place: .kernel) { now }
    try store.save(TokenSet(accessToken: "at-own", expiresAt: now + 600, obtainedAt: now), for: profileKey)
    #expect(try store.keys() == [profileKey])
    #expect(try store.delete(profile: profileKey.profile))
    #expect(try store.keys() == [])
  }
}

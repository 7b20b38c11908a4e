// A machine profile's store where the kernel refuses keyrings (MachineTokenStore's `.files`
// place): every slot saved, listed and deleted with the profile; off keeps nothing.
import Broker
import Foundation
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
}

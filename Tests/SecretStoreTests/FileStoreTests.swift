import Foundation
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

@testable import SecretStore

@Suite struct FileStoreTests {
  let key = StoreKey(profile: "work", issuer: "https://t.example/", clientID: "c")
  let tokens = TokenSet(accessToken: "at", refreshToken: "rt", expiresAt: 2_000_000_000, obtainedAt: 1_999_996_400)

  func mode(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
  }

  @Test func roundTripWithPrivatePermissions() throws {
    let dir = try ScratchDirectory("filestore")
    let store = FileStore(stateDirectory: dir.path + "/state/strivacity")
    #expect(try store.load(key) == nil)
    #expect(try store.keys() == [])

    let oldMask = umask(0o022)
    defer { umask(oldMask) }
    try store.save(tokens, for: key)
    #expect(try mode(store.path(for: "work")) == 0o600)
    #expect(try mode(store.directory) == 0o700)
    #expect(try store.load(key) == tokens)
    #expect(try store.keys() == [key])

    var newer = tokens
    newer.accessToken = "at2"
    try store.save(newer, for: key)
    #expect(try store.load(key) == newer)
    // No temporary files are left behind.
    #expect(dir.listing().filter { $0.contains(".tmp-") } == [])

    #expect(try store.load(StoreKey(profile: "work", issuer: "https://other.example/", clientID: "c")) == nil)
    #expect(try store.delete(profile: "work"))
    #expect(try store.load(key) == nil)
    #expect(try !store.delete(profile: "work"))
  }

  /// Another slot than the sign-in's (StoreKey.slot) is a file of its own, PROFILE+SLOT.json; the
  /// sign-in's file reads and is named as before, and a deletion takes the profile's every slot.
  @Test func eachSlotIsAFileOfItsOwn() throws {
    let dir = try ScratchDirectory("filestore")
    let store = FileStore(stateDirectory: dir.path)
    let slot = try #require(TokenSlot(stored: "api"))
    let api = StoreKey(profile: "work", issuer: key.issuer, clientID: key.clientID, slot: slot)
    var apiTokens = tokens
    apiTokens.accessToken = "at-api"
    try store.save(tokens, for: key)
    try store.save(apiTokens, for: api)
    #expect(store.path(for: key) == store.path(for: "work"))
    #expect(store.path(for: api) == store.directory + "/work+api.json")
    #expect(try !String(contentsOfFile: store.path(for: key), encoding: .utf8).contains("slot"))
    #expect(try store.load(key) == tokens)
    #expect(try store.load(api) == apiTokens)
    #expect(try store.keys() == [key, api])
    #expect(try store.delete(profile: "work"))
    #expect(try store.keys() == [])
  }

  @Test func refusesFilesOthersCanRead() throws {
    let dir = try ScratchDirectory("filestore")
    let store = FileStore(stateDirectory: dir.path)
    try store.save(tokens, for: key)
    let path = store.path(for: "work")
    chmod(path, 0o644)
    #expect(throws: StoreError.insecureFile(path: path, mode: "0644")) { try store.load(key) }
    chmod(path, 0o640)
    #expect(throws: StoreError.insecureFile(path: path, mode: "0640")) { try store.load(key) }
    do { _ = try store.load(key) } catch { #expect(error.description.contains("chmod 600 \(path)")) }
    chmod(path, 0o400)
    #expect(try store.load(key) == tokens)
  }

  @Test func refusesSymlinksAndCorruptFiles() throws {
    let dir = try ScratchDirectory("filestore")
    let store = FileStore(stateDirectory: dir.path)
    try dir.write("elsewhere.json", "{}")
    try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
    symlink(dir.file("elsewhere.json"), store.path(for: "work"))
    #expect(throws: StoreError.io(path: store.path(for: "work"), detail: "is a symbolic link; refusing to follow it")) {
      try store.load(key)
    }
    try dir.write("tokens/broken.json", "{\"access_token\": \"SECRET\"")
    do {
      _ = try store.load(StoreKey(profile: "broken", issuer: "i", clientID: "c"))
      Issue.record("corrupt file accepted")
    } catch {
      #expect(error == .corrupt(source: store.path(for: "broken"), detail: "not a strivacity token file"))
      #expect(!error.description.contains("SECRET"))
    }
  }

  @Test func concurrentWritersNeverTearTheFile() throws {
    let dir = try ScratchDirectory("filestore")
    let store = FileStore(stateDirectory: dir.path)
    try store.save(tokens, for: key)
    let failures = Synchronization.Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      for round in 0..<25 {
        var next = tokens
        next.accessToken = try! BearerToken(admitting: "at-\(worker)-\(round)-" + String(repeating: "x", count: 2000))
        do {
          try store.save(next, for: key)
          _ = try store.load(key)
        } catch {
          failures.withLock { $0 += 1 }
        }
      }
    }
    #expect(failures.withLock { $0 } == 0)
    #expect(try store.load(key)?.accessToken.value.hasPrefix("at-") == true)
  }
}

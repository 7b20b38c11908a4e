// Kept secrets as items of their own (issue 38, point 3): the keyring's (against a real
// gnome-keyring-daemon: run through Scripts/with-keyring, as SecretServiceStoreTests) and the
// files', each apart from the tokens beside it, and each finding, moving and deleting a secret an
// earlier version kept as a token set.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@testable import SecretStore

/// A secret as an earlier version kept it: a token set whose access token is the secret's bytes,
/// base64url without padding.
func legacyTokenSet(_ secret: String) throws -> TokenSet {
  let encoded = Data(secret.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  return TokenSet(accessToken: try BearerToken(admitting: encoded), obtainedAt: 1_800_000_000)
}

@Suite(.serialized) struct KeyringSecretStoreTests {
  let environment = ProcessInfo.processInfo.environment

  init() throws {
    try #require(
      TestEnvironment.hasRealKeyring,
      "no real Secret Service: run the tests with `make test` (Scripts/with-keyring swift test)")
  }

  func key(_ profile: String, _ secret: KeptSecret = .clientSecret, issuer: String = "https://t.example/")
    -> SecretKey
  {
    SecretKey(profile: profile, issuer: issuer, clientID: "c", secret: secret)
  }

  /// secret-tool's view of a profile's items (libsecret's own tool, not our code).
  func listed(_ profile: String) throws -> String {
    let result = try run(["/usr/bin/secret-tool", "search", "--all", "profile", profile], environment: environment)
    return result.stdout + result.stderr
  }

  /// Stores `secret` as an earlier version did: a token set in the slot `slot`.
  func storeLegacy(_ secret: String, profile: String, slot: String, issuer: String = "https://t.example/") throws {
    let stored = try run(
      [
        "/usr/bin/secret-tool", "store", "--label", "strivacity: \(profile) \(slot) (\(issuer))", "xdg:schema",
        SecretServiceStore.schemaName, "profile", profile, "issuer", issuer, "client_id", "c", "slot", slot,
      ],
      environment: environment, stdin: String(decoding: try legacyTokenSet(secret).encoded(), as: UTF8.self))
    #expect(stored.status == 0, "\(stored.stderr)")
  }

  @Test func aSecretIsAnItemOfItsOwnKind() throws {
    let store = KeyringSecretStore(SecretServiceStore())
    let secret = key("kept-roundtrip")
    try store.delete(profile: secret.profile)
    #expect(try store.load(secret) == nil)
    #expect(try !store.contains(secret))

    try store.save(Array("s3cr:ét".utf8), for: secret)
    #expect(try store.load(secret) == Array("s3cr:ét".utf8))
    #expect(try store.contains(secret))
    try store.save(Array("second".utf8), for: secret)
    #expect(try store.load(secret) == Array("second".utf8))

    let text = try listed(secret.profile)
    #expect(text.components(separatedBy: "label = ").count == 2, "one item per profile and kind: \(text)")
    #expect(text.contains("label = strivacity: kept-roundtrip client secret (https://t.example/)"))
    #expect(text.contains("schema = com.strivacity.cli.KeptSecret"))
    #expect(text.contains("attribute.kept = client-secret"))
    #expect(text.contains("attribute.issuer = https://t.example/") && text.contains("attribute.client_id = c"))
    #expect(!text.contains("attribute.slot"))
    // The secret's bytes, nothing else.
    let lookup = try run(
      ["/usr/bin/secret-tool", "lookup", "profile", secret.profile, "kept", "client-secret"], environment: environment)
    #expect(lookup.stdout.trimmingCharacters(in: .newlines) == "second")

    // Another tenant or client of the profile: not this one's.
    #expect(try store.load(key(secret.profile, issuer: "https://other.example/")) == nil)
    #expect(try store.delete(profile: secret.profile))
    #expect(try store.load(secret) == nil)
    #expect(try !store.delete(profile: secret.profile))
  }

  /// The token store never lists, reads or deletes a kept secret, and the secret store never
  /// deletes a token set: two kinds, each deleted by its own store.
  @Test func tokensAndSecretsAreKeptApart() throws {
    let keyring = SecretServiceStore()
    let secrets = KeyringSecretStore(keyring)
    let tokens = StoreKey(profile: "kept-apart", issuer: "https://t.example/", clientID: "c")
    let secret = SecretKey(tokens, .proxyPassword)
    defer {
      _ = try? keyring.delete(profile: tokens.profile)
      _ = try? secrets.delete(profile: tokens.profile)
    }
    try keyring.save(SecretServiceStoreTests.tokens("apart"), for: tokens)
    try secrets.save(Array("pw".utf8), for: secret)
    #expect(try keyring.keys().filter { $0.profile == tokens.profile } == [tokens])
    #expect(try keyring.load(tokens) == SecretServiceStoreTests.tokens("apart"))

    #expect(try keyring.delete(profile: tokens.profile))
    #expect(try secrets.load(secret) == Array("pw".utf8), "deleting the tokens took the secret")
    try keyring.save(SecretServiceStoreTests.tokens("again"), for: tokens)
    #expect(try secrets.delete(profile: tokens.profile))
    #expect(try keyring.load(tokens) == SecretServiceStoreTests.tokens("again"), "deleting the secrets took the tokens")
    #expect(try !secrets.contains(secret))
  }

  /// Saving keeps one secret per profile and kind (another tenant's goes), and leaves the other kind.
  @Test func oneSecretPerProfileAndKind() throws {
    let store = KeyringSecretStore(SecretServiceStore())
    let old = key("kept-moved", issuer: "https://old.example/")
    let new = key("kept-moved", issuer: "https://new.example/")
    let proxy = key("kept-moved", .proxyPassword, issuer: "https://old.example/")
    defer { _ = try? store.delete(profile: "kept-moved") }
    try store.save(Array("old".utf8), for: old)
    try store.save(Array("proxy".utf8), for: proxy)
    try store.save(Array("new".utf8), for: new)
    #expect(try store.load(old) == nil)
    #expect(try store.load(new) == Array("new".utf8))
    #expect(try store.load(proxy) == Array("proxy".utf8))
    #expect(try listed("kept-moved").components(separatedBy: "label = ").count == 3)
  }

  /// A secret an earlier version kept as a token set (slot `machine.secret` or `proxy.password`) is
  /// no token set now (not listed, not deleted with the tokens), is found, read once and moved to
  /// the new kind of item, and is deleted with the profile's secrets.
  @Test func aSecretKeptTheOldWayIsFoundMovedAndDeleted() throws {
    let keyring = SecretServiceStore()
    let store = KeyringSecretStore(keyring)
    let secret = key("kept-legacy")
    defer {
      _ = try? store.delete(profile: secret.profile)
      _ = try? keyring.delete(profile: secret.profile)
    }
    try storeLegacy("ci:s3cr%t+ü/ä", profile: secret.profile, slot: "machine.secret")
    try storeLegacy("pa ss:wörd", profile: secret.profile, slot: "proxy.password")
    #expect(try keyring.keys().filter { $0.profile == secret.profile } == [])
    #expect(try !keyring.delete(profile: secret.profile))
    #expect(try listed(secret.profile).components(separatedBy: "label = ").count == 3)

    #expect(try store.contains(secret))
    let inspection = try store.inspect([secret, key(secret.profile, issuer: "https://other.example/")])
    #expect(inspection.items == [.present(lockedToUs: false), .absent])
    #expect(try store.load(secret) == Array("ci:s3cr%t+ü/ä".utf8))
    // Moved: an item of the new kind, the old one gone; read the same way again.
    let text = try listed(secret.profile)
    #expect(text.contains("attribute.kept = client-secret"), "\(text)")
    #expect(!text.contains("attribute.slot = machine.secret"), "\(text)")
    #expect(text.contains("attribute.slot = proxy.password"), "\(text)")
    #expect(try store.load(secret) == Array("ci:s3cr%t+ü/ä".utf8))

    // The proxy password, still the old way, goes with the moved secret.
    #expect(try store.delete(profile: secret.profile))
    #expect(try listed(secret.profile).components(separatedBy: "label = ").count == 1)
    #expect(try store.load(key(secret.profile, .proxyPassword)) == nil)
  }

  /// Saving a secret replaces one an earlier version kept of the same kind.
  @Test func savingReplacesTheOldWay() throws {
    let store = KeyringSecretStore(SecretServiceStore())
    let secret = key("kept-replaced", .proxyPassword)
    defer { _ = try? store.delete(profile: secret.profile) }
    try storeLegacy("old", profile: secret.profile, slot: "proxy.password")
    try store.save(Array("new".utf8), for: secret)
    #expect(try store.load(secret) == Array("new".utf8))
    let text = try listed(secret.profile)
    #expect(text.components(separatedBy: "label = ").count == 2 && !text.contains("attribute.slot"), "\(text)")
  }

  @Test func anUnreadableOldItemIsReportedWithoutItsContent() throws {
    let store = KeyringSecretStore(SecretServiceStore())
    let secret = key("kept-garbled")
    defer { _ = try? store.delete(profile: secret.profile) }
    let stored = try run(
      [
        "/usr/bin/secret-tool", "store", "--label", "x", "xdg:schema", SecretServiceStore.schemaName, "profile",
        secret.profile, "issuer", secret.issuer, "client_id", "c", "slot", "machine.secret",
      ],
      environment: environment, stdin: "SECRET-GARBAGE")
    #expect(stored.status == 0, "\(stored.stderr)")
    expectCorrupt(hiding: "SECRET-GARBAGE", "garbage accepted") { _ = try store.load(secret) }
    #expect(try store.delete(profile: secret.profile))
  }
}

@Suite struct FileSecretStoreTests {
  let key = SecretKey(profile: "work", issuer: "https://t.example/", clientID: "c", secret: .clientSecret)

  func mode(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
  }

  /// Writes `secret` where and as an earlier version kept it: a token file of the slot `slot`
  /// under client-secrets/tokens/.
  func writeLegacy(_ secret: String, slot: String, in dir: ScratchDirectory) throws -> String {
    let tokens = try JSONValue.parse(Array(JSONEncoder().encode(legacyTokenSet(secret))))
    let record: JSONValue = .object([
      "profile": "work", "issuer": .string(key.issuer), "client_id": .string(key.clientID), "slot": .string(slot),
      "v": 1, "tokens": try #require(tokens),
    ])
    try FileManager.default.createDirectory(
      atPath: dir.file("client-secrets/tokens"), withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    return try dir.write("client-secrets/tokens/work+\(slot).json", record.text)
  }

  @Test func aSecretIsAFileOfItsOwnWithPrivatePermissions() throws {
    let dir = try ScratchDirectory("secretfiles")
    let store = FileSecretStore(stateDirectory: dir.path)
    #expect(try store.load(key) == nil)
    #expect(try !store.contains(key))

    let oldMask = umask(0o022)
    defer { umask(oldMask) }
    try store.save(Array("ci:s3cr%t".utf8), for: key)
    #expect(store.path(for: key) == dir.path + "/secrets/work+client-secret.json")
    #expect(try mode(store.path(for: key)) == 0o600)
    #expect(try mode(store.directory) == 0o700)
    #expect(try store.load(key) == Array("ci:s3cr%t".utf8))
    #expect(try store.contains(key))
    let text = try String(contentsOfFile: store.path(for: key), encoding: .utf8)
    #expect(!text.contains("s3cr") && !text.contains("access_token") && text.contains("\"kept\":\"client-secret\""))
    #expect(dir.listing().filter { $0.contains(".tmp-") } == [])

    // The token files' store beside it neither lists nor deletes it.
    let tokens = FileStore(stateDirectory: dir.path)
    #expect(try tokens.keys() == [])
    #expect(try !tokens.delete(profile: "work"))
    // Another tenant's, another kind: not this one.
    var other = key
    other.issuer = "https://other.example/"
    #expect(try store.load(other) == nil)
    other = key
    other.secret = .proxyPassword
    #expect(try store.load(other) == nil)

    #expect(try store.delete(profile: "work"))
    #expect(try store.load(key) == nil)
    #expect(try !store.delete(profile: "work"))
  }

  @Test func refusesFilesOthersCanReadAndSymlinks() throws {
    let dir = try ScratchDirectory("secretfiles")
    let store = FileSecretStore(stateDirectory: dir.path)
    try store.save(Array("x".utf8), for: key)
    let path = store.path(for: key)
    chmod(path, 0o644)
    #expect(throws: StoreError.insecureFile(path: path, mode: "0644")) { try store.load(key) }
    unlink(path)
    try dir.write("elsewhere", "{}")
    symlink(dir.file("elsewhere"), path)
    #expect(throws: StoreError.io(path: path, detail: "is a symbolic link; refusing to follow it")) {
      try store.load(key)
    }
  }

  /// A secret an earlier version kept (a token file under client-secrets/tokens/) is found, read
  /// once and moved to a file of the new kind, and deleted with the profile's secrets.
  @Test func aSecretKeptTheOldWayIsFoundMovedAndDeleted() throws {
    let dir = try ScratchDirectory("secretfiles")
    let store = FileSecretStore(stateDirectory: dir.path)
    let machine = try writeLegacy("ci:s3cr%t+ü/ä", slot: "machine.secret", in: dir)
    let proxy = try writeLegacy("pa ss:wörd", slot: "proxy.password", in: dir)
    #expect(try store.contains(key))
    #expect(try store.load(key) == Array("ci:s3cr%t+ü/ä".utf8))
    #expect(!FileManager.default.fileExists(atPath: machine), "the old file was not moved")
    #expect(try mode(store.path(for: key)) == 0o600)
    #expect(try store.load(key) == Array("ci:s3cr%t+ü/ä".utf8))

    // Saving replaces an old one; deleting takes the old ones too.
    var password = key
    password.secret = .proxyPassword
    #expect(try store.contains(password))
    #expect(try store.delete(profile: "work"))
    #expect(!FileManager.default.fileExists(atPath: proxy))
    #expect(try !store.contains(password) && !store.contains(key))
    _ = try writeLegacy("old", slot: "proxy.password", in: dir)
    try store.save(Array("new".utf8), for: password)
    #expect(!FileManager.default.fileExists(atPath: proxy))
    #expect(try store.load(password) == Array("new".utf8))
  }

  /// An old file for another tenant is not this key's, and a corrupt one says so without its content.
  @Test func oldFilesAreReadOnlyForTheirOwnKey() throws {
    let dir = try ScratchDirectory("secretfiles")
    let store = FileSecretStore(stateDirectory: dir.path)
    _ = try writeLegacy("s", slot: "machine.secret", in: dir)
    var other = key
    other.issuer = "https://other.example/"
    #expect(try store.load(other) == nil)
    try dir.write("client-secrets/tokens/work+proxy.password.json", "{\"tokens\": \"SECRET\"")
    var password = key
    password.secret = .proxyPassword
    expectCorrupt(hiding: "SECRET", "corrupt file accepted") { _ = try store.load(password) }
  }
}

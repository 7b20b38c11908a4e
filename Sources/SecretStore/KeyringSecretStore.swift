// Kept secrets in the Secret Service, beside the profile's tokens (SecretItemStore.swift).
//
// Schema `com.strivacity.cli.KeptSecret`: attributes `profile`, `issuer`, `client_id` and `kept`
// (which secret: KeptSecret's raw value, `client-secret` or `proxy-password`); the secret is the
// secret's bytes, nothing else. Labelled `strivacity: PROFILE client secret (ISSUER)`. A search
// matches its schema's name, so the token store (`com.strivacity.cli.TokenSet`) never finds these
// items and this store never finds a token set; and no token item carries `kept`.
//
// An item an earlier version kept (a token set of slot `machine.secret` or `proxy.password`) is
// read when there is no item of the new kind, then moved: the new item written, the old one
// deleted, best effort (a failure leaves it to be read, and deleted, as it is).
//
// Every operation goes through the token store's machinery (SecretServiceStore: its bound, its
// prompts and their messages), so a kept secret's keyring behaves as the tokens' does.
internal import CSecretShim
import StrivacityCore

public final class KeyringSecretStore: SecretItemStore {
  public static let schemaName = "com.strivacity.cli.KeptSecret"
  /// The attribute naming which secret an item holds.
  static let keptAttribute = "kept"

  /// The keyring, with its bound and prompts (`Context.keyring()`).
  public let keyring: SecretServiceStore

  public init(_ keyring: SecretServiceStore) { self.keyring = keyring }

  deinit { if let schemaStorage { ss_schema_unref(schemaStorage) } }

  /// The schema, made on first use (inside an operation: libsecret is loaded by then).
  private var schemaStorage: OpaquePointer?
  private var schema: OpaquePointer {
    if let schemaStorage { return schemaStorage }
    let made = SecretServiceStore.makeSchema(
      Self.schemaName, attributes: ["profile", "issuer", "client_id", Self.keptAttribute])
    schemaStorage = made
    return made
  }

  // MARK: the operations

  public func load(_ key: SecretKey) throws(StoreError) -> [UInt8]? {
    var legacy = false
    let value = try keyring.bounded { () throws(StoreError) -> [UInt8]? in
      let session = try keyring.openDefaultCollection()
      if let item = try item(key, in: session) { return try keyring.readSecret(of: item, in: session) }
      guard let old = try legacyItem(key, in: session) else { return nil }
      var json = try keyring.readSecret(of: old, in: session)
      defer { json.wipe() }
      let source = "the keyring item '\(old.label)'"
      guard let value = KeptSecret.legacyValue(of: try TokenSet.decode(json, source: source)) else {
        throw .corrupt(source: source, detail: "it holds no \(key.secret)")
      }
      legacy = true
      return value
    }
    if legacy, let value { move(value, to: key) }
    return value
  }

  public func contains(_ key: SecretKey) throws(StoreError) -> Bool {
    try keyring.bounded { () throws(StoreError) -> Bool in
      let session = try keyring.openDefaultCollection()
      return try found(key, in: session) != nil
    }
  }

  public func save(_ value: [UInt8], for key: SecretKey) throws(StoreError) {
    try keyring.bounded { () throws(StoreError) in
      let session = try keyring.openDefaultCollection()
      try keyring.write(
        value, replacing: try item(key, in: session), in: session, schema: schema, attributes: attributes(key),
        label: label(for: key))
    }
    // The profile's other secrets of this kind (kept for another tenant or client, copies of
    // this one, one an earlier version kept): one per profile and kind.
    keyring.bestEffort { () throws(StoreError) in
      let session = try keyring.openDefaultCollection()
      let keep = try item(key, in: session)
      let same = Attributes(["profile": key.profile, Self.keptAttribute: key.secret.rawValue])
      let mine = try session.search(same, schema: schema, cancellable: keyring.cancellable).items
      for other in mine where other.path != keep?.path { _ = try keyring.deleteItem(other, in: session) }
      for old in try legacyItems(["profile": key.profile], key.secret, in: session) {
        _ = try keyring.deleteItem(old, in: session)
      }
    }
  }

  @discardableResult
  public func delete(profile: String) throws(StoreError) -> Bool {
    try keyring.bounded { () throws(StoreError) -> Bool in
      let session = try keyring.openDefaultCollection()
      var items = try session.search(Attributes(["profile": profile]), schema: schema, cancellable: keyring.cancellable)
        .items
      for secret in KeptSecret.allCases { items += try legacyItems(["profile": profile], secret, in: session) }
      var deleted = false
      for item in items { deleted = try keyring.deleteItem(item, in: session) || deleted }
      return deleted
    }
  }

  /// Whether each of `keys` is kept (of the new kind or an earlier version's), found without a
  /// prompt and without reading a secret: the doctor's look (KeyringInspection).
  public func inspect(_ keys: [SecretKey]) throws(StoreError) -> KeyringInspection {
    try keyring.inspect(keys) { (key, session) throws(StoreError) in try found(key, in: session) }
  }

  // MARK: items

  private func attributes(_ key: SecretKey) -> Attributes {
    Attributes([
      "profile": key.profile, "issuer": key.issuer, "client_id": key.clientID, Self.keptAttribute: key.secret.rawValue,
    ])
  }

  /// `strivacity: PROFILE client secret (ISSUER)`.
  private func label(for key: SecretKey) -> String { "strivacity: \(key.profile) \(key.secret) (\(key.issuer))" }

  /// The newest item of the new kind for `key`.
  private func item(_ key: SecretKey, in session: KeyringSession) throws(StoreError) -> FoundItem? {
    try session.search(attributes(key), schema: schema, cancellable: keyring.cancellable).items
      .max { $0.modified < $1.modified }
  }

  /// The item of `key`: the new kind's, else an earlier version's.
  private func found(_ key: SecretKey, in session: KeyringSession) throws(StoreError) -> FoundItem? {
    if let item = try item(key, in: session) { return item }
    return try legacyItem(key, in: session)
  }

  /// The newest item an earlier version kept for `key`.
  private func legacyItem(_ key: SecretKey, in session: KeyringSession) throws(StoreError) -> FoundItem? {
    let named = ["profile": key.profile, "issuer": key.issuer, "client_id": key.clientID]
    return try legacyItems(named, key.secret, in: session).max { $0.modified < $1.modified }
  }

  /// The token sets an earlier version kept `secret` in, among those `attributes` match: items
  /// of the token store's schema in the secret's old slot (which no token slot can be now).
  private func legacyItems(_ attributes: [String: String], _ secret: KeptSecret, in session: KeyringSession)
    throws(StoreError) -> [FoundItem]
  {
    let named = Attributes(attributes.merging([Attributes.slotName: secret.legacySlot]) { given, _ in given })
    return try session.search(named, schema: keyring.schema, cancellable: keyring.cancellable).items
  }

  /// An earlier version's item moved to the new kind: the new item written first, then the old
  /// one deleted, so that a failure midway leaves the secret found either way. Best effort.
  private func move(_ value: [UInt8], to key: SecretKey) {
    keyring.bestEffort { () throws(StoreError) in
      let session = try keyring.openDefaultCollection()
      try keyring.write(
        value, replacing: try item(key, in: session), in: session, schema: schema, attributes: attributes(key),
        label: label(for: key))
      let named = ["profile": key.profile, "issuer": key.issuer, "client_id": key.clientID]
      for old in try legacyItems(named, key.secret, in: session) { _ = try keyring.deleteItem(old, in: session) }
    }
  }
}

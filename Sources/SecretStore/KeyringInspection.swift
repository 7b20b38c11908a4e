// What `strivacity doctor` says of the keyring: which provider serves it, its default
// collection, whether that is locked, and whether a profile's items are there, found without a
// prompt of any kind (no unlock, no access dialog, no new collection) and without reading a
// secret, so that the doctor never waits for a person.
internal import CSecretShim
import StrivacityCore

/// The keyring as seen without asking anyone.
public struct KeyringInspection: Sendable, Equatable {
  /// "gnome-keyring", "KeePassXC", "KWallet", or "the Secret Service" (another provider).
  public var provider: String
  /// "the keyring 'login'", "the KeePassXC database 'Passwords'" (made inert).
  public var collection: String
  public var locked: Bool
  /// What a command would say of the lock (with the way out for this provider and desktop).
  public var lockedMessage: String?
  /// Per key asked for, in order: nil when the collection is locked (its items cannot be
  /// searched); else whether an item is there and whether it is open to this process (KeePassXC
  /// keeps an item locked to a process until access is allowed).
  public var items: [ItemState?]

  public enum ItemState: Sendable, Equatable {
    case absent
    case present(lockedToUs: Bool)
  }
}

extension SecretServiceStore {
  /// Inspects the default collection for `keys` under this store's bound (the one every
  /// operation has: `bounded`). Errors as every operation's (no bus, no service, no default
  /// collection, a stalled provider).
  public func inspect(_ keys: [StoreKey]) throws(StoreError) -> KeyringInspection {
    try inspect(keys) { (key, session) throws(StoreError) in
      try session.search(Attributes(key), schema: schema, cancellable: cancellable).newest(in: key.slot)
    }
  }

  /// The same look for other keys (KeyringSecretStore's kept secrets): `find` finds a key's
  /// item in the unlocked default collection.
  func inspect<Key>(_ keys: [Key], finding find: (Key, KeyringSession) throws(StoreError) -> FoundItem?)
    throws(StoreError) -> KeyringInspection
  {
    try bounded { () throws(StoreError) in try inspect(keys, find, cancellable: cancellable) }
  }

  private func inspect<Key>(
    _ keys: [Key], _ find: (Key, KeyringSession) throws(StoreError) -> FoundItem?, cancellable: OpaquePointer?
  ) throws(StoreError) -> KeyringInspection {
    var error: UnsafeMutablePointer<GError>?
    let service = ss_service_get_sync(SecretServiceFlags(SS_SERVICE_NONE), cancellable, &error)
    if let error { throw SecretServiceProvider.classify(error) }
    guard let service else { throw .noSecretService(detail: "no service object") }
    let provider = SecretServiceProvider(pid: ss_service_pid(service, cancellable))
    let collection = ss_collection_for_alias_sync(
      service, SS_COLLECTION_DEFAULT, SecretCollectionFlags(SS_COLLECTION_NONE), cancellable, &error)
    if let error {
      ss_object_unref(UnsafeMutableRawPointer(service))
      throw SecretServiceProvider.classify(error)
    }
    guard let collection else {
      ss_object_unref(UnsafeMutableRawPointer(service))
      throw .noDefaultCollection(provider: provider.knownName, desktop: Self.desktopVisible)
    }
    let session = KeyringSession(service: service, collection: collection)
    let described = provider.describeCollection(session.collectionLabel)
    let locked = ss_collection_get_locked(collection) != 0
    var inspection = KeyringInspection(provider: provider.name, collection: described, locked: locked, items: [])
    guard !locked else {
      let noDesktop = provider.dialogsNeedDesktop && !Self.desktopVisible
      let error: StoreError = noDesktop ? .lockedNoDesktop(what: described) : .locked(what: described)
      inspection.lockedMessage = error.description
      inspection.items = keys.map { _ in nil }
      return inspection
    }
    for key in keys {
      guard let item = try find(key, session) else {
        inspection.items.append(.absent)
        continue
      }
      inspection.items.append(.present(lockedToUs: ss_item_get_locked(item.pointer) != 0))
    }
    return inspection
  }
}

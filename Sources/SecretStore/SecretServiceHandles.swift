// The Swift owners of libsecret's and GLib's objects (through CSecretShim): each holds its
// references and gives them back in deinit, so SecretServiceStore never frees by hand what a
// thrown error could skip.
internal import CSecretShim
import StrivacityCore

/// The service and its default collection for one operation.
final class KeyringSession {
  let service: OpaquePointer
  let collection: OpaquePointer
  private var providerStorage: SecretServiceProvider?

  init(service: OpaquePointer, collection: OpaquePointer) {
    self.service = service
    self.collection = collection
  }

  deinit {
    ss_object_unref(UnsafeMutableRawPointer(collection))
    ss_object_unref(UnsafeMutableRawPointer(service))
  }

  /// Told only when a message needs it (one bus call and a /proc read).
  func provider(_ cancellable: OpaquePointer?) -> SecretServiceProvider {
    if let providerStorage { return providerStorage }
    let made = SecretServiceProvider(pid: ss_service_pid(service, cancellable))
    providerStorage = made
    return made
  }

  var collectionLabel: String {
    guard let raw = ss_collection_get_label(collection) else { return "default" }
    defer { ss_free(raw) }
    return String(cString: raw)
  }

  /// The default collection's items of our schema matching `attributes`.
  func search(
    _ attributes: Attributes, schema: OpaquePointer, cancellable: OpaquePointer?
  ) throws(StoreError) -> FoundItems {
    var error: UnsafeMutablePointer<GError>?
    let flags = SecretSearchFlags(SS_SEARCH_ALL)
    let list = ss_collection_search_sync(collection, schema, attributes.table, flags, cancellable, &error)
    if let error { throw SecretServiceProvider.classify(error) }
    return FoundItems(list)
  }
}

/// One item found by a search; holds a reference to libsecret's item object.
final class FoundItem {
  let pointer: OpaquePointer
  let path: String
  let label: String
  let modified: UInt64
  /// Its slot (Attributes): the sign-in's without a `slot` attribute; nil for one that does not
  /// read as a slot's name.
  let slot: TokenSlot?
  /// Its attributes as a key; nil for an item of our schema without all of them.
  let key: StoreKey?

  init(_ raw: UnsafeMutableRawPointer) {
    ss_object_ref(raw)
    pointer = OpaquePointer(raw)
    path = String(cString: ss_object_path(raw))
    let label = ss_item_get_label(pointer).map { text in
      defer { ss_free(text) }
      return String(cString: text)
    }
    self.label = TerminalSafe.text(label ?? "", multiline: false)
    modified = ss_item_get_modified(pointer)
    (slot, key) = Self.key(of: pointer)
  }

  deinit { ss_object_unref(UnsafeMutableRawPointer(pointer)) }

  private static func key(of item: OpaquePointer) -> (TokenSlot?, StoreKey?) {
    guard let attributes = ss_retrievable_get_attributes(item) else { return (.signIn, nil) }
    defer { ss_hash_table_unref(attributes) }
    func value(_ name: String) -> String? {
      guard let raw = ss_hash_table_lookup(attributes, name) else { return nil }
      return String(cString: raw.assumingMemoryBound(to: CChar.self))
    }
    let slot = value(Attributes.slotName).map { TokenSlot(stored: $0) } ?? .signIn
    guard let slot, let profile = value("profile"), let issuer = value("issuer"), let client = value("client_id") else {
      return (slot, nil)
    }
    return (slot, StoreKey(profile: profile, issuer: issuer, clientID: client, slot: slot))
  }
}

/// The items of one search.
struct FoundItems {
  let items: [FoundItem]

  /// Takes the list (and frees it).
  init(_ list: UnsafeMutablePointer<GList>?) {
    var items: [FoundItem] = []
    var node = list
    while let current = node {
      if let raw = current.pointee.data { items.append(FoundItem(raw)) }
      node = current.pointee.next
    }
    ss_list_free_objects(list)
    self.items = items
  }

  /// The most recently modified of `slot`: where a refresh writes, and what is read. (A search
  /// for the sign-in's attributes also finds the other slots' items, which carry one more.)
  func newest(in slot: TokenSlot) -> FoundItem? { items.filter { $0.slot == slot }.max { $0.modified < $1.modified } }
}

/// A GHashTable of attribute names to values, owned for the duration of one call.
final class Attributes {
  let table: OpaquePointer

  /// The schema's attribute names: the sign-in's items carry the first three only, as they
  /// always have; another slot's carry `slot` too.
  static let names = ["profile", "issuer", "client_id", slotName]
  static let slotName = "slot"

  convenience init(_ key: StoreKey) {
    var values = ["profile": key.profile, "issuer": key.issuer, "client_id": key.clientID]
    if let slot = key.slot.name { values[Self.slotName] = slot }
    self.init(values)
  }

  init(_ values: [String: String]) {
    table = ss_str_table_new_owning()
    for (name, value) in values {
      ss_hash_table_insert(table, ss_strdup(name), ss_strdup(value))
    }
  }

  deinit { ss_hash_table_unref(table) }
}

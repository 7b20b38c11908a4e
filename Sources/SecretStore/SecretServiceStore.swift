// Token sets in the Secret Service (gnome-keyring, KeePassXC, …) through libsecret.
//
// Schema `com.strivacity.cli.TokenSet`; attributes `profile`, `issuer`, `client_id` (non-secret,
// visible to any process on the session bus); the secret is the whole token set as one JSON
// document, so every write replaces the set atomically. Items are labelled
// `strivacity: PROFILE (ISSUER)` so people can recognise them in seahorse.
//
// Only the libsecret `…v_sync` functions are used: the variadic ones cannot be called from Swift.
internal import CSecretShim
import Glibc
import StrivacityCore

public final class SecretServiceStore: TokenStore {
  public let kind = StoreKind.secretService
  public static let schemaName = "com.strivacity.cli.TokenSet"

  /// The bound on each operation (load, save, delete, keys), in seconds.
  public let timeout: Double
  /// Where "waiting for the keyring…" goes after a second (nil: nowhere).
  private let noticeFD: Int32?
  /// The current operation's deadline; its cancellable goes to every libsecret call.
  private var deadline: KeyringDeadline?
  private var cancellable: OpaquePointer? { deadline?.cancellable }
  /// How long an unlock prompt may take when a desktop can show one.
  public static let promptTimeout: Double = 120

  /// The default bound: long enough for a busy keyring, short enough for a shell prompt.
  public static let defaultTimeout: Double = 5

  /// `noticeOnTerminal`: say "waiting for the keyring…" on stderr (default: when it is a terminal).
  public init(timeout: Double = SecretServiceStore.defaultTimeout, noticeOnTerminal: Bool? = nil) {
    self.timeout = timeout
    noticeFD = noticeOnTerminal ?? (isatty(2) == 1) ? 2 : nil
  }

  deinit { if let schemaStorage { ss_schema_unref(schemaStorage) } }

  /// The schema, made on first use (libsecret is loaded by then: see `bounded`).
  private var schemaStorage: OpaquePointer?
  private var schema: OpaquePointer {
    if let schemaStorage { return schemaStorage }
    let names = ss_str_table_new()
    // GINT_TO_POINTER(SECRET_SCHEMA_ATTRIBUTE_STRING) is NULL: a present key with a NULL value.
    let stringType = UnsafeMutableRawPointer(bitPattern: Int(SS_SCHEMA_ATTRIBUTE_STRING))
    for name in ["profile", "issuer", "client_id"] {
      ss_hash_table_insert(names, UnsafeMutableRawPointer(mutating: Self.staticCString(name)), stringType)
    }
    let made = ss_schema_newv(Self.schemaName, SecretSchemaFlags(SS_SCHEMA_NONE), names)!
    ss_hash_table_unref(names)
    schemaStorage = made
    return made
  }

  /// Loads libsecret (once per process), or says why it cannot be.
  private static let library: StoreError? = {
    var message = [CChar](repeating: 0, count: 256)
    guard ss_load(&message, message.count) != 0 else { return nil }
    return .noSecretService(detail: String(cString: message))
  }()

  public func load(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    try Self.requireSessionBus()
    return try bounded { () throws(StoreError) in try lookup(key) }
  }

  /// Runs one operation under the keyring bound: past it, the libsecret calls are cancelled and
  /// the operation fails with `.timedOut`, whatever it was doing.
  private func bounded<T>(_ operation: () throws(StoreError) -> T) throws(StoreError) -> T {
    if let unavailable = Self.library { throw unavailable }
    let deadline = KeyringDeadline(limit: timeout, noticeFD: noticeFD)
    self.deadline = deadline
    defer { self.deadline = nil }
    let result: Result<T, StoreError>
    do {
      result = .success(try operation())
    } catch {
      result = .failure(error)
    }
    deadline.finish()
    // The bound actually waited: an unlock prompt extends it.
    if deadline.expired { throw .timedOut(seconds: deadline.currentLimit) }
    return try result.get()
  }

  private func lookup(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    // First, as for a save: a lookup of a locked item would show the desktop's unlock prompt
    // itself, under the short bound; the diagnosis unlocks under the prompt's bound, or says
    // that the collection is locked or missing.
    try diagnoseDefaultCollection()
    var error: UnsafeMutablePointer<GError>?
    let attributes = Attributes(key)
    let secret = ss_password_lookupv_sync(schema, attributes.table, cancellable, &error)
    if let error { throw Self.classify(error) }
    guard let secret else { return nil }
    defer { ss_password_free(secret) }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(secret).assumingMemoryBound(to: UInt8.self), count: strlen(secret))
    return try TokenSet.decode(Array(bytes), source: "the keyring item '\(label(for: key))'")
  }

  public func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    try Self.requireSessionBus()
    try bounded { () throws(StoreError) in try store(tokens, for: key) }
  }

  private func store(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    try diagnoseDefaultCollection()
    var error: UnsafeMutablePointer<GError>?
    let attributes = Attributes(key)
    var json = tokens.encoded()
    json.append(0)
    defer { for i in json.indices { json[i] = 0 } }
    let stored = json.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        ss_password_storev_sync(schema, attributes.table, SS_COLLECTION_DEFAULT, label(for: key), $0.baseAddress, cancellable, &error)
      }
    }
    if let error { throw Self.classify(error) }
    guard stored != 0 else { throw .failure(detail: "the Secret Service did not store the item") }
    // The same profile under another tenant or client is an older sign-in: keep one set per
    // profile. Best effort: the new set is stored already, and other processes may be changing
    // the keyring at the same moment (an item can vanish between search and read).
    if let mine = try? search(Attributes(["profile": key.profile])) {
      for other in mine where other != key { _ = try? clear(Attributes(other)) }
    }
  }

  @discardableResult
  public func delete(profile: String) throws(StoreError) -> Bool {
    try Self.requireSessionBus()
    return try bounded { () throws(StoreError) in try clear(Attributes(["profile": profile])) }
  }

  public func keys() throws(StoreError) -> [StoreKey] {
    try Self.requireSessionBus()
    return try bounded { () throws(StoreError) in
      // Another process may delete an item between the search and reading it: try again once.
      if let keys = try? search(Attributes([:])) { return keys }
      return try search(Attributes([:]))
    }
  }

  private func search(_ attributes: Attributes) throws(StoreError) -> [StoreKey] {
    var error: UnsafeMutablePointer<GError>?
    let flags = SecretSearchFlags(SS_SEARCH_ALL)
    let list = ss_password_searchv_sync(schema, attributes.table, flags, cancellable, &error)
    if let error { throw Self.classify(error) }
    defer { ss_list_free_objects(list) }
    var keys: [StoreKey] = []
    var node = list
    while let current = node {
      if let item = current.pointee.data {
        let attributes = ss_retrievable_get_attributes(OpaquePointer(item))
        func value(_ name: String) -> String? {
          guard let raw = ss_hash_table_lookup(attributes, name) else { return nil }
          return String(cString: raw.assumingMemoryBound(to: CChar.self))
        }
        if let profile = value("profile"), let issuer = value("issuer"), let client = value("client_id") {
          keys.append(StoreKey(profile: profile, issuer: issuer, clientID: client))
        }
        if let attributes { ss_hash_table_unref(attributes) }
      }
      node = current.pointee.next
    }
    return keys.sorted { ($0.profile, $0.issuer) < ($1.profile, $1.issuer) }
  }

  // MARK: internals

  private func label(for key: StoreKey) -> String { "strivacity: \(key.profile) (\(key.issuer))" }

  @discardableResult
  private func clear(_ attributes: Attributes) throws(StoreError) -> Bool {
    var error: UnsafeMutablePointer<GError>?
    let removed = ss_password_clearv_sync(schema, attributes.table, cancellable, &error)
    if let error { throw Self.classify(error) }
    return removed != 0
  }

  /// Throws when the default collection is missing or locked (after trying to unlock it once).
  private func diagnoseDefaultCollection() throws(StoreError) {
    var error: UnsafeMutablePointer<GError>?
    let service = ss_service_get_sync(SecretServiceFlags(SS_SERVICE_NONE), cancellable, &error)
    if let error { throw Self.classify(error) }
    guard let service else { throw .noSecretService(detail: "no service object") }
    defer { ss_object_unref(UnsafeMutableRawPointer(service)) }
    let collection = ss_collection_for_alias_sync(service, SS_COLLECTION_DEFAULT, SecretCollectionFlags(SS_COLLECTION_NONE), cancellable, &error)
    if let error { throw Self.classify(error) }
    guard let collection else { throw .noDefaultCollection }
    defer { ss_object_unref(UnsafeMutableRawPointer(collection)) }
    guard ss_collection_get_locked(collection) != 0 else { return }
    let name = ss_collection_get_label(collection).map { raw in
      defer { ss_free(raw) }
      return String(cString: raw)
    } ?? "default"
    // Ask the service to unlock it: a desktop shows its unlock prompt (a person needs time to
    // answer it); headless, this fails.
    if getenv("DISPLAY") != nil || getenv("WAYLAND_DISPLAY") != nil {
      deadline?.extend(to: Self.promptTimeout, because: "the keyring '\(name)' is locked: answer its unlock prompt on the desktop")
    }
    let objects = ss_list_append(nil, UnsafeMutableRawPointer(collection))
    defer { ss_list_free(objects) }
    var unlocked: UnsafeMutablePointer<GList>?
    _ = ss_service_unlock_sync(service, objects, cancellable, &unlocked, &error)
    if let unlocked { ss_list_free_objects(unlocked) }
    if let error { ss_error_free(error) }
    if ss_collection_get_locked(collection) != 0 { throw .locked(collection: name) }
  }

  /// Fails fast when no session bus can be found, before GLib looks for one: GLib would
  /// otherwise create ~/.cache as a stand-in runtime directory and try X11 autolaunch.
  static func requireSessionBus() throws(StoreError) {
    if let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 { return }
    if let runtime = getenv("XDG_RUNTIME_DIR"), runtime.pointee != 0 {
      var info = stat()
      if stat(String(cString: runtime) + "/bus", &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK { return }
    }
    // With a display, GLib can still autolaunch a bus through X11.
    if let display = getenv("DISPLAY"), display.pointee != 0 { return }
    throw .noSessionBus(detail: "DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist")
  }

  static func classify(_ error: UnsafeMutablePointer<GError>) -> StoreError {
    defer { ss_error_free(error) }
    let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    let dbusError = error.pointee.domain == ss_dbus_error_quark()
    let lower = message.lowercased()
    if lower.contains("autolaunch") || lower.contains("session bus") || lower.contains("could not connect")
      || lower.contains("dbus_session_bus_address")
    {
      return .noSessionBus(detail: message)
    }
    if dbusError && error.pointee.code == Int32(SS_DBUS_ERROR_SERVICE_UNKNOWN)
      || lower.contains("org.freedesktop.secrets was not provided")
    {
      return .noSecretService(detail: "org.freedesktop.secrets is not provided")
    }
    if lower.contains("locked") { return .locked(collection: "default") }
    if lower.contains("object does not exist") { return .noDefaultCollection }
    return .failure(detail: message)
  }

  private static func staticCString(_ name: String) -> UnsafePointer<CChar> {
    // Schema attribute names must outlive the schema: intern them for the process's lifetime.
    UnsafePointer(ss_intern_string(name))
  }
}

/// A GHashTable of attribute names to values, owned for the duration of one call.
private final class Attributes {
  let table: OpaquePointer

  convenience init(_ key: StoreKey) {
    self.init(["profile": key.profile, "issuer": key.issuer, "client_id": key.clientID])
  }

  init(_ values: [String: String]) {
    table = ss_str_table_new_owning()
    for (name, value) in values {
      ss_hash_table_insert(table, ss_strdup(name), ss_strdup(value))
    }
  }

  deinit { ss_hash_table_unref(table) }
}

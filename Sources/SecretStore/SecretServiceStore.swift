// Token sets in the Secret Service (gnome-keyring, KeePassXC, …) through libsecret.
//
// Schema `com.strivacity.cli.TokenSet`; attributes `profile`, `issuer`, `client_id` (non-secret,
// visible to any process on the session bus), and `slot` for a set other than the sign-in's; the
// secret is the whole token set as one JSON document. Items are labelled `strivacity: PROFILE
// (ISSUER)` so people can recognise them in seahorse or KeePassXC. Everything lives in the
// default collection. The secrets kept for a profile are items of another schema, never token
// sets (KeyringSecretStore.swift, which works through this store's bound and prompts).
//
// One item per sign-in (and slot), updated in place (SecretServiceProvider.updatesInPlace): a
// refresh or a new sign-in of the same profile sets the existing item's secret.
//
// Prompts are the provider asking a person (KeePassXC's "allow access" and delete confirmations,
// an unlock dialog). The calls that can return one (Unlock, Item.Delete) are made here, not
// inside libsecret, so a prompt is said on stderr at once, waited for up to `prompts.bound`, and
// a "no" or no answer ends in its own error (exit 8), never in silence.
//
// Only libsecret's `…_sync` functions are used, through CSecretShim (dlopen()ed on first use);
// the objects they return are held by the owners in SecretServiceHandles.swift. What differs
// between providers (KeePassXC, gnome-keyring, KWallet) is read from SecretServiceProvider.
internal import CSecretShim
import Glibc
import StrivacityCore
import SystemIO

/// How long a person may take over a Secret Service prompt, and whether a locked collection is
/// unlocked on request or reported at once.
public struct KeyringPrompts: Sendable, Equatable {
  /// Seconds a prompt (an access dialog, an unlock) may stay unanswered.
  public var bound: Double
  /// Whether a locked collection is unlocked on request (someone is at a terminal to see the
  /// provider's dialog) or reported as locked at once.
  public var requestUnlock: Bool
  /// Whether a missing default collection is asked for (`strivacity login`, and only with
  /// `requestUnlock`): the provider creates it through its own dialog (KWallet's new wallet,
  /// gnome-keyring's new keyring password). Otherwise it is reported at once.
  public var createCollection: Bool

  public init(bound: Double, requestUnlock: Bool, createCollection: Bool = false) {
    self.bound = bound
    self.requestUnlock = requestUnlock
    self.createCollection = createCollection
  }

  /// On a terminal: a person is there, 120 s.
  public static let terminalBound: Double = 120
  /// For git, scripts and anything without a terminal: 15 s.
  public static let unattendedBound: Double = 15

  /// The defaults: `attended` when stderr is a terminal and the command is a person's, not git's.
  public static func defaults(attended: Bool, onTerminal: Bool) -> KeyringPrompts {
    KeyringPrompts(bound: attended && onTerminal ? terminalBound : unattendedBound, requestUnlock: onTerminal)
  }
}

public final class SecretServiceStore: TokenStore {
  public let kind = StoreKind.secretService
  public static let schemaName = "com.strivacity.cli.TokenSet"

  /// The bound on each operation (load, save, delete, keys), in seconds, prompts aside.
  public let timeout: Double
  public let prompts: KeyringPrompts
  /// Where "waiting for the keyring…" goes after a second (nil: nowhere).
  private let noticeFD: Int32?
  /// The current operation's deadline; its cancellable goes to every libsecret call.
  private var deadline: KeyringDeadline?
  var cancellable: OpaquePointer? { deadline?.cancellable }
  /// What is said if the current operation's deadline passes during a prompt.
  private var unansweredPrompt: StoreError?
  /// A prompt's bound other than `prompts.bound`, for best-effort work nobody waits for.
  private var promptBound: Double?
  /// The default collection was asked for in this operation already (a retry does not ask again).
  private var askedToCreate = false

  /// The default bound: long enough for a busy keyring, short enough for a shell prompt.
  public static let defaultTimeout: Double = 5

  /// `noticeOnTerminal`: say "waiting for the keyring…" on stderr (default: when it is a terminal).
  public init(
    timeout: Double = SecretServiceStore.defaultTimeout,
    prompts: KeyringPrompts = .defaults(attended: true, onTerminal: isatty(2) == 1),
    noticeOnTerminal: Bool? = nil
  ) {
    self.timeout = timeout
    self.prompts = prompts
    noticeFD = noticeOnTerminal ?? (isatty(2) == 1) ? 2 : nil
  }

  deinit { if let schemaStorage { ss_schema_unref(schemaStorage) } }

  /// The schema, made on first use (libsecret is loaded by then: see `bounded`).
  private var schemaStorage: OpaquePointer?
  var schema: OpaquePointer {
    if let schemaStorage { return schemaStorage }
    let made = Self.makeSchema(Self.schemaName, attributes: Attributes.names)
    schemaStorage = made
    return made
  }

  /// A schema of string attributes (the caller unrefs it). Its name is matched by every search
  /// made with it, so items of one schema are never found by another's.
  static func makeSchema(_ name: String, attributes: [String]) -> OpaquePointer {
    let names = ss_str_table_new()
    // GINT_TO_POINTER(SECRET_SCHEMA_ATTRIBUTE_STRING) is NULL: a present key with a NULL value.
    let stringType = UnsafeMutableRawPointer(bitPattern: Int(SS_SCHEMA_ATTRIBUTE_STRING))
    for attribute in attributes {
      ss_hash_table_insert(names, UnsafeMutableRawPointer(mutating: Self.staticCString(attribute)), stringType)
    }
    let made = ss_schema_newv(name, SecretSchemaFlags(SS_SCHEMA_NONE), names)!
    ss_hash_table_unref(names)
    return made
  }

  /// Loads libsecret (once per process), or says why it cannot be.
  static let libraryProblem: StoreError? = {
    var message = [CChar](repeating: 0, count: 256)
    guard ss_load(&message, message.count) != 0 else { return nil }
    return .noSecretService(
      detail: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
  }()

  // MARK: the four operations

  public func load(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    try bounded { () throws(StoreError) in
      let session = try openDefaultCollection()
      let found = try session.search(Attributes(key), schema: schema, cancellable: cancellable)
      guard let item = found.newest(in: key.slot) else { return nil }
      var bytes = try readSecret(of: item, in: session)
      defer { bytes.wipe() }
      return try TokenSet.decode(bytes, source: "the keyring item '\(label(for: key))'")
    }
  }

  public func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    var opened: KeyringSession?  // kept for the clean-up below
    try bounded { () throws(StoreError) in
      let session = try openDefaultCollection()
      opened = session
      let found = try session.search(Attributes(key), schema: schema, cancellable: cancellable)
      var json = tokens.encoded()
      defer { json.wipe() }
      try write(
        json, replacing: found.newest(in: key.slot), in: session, schema: schema, attributes: Attributes(key),
        label: label(for: key))
    }
    // Older sign-ins of the profile (another tenant or client) and copies of this one: keep one
    // item per profile and slot (another slot's items are not this set's to delete). What stays
    // is deleted at logout.
    bestEffort { () throws(StoreError) in
      let session: KeyringSession
      if let opened { session = opened } else { session = try openDefaultCollection() }
      let mine = try session.search(Attributes(["profile": key.profile]), schema: schema, cancellable: cancellable)
      let keep = mine.items.filter { $0.key == key }.max { $0.modified < $1.modified }
      for item in mine.items where item.path != keep?.path && item.slot == key.slot {
        _ = try deleteItem(item, in: session)
      }
    }
  }

  @discardableResult
  public func delete(profile: String) throws(StoreError) -> Bool {
    try bounded { () throws(StoreError) in
      let session = try openDefaultCollection()
      let mine = try session.search(Attributes(["profile": profile]), schema: schema, cancellable: cancellable)
      var deleted = false
      // An item whose slot does not read is no token set (an earlier version's kept secret, which
      // KeyringSecretStore deletes): it stays.
      for item in mine.items where item.slot != nil {
        deleted = try deleteItem(item, in: session) || deleted
      }
      return deleted
    }
  }

  public func keys() throws(StoreError) -> [StoreKey] {
    // (An item another process deletes between the search and reading it fails the search;
    // `bounded` tries once more.)
    try bounded { () throws(StoreError) in
      let found = try openDefaultCollection().search(Attributes([:]), schema: schema, cancellable: cancellable)
      return Set(found.items.compactMap(\.key)).sorted {
        ($0.profile, $0.issuer, $0.slot.name ?? "") < ($1.profile, $1.issuer, $1.slot.name ?? "")
      }
    }
  }

  // MARK: bounds and prompts

  /// Work nobody waits for once an operation is done (tidying older items): under its own
  /// bound, a dialog (KeePassXC's "confirm delete") given no longer than the operation, and any
  /// failure ignored: the operation's result stands, and other processes may be changing the
  /// keyring.
  func bestEffort(_ work: () throws(StoreError) -> Void) {
    promptBound = timeout
    defer { promptBound = nil }
    _ = try? bounded(work)
  }

  /// Runs one operation under the keyring bound: past it, the libsecret calls are cancelled and
  /// the operation fails with `.timedOut` (or `.promptUnanswered` during a prompt). A failure
  /// that a new connection may cure (a restarted keyring daemon has none of our session) is
  /// tried once more on one: a long-lived agent survives the keyring's restart.
  func bounded<T>(_ operation: () throws(StoreError) -> T) throws(StoreError) -> T {
    try Self.requireSessionBus()
    askedToCreate = false
    do {
      return try boundedOnce(operation)
    } catch {
      switch error {
      case .failure, .noSecretService, .noDefaultCollection:
        ss_service_disconnect()
        return try boundedOnce(operation)
      default: throw error
      }
    }
  }

  private func boundedOnce<T>(_ operation: () throws(StoreError) -> T) throws(StoreError) -> T {
    if let unavailable = Self.libraryProblem { throw unavailable }
    let deadline = KeyringDeadline(limit: timeout, noticeFD: noticeFD)
    self.deadline = deadline
    unansweredPrompt = nil
    defer {
      self.deadline = nil
      unansweredPrompt = nil
    }
    let result: Result<T, StoreError>
    do {
      result = .success(try operation())
    } catch {
      result = .failure(error)
    }
    deadline.finish()
    if deadline.expired {
      if unansweredPrompt == nil { ss_service_disconnect() }
      throw unansweredPrompt ?? .timedOut(seconds: timeout)
    }
    return try result.get()
  }

  /// Waits for a prompt the provider returned, said on stderr (`announce`) unless it is over
  /// within a moment (a provider may return prompts that ask nobody); a "no" throws `dismissed`.
  private func runPrompt(
    _ prompt: UnsafeMutablePointer<CChar>, of service: OpaquePointer, provider: SecretServiceProvider,
    announce line: String,
    request: String, dismissed: StoreError
  ) throws(StoreError) {
    let bound = promptBound ?? prompts.bound
    let unanswered = StoreError.promptUnanswered(
      provider: provider.name, request: request, window: provider.window, seconds: bound)
    let after = SecretServiceProvider.announcePromptsAfter
    guard let deadline, deadline.prompt(for: bound, announcing: line, after: after) else { throw unanswered }
    unansweredPrompt = unanswered
    var error: UnsafeMutablePointer<GError>?
    // Past the bound the prompt is left to the person, not dismissed (see ss_run_prompt).
    let outcome = ss_run_prompt(service, prompt, cancellable, UInt32(min(bound, 86_400) * 1000), &error)
    deadline.promptEnded()
    switch outcome {
    case 1: unansweredPrompt = nil
    case 0: throw dismissed
    case -3: throw .failure(detail: "\(provider.name) left the session bus while asking to \(request)")
    case -2: throw unanswered
    default:
      if let error { throw SecretServiceProvider.classify(error) }
      throw .failure(detail: "the prompt to \(request) failed")
    }
  }

  /// The service and its default collection, unlocked: a locked one is reported at once, or
  /// (on a terminal) unlocked through the provider's own dialog; a missing one is reported, or
  /// (`prompts.createCollection`) created through the provider's own dialog.
  func openDefaultCollection() throws(StoreError) -> KeyringSession {
    var error: UnsafeMutablePointer<GError>?
    let service = ss_service_get_sync(SecretServiceFlags(SS_SERVICE_NONE), cancellable, &error)
    if let error { throw SecretServiceProvider.classify(error) }
    guard let service else { throw .noSecretService(detail: "no service object") }
    let collection: OpaquePointer
    do {
      if let found = try Self.defaultCollection(of: service, cancellable: cancellable) {
        collection = found
      } else {
        collection = try createDefaultCollection(of: service)
      }
    } catch {
      ss_object_unref(UnsafeMutableRawPointer(service))
      throw error
    }
    let session = KeyringSession(service: service, collection: collection)
    // The proxy was made just now: its Locked property is current.
    guard ss_collection_get_locked(collection) != 0 else { return session }
    let provider = session.provider(cancellable)
    let what = provider.describeCollection(session.collectionLabel)
    // Without a desktop, a provider whose dialogs need one ends the unlock "dismissed" at once,
    // which is no one's "no" (SecretServiceProvider.dialogsNeedDesktop).
    let noDesktop = provider.dialogsNeedDesktop && !Self.desktopVisible
    let locked: StoreError = noDesktop ? .lockedNoDesktop(what: what) : .locked(what: what)
    guard prompts.requestUnlock else { throw locked }
    var prompt: UnsafeMutablePointer<CChar>?
    let answer = ss_request_unlock(
      service, ss_object_path(UnsafeMutableRawPointer(collection)), cancellable, &prompt, &error)
    if let error { throw SecretServiceProvider.classify(error) }
    defer { if let prompt { ss_free(prompt) } }
    if answer == 1 { return session }
    guard let prompt else { throw locked }
    try runPrompt(
      prompt, of: service, provider: provider, announce: "\(what) is locked: unlock it in \(provider.window)",
      request: "unlock \(what)",
      dismissed: noDesktop ? locked : .unlockDeclined(what: what, window: provider.window))
    let stillLocked = ss_read_locked(
      service, ss_object_path(UnsafeMutableRawPointer(collection)), "org.freedesktop.Secret.Collection", cancellable,
      &error)
    if let error { throw SecretServiceProvider.classify(error) }
    if stillLocked != 0 { throw locked }
    return session
  }

  /// The service's default collection (a new reference), or nil when it has none.
  private static func defaultCollection(of service: OpaquePointer, cancellable: OpaquePointer?) throws(StoreError)
    -> OpaquePointer?
  {
    var error: UnsafeMutablePointer<GError>?
    let collection = ss_collection_for_alias_sync(
      service, SS_COLLECTION_DEFAULT, SecretCollectionFlags(SS_COLLECTION_NONE), cancellable, &error)
    if let error { throw SecretServiceProvider.classify(error) }
    return collection
  }

  /// No default collection (KWallet before its first wallet, gnome-keyring never unlocked with
  /// a password, KeePassXC with no database open): for `strivacity login` on a terminal, the
  /// provider is asked to create one (Service.CreateCollection, alias "default") and shows its
  /// own dialog, said and bounded as any prompt; otherwise, or when that fails, the advice for
  /// the provider that runs. Not every provider is asked (SecretServiceProvider.createsCollectionOnRequest).
  private func createDefaultCollection(of service: OpaquePointer) throws(StoreError) -> OpaquePointer {
    let provider = SecretServiceProvider(pid: ss_service_pid(service, cancellable))
    let desktop = Self.desktopVisible
    let missing = StoreError.noDefaultCollection(provider: provider.knownName, desktop: desktop)
    guard prompts.createCollection, prompts.requestUnlock, provider.createsCollectionOnRequest, !askedToCreate else {
      throw missing
    }
    askedToCreate = true
    var error: UnsafeMutablePointer<GError>?
    var prompt: UnsafeMutablePointer<CChar>?
    let answer = ss_request_create_collection(
      service, provider.newCollectionLabel, "default", cancellable, &prompt, &error)
    if let error { throw SecretServiceProvider.classify(error) }
    defer { if let prompt { ss_free(prompt) } }
    if answer != 1 {
      guard let prompt else { throw missing }
      let request = "create a \(provider.collectionNoun)"
      try runPrompt(
        prompt, of: service, provider: provider,
        announce: "\(provider.name) has no \(provider.collectionNoun) yet: create one in \(provider.window)",
        request: request,
        dismissed: provider.dialogsNeedDesktop && !desktop
          ? missing : .denied(provider: provider.name, request: request)
      )
    }
    guard let made = try Self.defaultCollection(of: service, cancellable: cancellable) else { throw missing }
    return made
  }

  /// Asks the provider to let this process use `item` (KeePassXC asks the person, per process).
  private func requestAccess(to item: FoundItem, in session: KeyringSession) throws(StoreError) {
    var error: UnsafeMutablePointer<GError>?
    var prompt: UnsafeMutablePointer<CChar>?
    let answer = ss_request_unlock(session.service, item.path, cancellable, &prompt, &error)
    if let error { throw SecretServiceProvider.classify(error) }
    defer { if let prompt { ss_free(prompt) } }
    if answer == 1 { return }
    let provider = session.provider(cancellable)
    let request = "allow access to \"\(item.label)\""
    guard let prompt else { throw .denied(provider: provider.name, request: request) }
    try runPrompt(
      prompt, of: session.service, provider: provider,
      announce: "\(provider.name) is asking you to allow access to \"\(item.label)\" — see its window",
      request: request, dismissed: .denied(provider: provider.name, request: request))
  }

  /// The item's secret, asking for access first when the provider keeps it locked to us.
  func readSecret(of item: FoundItem, in session: KeyringSession) throws(StoreError) -> [UInt8] {
    if ss_item_get_locked(item.pointer) != 0 { try requestAccess(to: item, in: session) }
    var error: UnsafeMutablePointer<GError>?
    if ss_item_load_secret_sync(item.pointer, cancellable, &error) == 0 {
      guard let error else { throw .failure(detail: "the Secret Service did not return the secret") }
      // Locked again (an access allowed once was used up elsewhere): ask once more, once.
      guard SecretServiceProvider.isLocked(error) else { throw SecretServiceProvider.classify(error) }
      ss_error_free(error)
      try requestAccess(to: item, in: session)
      var again: UnsafeMutablePointer<GError>?
      if ss_item_load_secret_sync(item.pointer, cancellable, &again) == 0 {
        throw again.map { accessFailure($0, item: item, in: session) }
          ?? .failure(detail: "the Secret Service did not return the secret")
      }
    }
    guard let value = ss_item_get_secret(item.pointer) else { return [] }
    defer { ss_value_unref(value) }
    var length = 0
    guard let bytes = ss_value_get(value, &length) else { return [] }
    return Array(UnsafeRawBufferPointer(start: bytes, count: length))
  }

  /// Stores `bytes` as the secret of `item` (updated in place where the provider allows it,
  /// SecretServiceProvider.updatesInPlace), else of a new item of `schema` with `attributes`.
  func write(
    _ bytes: [UInt8], replacing item: FoundItem?, in session: KeyringSession, schema: OpaquePointer,
    attributes: Attributes, label: String
  ) throws(StoreError) {
    let value = bytes.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { ss_value_new($0.baseAddress, $0.count) }
    }
    guard let value else { throw .failure(detail: "libsecret could not hold the secret") }
    defer { ss_value_unref(value) }
    if SecretServiceProvider.updatesInPlace, let item {
      try writeSecret(value, to: item, in: session)
      return
    }
    var error: UnsafeMutablePointer<GError>?
    let made = withExtendedLifetime(attributes) {
      ss_item_create_sync(session.collection, schema, attributes.table, label, value, cancellable, &error)
    }
    if let error { throw SecretServiceProvider.classify(error) }
    guard let made else { throw .failure(detail: "the Secret Service did not store the item") }
    ss_object_unref(UnsafeMutableRawPointer(made))
  }

  /// Replaces the item's secret in place (its label and attributes are the key's already).
  private func writeSecret(_ value: OpaquePointer, to item: FoundItem, in session: KeyringSession) throws(StoreError) {
    if ss_item_get_locked(item.pointer) != 0 { try requestAccess(to: item, in: session) }
    var error: UnsafeMutablePointer<GError>?
    if ss_item_set_secret_sync(item.pointer, value, cancellable, &error) == 0 {
      guard let error else { throw .failure(detail: "the Secret Service did not store the secret") }
      guard SecretServiceProvider.isLocked(error) else { throw SecretServiceProvider.classify(error) }
      ss_error_free(error)
      try requestAccess(to: item, in: session)
      var again: UnsafeMutablePointer<GError>?
      if ss_item_set_secret_sync(item.pointer, value, cancellable, &again) == 0 {
        throw again.map { accessFailure($0, item: item, in: session) }
          ?? .failure(detail: "the Secret Service did not store the secret")
      }
    }
  }

  /// Deletes one item; a provider that asks first (KeePassXC always returns a prompt, which asks
  /// a person only when "confirm delete" is on) is announced if it takes more than half a second.
  func deleteItem(_ item: FoundItem, in session: KeyringSession) throws(StoreError) -> Bool {
    var error: UnsafeMutablePointer<GError>?
    var prompt: UnsafeMutablePointer<CChar>?
    let answer = ss_request_delete(session.service, item.path, cancellable, &prompt, &error)
    if let error {
      // Gone already (another process deleted it): nothing to do.
      if SecretServiceProvider.isNoSuchObject(error) {
        ss_error_free(error)
        return false
      }
      throw SecretServiceProvider.classify(error)
    }
    defer { if let prompt { ss_free(prompt) } }
    if answer == 1 { return true }
    guard let prompt else { return false }
    let provider = session.provider(cancellable)
    let request = "delete \"\(item.label)\""
    try runPrompt(
      prompt, of: session.service, provider: provider,
      announce: "\(provider.name) is asking you to confirm deleting \"\(item.label)\" — see its window",
      request: request, dismissed: .denied(provider: provider.name, request: request))
    return true
  }

  /// An item still locked to us after access was allowed: the provider said no after all.
  private func accessFailure(_ error: UnsafeMutablePointer<GError>, item: FoundItem, in session: KeyringSession)
    -> StoreError
  {
    guard SecretServiceProvider.isLocked(error) else { return SecretServiceProvider.classify(error) }
    ss_error_free(error)
    return .denied(provider: session.provider(cancellable).name, request: "allow access to \"\(item.label)\"")
  }

  // MARK: internals

  /// `strivacity: PROFILE (ISSUER)`; another slot's `strivacity: PROFILE SLOT (ISSUER)`.
  private func label(for key: StoreKey) -> String {
    "strivacity: \(key.profile)\(key.slot.name.map { " " + $0 } ?? "") (\(key.issuer))"
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

  /// Whether a desktop could show a dialog to the person running this: a display in our own
  /// environment (the session bus starts gnome-keyring's prompter with the desktop's).
  static var desktopVisible: Bool {
    for name in ["DISPLAY", "WAYLAND_DISPLAY"] {
      if let value = getenv(name), value.pointee != 0 { return true }
    }
    return false
  }

  private static func staticCString(_ name: String) -> UnsafePointer<CChar> {
    // Schema attribute names must outlive the schema: intern them for the process's lifetime.
    UnsafePointer(ss_intern_string(name))
  }
}

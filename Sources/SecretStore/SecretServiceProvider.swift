// The programs that serve org.freedesktop.secrets, and everything in which they differ: what
// they are called, what they call a collection, where their dialogs appear, which dialogs may be
// asked for, and what their errors say. SecretServiceStore reads these; a quirk of a provider
// (a new one, or one that changes) is a change here.
internal import CSecretShim
import StrivacityCore
import SystemIO

/// One provider of the Secret Service, as messages name it and as the store treats it: the one
/// table of provider quirks.
struct SecretServiceProvider: Sendable, Equatable {
  /// "KeePassXC", "gnome-keyring", "KWallet", or "the Secret Service".
  let name: String
  /// Its process's names (/proc/PID/comm): exact, and prefixes (the daemons' versions).
  let processNames: [String]
  let processPrefixes: [String]
  /// What it calls a collection.
  let collectionNoun: String
  /// Where its prompts appear.
  let window: String
  /// Whether a collection is named with the provider ("the KeePassXC database 'Passwords'") or
  /// as a plain keyring ("the keyring 'login'": gnome-keyring, and a provider not known).
  let namedWithCollections: Bool
  /// The label of a default collection made on request: KWallet's default wallet is "kdewallet"
  /// (what its PAM module and applications open); elsewhere the login keyring.
  let newCollectionLabel: String
  /// Whether a missing default collection may be asked for (`strivacity login` on a terminal).
  /// Not of KeePassXC: its answer is a wizard for a new database file, when what is missing is
  /// nearly always the user's own database, closed or not exposed.
  let createsCollectionOnRequest: Bool
  /// Whether its dialogs need a desktop: gnome-keyring's come from a prompter program the session
  /// bus starts on the desktop; without one (SSH, a container) a prompt ends "dismissed" at once,
  /// which is no one's "no". KeePassXC and KWallet draw their own windows: their "dismissed" is a
  /// person's.
  let dialogsNeedDesktop: Bool

  // MARK: the table

  static let keePassXC = SecretServiceProvider(
    name: "KeePassXC", processNames: ["keepassxc", "KeePassXC"], processPrefixes: [], collectionNoun: "database",
    window: "KeePassXC's window", namedWithCollections: true, newCollectionLabel: "Login",
    createsCollectionOnRequest: false, dialogsNeedDesktop: false)

  static let gnomeKeyring = SecretServiceProvider(
    name: "gnome-keyring", processNames: [], processPrefixes: ["gnome-keyring"], collectionNoun: "keyring",
    window: "the desktop's keyring dialog", namedWithCollections: false, newCollectionLabel: "Login",
    createsCollectionOnRequest: true, dialogsNeedDesktop: true)

  static let kWallet = SecretServiceProvider(
    name: "KWallet", processNames: [], processPrefixes: ["kwalletd", "ksecretd"], collectionNoun: "wallet",
    window: "KWallet's window", namedWithCollections: true, newCollectionLabel: "kdewallet",
    createsCollectionOnRequest: true, dialogsNeedDesktop: false)

  /// Any other program: named generically, asked as gnome-keyring would be.
  static let unknown = SecretServiceProvider(
    name: "the Secret Service", processNames: [], processPrefixes: [], collectionNoun: "keyring collection",
    window: "its window", namedWithCollections: false, newCollectionLabel: "Login", createsCollectionOnRequest: true,
    dialogsNeedDesktop: false)

  static let known: [SecretServiceProvider] = [keePassXC, gnomeKeyring, kWallet]

  /// By the serving process's name (/proc/PID/comm): a fixed set of names, nothing of the
  /// process's own text reaches a message.
  init(pid: UInt32) {
    var comm = ""
    if pid > 0, case .contents(let bytes) = readFile("/proc/\(pid)/comm", limit: 64) {
      comm = String(decoding: bytes, as: UTF8.self).trimmingNewline
    }
    let known = Self.known.first {
      $0.processNames.contains(comm) || $0.processPrefixes.contains { comm.hasPrefix($0) }
    }
    self = known ?? .unknown
  }

  private init(
    name: String, processNames: [String], processPrefixes: [String], collectionNoun: String, window: String,
    namedWithCollections: Bool, newCollectionLabel: String, createsCollectionOnRequest: Bool, dialogsNeedDesktop: Bool
  ) {
    self.name = name
    self.processNames = processNames
    self.processPrefixes = processPrefixes
    self.collectionNoun = collectionNoun
    self.window = window
    self.namedWithCollections = namedWithCollections
    self.newCollectionLabel = newCollectionLabel
    self.createsCollectionOnRequest = createsCollectionOnRequest
    self.dialogsNeedDesktop = dialogsNeedDesktop
  }

  /// The name for messages that give advice per provider (StoreError.noDefaultCollection); nil
  /// for an unknown one.
  var knownName: String? { self == .unknown ? nil : name }

  /// "the keyring 'login'", "the KeePassXC database 'Passwords'".
  func describeCollection(_ label: String) -> String {
    let shown = TerminalSafe.text(label, multiline: false)
    return namedWithCollections ? "the \(name) \(collectionNoun) '\(shown)'" : "the \(collectionNoun) '\(shown)'"
  }

  // MARK: rules for every provider

  /// A new set for a profile that has an item is written over the item's secret (Item.SetSecret)
  /// rather than by a new item that replaces it: the refresh token is never absent from the store,
  /// and KeePassXC, which answers CreateItem(replace) with an access dialog, is not asked. Alike
  /// for every provider, so a save need not ask which one serves (a bus call). When false, a
  /// new item is made and the older one deleted after it.
  static let updatesInPlace = true

  /// A prompt the provider returns is said on stderr only if it is not over within this many
  /// seconds: a provider may return prompts that ask nobody (KeePassXC's delete prompt without
  /// "confirm delete").
  static let announcePromptsAfter: Double = 0.3

  // MARK: what their errors say

  /// Messages of an item or collection locked to us (KeePassXC's D-Bus error name).
  static let lockedMessages = ["IsLocked"]
  /// Messages of an object that is gone (deleted by another process between a search and a call),
  /// lowercased, as the providers and GDBus word it.
  static let noSuchObjectMessages = [
    "nosuchobject", "no such object", "object does not exist", "unknownobject", "unknownmethod", "no such interface",
  ]
  /// Messages of no session bus to connect to (GDBus), lowercased.
  static let noSessionBusMessages = ["autolaunch", "session bus", "could not connect", "dbus_session_bus_address"]

  static func isLocked(_ error: UnsafeMutablePointer<GError>) -> Bool {
    if error.pointee.domain == ss_secret_error_quark() && error.pointee.code == Int32(SS_SECRET_ERROR_IS_LOCKED) {
      return true
    }
    let message = error.pointee.message.map { String(cString: $0) } ?? ""
    return lockedMessages.contains { message.contains($0) }
  }

  /// An item that is gone (deleted by another process between the search and the call).
  static func isNoSuchObject(_ error: UnsafeMutablePointer<GError>) -> Bool {
    if error.pointee.domain == ss_secret_error_quark() && error.pointee.code == Int32(SS_SECRET_ERROR_NO_SUCH_OBJECT) {
      return true
    }
    let message = error.pointee.message.map { String(cString: $0).lowercased() } ?? ""
    return noSuchObjectMessages.contains { message.contains($0) }
  }

  /// What an error of libsecret or GDBus means for the store (and frees it).
  static func classify(_ error: UnsafeMutablePointer<GError>) -> StoreError {
    defer { ss_error_free(error) }
    let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    let dbusError = error.pointee.domain == ss_dbus_error_quark()
    let lower = message.lowercased()
    if noSessionBusMessages.contains(where: { lower.contains($0) }) {
      return .noSessionBus(detail: message)
    }
    if dbusError && error.pointee.code == Int32(SS_DBUS_ERROR_SERVICE_UNKNOWN)
      || lower.contains("org.freedesktop.secrets was not provided")
    {
      return .noSecretService(detail: "org.freedesktop.secrets is not provided")
    }
    if lower.contains("locked") { return .locked(what: "the keyring collection") }
    if lower.contains("object does not exist") {
      return .noDefaultCollection(provider: nil, desktop: SecretServiceStore.desktopVisible)
    }
    return .failure(detail: message)
  }
}

extension String {
  fileprivate var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}

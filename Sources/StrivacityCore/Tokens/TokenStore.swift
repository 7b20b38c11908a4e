// Where token sets live. Implementations: the Secret Service (SecretStore) and an explicit
// 0600 file store for machines without one. Never a silent fallback from one to the other.
// What is put over them (the agent's memory, telling the agent, the kernel's cache), and in
// which order: Broker/StoreStack.swift.

/// Which backend holds a profile's tokens.
public enum StoreKind: String, Sendable, CaseIterable {
  case secretService = "secret-service"
  case file
  /// The kernel's per-user keyring (keyrings(7)): a machine profile's tokens, which a request
  /// with its client credentials replaces at any time, so no desktop keyring and no file is
  /// needed. Never chosen in the config: a machine profile gets it unless `store = "file"`.
  case kernel

  /// Accepts the config/flag spellings.
  public init?(configValue: String) {
    switch configValue.lowercased() {
    case "secret-service", "secretservice", "keyring", "libsecret": self = .secretService
    case "file": self = .file
    default: return nil
    }
  }
}

/// Identifies one stored token set. Every part is a non-secret attribute.
public struct StoreKey: Hashable, Sendable, CustomStringConvertible {
  public var profile: String
  public var issuer: String
  public var clientID: String
  /// Which of the profile's sets: the sign-in's unless said otherwise.
  public var slot: TokenSlot

  public init(profile: String, issuer: String, clientID: String, slot: TokenSlot = .signIn) {
    self.profile = profile
    self.issuer = issuer
    self.clientID = clientID
    self.slot = slot
  }

  public var description: String { "\(profile) (\(issuer))" }

  /// The same profile's set in `slot`.
  public func with(slot: TokenSlot) -> StoreKey {
    var key = self
    key.slot = slot
    return key
  }
}

/// One of the token sets a profile may hold. The sign-in's set is the one there is today; a
/// named slot is the seam for more (one per API). Every store derives its names from the slot so
/// that the sign-in's set is named as it always was: keyring attributes and label, kernel cache
/// description, file name; a named slot adds its name to each.
///
/// Two kinds of name, kept apart by construction: an API's (`init(apiName:)`, the only way a
/// name a user, a config file or a tenant chose becomes a slot, and `api(_:digest:)`: that name
/// with a digest of the settings its token is asked with, `API.slot`) and an ad hoc target's
/// (`adhoc.` and a digest, made here). `init(stored:)` reads back a name a store wrote. No slot
/// holds a secret: a kept secret (a machine's client secret, a proxy's password) is an item of
/// another kind (SecretStore's `SecretItemStore`), and the name spaces earlier versions kept them
/// in as token sets are no slot's.
public struct TokenSlot: Hashable, Sendable, CustomStringConvertible {
  /// nil for the sign-in's set; else a name in ProfileName's alphabet (it goes into file names):
  /// at most 64 characters, and an API's its settings' digest besides (`api(_:digest:)`).
  public let name: String?

  public static let signIn = TokenSlot(checked: nil)

  /// The name spaces of strivacity's own items besides tokens (`machine.` and `proxy.`, where
  /// earlier versions kept a machine's client secret and a proxy's password as token sets, and
  /// `secret.` for kinds to come): an item in one of them is never a token set.
  static let secretPrefixes = ["machine.", "proxy.", "secret."]
  /// Name spaces no API may take: ad hoc targets' slots, and those of strivacity's own items.
  /// Compared without regard to case.
  public static let reservedPrefixes = ["adhoc."] + secretPrefixes

  /// A slot as a store names it (an item's attribute, a file's name, the kernel cache's note):
  /// an API's or an ad hoc target's. nil for a name that could not go into a file name or an
  /// attribute, and for one in a kept secret's name space (such an item, an earlier version's,
  /// is no token set: it is neither listed, nor read, nor deleted as one). Never for a name
  /// someone chose: that is `init(apiName:)`.
  public init?(stored name: String) {
    guard ProfileName.isValid(Self.apiSettingsStripped(name)),
      Self.reservedPrefix(of: name).map(Self.secretPrefixes.contains) != true
    else {
      return nil
    }
    self.init(checked: name)
  }

  /// An API's slot, from a name a config file, the command line, an API's metadata or the
  /// agent's client gave: nil for a name outside the alphabet, and for one in a reserved name
  /// space (`reservedPrefix(of:)`), so that no such name can reach an ad hoc target's token or
  /// take a name strivacity keeps for its own items.
  public init?(apiName name: String) {
    guard ProfileName.isValid(name), Self.reservedPrefix(of: name) == nil else { return nil }
    self.init(checked: name)
  }

  /// The slot of an ad hoc target (or of an API asked with scopes beyond its own): `adhoc.` and
  /// 32 hex digits of `digest`.
  package static func adHoc(digest: String) -> TokenSlot {
    precondition(digest.utf8.count == 32 && digest.utf8.allSatisfy(isLowerHex))
    return TokenSlot(checked: "adhoc." + digest)
  }

  /// Hex digits of the settings' digest an API's slot name ends with (after a `.`).
  package static let settingsDigestLength = 16

  /// The slot of an API's token asked with the settings `digest` names (`API.slot`): the API's
  /// name, `.` and `settingsDigestLength` hex digits. nil for a name `init(apiName:)` refuses.
  package static func api(_ name: String, digest: String) -> TokenSlot? {
    precondition(digest.utf8.count == settingsDigestLength && digest.utf8.allSatisfy(isLowerHex))
    guard TokenSlot(apiName: name) != nil else { return nil }
    return TokenSlot(checked: name + "." + digest)
  }

  /// The API a slot is named for, as its table names it (an earlier version's slot, named by the
  /// API alone, too); nil for the sign-in's and an ad hoc target's.
  public var apiName: String? {
    guard let name, Self.reservedPrefix(of: name) == nil else { return nil }
    return Self.apiSettingsStripped(name)
  }

  /// `name` without the `.` and settings' digest an API's slot name ends with; `name` itself when
  /// it has none.
  static func apiSettingsStripped(_ name: String) -> String {
    let suffix = name.utf8.suffix(settingsDigestLength + 1)
    guard name.utf8.count > suffix.count, suffix.first == UInt8(ascii: "."), suffix.dropFirst().allSatisfy(isLowerHex)
    else { return name }
    return String(decoding: name.utf8.dropLast(suffix.count), as: UTF8.self)
  }

  static func isLowerHex(_ byte: UInt8) -> Bool { (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) }

  /// The reserved name space `name` is in (as written in `reservedPrefixes`), or nil.
  public static func reservedPrefix(of name: String) -> String? {
    let lowered = name.lowercased()
    return reservedPrefixes.first { lowered.hasPrefix($0) }
  }

  private init(checked name: String?) { self.name = name }

  public var description: String { name ?? "sign-in" }
}

/// A store of token sets: one per profile and slot.
public protocol TokenStore: AnyObject {
  var kind: StoreKind { get }
  /// The token set for `key`, or nil when none is stored.
  func load(_ key: StoreKey) throws(StoreError) -> TokenSet?
  /// Stores `tokens` for `key`, replacing any earlier set of the same profile and slot atomically.
  func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError)
  /// Deletes every token set of `profile`, in every slot; returns whether there was one. (Kept
  /// secrets are not token sets: they stay.)
  @discardableResult func delete(profile: String) throws(StoreError) -> Bool
  /// Every stored token set's key, sorted by profile.
  func keys() throws(StoreError) -> [StoreKey]
  /// The token set for `key` as the store holds it now, past any copy kept in memory: what a
  /// refresh re-reads under its lock (another process may have refreshed meanwhile).
  func reload(_ key: StoreKey) throws(StoreError) -> TokenSet?
}

extension TokenStore {
  public func reload(_ key: StoreKey) throws(StoreError) -> TokenSet? { try load(key) }
}

/// Why the store could not be used. Messages are one line with an actionable hint.
public enum StoreError: Error, Equatable, CustomStringConvertible {
  case noSessionBus(detail: String)
  case noSecretService(detail: String)
  /// `what` names it as its provider does: "the KeePassXC database 'Passwords'", "the keyring 'login'".
  case locked(what: String)
  /// Locked, with no desktop to show gnome-keyring's unlock dialog (SSH, a container).
  case lockedNoDesktop(what: String)
  /// The provider's unlock dialog was answered no (Cancel, Escape); `window` is where it was.
  case unlockDeclined(what: String, window: String)
  /// The provider's prompt was answered no (or closed): `request` is what was asked, e.g.
  /// `allow access to "strivacity: work (…)"`.
  case denied(provider: String, request: String)
  /// Nobody answered the provider's prompt, shown in `window`, within the bound.
  case promptUnanswered(provider: String, request: String, window: String, seconds: Double)
  /// No default collection. `provider`: "KWallet", "KeePassXC", "gnome-keyring", or nil when
  /// not known; `desktop`: whether a desktop could show gnome-keyring's dialogs.
  case noDefaultCollection(provider: String?, desktop: Bool)
  case failure(detail: String)
  case insecureFile(path: String, mode: String)
  case notOwner(path: String)
  case corrupt(source: String, detail: String)
  case io(path: String, detail: String)
  /// The Secret Service did not answer within the keyring bound.
  case timedOut(seconds: Double)

  /// What works without a desktop, ending every keyring message (README "Servers and containers").
  public static let headlessChoices =
    "without a desktop, use the file store (--store file, or store = \"file\" in the profile), or a session bus "
    + "with an unlocked keyring: "
    + "dbus-run-session -- bash, then printf '%s' \"$PASSWORD\" | gnome-keyring-daemon --daemonize --unlock "
    + "--components=secrets (README: Servers and containers)"

  /// What unlocks, or first creates, gnome-keyring's login keyring from a shell without a
  /// desktop, with a daemon already on the session bus (README "Servers and containers").
  public static let unlockRecipe =
    "printf '%s' \"$PASSWORD\" | gnome-keyring-daemon --replace --daemonize --unlock --components=secrets"

  public var description: String {
    switch self {
    case .noSessionBus(let detail):
      return "no D-Bus session bus (\(detail)); in a desktop session this is set for you; \(Self.headlessChoices)"
    case .noSecretService(let detail):
      return
        "no Secret Service on the session bus (\(detail)); install and start gnome-keyring or KeePassXC; "
        + "\(Self.headlessChoices)"
    case .locked(let what):
      return "\(what) is locked: unlock it, or run with --store file (README: Keyrings)"
    case .lockedNoDesktop(let what):
      return
        "\(what) is locked, and no desktop is here to unlock it: run with --store file, or unlock it with its "
        + "password: \(Self.unlockRecipe) (README: Servers and containers)"
    case .unlockDeclined(let what, let window):
      return
        "the unlock of \(what) was declined in \(window): run again and unlock it, or run with --store file "
        + "(README: Keyrings)"
    case .denied(let provider, let request):
      return
        "\(provider) was asked to \(request) and said no: allow it when \(provider) asks, or run with --store file "
        + "(README: Keyrings)"
    case .promptUnanswered(let provider, let request, let window, let seconds):
      return
        "nobody answered \(provider)'s request to \(request) within \(formatSeconds(seconds)): answer it in "
        + "\(window), or allow longer with STRIVACITY_KEYRING_PROMPT_TIMEOUT (README: Keyrings)"
    case .noDefaultCollection(let provider, let desktop):
      switch provider {
      case "KWallet":
        return
          "KWallet has no wallet yet: run `strivacity login` on a terminal and create one when KWallet asks, or "
          + "run with --store file (README: Keyrings)"
      case "KeePassXC":
        return
          "KeePassXC offers no database to the Secret Service: open one and expose a group (Database Settings → "
          + "Secret Service Integration), or run with --store file (README: KeePassXC)"
      case "gnome-keyring" where desktop:
        return
          "gnome-keyring has no default keyring yet: run `strivacity login` on a terminal and choose its password "
          + "when the desktop asks, or run with --store file (README: Keyrings)"
      case "gnome-keyring":
        return
          "gnome-keyring has no default keyring, and no desktop is here to create one: run with --store file, or "
          + "create the login keyring with a password of your choosing: \(Self.unlockRecipe) (README: Servers "
          + "and containers)"
      default:
        return
          "the Secret Service has no default keyring collection (a desktop makes one at first sign-in, and "
          + "`strivacity login` on a terminal asks for one); \(Self.headlessChoices)"
      }
    case .timedOut(let seconds):
      return
        "the keyring did not answer within \(formatSeconds(seconds)) (the Secret Service is stalled, or waiting on "
        + "a prompt nobody sees); STRIVACITY_KEYRING_TIMEOUT sets the bound for the keyring, 120 s apply to an "
        + "unlock prompt; \(Self.headlessChoices)"
    case .failure(let detail): return "keyring failure: \(detail); \(Self.headlessChoices)"
    case .insecureFile(let path, let mode):
      return
        "refusing to read \(path): its mode is \(mode), readable by others; run `chmod 600 \(path)` if you trust "
        + "its content, or delete it and sign in again"
    case .notOwner(let path):
      return "refusing to read \(path): it belongs to another user"
    case .corrupt(let source, let detail):
      return "stored tokens in \(source) are unreadable (\(detail)); run `strivacity login` again"
    case .io(let path, let detail): return "\(path): \(detail)"
    }
  }
}

public enum ProfileName {
  /// ` --profile NAME` for a command line that names the profile `name`; empty for the default
  /// one: what every "run strivacity …" hint puts after the command.
  public static func flag(_ name: String) -> String { name == "default" ? "" : " --profile \(name)" }

  /// Profile names become file names and keyring attributes: keep them plain.
  public static func isValid(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 64 && !name.hasPrefix(".")
      && name.unicodeScalars.allSatisfy { c in
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "." || c == "_" || c == "-"
      }
  }
}

import StrivacityCore

// The configuration file: profiles, each a tenant + client + how to keep its tokens.
//
//   default_profile = "work"          # optional; otherwise "default"
//   agent = true                      # optional: ask `strivacity agent` for tokens
//
//   [profiles.work]
//   tenant = "https://example.strivacity.com"
//   client_id = "2fe0…"
//   scopes = ["openid", "profile", "offline_access"]
//   redirect_uri = "http://127.0.0.1:0/callback"
//   store = "secret-service"          # or "file"
//   git_hosts = ["git.example.com"]      # git credential helper answers for these
//   hosts = ["api.example.com"]          # `strivacity curl` may send the token here too
//   min_ttl = 600                        # optional: every token handed out lives this long more
//   kube_clusters = ["https://k8s.example.com:6443"]   # kubectl gets the token for these API servers
//
//   [profiles.work.apis.orders]          # an API: its URLs, audience, resources, scopes (APIs.swift)
//   url = "https://api.example.com/orders/"
//
//   [profiles.work.sinks.deploy]         # a token file `strivacity agent` keeps fresh (Sinks.swift)
//   path = "/run/user/1000/deploy.token"
//
// Nothing secret is ever written here.
//
// The pure core's only C: libc's byte functions for the scan that keeps one profile's lines
// (`keepingOnly`), what every `token` pays for a config's other profiles. A pure-Swift scan was
// measured against them (issue 38): faster on short lines, slower on long ones; not clearly as
// fast, so they stay.
import func Glibc.memchr
import func Glibc.memcmp
import func Glibc.memcpy

/// One profile as configured.
public struct Profile: Sendable, Equatable {
  public var name: String
  public var tenant: String?
  public var clientID: String?
  public var scopes: [String]?
  public var redirectURI: String?
  public var store: StoreKind?
  public var sdkMode: String?
  public var gitHosts: [HostEntry] = []
  public var gitUsername: String?
  /// The username git is answered with: `git_username`, else oauth2.
  public var gitUser: String { gitUsername ?? "oauth2" }
  /// Other hosts (or URL prefixes) `strivacity curl` may send the token to, besides the tenant.
  public var hosts: [HostEntry] = []
  /// `min_ttl`: seconds of life every token handed out for this profile must have left (git,
  /// curl, kubectl, `token` without --min-ttl); a promise, not capped as the default margin is.
  public var minTTL: Int64?
  /// The Kubernetes API servers kubectl gets the token for (`setup-kubectl` adds its context's);
  /// each admitted as a `KubeServer` when the file is read.
  public var kubeClusters: [KubeServer] = []
  /// `[profiles.NAME.apis.API]`: the APIs tokens are asked for (APIs.swift), in the file's order.
  public var apis: [API] = []
  /// `[profiles.NAME.sinks.SINK]`: token files the agent keeps fresh (Sinks.swift), in the file's order.
  public var sinks: [Sink] = []
  /// `ca_bundle`: the CA bundle this profile's requests trust (CATrust), before the config's.
  public var caBundle: String?
  /// `proxy`, `proxy_ca_bundle`, `proxy_user`, `proxy_auth` in this profile's table, before the
  /// config's (ProxyChoice).
  public var proxy = ProxySettings()
  /// `grant`: how its tokens are got (default: a person signs in).
  public var grant: Grant = .signIn
  /// A machine profile's secret source and client authentication (Machine.swift); nil when
  /// `grant` is the sign-in.
  public var machine: MachineCredentials?

  public init(name: String) { self.name = name }

  public static let defaultScopes = ["openid", "profile", "offline_access"]
}

public struct ConfigWarning: Sendable, Equatable, CustomStringConvertible {
  public var path: String
  public var position: SourcePosition
  public var message: String
  public var description: String { "\(path):\(position.line): \(message)" }

  /// A key no table of `section` has (nil: the file's top level), ignored: the line, and the
  /// valid key of that table it most likely meant.
  static func unknownKey(_ key: String, in section: String?, valid: [String], path: String, position: SourcePosition)
    -> ConfigWarning
  {
    let near = Suggestion.nearest(to: key, among: valid).map { "; did you mean '\($0)'?" } ?? ""
    return ConfigWarning(
      path: path, position: position,
      message: "unknown key '\(key)'\(section.map { " in \($0)" } ?? "") ignored\(near)")
  }
}

/// The keys each table of the config file takes (what `Config.parse` reads), for "did you mean".
enum ConfigKeys {
  static let topLevel = ["default_profile", "store", "ca_bundle", "agent", "profiles", "contexts"] + proxy
  static let context = ["profile", "directory", "git_remote", "env"]
  static let proxy = ["proxy", "proxy_ca_bundle", "proxy_user", "proxy_auth"]
  static let machine = [
    "client_secret_env", "client_secret_file", "token_endpoint_auth", "private_key_file", "private_key_id",
  ]
  static let profile =
    [
      "tenant", "client_id", "scopes", "scope", "redirect_uri", "store", "sdk_mode", "ca_bundle", "git_hosts",
      "git_username", "hosts", "min_ttl", "kube_clusters", "apis", "sinks", "grant",
    ] + proxy + machine
  static let api = [
    "url", "audience", "resource", "resources", "scopes", "scope", "username", "aws_role_arn", "aws_session_name",
    "aws_sts_endpoint",
  ]
  static let sink = ["path", "api", "format", "mode"]
}

public enum ConfigError: Error, Equatable, CustomStringConvertible {
  case syntax(path: String, position: SourcePosition, message: String)
  case invalid(path: String, position: SourcePosition, message: String)
  case unreadable(path: String, detail: String)
  case invalidProfileName(String)
  /// `configured`: the profiles the file has, to list (and suggest the nearest of).
  case profileNotConfigured(name: String, path: String, configured: [String])
  case missingSetting(profile: String, setting: String, flag: String, env: String)

  /// The profile whose table the mistake is in (the parser's "in [profiles.NAME]: …"), if any.
  public var profileTable: String? {
    switch self {
    case .syntax(_, _, let message), .invalid(_, _, let message):
      let prefix = "in [profiles."
      guard message.hasPrefix(prefix), let end = message.firstIndex(of: "]") else { return nil }
      return String(message[message.index(message.startIndex, offsetBy: prefix.count)..<end])
    default: return nil
    }
  }

  public var description: String {
    switch self {
    case .syntax(let path, let position, let message):
      return "\(path):\(position): \(message)"
    case .invalid(let path, let position, let message):
      return "\(path):\(position): \(message)"
    case .unreadable(let path, let detail):
      return "cannot read \(path): \(detail)"
    case .invalidProfileName(let name):
      return "invalid profile name '\(name)': use letters, digits, '.', '_' and '-' (at most 64)"
    case .profileNotConfigured(let name, let path, let configured):
      let create = "strivacity login --profile \(name) --tenant URL --client-id ID"
      guard !configured.isEmpty else { return "profile '\(name)' is not configured in \(path); run `\(create)`" }
      let near = Suggestion.nearest(to: name, among: configured).map { "; did you mean '\($0)'?" } ?? ""
      let listed = configured.prefix(12).joined(separator: ", ") + (configured.count > 12 ? ", …" : "")
      return "profile '\(name)' is not configured in \(path)\(near) (it has \(listed); to add '\(name)': `\(create)`)"
    case .missingSetting(let profile, let setting, let flag, let env):
      return
        "profile '\(profile)' has no \(setting); pass \(flag), set \(env), or run `strivacity login --profile "
        + "\(profile) \(flag) …`"
    }
  }
}

/// The parsed configuration file.
public struct Config: Sendable, Equatable {
  public var path: String
  public var defaultProfile: String?
  public var defaultStore: StoreKind?
  /// `agent = true`: `token`, git's `get`, `curl` and `userinfo` ask `strivacity agent` first.
  public var agent = false
  /// `ca_bundle` at the top level: the CA bundle every profile trusts (CATrust).
  public var caBundle: String?
  /// The proxy settings at the top level, for every profile (ProxyChoice).
  public var proxy = ProxySettings()
  public var profiles: [Profile] = []
  /// The names of every profile of the file, when `profiles` holds fewer (a narrowed read that
  /// missed the profile it was asked for); nil: `profiles` has them all.
  public var profileNames: [String]?
  /// Unknown keys and other things worth telling the user; never fatal.
  public var warnings: [ConfigWarning] = []
  /// `[[contexts]]`: the rules that choose a profile by where the call is made (Contexts.swift).
  public var contexts: [ContextRule] = []
  /// The rule that matched where the file was loaded (`load`'s `place`), if any.
  public var contextChoice: ContextChoice?
  /// Where the file was loaded from (`load`'s `place`): a helper matches its request there.
  public var place: Workplace?

  public init(path: String) { self.path = path }

  /// The profile the file chooses when no flag or variable names one: the matching context's,
  /// else `default_profile`, else "default".
  public var chosenProfile: String { contextChoice?.rule.profile ?? defaultProfile ?? "default" }

  public func profile(named name: String) -> Profile? { profiles.first { $0.name == name } }

  /// The profiles in the order a helper asks them which answers a host: the one a context
  /// chooses here first, then the file's order.
  public var profilesContextFirst: [Profile] {
    guard let chosen = contextChoice?.rule.profile, let index = profiles.firstIndex(where: { $0.name == chosen }) else {
      return profiles
    }
    var ordered = profiles
    ordered.insert(ordered.remove(at: index), at: 0)
    return ordered
  }

  /// Parses only what resolving one profile needs: the top-level keys and that profile's
  /// table (`profile`, else `default_profile`, else "default"); the other profiles' tables are
  /// skipped line by line without being parsed, so the cost does not grow with their number.
  /// Line numbers in messages stay those of the file.
  /// `apis` says which of that profile's `apis` tables are read too (`token` reads none, `token
  /// --api` its own), so that what a call does not need costs nothing however many there are.
  /// With no `profile`, `[[contexts]]` rules are matched at `place` (when there is one) first.
  public static func parse(
    _ text: String, path: String, onlyProfile profile: String?, apis: APITables = .all,
    place: Workplace? = nil, read: (String) -> FileRead = { _ in .missing }
  ) throws(ConfigError) -> Config {
    // default_profile is a top-level key, so it stands before the first table: the lines up to
    // the first header are all that naming the default needs.
    // The line scan takes any line starting with "[" for a header, and a top-level array may
    // hold such a line: when the cut text does not parse but the whole file does, the whole
    // file's answer is the true one; otherwise the cut text's error (on the wanted profile).
    do {
      var wanted = profile ?? "default"
      if profile == nil, let named = try parse(topLevel(text), path: path).defaultProfile { wanted = named }
      // A sink's `api` is checked against the profile's APIs only when they were all read.
      var narrowed = try parse(keepingOnly(text, profile: wanted, apis: apis), path: path, sinkAPIsRead: apis == .all)
      // `[[contexts]]` tables are kept by the narrowed read: with none, nothing more is done; with
      // some, the one that matches here may name another profile, whose table is read instead.
      if profile == nil, !narrowed.contexts.isEmpty {
        try Contexts.check(narrowed.contexts, profiles: profileTables(in: text), path: path)
        if let place, let choice = narrowed.choose(at: place, read: read) {
          if choice.rule.profile != wanted {
            wanted = choice.rule.profile
            narrowed = try parse(
              keepingOnly(text, profile: wanted, apis: apis), path: path, sinkAPIsRead: apis == .all)
          }
          narrowed.contextChoice = choice
        }
      }
      // A profile the file does not have (an error, or one given by flags and the environment):
      // the names of those it has, for the error to list, from the headers alone, not a parse.
      var result = narrowed
      if narrowed.profile(named: wanted) == nil { result.profileNames = profileTables(in: text) }
      return result
    } catch {
      if var whole = try? parse(text, path: path) {
        if profile == nil, let place { whole.contextChoice = whole.choose(at: place, read: read) }
        return whole
      }
      throw error
    }
  }

  /// The rules that match at `place` (the repository's remotes read with `read` only when a
  /// rule needs them): the first chooses.
  public func choose(at place: Workplace, everyMatch: Bool = false, read: (String) -> FileRead) -> ContextChoice? {
    Contexts.choose(contexts, at: place, everyMatch: everyMatch) {
      place.directory.map { Contexts.repositoryRemotes(from: $0, read: read) } ?? []
    }
  }

  /// The lines of `text` before its first table header.
  static func topLevel(_ text: String) -> String {
    var lineStart = text.utf8.startIndex
    var atLineStart = true
    for index in text.utf8.indices {
      let byte = text.utf8[index]
      if byte == UInt8(ascii: "\n") {
        atLineStart = true
        lineStart = text.utf8.index(after: index)
      } else if atLineStart && byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") {
        if byte == UInt8(ascii: "[") { return String(text[..<lineStart]) }
        atLineStart = false
      }
    }
    return text
  }

  /// `text` with the lines of every `[profiles.NAME]` table but `profile`'s blanked (nil: all of
  /// them). Headers the scan does not fully understand (quoted keys, arrays of tables) are kept,
  /// to be parsed.
  static func keepingOnly(_ text: String, profile: String?, apis: APITables = .all) -> String {
    let wanted = profile.map { Array($0.utf8) }
    // nil: every API table; else the one API whose name is these bytes (none: no name matches).
    let wantedAPI: [UInt8]? =
      switch apis {
      case .all: nil
      case .none: []
      case .named(let name): Array(name.utf8)
      }
    var copy = text
    return copy.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return "" }
      // Written straight into the result: the scan is what every `token` pays for the other
      // profiles' lines, so it finds line ends with memchr and copies kept lines whole.
      return String(unsafeUninitializedCapacity: bytes.count) { out in
        var written = 0
        var keeping = true
        var start = 0
        while start < bytes.count {
          var end = bytes.count
          if let found = memchr(base + start, 10, bytes.count - start) {
            end = UnsafeRawPointer(found) - UnsafeRawPointer(base)
          }
          var first = start
          while first < end && (bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t")) { first += 1 }
          if first < end && bytes[first] == UInt8(ascii: "[") {
            keeping = headerKept(UnsafeBufferPointer(rebasing: bytes[(first + 1)..<end]), wanted, wantedAPI)
          }
          if keeping {
            memcpy(out.baseAddress! + written, base + start, end - start)
            written += end - start
          }
          if end < bytes.count {
            out[written] = UInt8(ascii: "\n")
            written += 1
          }
          start = end + 1
        }
        return written
      }
    }
  }

  /// Whether a header (what follows its `[`) opens a table to keep: anything but
  /// `[profiles.NAME…]` with a bare NAME other than `wanted`, and, with `wantedAPI`, but
  /// `[profiles.WANTED.apis.API…]` with a bare API other than it.
  private static func headerKept(
    _ header: UnsafeBufferPointer<UInt8>, _ wanted: [UInt8]?, _ wantedAPI: [UInt8]? = nil
  ) -> Bool {
    var i = 0
    func skipSpaces() {
      while i < header.count && (header[i] == UInt8(ascii: " ") || header[i] == UInt8(ascii: "\t")) { i += 1 }
    }
    /// `word`, a dot, then a bare key followed by `.` or `]` (left unread): the key; nil when the
    /// header reads otherwise (quoted keys and the like: kept, for the parser to read).
    /// (`word` is a StaticString: its bytes are read in place, with no String iteration, since
    /// `token` reads every header of the file.)
    func step(_ word: StaticString) -> Slice<UnsafeBufferPointer<UInt8>>? {
      skipSpaces()
      let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
      guard header.count - i >= bytes.count, memcmp(header.baseAddress! + i, bytes.baseAddress!, bytes.count) == 0
      else { return nil }
      i += bytes.count
      skipSpaces()
      guard i < header.count, header[i] == UInt8(ascii: ".") else { return nil }
      i += 1
      skipSpaces()
      let start = i
      while i < header.count, isBareKeyByte(header[i]) { i += 1 }
      let end = i
      skipSpaces()
      guard end > start, i < header.count, header[i] == UInt8(ascii: ".") || header[i] == UInt8(ascii: "]") else {
        return nil
      }
      return header[start..<end]
    }
    guard let name = step("profiles") else { return true }
    guard let wanted else { return false }
    guard name.elementsEqual(wanted) else { return false }
    // The profile's own table, or (with every API wanted) anything under it.
    guard let wantedAPI, header[i] == UInt8(ascii: ".") else { return true }
    i += 1
    guard let api = step("apis") else { return true }
    return api.elementsEqual(wantedAPI)
  }

  private static func isBareKeyByte(_ b: UInt8) -> Bool {
    (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
      || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
  }

  /// The config file at `path`, its bytes as `read` gives them (SystemIO's `readFile`: this
  /// target reads no file), parsed; nil when it does not exist. Warnings are the caller's.
  /// `place`: where the call is made, for `[[contexts]]` (nil: no rule is matched).
  public static func load(
    _ path: String, _ scope: ConfigScope, place: Workplace?, read: (String) -> FileRead
  ) throws(ConfigError) -> Config? {
    switch read(path) {
    case .missing:
      return nil
    case .failed(let detail):
      throw .unreadable(path: path, detail: detail)
    case .contents(let bytes):
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw .unreadable(path: path, detail: "not UTF-8 text")
      }
      switch scope {
      case .whole:
        var config = try parse(text, path: path)
        config.place = place
        if let place, !config.contexts.isEmpty { config.contextChoice = config.choose(at: place, read: read) }
        return config
      case .profile(let name, let apis):
        var config = try parse(text, path: path, onlyProfile: name, apis: apis, place: place, read: read)
        config.place = place
        return config
      }
    }
  }

  /// Parses the text of a config file. `path` is used in messages only.
  public static func parse(_ text: String, path: String) throws(ConfigError) -> Config {
    let config = try parse(text, path: path, sinkAPIsRead: true)
    try Contexts.check(config.contexts, profiles: config.profiles.map(\.name), path: path)
    return config
  }

  private static func parse(_ text: String, path: String, sinkAPIsRead: Bool) throws(ConfigError) -> Config {
    do {
      return try parseNamingNoTable(text, path: path, sinkAPIsRead: sinkAPIsRead)
    } catch {
      // A mistake inside a profile's table names the profile when there are several: the one in
      // use may be another.
      guard profileTables(in: text).count > 1 else { throw error }
      switch error {
      case .syntax(let path, let position, let message):
        guard let name = profileTable(holding: position.line, in: text) else { throw error }
        throw .syntax(path: path, position: position, message: "in [profiles.\(name)]: " + message)
      case .invalid(let path, let position, let message):
        guard let name = profileTable(holding: position.line, in: text), !message.contains("[profiles.\(name)")
        else { throw error }
        throw .invalid(path: path, position: position, message: "in [profiles.\(name)]: " + message)
      default: throw error
      }
    }
  }

  /// The profile whose table (or a table under it) holds line `line` of `text`: the last
  /// `[profiles.NAME…]` header above it, when NAME is a valid profile name; nil above any header
  /// or under another table.
  static func profileTable(holding line: Int, in text: String) -> String? {
    var found: String?
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(line) where raw.contains("[") {
      found =
        header(raw).map { $0.count >= 2 && $0[0] == "profiles" && ProfileName.isValid($0[1]) ? $0[1] : nil }
        ?? found
    }
    return found
  }

  /// The names of the profiles whose tables `text`'s headers open, each once, in the file's order.
  static func profileTables(in text: String) -> [String] {
    var names: [String] = []
    // Lines as bytes: only a header's line (its first byte past spaces a '[') becomes a Substring.
    for bytes in text.utf8.split(separator: UInt8(ascii: "\n")) {
      guard bytes.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) == UInt8(ascii: "[") else {
        continue
      }
      let raw = Substring(bytes)
      if let parts = header(raw), parts.count >= 2, parts[0] == "profiles", ProfileName.isValid(parts[1]),
        !names.contains(parts[1])
      {
        names.append(parts[1])
      }
    }
    return names
  }

  /// A header line's dotted key, unquoted names kept as they are; nil for any other line.
  private static func header(_ line: Substring) -> [String]? {
    let header = line.drop { $0 == " " || $0 == "\t" }
    guard header.first == "[" else { return nil }
    let inside = header.drop { $0 == "[" }
    guard let close = inside.firstIndex(of: "]") else { return nil }
    return inside[..<close].split(separator: ".").map { String($0.filter { $0 != " " && $0 != "\t" }) }
  }

  private static func parseNamingNoTable(_ text: String, path: String, sinkAPIsRead: Bool) throws(ConfigError)
    -> Config
  {
    let root: TOMLTable
    do {
      root = try TOML.parse(text)
    } catch {
      throw .syntax(path: path, position: error.position, message: error.message)
    }
    var config = Config(path: path)
    for entry in root.entries {
      switch entry.key {
      case "default_profile":
        let name = try string(entry, path: path)
        guard ProfileName.isValid(name) else {
          throw .invalid(
            path: path, position: entry.position, message: "default_profile: invalid profile name '\(name)'")
        }
        config.defaultProfile = name
      case "store":
        config.defaultStore = try storeKind(entry, path: path)
      case "ca_bundle":
        config.caBundle = try admittedString(entry, path: path, in: "the config's", CATrust.admitPath)
      case "proxy", "proxy_ca_bundle", "proxy_user", "proxy_auth":
        try proxySetting(entry, path: path, in: "the config's", into: &config.proxy)
      case "agent":
        guard case .boolean(let on) = entry.value else {
          throw .invalid(
            path: path, position: entry.position, message: "agent must be true or false, not \(entry.value.typeName)")
        }
        config.agent = on
      case "profiles":
        guard case .table(let table) = entry.value else {
          throw .invalid(
            path: path, position: entry.position, message: "'profiles' must be a table of [profiles.NAME] sections")
        }
        for profileEntry in table.entries {
          config.profiles.append(
            try parseProfile(profileEntry, path: path, sinkAPIsRead: sinkAPIsRead, warnings: &config.warnings))
        }
        // One file, one writer: two profiles' sinks may not share a path (the error names the line
        // of the second sink's table).
        var owners: [String: String] = [:]
        for (profileEntry, profile) in zip(table.entries, config.profiles) {
          guard case .table(let fields) = profileEntry.value,
            case .table(let sinks)? = fields.entries.first(where: { $0.key == "sinks" })?.value
          else { continue }
          for (sinkEntry, sink) in zip(sinks.entries, profile.sinks) {
            if let other = owners[sink.path], other != profile.name {
              throw .invalid(
                path: path, position: sinkEntry.position,
                message: "[profiles.\(profile.name).sinks.\(sink.name)] has the path of a sink of [profiles.\(other)]")
            }
            owners[sink.path] = profile.name
          }
        }
      case "contexts":
        guard case .array(let items) = entry.value, items.allSatisfy({ if case .table = $0 { true } else { false } })
        else {
          throw .invalid(
            path: path, position: entry.position, message: "'contexts' must be [[contexts]] tables, one a rule")
        }
        for case .table(let table) in items {
          config.contexts.append(
            try Contexts.rule(table, position: table.position ?? entry.position, path: path, warnings: &config.warnings)
          )
        }
      default:
        config.warnings.append(
          .unknownKey(entry.key, in: nil, valid: ConfigKeys.topLevel, path: path, position: entry.position))
      }
    }
    return config
  }

  private static func parseProfile(
    _ entry: TOMLTable.Entry, path: String, sinkAPIsRead: Bool = true, warnings: inout [ConfigWarning]
  ) throws(ConfigError) -> Profile {
    guard ProfileName.isValid(entry.key) else {
      throw .invalid(
        path: path, position: entry.position,
        message: "invalid profile name '\(entry.key)': use letters, digits, '.', '_' and '-'")
    }
    guard case .table(let table) = entry.value else {
      throw .invalid(
        path: path, position: entry.position, message: "profiles.\(entry.key) must be a [profiles.\(entry.key)] section"
      )
    }
    var profile = Profile(name: entry.key)
    var machineFields: [TOMLTable.Entry] = []
    var sinkAPIs: [(name: String, position: SourcePosition)] = []
    for field in table.entries {
      switch field.key {
      case "tenant": profile.tenant = try string(field, path: path)
      case "client_id": profile.clientID = try string(field, path: path)
      case "scopes", "scope":
        switch field.value {
        case .string(let text): profile.scopes = text.split(separator: " ").map(String.init)
        default: profile.scopes = try strings(field, path: path)
        }
      case "redirect_uri": profile.redirectURI = try string(field, path: path)
      case "store": profile.store = try storeKind(field, path: path)
      case "sdk_mode": profile.sdkMode = try string(field, path: path)
      case "ca_bundle":
        profile.caBundle = try admittedString(field, path: path, in: "[profiles.\(entry.key)]", CATrust.admitPath)
      case "proxy", "proxy_ca_bundle", "proxy_user", "proxy_auth":
        try proxySetting(field, path: path, in: "[profiles.\(entry.key)]", into: &profile.proxy)
      case "git_hosts":
        profile.gitHosts = try admitted(field, path: path) { text throws(AdmissionError) in
          try HostEntry(admitting: text)
        }
      case "git_username": profile.gitUsername = try string(field, path: path)
      case "hosts":
        profile.hosts = try admitted(field, path: path) { text throws(AdmissionError) in try HostEntry(admitting: text)
        }
      case "min_ttl":
        guard case .integer(let seconds) = field.value, (0...Freshness.maxSeconds).contains(seconds) else {
          throw .invalid(
            path: path, position: field.position,
            message: "min_ttl must be a number of seconds from 0 to \(Freshness.maxSeconds)")
        }
        profile.minTTL = seconds
      case "kube_clusters":
        profile.kubeClusters = try admitted(field, path: path) { text throws(AdmissionError) in
          try KubeServer(admitting: text)
        }
      case "apis":
        profile.apis = try parseAPIs(field, profile: entry.key, path: path, warnings: &warnings)
      case "sinks":
        (profile.sinks, sinkAPIs) = try parseSinks(field, profile: entry.key, path: path, warnings: &warnings)
      case "grant":
        let text = try string(field, path: path)
        guard let grant = Grant(rawValue: text) else {
          throw .invalid(
            path: path, position: field.position,
            message: "grant must be \"authorization_code\" (a person signs in) or \"client_credentials\" (a machine)")
        }
        profile.grant = grant
      case "client_secret_env", "client_secret_file", "token_endpoint_auth", "private_key_file", "private_key_id":
        machineFields.append(field)
      default:
        warnings.append(
          .unknownKey(
            field.key, in: "[profiles.\(entry.key)]", valid: ConfigKeys.profile, path: path, position: field.position))
      }
    }
    if profile.grant == .clientCredentials || !machineFields.isEmpty {
      profile.machine = try parseMachine(machineFields, profile: profile, path: path)
    }
    for (api, position) in sinkAPIs where sinkAPIsRead && profile.api(named: api) == nil {
      throw .invalid(
        path: path, position: position,
        message: "a sink of [profiles.\(entry.key)] names the API '\(api)', which is not one of its "
          + "[profiles.\(entry.key).apis.NAME]")
    }
    return profile
  }

  /// The entries of `field`, which must be `[profiles.P.KIND.NAME]` sections (`kind`: "apis").
  static func namedTables(
    _ field: TOMLTable.Entry, _ kind: String, profile: String, path: String
  ) throws(ConfigError) -> [TOMLTable.Entry] {
    guard case .table(let table) = field.value else {
      throw .invalid(
        path: path, position: field.position,
        message: "'\(kind)' must be tables of [profiles.\(profile).\(kind).NAME] sections")
    }
    return table.entries
  }

  /// One `[profiles.P.KIND.NAME]` section of `namedTables`: its header as messages name it, and
  /// its fields; its name checked (`what` names it: "API"), and refused when `refusal` says why.
  static func namedSection(
    _ entry: TOMLTable.Entry, _ kind: String, _ what: String, profile: String, path: String,
    refusal: (String) -> String? = { _ in nil }
  ) throws(ConfigError) -> (section: String, fields: TOMLTable) {
    let section = "[profiles.\(profile).\(kind).\(entry.key)]"
    guard ProfileName.isValid(entry.key) else {
      throw .invalid(
        path: path, position: entry.position,
        message: "invalid \(what) name '\(HostEntry.shown(entry.key))': use letters, digits, '.', '_' and '-'")
    }
    if let message = refusal(entry.key) { throw .invalid(path: path, position: entry.position, message: message) }
    guard case .table(let fields) = entry.value else {
      throw .invalid(path: path, position: entry.position, message: "\(section) must be a section")
    }
    return (section, fields)
  }

  /// One string admitted by `admit`, or the line is an error naming the section and the key.
  static func admittedString<T>(
    _ entry: TOMLTable.Entry, path: String, in section: String, _ admit: (String) throws(AdmissionError) -> T
  ) throws(ConfigError) -> T {
    let text = try string(entry, path: path)
    do {
      return try admit(text)
    } catch {
      throw .invalid(path: path, position: entry.position, message: "\(section) \(entry.key): \(error.description)")
    }
  }

  static func string(_ entry: TOMLTable.Entry, path: String) throws(ConfigError) -> String {
    guard case .string(let value) = entry.value else {
      throw .invalid(
        path: path, position: entry.position, message: "'\(entry.key)' must be a string, not \(entry.value.typeName)")
    }
    return value
  }

  static func strings(_ entry: TOMLTable.Entry, path: String) throws(ConfigError) -> [String] {
    guard case .array(let items) = entry.value else {
      throw .invalid(
        path: path, position: entry.position,
        message: "'\(entry.key)' must be an array of strings, not \(entry.value.typeName)")
    }
    var out: [String] = []
    for item in items {
      guard case .string(let text) = item else {
        throw .invalid(path: path, position: entry.position, message: "'\(entry.key)' must contain only strings")
      }
      out.append(text)
    }
    return out
  }

  /// A list of strings each admitted by `admit` (`hosts`, `git_hosts`, `kube_clusters`), or the
  /// line is an error naming the key.
  static func admitted<T>(
    _ entry: TOMLTable.Entry, path: String, _ admit: (String) throws(AdmissionError) -> T
  ) throws(ConfigError) -> [T] {
    var out: [T] = []
    for text in try strings(entry, path: path) {
      do {
        out.append(try admit(text))
      } catch {
        throw .invalid(path: path, position: entry.position, message: "\(entry.key): \(error.description)")
      }
    }
    return out
  }

  static func storeKind(_ entry: TOMLTable.Entry, path: String) throws(ConfigError) -> StoreKind {
    let value = try string(entry, path: path)
    guard let kind = StoreKind(configValue: value) else {
      throw .invalid(
        path: path, position: entry.position, message: "store must be \"secret-service\" or \"file\", not \"\(value)\"")
    }
    return kind
  }
}

/// How much of the config file to parse: all of it, or only one profile's table (the named one,
/// else the default one), so that `token` costs the same among thousands of profiles.
public enum ConfigScope: Sendable {
  case whole
  /// One profile's table, with those of its `apis` tables that `apis` says.
  case profile(String?, apis: APITables = .all)
}

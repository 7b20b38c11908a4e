// Profiles chosen by where the work is: `[[contexts]]` rules in the config file.
//
//   [[contexts]]
//   directory = "~/src/acme"          # the working directory is this one or under it
//   profile = "acme"
//
//   [[contexts]]
//   git_remote = "github.com/acme"     # a remote of the repository here is on this host (and path)
//   profile = "acme"
//
//   [[contexts]]
//   env = "CI_PROJECT_NAMESPACE=acme"  # this variable has this value
//   profile = "ci"
//
// Each rule has exactly one of `directory`, `git_remote` and `env`, and a `profile` the file
// has. The first rule that matches chooses the profile, after `--profile` and
// STRIVACITY_PROFILE and before `default_profile`. Matching is pure: a function of the rules and
// a `Workplace` (working directory, home, environment, and the repository's remote URLs, read
// by the caller's `read` only when a rule asks for them; git is never run).
import StrivacityCore

/// One `[[contexts]]` rule.
public struct ContextRule: Sendable, Equatable, CustomStringConvertible {
  public enum Match: Sendable, Equatable {
    /// A directory, as written (`~` for the home directory); its subdirectories match too.
    case directory(String)
    /// A remote's host, optionally followed by a path prefix (`github.com/acme`).
    case gitRemote(RemotePattern)
    /// A variable of the environment and the value it must have.
    case environment(name: String, value: String)
  }

  public var match: Match
  public var profile: String
  /// The `[[contexts]]` header's position.
  public var position: SourcePosition

  public init(match: Match, profile: String, position: SourcePosition) {
    self.match = match
    self.profile = profile
    self.position = position
  }

  /// How status and doctor name it: "~/src/acme", "git remote github.com/acme", "CI=acme".
  public var description: String {
    switch match {
    case .directory(let path): return path
    case .gitRemote(let pattern): return "git remote \(pattern)"
    case .environment(let name, let value): return "\(name)=\(value)"
    }
  }

  /// Whether matching it needs the repository's remotes.
  public var needsRemotes: Bool {
    if case .gitRemote = match { return true }
    return false
  }
}

/// A `git_remote` value: a host (lowercase, with a port when written with one) and the path
/// components a remote's path must start with.
public struct RemotePattern: Sendable, Equatable, CustomStringConvertible {
  public var host: String
  public var path: [String]

  public init?(_ text: String) {
    var rest = Substring(text)
    if let scheme = RemoteURL.schemeEnd(ArraySlice(text.utf8)) {
      rest = Substring(text.utf8.dropFirst(scheme))
    }
    guard !rest.hasPrefix("/") else { return nil }
    let parts = rest.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    guard let first = parts.first, !first.isEmpty,
      first.unicodeScalars.allSatisfy({
        $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-.:[]".unicodeScalars.contains($0)
      })
    else { return nil }
    host = first.lowercased()
    path = Array(parts.dropFirst())
    if let last = path.last, last.hasSuffix(".git") { path[path.count - 1] = String(last.dropLast(4)) }
  }

  public var description: String { ([host] + path).joined(separator: "/") }

  /// Whether `remote` (a remote's URL as git's config holds it) is on this host, under this path.
  public func matches(_ remote: String) -> Bool {
    guard let url = RemoteURL(remote) else { return false }
    let hostMatches = host.contains(":") && !host.hasPrefix("[") ? url.hostAndPort == host : url.host == host
    return hostMatches && url.path.count >= path.count && Array(url.path.prefix(path.count)) == path
  }
}

/// A remote's URL read: https, http, ssh://, git://, and scp-like `user@host:owner/repo`.
public struct RemoteURL: Sendable, Equatable {
  public var host: String
  public var hostAndPort: String
  /// The path's components, the last without its `.git`.
  public var path: [String]

  /// (Read as bytes, as the small binary reads every remote of the repository on each call.)
  public init?(_ text: String) {
    var bytes = ArraySlice(text.utf8)
    while let b = bytes.first, b == 32 || b == 9 { bytes = bytes.dropFirst() }
    while let b = bytes.last, b == 32 || b == 9 || b == 13 { bytes = bytes.dropLast() }
    let slash = UInt8(ascii: "/")
    var authority: ArraySlice<UInt8>
    var rest: ArraySlice<UInt8>
    if let scheme = Self.schemeEnd(bytes) {
      let after = bytes[scheme...]
      let end = after.firstIndex(of: slash) ?? after.endIndex
      (authority, rest) = (after[..<end], after[end...])
    } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), !bytes[..<colon].contains(slash) {
      // scp-like: [user@]host:path (a colon before any slash).
      (authority, rest) = (bytes[..<colon], bytes[(colon + 1)...])
    } else {
      return nil
    }
    if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
    guard !authority.isEmpty else { return nil }
    let lower = authority.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
    hostAndPort = String(decoding: lower, as: UTF8.self)
    let hostEnd =
      lower.first == UInt8(ascii: "[")
      ? lower.firstIndex(of: UInt8(ascii: "]")).map { $0 + 1 } ?? lower.count
      : lower.firstIndex(of: UInt8(ascii: ":")) ?? lower.count
    host = String(decoding: lower[..<hostEnd], as: UTF8.self)
    path = rest.split(separator: slash).map { String(decoding: $0, as: UTF8.self) }
    if let last = path.last, last.utf8.count > 4, last.hasSuffix(".git") {
      path[path.count - 1] = String(last.dropLast(4))
    }
  }

  /// The index just past `://`, if the text has one.
  static func schemeEnd(_ bytes: ArraySlice<UInt8>) -> Int? {
    var i = bytes.startIndex
    while i + 2 < bytes.endIndex {
      if bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: "/") && bytes[i + 2] == UInt8(ascii: "/") {
        return i + 3
      }
      i += 1
    }
    return nil
  }
}

/// Where a call is made: what context rules are matched against.
public struct Workplace: Sendable, Equatable {
  /// The working directory (absolute), if it can be named.
  public var directory: String?
  public var environment: [String: String]
  /// The remotes to match instead of the repository's (git's request, with useHttpPath).
  public var remotes: [String]?

  public init(directory: String?, environment: [String: String], remotes: [String]? = nil) {
    self.directory = directory
    self.environment = environment
    self.remotes = remotes
  }

  var home: String? { environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } }
}

/// The rule that chose the profile, and the later ones that matched too (doctor warns of them).
public struct ContextChoice: Sendable, Equatable {
  public var rule: ContextRule
  public var alsoMatching: [ContextRule]

  /// doctor's warning when more than one rule matches here.
  public static func overlap(_ choice: ContextChoice) -> String {
    let others = choice.alsoMatching.map { "\($0) (line \($0.position.line), profile \($0.profile))" }
    return "here, context \(choice.rule) (line \(choice.rule.position.line)) chooses \(choice.rule.profile); "
      + "also matching, ignored: " + others.joined(separator: ", ")
  }
}

public enum Contexts {
  /// The rules of `rules` that match at `place`, in order (the first chooses). `remotes` gives
  /// the repository's remote URLs; it is called at most once, and only when a rule needs them.
  public static func matching(
    _ rules: [ContextRule], at place: Workplace, remotes: () -> [String], firstOnly: Bool = false
  ) -> [ContextRule] {
    var read: [String]?
    func repositoryRemotes() -> [String] {
      if let read { return read }
      let found = place.remotes ?? remotes()
      read = found
      return found
    }
    func matches(_ rule: ContextRule) -> Bool {
      switch rule.match {
      case .directory(let written):
        guard let directory = place.directory, let prefix = expand(written, home: place.home) else { return false }
        return isUnder(directory, prefix)
      case .gitRemote(let pattern):
        return repositoryRemotes().contains { pattern.matches($0) }
      case .environment(let name, let value):
        return place.environment[name] == value
      }
    }
    // The hot path stops at the first match: a later rule's repository read is not paid for.
    if firstOnly { return rules.first(where: matches).map { [$0] } ?? [] }
    return rules.filter(matches)
  }

  /// The choice at `place`: the first matching rule, with the others that match.
  /// The first rule that matches at `place` and, with `everyMatch`, the later ones that match
  /// too (doctor's overlap: every rule tried). Without it, the rules after the first match are
  /// not tried: a later rule's repository read is not paid for (Config.choose, every call).
  public static func choose(
    _ rules: [ContextRule], at place: Workplace, everyMatch: Bool = true, remotes: () -> [String]
  ) -> ContextChoice? {
    let found = matching(rules, at: place, remotes: remotes, firstOnly: !everyMatch)
    guard let first = found.first else { return nil }
    return ContextChoice(rule: first, alsoMatching: Array(found.dropFirst()))
  }

  /// The rule `use --here` writes at `place`: the repository's first remote (its host and
  /// path) when it has one, else the directory (under the home directory written with `~`).
  public static func ruleHere(_ place: Workplace, remotes: [String]) -> (key: String, value: String)? {
    if let url = remotes.lazy.compactMap(RemoteURL.init).first, !url.path.isEmpty {
      return ("git_remote", ([url.hostAndPort] + url.path).joined(separator: "/"))
    }
    guard let directory = place.directory.flatMap({ expand($0, home: nil) }) else { return nil }
    if let home = place.home.flatMap({ expand($0, home: nil) }), home != "/", isUnder(directory, home) {
      return ("directory", "~" + directory.dropFirst(home.count))
    }
    return ("directory", directory)
  }

  /// `path` with a leading `~` (alone or before `/`) replaced by `home`, without trailing
  /// slashes and repeated ones; nil when it is not absolute then.
  public static func expand(_ path: String, home: String?) -> String? {
    var path = path
    if path == "~" || path.hasPrefix("~/") {
      guard let home else { return nil }
      path = home + path.dropFirst()
    }
    guard path.hasPrefix("/") else { return nil }
    return "/" + path.split(separator: "/").joined(separator: "/")
  }

  /// Whether `directory` is `prefix` or under it, comparing whole components.
  public static func isUnder(_ directory: String, _ prefix: String) -> Bool {
    let directory = "/" + directory.split(separator: "/").joined(separator: "/")
    if prefix == "/" || directory == prefix { return true }
    return directory.hasPrefix(prefix + "/")
  }

  /// The remote URLs of the repository `directory` is in: the nearest `.git` above it (a
  /// directory, or a file `gitdir: …` as a worktree's and a submodule's are; a worktree's
  /// `commondir` leads to the config), its config's `url =` of each `[remote "…"]`, in order.
  /// `read` is SystemIO's readFile; nothing is run.
  public static func repositoryRemotes(from directory: String, read: (String) -> FileRead) -> [String] {
    var components = directory.split(separator: "/").map(String.init)
    while true {
      let here = "/" + components.joined(separator: "/")
      let dotGit = (here == "/" ? "" : here) + "/.git"
      // A directory's config first (one open in the usual repository); a `.git` file (a
      // worktree's, a submodule's) makes that fail: its `gitdir: PATH` then.
      switch read(dotGit + "/config") {
      case .contents(let bytes):
        return remotes(inConfig: .contents(bytes))
      case .failed:
        guard case .contents(let bytes) = read(dotGit),
          let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first, line.hasPrefix("gitdir:")
        else { return [] }
        // Relative to the directory that holds it.
        let written = line.dropFirst("gitdir:".count).trimming(" \t\n\r")
        let gitDir = written.hasPrefix("/") ? written : (here == "/" ? "" : here) + "/" + written
        var common = gitDir
        if case .contents(let commonBytes) = read(gitDir + "/commondir") {
          let commonDir = String(decoding: commonBytes, as: UTF8.self).trimming(" \t\n\r")
          if !commonDir.isEmpty { common = commonDir.hasPrefix("/") ? commonDir : gitDir + "/" + commonDir }
        }
        return remotes(inConfig: read(common + "/config"))
      case .missing:
        break
      }
      guard !components.isEmpty else { return [] }
      components.removeLast()
    }
  }

  /// The `url` of each `[remote "NAME"]` section of a git config file's text (read as bytes:
  /// the small binary pays for it on every call in a repository when a rule names a remote).
  static func remotes(inConfig read: FileRead) -> [String] {
    guard case .contents(let bytes) = read else { return [] }
    func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 9 || b == 13 }
    func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
      var s = s
      while let b = s.first, isSpace(b) { s = s.dropFirst() }
      while let b = s.last, isSpace(b) { s = s.dropLast() }
      return s
    }
    func lowercased(_ s: ArraySlice<UInt8>) -> [UInt8] { s.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 } }
    var urls: [String] = []
    var inRemote = false
    for raw in bytes.split(separator: 10) {
      let line = trimmed(raw)
      if line.first == UInt8(ascii: "[") {
        let name = line.dropFirst().prefix {
          !isSpace($0) && $0 != UInt8(ascii: "]") && $0 != UInt8(ascii: ".") && $0 != 34
        }
        inRemote = lowercased(name) == Array("remote".utf8)
        continue
      }
      guard inRemote, let equals = line.firstIndex(of: UInt8(ascii: "=")),
        lowercased(trimmed(line[..<equals])) == Array("url".utf8)
      else { continue }
      var value = trimmed(line[(equals + 1)...])
      if value.count >= 2, value.first == 34, value.last == 34 { value = value.dropFirst().dropLast() }
      if !value.isEmpty { urls.append(String(decoding: value, as: UTF8.self)) }
    }
    return urls
  }

  /// A `[[contexts]]` rule read: one of `directory`, `git_remote`, `env`, and `profile`.
  static func rule(_ table: TOMLTable, position: SourcePosition, path: String, warnings: inout [ConfigWarning])
    throws(ConfigError) -> ContextRule
  {
    var matches: [ContextRule.Match] = []
    var profile: String?
    for field in table.entries {
      switch field.key {
      case "profile":
        let name = try Config.string(field, path: path)
        guard ProfileName.isValid(name) else {
          throw .invalid(
            path: path, position: field.position, message: "[[contexts]] profile: invalid profile name '\(name)'")
        }
        profile = name
      case "directory":
        let text = try Config.string(field, path: path)
        guard text == "~" || text.hasPrefix("~/") || text.hasPrefix("/") else {
          throw .invalid(
            path: path, position: field.position,
            message: "[[contexts]] directory must be absolute or start with '~/', not '\(HostEntry.shown(text))'")
        }
        matches.append(.directory(text))
      case "git_remote":
        let text = try Config.string(field, path: path)
        guard let pattern = RemotePattern(text) else {
          throw .invalid(
            path: path, position: field.position,
            message: "[[contexts]] git_remote must be a host, optionally with a path: \"github.com/acme\"")
        }
        matches.append(.gitRemote(pattern))
      case "env":
        let text = try Config.string(field, path: path)
        guard let equals = text.firstIndex(of: "="), isVariableName(text[..<equals]),
          text.index(after: equals) < text.endIndex
        else {
          throw .invalid(
            path: path, position: field.position,
            message: "[[contexts]] env must be \"NAME=VALUE\" (a variable and its value)")
        }
        matches.append(.environment(name: String(text[..<equals]), value: String(text[text.index(after: equals)...])))
      default:
        warnings.append(
          .unknownKey(field.key, in: "[[contexts]]", valid: ConfigKeys.context, path: path, position: field.position))
      }
    }
    guard matches.count == 1, let match = matches.first else {
      throw .invalid(
        path: path, position: position,
        message: "a [[contexts]] rule needs exactly one of directory, git_remote and env"
          + (matches.isEmpty ? "" : " (it has \(matches.count))"))
    }
    guard let profile else {
      throw .invalid(path: path, position: position, message: "a [[contexts]] rule needs the profile it chooses")
    }
    return ContextRule(match: match, profile: profile, position: position)
  }

  /// Every rule names a profile of `names`, or the first that does not is an error on its line.
  static func check(_ rules: [ContextRule], profiles names: [String], path: String) throws(ConfigError) {
    for rule in rules where !names.contains(rule.profile) {
      let near = Suggestion.nearest(to: rule.profile, among: names).map { "; did you mean '\($0)'?" } ?? ""
      throw .invalid(
        path: path, position: rule.position,
        message: "[[contexts]] names the profile '\(rule.profile)', which the file does not have\(near)")
    }
  }

  private static func isVariableName(_ text: Substring) -> Bool {
    guard let first = text.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
    return text.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
    }
  }
}

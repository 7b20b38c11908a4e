// Where a profile's token may go: the one decision behind `strivacity curl`'s URLs, git's
// `get` (both binaries) and every other place a token is handed to a URL.
//
// Allowed places are `HostEntry`s (the tenant, a profile's `hosts` and `git_hosts`, setup-git's
// --host), admitted once. A URL asking for the token is parsed the way the server will read it:
// scheme, host, port (the scheme's default when none is written) and the path's segments after
// RFC 3986 §5.2.4 remove_dot_segments, which curl applies before sending and servers apply on
// receipt. A path that servers read in more than one way is refused outright rather than guessed
// at: an encoded dot, slash or backslash (`%2e`, `%2f`, `%5c`), a backslash, or a dot segment with
// parameters (`..;x`, read as `..` by some Java servers).

/// A place a profile's token may be sent to: `host` or `host:port` (https, or http on loopback;
/// any path; the scheme's default port when none is written), or a URL prefix
/// `https://host[:port]/path/` (that origin; paths at or under those whole segments).
public struct HostEntry: Sendable, Hashable, CustomStringConvertible {
  public enum Form: Sendable, Hashable {
    case host(String, port: Int?)
    case prefix(Origin, path: [String])
  }

  public let form: Form

  /// The one way in for a configured entry: no user info, query, fragment, whitespace, control
  /// or non-ASCII characters; plain http only for loopback hosts.
  public init(admitting text: String) throws(AdmissionError) {
    guard !text.isEmpty, text.utf8.count <= 2048, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw AdmissionError("'\(Self.shown(text))' has spaces, control or non-ASCII characters")
    }
    guard let schemeEnd = text.firstRange(of: "://") else {
      guard URLPolicy.hostOfAuthority(Substring(text)) != nil, let parts = URLParts("https://" + text) else {
        throw AdmissionError(
          "'\(Self.shown(text))' is not a host, host:port or https:// URL (no user info, path or anything else)")
      }
      form = .host(parts.host, port: parts.port)
      return
    }
    // What a prefix may not have that a URL asking for the token may: said plainly; the rest
    // (scheme, host, path) is read as such a URL is (TokenTarget).
    let rest = text[schemeEnd.upperBound...]
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    guard !authority.contains("@") else {
      throw AdmissionError("'\(Self.shown(text))' has user info (user@): write only the host")
    }
    guard !rest.contains("?"), !rest.contains("#") else {
      throw AdmissionError("'\(Self.shown(text))' has a query or a fragment: a prefix is a host and a path")
    }
    guard URLPolicy.hostOfAuthority(authority) != nil else {
      throw AdmissionError("'\(Self.shown(text))' is not a host, host:port or https:// URL")
    }
    do {
      let target = try TokenTarget(text)
      form = .prefix(target.origin, path: target.path)
    } catch {
      throw AdmissionError("'\(Self.shown(text))': \(error.description)")
    }
  }

  /// All of an origin (the tenant's).
  public init(origin: Origin) { form = .prefix(origin, path: []) }

  /// The canonical form, as written back to the config and shown to the user: `host`,
  /// `host:port`, or `https://host[:port]/path` (dot segments resolved; a prefix covers whole
  /// segments with or without a trailing slash).
  public var description: String {
    switch form {
    case .host(let host, let port):
      let shownHost = host.contains(":") ? "[\(host)]" : host
      return shownHost + (port.map { ":\($0)" } ?? "")
    case .prefix(let origin, let path):
      return "\(origin)" + URLPath.text(of: path)
    }
  }

  /// The URL git's configuration names for this entry (`credential.URL.helper`): https, or
  /// http for a loopback host; a prefix as written canonically.
  public var gitURL: String {
    switch form {
    case .host(let host, _): return (URLPolicy.isLoopbackHost(host) ? "http://" : "https://") + description
    case .prefix: return description
    }
  }

  /// True when the entry names a path (git must send it: credential.useHttpPath).
  public var hasPath: Bool {
    if case .prefix(_, let path) = form { return !path.isEmpty }
    return false
  }

  func allows(_ target: TokenTarget) -> Bool { specificity(for: target) != nil }

  /// Whether the entry is a place on `origin` (all of it, or a path of it).
  func isOn(_ origin: Origin) -> Bool {
    if case .prefix(let entryOrigin, _) = form { return entryOrigin == origin }
    return specificity(for: TokenTarget(origin: origin)) != nil  // a host: all of its origin or none
  }

  /// How closely the entry covers `target`: the number of path segments it names (a host, or a
  /// prefix without a path, 0); nil when it does not cover it.
  func specificity(for target: TokenTarget) -> Int? {
    switch form {
    case .host(let host, let port):
      let defaultPort = target.origin.scheme == "https" ? 443 : 80
      return host == target.origin.host && (port ?? defaultPort) == target.origin.port ? 0 : nil
    case .prefix(let origin, let path):
      return origin == target.origin && target.path.starts(with: path) ? path.count : nil
    }
  }

  /// At most 80 characters of an entry, for messages: user info (a password, perhaps) replaced
  /// by "…", anything but printable ASCII by "?".
  package static func shown(_ text: String) -> String {
    var visible = String(
      String.UnicodeScalarView(text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" })
    )
    if let schemeEnd = visible.firstRange(of: "://") {
      let authority = visible[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
      if let at = authority.lastIndex(of: "@") { visible = visible[..<schemeEnd.upperBound] + "…" + visible[at...] }
    }
    return visible.unicodeScalars.count > 80
      ? String(String.UnicodeScalarView(visible.unicodeScalars.prefix(80))) + "…" : visible
  }
}

/// Why `-L` is refused for a URL (`TokenDestination.redirectRefusal`).
public enum RedirectRefusal: Sendable, Equatable {
  /// The token's places on the origin name paths: a hop could leave them.
  case partOfOrigin([HostEntry])
  /// Another token's places are on the origin: a hop could carry this token into them.
  case sharedWith([HostEntry])
}

/// A URL that asks for the token, as the server will read it.
public struct TokenTarget: Sendable, Equatable {
  public let origin: Origin
  /// The path's segments after remove_dot_segments, percent-encodings in upper case, without a
  /// trailing empty segment.
  public let path: [String]

  /// The root of `origin` (what an entry covering all of it covers).
  init(origin: Origin) {
    self.origin = origin
    path = []
  }

  /// Parses an absolute URL: https, or http to loopback; `host[:port]` only (no user info); a
  /// path servers read one way. The query is not part of the decision; a fragment is not sent.
  public init(_ url: String) throws(AdmissionError) {
    guard url.utf8.count <= 65_536, url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw AdmissionError("the URL has spaces, control or non-ASCII characters")
    }
    guard let schemeEnd = url.firstRange(of: "://"), let parts = URLParts(url) else {
      throw AdmissionError("not an absolute http(s) URL")
    }
    guard parts.scheme == "https" || (parts.scheme == "http" && parts.isLoopback) else {
      throw AdmissionError("\(parts.origin) is not https (plain http only on loopback)")
    }
    let rest = url[schemeEnd.upperBound...]
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    guard URLPolicy.hostOfAuthority(authority) != nil else {
      throw AdmissionError("the URL's host has user info or other characters than a host name and port")
    }
    let afterAuthority = rest.dropFirst(authority.count)
    let path = afterAuthority.prefix { $0 != "?" && $0 != "#" }
    origin = parts.origin
    self.path = try URLPath.segments(of: String(path))
  }

  /// The URL as compared: origin and resolved path (which reads back as the same target).
  public var resolvedURL: String { "\(origin)" + URLPath.text(of: path) }
}

/// Why a URL may not get the token.
public enum TokenRefusal: Error, Equatable, Sendable {
  /// Not parsed as the server would read it (the reason, for messages).
  case unsafe(String)
  /// Parsed, and on none of the allowed places: the origin and path as compared.
  case notAllowed(String)
}

public enum TokenDestination {
  /// Throws unless `url` may get the token of a profile whose allowed places are `allowed`.
  public static func check(_ url: String, allowed: [HostEntry]) throws(TokenRefusal) {
    guard try bestMatch(url, among: allowed) != nil else {
      let target = try target(url)
      throw .notAllowed("\(target.origin)/" + target.path.joined(separator: "/"))
    }
  }

  /// Which of `entries` covers `url`: the index of the one naming the most path segments (the
  /// longest prefix; the first of equals), nil when none does. The one reading of a URL against
  /// places: `check` (curl, git, kubectl's servers) and the choice of a profile's API.
  public static func bestMatch(_ url: String, among entries: [HostEntry]) throws(TokenRefusal) -> Int? {
    let target = try target(url)
    var best: (index: Int, segments: Int)?
    for (index, entry) in entries.enumerated() {
      guard let segments = entry.specificity(for: target), segments > (best?.segments ?? -1) else { continue }
      best = (index, segments)
    }
    return best?.index
  }

  private static func target(_ url: String) throws(TokenRefusal) -> TokenTarget {
    do { return try TokenTarget(url) } catch { throw .unsafe(error.description) }
  }

  /// Why curl may not follow redirects from `url` with the token it gets (`-L`), or nil. curl
  /// keeps the token on a redirect that stays on the origin (it drops it when the scheme, host
  /// or port changes), so a hop may land anywhere on it: that is safe only when the places of
  /// this token (`own`: the profile's, or the API's `url`) include all of the origin, and no
  /// place of another token (`others`: the APIs', or the profile's and the other APIs') is on it.
  public static func redirectRefusal(_ url: String, own: [HostEntry], others: [HostEntry]) -> RedirectRefusal? {
    guard let target = try? TokenTarget(url) else { return nil }  // `check` says why
    let shared = others.filter { $0.isOn(target.origin) }
    if !shared.isEmpty { return .sharedWith(shared) }
    let mine = own.filter { $0.isOn(target.origin) }
    if !mine.contains(where: { $0.specificity(for: TokenTarget(origin: target.origin)) != nil }) {
      return .partOfOrigin(mine)
    }
    return nil
  }

  /// True when `url` may get the token: `check` without the reason.
  public static func permits(_ url: String, allowed: [HostEntry]) -> Bool {
    (try? check(url, allowed: allowed)) != nil
  }
}

enum URLPath {
  /// `segments` written back as a path that reads as the same segments: "/" for none, and an
  /// empty last segment ("/org//") with the slash that keeps it.
  static func text(of segments: [String]) -> String {
    if segments.isEmpty { return "/" }
    return segments.map { "/" + $0 }.joined() + (segments.last == "" ? "/" : "")
  }

  /// The segments of `path` ("" or starting with "/") after remove_dot_segments, each
  /// percent-encoding in upper case, without a trailing empty segment; throws for what servers
  /// read in more than one way.
  static func segments(of path: String) throws(AdmissionError) -> [String] {
    guard path.isEmpty || path.hasPrefix("/") else { throw AdmissionError("the path does not start with /") }
    guard !path.contains("\\") else { throw AdmissionError("the path has a backslash") }
    var output: [String] = []
    for raw in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
      let segment = try normalizedEncoding(raw)
      let bare = segment.prefix { $0 != ";" }
      if (bare == "." || bare == "..") && bare.count != segment.count {
        throw AdmissionError("the path has a dot segment with parameters (\(segment.prefix(20)))")
      }
      if segment == ".." {
        if !output.isEmpty { output.removeLast() }
      } else if segment != "." {
        output.append(segment)
      }
    }
    if output.last == "" { output.removeLast() }
    return output
  }

  /// Percent-encodings in upper case; throws for an encoded dot, slash or backslash, and for a
  /// `%` not followed by two hex digits.
  private static func normalizedEncoding(_ segment: Substring) throws(AdmissionError) -> String {
    guard segment.contains("%") else { return String(segment) }
    var bytes = Array(segment.utf8)
    var index = 0
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "%") {
        guard index + 2 < bytes.count, let high = FormURLEncoding.hexValue(bytes[index + 1]),
          let low = FormURLEncoding.hexValue(bytes[index + 2])
        else { throw AdmissionError("the path has a % that is not followed by two hex digits") }
        switch high << 4 | low {
        case 0x2E: throw AdmissionError("the path has an encoded dot (%2e)")
        case 0x2F: throw AdmissionError("the path has an encoded slash (%2f)")
        case 0x5C: throw AdmissionError("the path has an encoded backslash (%5c)")
        default: break
        }
        for offset in 1...2 where bytes[index + offset] >= UInt8(ascii: "a") { bytes[index + offset] -= 0x20 }
        index += 3
      } else {
        index += 1
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

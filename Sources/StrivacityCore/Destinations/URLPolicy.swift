// Which URLs the tool may talk to: https anywhere, plain http only to loopback (RFC 8252 §8.3).

/// The parts of an absolute http(s) URL that policy decisions need.
public struct URLParts: Sendable, Equatable {
  public var scheme: String
  /// Lower-cased host without IPv6 brackets.
  public var host: String
  public var port: Int?
  /// Path and query as given (path defaults to "/").
  public var pathAndQuery: String

  /// Parses `scheme://[userinfo@]host[:port][/path][?query][#fragment]`; nil if not absolute.
  public init?(_ url: String) {
    guard let schemeEnd = url.firstRange(of: "://") else { return nil }
    let scheme = url[..<schemeEnd.lowerBound].lowercased()
    guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
    else { return nil }
    let rest = url[schemeEnd.upperBound...]
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
    var authority = rest[..<authorityEnd]
    if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
    var host: Substring
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
    } else if let colon = authority.lastIndex(of: ":") {
      host = authority[..<colon]
      portText = authority[authority.index(after: colon)...]
    } else {
      host = authority
    }
    guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "%" && !authority.hasPrefix("[") })
    else { return nil }
    if let portText, !portText.isEmpty {
      guard let port = Int(portText), (1...65535).contains(port) else { return nil }
      self.port = port
    } else {
      self.port = nil
    }
    self.scheme = scheme
    self.host = host.lowercased()
    var tail = String(rest[authorityEnd...])
    if let hash = tail.firstIndex(of: "#") { tail = String(tail[..<hash]) }
    self.pathAndQuery = tail.isEmpty || tail.hasPrefix("?") ? "/" + tail : tail
  }

  /// True for 127.0.0.0/8, ::1 and `localhost` (which libcurl resolves to loopback itself).
  public var isLoopback: Bool { URLPolicy.isLoopbackHost(host) }

  /// Scheme, host and port (the scheme's default when none is written): what must match for
  /// two URLs to be the same server (RFC 6454).
  public var origin: Origin {
    Origin(scheme: scheme, host: host, port: port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0))
  }
}

/// An origin (RFC 6454): scheme, host and effective port.
public struct Origin: Sendable, Hashable, CustomStringConvertible {
  public var scheme: String
  public var host: String
  public var port: Int

  public init(scheme: String, host: String, port: Int) {
    self.scheme = scheme
    self.host = host
    self.port = port
  }

  /// `https://host:port`, the port written only when it is not the scheme's default; for messages.
  public var description: String {
    let shownHost = host.contains(":") ? "[\(host)]" : host
    let defaultPort = (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
    return "\(scheme)://\(shownHost)" + (defaultPort ? "" : ":\(port)")
  }
}

public enum URLPolicy {
  /// True for `localhost`, any 127.x.y.z and ::1 (also in its long forms).
  public static func isLoopbackHost(_ rawHost: String) -> Bool {
    var host = rawHost.lowercased()
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    // Not "localhost.": with the trailing dot the name is resolved through DNS.
    if host == "localhost" { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    if octets.count == 4,
      octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil })
    {
      return octets[0] == "127"
    }
    return isIPv6Loopback(host)
  }

  private static func isIPv6Loopback(_ host: String) -> Bool {
    guard host.contains(":") else { return false }
    let halves = host.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
    guard halves.count <= 2 else { return false }
    func groups(_ s: String) -> [Substring]? {
      s.isEmpty ? [] : s.split(separator: ":", omittingEmptySubsequences: false)
    }
    guard let head = groups(halves[0]), let tail = halves.count == 2 ? groups(halves[1]) : [] else {
      return false
    }
    let all = head + tail
    guard all.allSatisfy({ !$0.isEmpty && $0.count <= 4 && UInt16($0, radix: 16) != nil }) else { return false }
    if halves.count == 1 && all.count != 8 { return false }
    if all.count > 8 { return false }
    let values = all.map { UInt16($0, radix: 16)! }
    guard let last = values.last else { return false }
    // ::1 written any way: every group zero but the last, which is 1 and is the 8th group.
    let lastIsEighth = halves.count == 1 || !tail.isEmpty
    return lastIsEighth && last == 1 && values.dropLast().allSatisfy { $0 == 0 }
  }

  /// Throws unless `url` is https, or http to a loopback host.
  public static func check(_ url: String) throws(TransportError) -> URLParts {
    guard let parts = URLParts(url) else { throw .invalidURL }
    switch parts.scheme {
    case "https": return parts
    case "http" where parts.isLoopback: return parts
    default: throw .insecureURL(host: parts.host)
    }
  }
}

extension URLPolicy {
  /// True when `url` parses and has exactly the origin `expected` (scheme, host and port).
  public static func sameOrigin(_ url: String, as expected: Origin) -> Bool { URLParts(url)?.origin == expected }

  /// Whether a redirect's `Location` (RFC 9110 §10.2.2: absolute, or relative to the URL that
  /// answered) stays on `origin`: a relative reference without an authority does; an absolute
  /// or network-path one (`//host/…`) only when its origin is `origin`.
  public static func locationStays(_ location: String, on origin: Origin) -> Bool {
    if location.hasPrefix("//") { return sameOrigin(origin.scheme + ":" + location, as: origin) }
    // A scheme: letters, digits, +, -, . before the first ":" that comes before any "/", "?", "#".
    let head = location.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    if let colon = head.firstIndex(of: ":"), colon != head.startIndex { return sameOrigin(location, as: origin) }
    return true
  }

  /// The host (without brackets) when `authority` is exactly `host[:port]`: a name of ASCII
  /// letters, digits, `.`, `-` and `_`, or an IPv6 literal in brackets, and an optional port
  /// 1–65535; else nil. No user info, percent-encoding or anything else: what a URL handed to
  /// curl and git's `host` attribute may hold.
  public static func hostOfAuthority(_ authority: Substring) -> Substring? {
    let host: Substring
    let afterHost: Substring
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = authority[authority.index(after: authority.startIndex)..<close]
      afterHost = authority[authority.index(after: close)...]
      guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
    } else {
      host = authority.prefix { $0 != ":" }
      afterHost = authority.dropFirst(host.count)
      guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
      else { return nil }
    }
    guard !host.isEmpty else { return nil }
    if afterHost.isEmpty { return host }
    let port = afterHost.dropFirst()
    guard afterHost.hasPrefix(":"), !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
      let number = Int(port), (1...65535).contains(number)
    else { return nil }
    return host
  }
}

/// A URL admitted for the browser: https (http only on loopback) on the tenant's own origin,
/// printable ASCII without spaces, no user info. So it always starts with `http`, is one word
/// whatever a launcher does with spaces, and cannot name a file, a custom handler or an option.
public struct BrowserURL: Sendable, Equatable {
  public let value: String

  public init(admitting url: String, origin: Origin) throws(AdmissionError) {
    // No backslash either: browsers read it as "/" and would end the host where we did not.
    guard !url.isEmpty, url.utf8.count <= 8192,
      url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") })
    else {
      throw AdmissionError("the tenant's browser address has spaces, backslashes, control or non-ASCII characters")
    }
    guard let parts = URLParts(url), parts.scheme == "https" || (parts.scheme == "http" && parts.isLoopback) else {
      throw AdmissionError("the tenant's browser address is not an https URL")
    }
    let authority = url.dropFirst(parts.scheme.count + 3).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    guard !authority.contains("@"), parts.origin == origin else {
      throw AdmissionError("the tenant's browser address is not on the tenant (\(origin))")
    }
    value = url
  }
}

public enum TenantURL {
  /// The tenant URL with exactly one trailing slash: how issuers and store keys are written.
  public static func base(_ tenant: String) -> String {
    var text = tenant
    while text.hasSuffix("/") { text.removeLast() }
    return text + "/"
  }

  /// The URL `text` most likely means when it has no scheme (`tenant.example.com`,
  /// `127.0.0.1:8080/`): https, or http on a loopback host, as URLPolicy would take it; nil when
  /// it has one, or when no scheme makes it a URL this tool may use.
  public static func withScheme(_ text: String) -> String? {
    guard !text.isEmpty, !text.contains("://") else { return nil }
    let authority = text.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    var host = String(authority)
    if host.hasPrefix("[") {
      host = String(host.dropFirst().prefix { $0 != "]" })
    } else if let colon = host.lastIndex(of: ":") {
      host = String(host[..<colon])
    }
    let suggested = (URLPolicy.isLoopbackHost(host) ? "http://" : "https://") + text
    return (try? URLPolicy.check(suggested)) == nil ? nil : suggested
  }
}

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
}

public enum URLPolicy {
  /// True for `localhost`, any 127.x.y.z and ::1 (also in its long forms).
  public static func isLoopbackHost(_ rawHost: String) -> Bool {
    var host = rawHost.lowercased()
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host == "localhost" || host == "localhost." { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    if octets.count == 4, octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }) {
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

public enum TenantURL {
  /// The tenant URL with exactly one trailing slash: how issuers and store keys are written.
  public static func base(_ tenant: String) -> String {
    var text = tenant
    while text.hasSuffix("/") { text.removeLast() }
    return text + "/"
  }
}

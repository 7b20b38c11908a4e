// git's credential helper protocol (git-credential(1)), strictly:
// - input is `key=value` lines up to a blank line or end of input; `key[]=value` repeats;
//   unknown keys are kept but never acted on; values are never echoed anywhere;
// - output is protocol lines only, and only values without newline or NUL are ever written.
import StrivacityCore

/// What git asks about.
public struct CredentialRequest: Sendable, Equatable {
  /// Single-valued attributes (the last one wins, as in git).
  public var attributes: [String: String] = [:]
  /// Multi-valued attributes (`key[]`), in order; an empty value resets the list (git's rule).
  public var lists: [String: [String]] = [:]

  public init() {}

  public var scheme: String? { attributes["protocol"]?.lowercased() }
  public var host: String? { attributes["host"]?.lowercased() }
  public var path: String? { attributes["path"] }
  public var password: String? { attributes["password"] }
  public var capabilities: [String] { lists["capability"] ?? [] }

  /// `protocol://host/path`, from exactly what git sends helpers: `protocol`, `host` (a host
  /// name or address, with an optional port, nothing else: `evil.com@git.example.com` is not a
  /// host) and `path` (sent when credential.useHttpPath is set). A `url` attribute is git's
  /// input format, never sent to helpers, and is not used.
  public var url: String? {
    guard let scheme, scheme == "https" || scheme == "http", let host, URLPolicy.hostOfAuthority(Substring(host)) != nil
    else { return nil }
    if let path, path.contains(where: { $0 == "?" || $0 == "#" || $0.isWhitespace }) { return nil }
    return "\(scheme)://\(host)/" + (path ?? "")
  }
}

public enum CredentialParseError: Error, Equatable, CustomStringConvertible {
  case tooLarge
  case malformedLine(number: Int)

  public var description: String {
    switch self {
    case .tooLarge: return "credential request too large"
    case .malformedLine(let number): return "credential request line \(number) is not key=value"
    }
  }
}

public enum CredentialProtocol {
  /// Largest input accepted: git sends a few hundred bytes.
  public static let maxInput = 1 << 20

  /// Parses a request. Lines without `=` and control characters in keys are errors; the
  /// message never includes the line (it may hold a password).
  public static func parse(_ input: [UInt8]) throws(CredentialParseError) -> CredentialRequest {
    guard input.count <= maxInput else { throw .tooLarge }
    var request = CredentialRequest()
    var number = 0
    for rawLine in input.split(separator: 10, omittingEmptySubsequences: false) {
      number += 1
      var line = rawLine
      if line.last == 13 { line = line.dropLast() }
      if line.isEmpty { break }  // a blank line ends the request
      guard let eq = line.firstIndex(of: UInt8(ascii: "=")), eq > line.startIndex else {
        throw .malformedLine(number: number)
      }
      let keyBytes = line[line.startIndex..<eq]
      guard !keyBytes.contains(where: { $0 < 32 || $0 == 127 }), !line.contains(0) else {
        throw .malformedLine(number: number)
      }
      var key = String(decoding: keyBytes, as: UTF8.self)
      let value = String(decoding: line[line.index(after: eq)...], as: UTF8.self)
      if key.hasSuffix("[]") {
        key.removeLast(2)
        if value.isEmpty { request.lists[key] = [] } else { request.lists[key, default: []].append(value) }
      } else {
        request.attributes[key] = value
      }
    }
    return request
  }

  /// Encodes an answer; pairs whose key or value could break the protocol are dropped.
  public static func encode(_ pairs: [(String, String)]) -> String {
    pairs.filter { key, value in
      !key.isEmpty && !(key + value).contains(where: { $0 == "\n" || $0 == "\0" || $0 == "\r" }) && !key.contains("=")
    }.map { "\($0.0)=\($0.1)\n" }.joined()
  }

  /// The answer to `get`: Bearer when git can take it (capability[]=authtype, git 2.46+),
  /// else a username and the token as password.
  public static func answer(
    request: CredentialRequest, token admitted: BearerToken, username: String, expiresAt: Int64?
  ) -> String {
    let token = admitted.value
    if request.capabilities.contains("authtype") {
      var pairs = [("capability[]", "authtype"), ("authtype", "Bearer"), ("credential", token), ("ephemeral", "true")]
      if let expiresAt { pairs.append(("password_expiry_utc", String(expiresAt))) }
      return encode(pairs)
    }
    var pairs = [("username", username), ("password", token)]
    if let expiresAt { pairs.append(("password_expiry_utc", String(expiresAt))) }
    return encode(pairs)
  }
}

extension CredentialRequest {
  /// True when the token may answer this request: its URL (`url`) through TokenDestination, the
  /// one decision `strivacity curl` makes too.
  public func isFor(_ allowed: [HostEntry]) -> Bool {
    url.map { TokenDestination.permits($0, allowed: allowed) } ?? false
  }
}

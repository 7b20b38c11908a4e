// Which proxy strivacity's requests go through (issue 29): `proxy` in the profile's table, else
// at the config's top level, else curl's variables as curl reads them for https URLs
// (https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY; upper-case HTTP_PROXY is never read, as
// curl does not), with no_proxy/NO_PROXY excepting hosts. Loopback is never proxied: it is
// this machine's, and the proxy's loopback is another. The choice is made here, once, and
// libcurl is told it outright (it reads no variable of its own), so that what messages and
// `doctor` say is the path the request took.
import StrivacityCore

/// How a proxy is told who we are: Basic (the default), or whatever it offers that the
/// system's libcurl has (Negotiate, NTLM, Digest, Basic).
public enum ProxyAuth: String, Sendable, Equatable {
  case basic
  case any
}

/// A proxy's address, admitted: `scheme://[user[:password]@]host[:port][/]`, or `host:port`
/// alone (http, as curl takes it). The credentials are kept apart from the address: the
/// address goes into messages, the password never does.
public struct ProxyURL: Sendable, Equatable, CustomStringConvertible {
  public static let schemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

  public let scheme: String
  /// A name, an IPv4 address, or an IPv6 address in brackets.
  public let host: String
  public let port: Int?
  /// The user and password written in the URL, percent-decoded.
  public let user: String?
  public let password: String?

  public init(admitting text: String) throws(AdmissionError) {
    guard (1...2048).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
      throw AdmissionError("a proxy must be a URL like http://proxy.example.com:3128, without spaces or controls")
    }
    var rest = Substring(text)
    if let range = rest.firstRange(of: "://") {
      let scheme = rest[..<range.lowerBound].lowercased()
      guard Self.schemes.contains(scheme) else {
        throw AdmissionError(
          "unknown proxy scheme '\(TerminalSafe.text(String(scheme.prefix(20)), multiline: false))': use "
            + Self.schemes.joined(separator: ", "))
      }
      self.scheme = scheme
      rest = rest[range.upperBound...]
    } else {
      scheme = "http"
    }
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
      throw AdmissionError("a proxy URL names a host and a port, not a path")
    }
    if let at = rest.lastIndex(of: "@") {
      let credentials = rest[..<at]
      rest = rest[rest.index(after: at)...]
      let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard let user = Self.percentDecoded(parts[0]),
        let password = parts.count > 1 ? Self.percentDecoded(parts[1]) : "",
        !user.isEmpty, !user.contains(":")
      else {
        throw AdmissionError("the proxy URL's user and password must be percent-encoded text without controls")
      }
      self.user = user
      self.password = parts.count > 1 ? password : nil
    } else {
      user = nil
      password = nil
    }
    var hostPart = rest
    var portText: Substring?
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { throw AdmissionError("the proxy's IPv6 address lacks its ]") }
      hostPart = rest[...close]
      let after = rest[rest.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw AdmissionError("the proxy's address is not host:port") }
        portText = after.dropFirst()
      }
      guard hostPart.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
        throw AdmissionError("the proxy's IPv6 address is not one")
      }
    } else if let colon = rest.lastIndex(of: ":") {
      hostPart = rest[..<colon]
      portText = rest[rest.index(after: colon)...]
      guard
        hostPart.utf8.allSatisfy({
          ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D
            || $0 == 0x2E || $0 == 0x5F
        })
      else { throw AdmissionError("the proxy's host must be a name or an address") }
    }
    guard !hostPart.isEmpty, hostPart.utf8.count <= 253 else { throw AdmissionError("the proxy URL names no host") }
    if portText == nil {
      guard
        hostPart.utf8.allSatisfy({
          ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D
            || $0 == 0x2E || $0 == 0x5F || $0 == 0x5B || $0 == 0x5D || $0 == 0x3A
        })
      else { throw AdmissionError("the proxy's host must be a name or an address") }
    }
    host = hostPart.lowercased()
    if let portText {
      guard let port = Int(portText), (1...65535).contains(port) else {
        throw AdmissionError("the proxy's port must be a number from 1 to 65535")
      }
      self.port = port
    } else {
      port = nil
    }
  }

  /// The address without credentials: what libcurl is given, and what messages name.
  public var address: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }
  public var description: String { address }

  private static func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      if byte == UInt8(ascii: "%") {
        guard let high = iterator.next(), let low = iterator.next(),
          let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
        else { return nil }
        bytes.append(value)
      } else {
        bytes.append(byte)
      }
    }
    guard let decoded = String(validating: bytes, as: UTF8.self),
      decoded.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
    else { return nil }
    return decoded
  }
}

/// A `proxy` setting as the config writes it: an address, or "" for a direct connection
/// whatever the variables say.
public enum ProxyEntry: Sendable, Equatable {
  case direct
  case through(ProxyURL)

  public static func admit(_ text: String) throws(AdmissionError) -> ProxyEntry {
    text.isEmpty ? .direct : .through(try ProxyURL(admitting: text))
  }
}

/// The proxy settings of one place in the config (its top level, or a profile's table).
public struct ProxySettings: Sendable, Equatable {
  /// `proxy`.
  public var entry: ProxyEntry?
  /// `proxy_ca_bundle`: the CAs an https:// proxy's own certificate is checked against.
  public var caBundle: String?
  /// `proxy_user`: the user the proxy is told, with the password from STRIVACITY_PROXY_PASSWORD
  /// or the keyring.
  public var user: String?
  /// `proxy_auth`.
  public var auth: ProxyAuth?
  public init() {}

  /// A `proxy_user`: text without controls or a colon (curl splits user:password at the first).
  public static func admitUser(_ text: String) throws(AdmissionError) -> String {
    guard (1...256).contains(text.utf8.count), !text.contains(":"),
      text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
    else { throw AdmissionError("it must be a user name without a colon or control characters") }
    return text
  }

  public static func admitAuth(_ text: String) throws(AdmissionError) -> ProxyAuth {
    guard let auth = ProxyAuth(rawValue: text) else { throw AdmissionError("it must be \"basic\" or \"any\"") }
    return auth
  }
}

/// The proxy one profile's requests go through, and where each part came from.
public struct ProxyChoice: Sendable, Equatable, CustomStringConvertible {
  /// nil: a direct connection.
  public var proxy: ProxyURL?
  /// Where the choice came from, as messages name it: "proxy in [profiles.work]", "proxy in the
  /// config", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"; "no proxy variable" when
  /// direct by default.
  public var source: String
  /// Hosts reached directly (no_proxy, as curl reads it), and the variable that named them.
  public var noProxy: [String] = []
  public var noProxySource: String?
  public var caBundle: String?
  /// The user the proxy is told (`proxy_user`, else the URL's), and whether its password is
  /// written in the URL.
  public var user: String?
  public var passwordInURL: Bool { proxy?.password != nil && user == proxy?.user }
  public var auth: ProxyAuth = .basic

  public init(proxy: ProxyURL?, source: String) {
    self.proxy = proxy
    self.source = source
  }

  /// The variables curl reads for an https URL's proxy, in its order.
  public static let variables = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

  /// The choice for `profile` (nil: none chosen) under `config`, in this environment. A
  /// variable's value is admitted as the config's are; a bad one is an error naming it.
  public static func resolve(profile: Profile?, config: Config?, environment: [String: String]) throws(AdmissionError)
    -> ProxyChoice
  {
    let own = profile?.proxy ?? ProxySettings()
    let top = config?.proxy ?? ProxySettings()
    var choice: ProxyChoice
    if let entry = own.entry, let profile {
      choice = ProxyChoice(entry, source: "proxy in [profiles.\(profile.name)]")
    } else if let entry = top.entry {
      choice = ProxyChoice(entry, source: "proxy in the config")
    } else {
      choice = ProxyChoice(proxy: nil, source: "no proxy variable")
      for name in variables {
        guard let value = environment[name], !value.isEmpty else { continue }
        do {
          choice = ProxyChoice(proxy: try ProxyURL(admitting: value), source: name)
        } catch {
          throw AdmissionError("\(name): \(error.description)")
        }
        break
      }
    }
    for name in ["no_proxy", "NO_PROXY"] {
      guard let value = environment[name], !value.isEmpty else { continue }
      choice.noProxy = value.split(separator: ",").map {
        String($0).trimming(" \t").lowercased()
      }.filter { !$0.isEmpty }
      choice.noProxySource = name
      break
    }
    choice.caBundle = own.caBundle ?? top.caBundle
    choice.user = own.user ?? top.user ?? choice.proxy?.user
    choice.auth = own.auth ?? top.auth ?? .basic
    return choice
  }

  private init(_ entry: ProxyEntry, source: String) {
    switch entry {
    case .direct: self.init(proxy: nil, source: source)
    case .through(let url): self.init(proxy: url, source: source)
    }
  }

  /// The proxy a request to `host` goes through: none for loopback, none for a host no_proxy
  /// names (curl's rules: "*" for all; an entry matches the host and its subdomains, a leading
  /// dot or not; an IPv4 entry may be a CIDR range).
  public func proxy(forHost host: String, loopback: Bool) -> ProxyURL? {
    guard let proxy, !loopback else { return nil }
    let host = host.lowercased().trimming("[]")
    for entry in noProxy {
      if entry == "*" { return nil }
      var name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
      name = name.trimming("[]")
      if host == name || host.hasSuffix("." + name) { return nil }
      if let range = IPv4Range(name), let address = IPv4Range.address(host), range.contains(address) { return nil }
    }
    return proxy
  }

  /// "direct (no proxy variable)", "http://proxy.corp:3128 (from https_proxy)": never a password.
  public var description: String {
    guard let proxy else { return "direct (\(source == "no proxy variable" ? source : "from \(source)"))" }
    return "\(proxy.address) (from \(source))"
  }

  /// What to change when the proxy is wrong: the setting or the variable it came from.
  public var fix: String {
    source.hasPrefix("proxy in") ? "check \(source)" : "check or unset \(source)"
  }

  /// The same choice as lines of a curl config file (`-K`) for the curl `strivacity curl` runs:
  /// the proxy (or none, so curl's own reading of the variables cannot differ), the hosts
  /// reached directly (`loopback` among them), the proxy's CA, and who we are to it. Only
  /// admitted text goes in; the password is escaped for curl's quoted strings.
  public func curlConfig(loopback: [String], password: String?) -> String {
    guard let proxy else { return "proxy = \"\"\n" }
    var lines = "proxy = \"\(proxy.address)\"\n"
    let direct =
      noProxy.filter { $0.utf8.allSatisfy { $0 > 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x7F } }
      + loopback
    if !direct.isEmpty { lines += "noproxy = \"\(direct.joined(separator: ","))\"\n" }
    if let caBundle { lines += "proxy-cacert = \"\(caBundle)\"\n" }
    lines += auth == .any ? "proxy-anyauth\n" : "proxy-basic\n"
    if let user {
      var escaped = ""
      for character in user + ":" + (password ?? "") {
        if character == "\\" || character == "\"" { escaped.append("\\") }
        escaped.append(character)
      }
      lines += "proxy-user = \"\(escaped)\"\n"
    }
    return lines
  }
}

/// An IPv4 address or CIDR range from no_proxy.
struct IPv4Range {
  let base: UInt32
  let mask: UInt32

  init?(_ text: String) {
    let parts = text.split(separator: "/", maxSplits: 1)
    guard let address = Self.address(String(parts[0])) else { return nil }
    let bits = parts.count > 1 ? Int(parts[1]) : 32
    guard let bits, (0...32).contains(bits) else { return nil }
    mask = bits == 0 ? 0 : UInt32.max << UInt32(32 - bits)
    base = address & mask
  }

  func contains(_ address: UInt32) -> Bool { address & mask == base }

  static func address(_ text: String) -> UInt32? {
    let octets = text.split(separator: ".", omittingEmptySubsequences: false)
    guard octets.count == 4 else { return nil }
    var value: UInt32 = 0
    for octet in octets {
      guard (1...3).contains(octet.count), octet.allSatisfy(\.isASCII), let byte = UInt8(octet) else { return nil }
      value = value << 8 | UInt32(byte)
    }
    return value
  }
}

extension Config {
  /// A proxy setting (`proxy`, `proxy_ca_bundle`, `proxy_user`, `proxy_auth`) into `settings`.
  static func proxySetting(
    _ entry: TOMLTable.Entry, path: String, in section: String, into settings: inout ProxySettings
  ) throws(ConfigError) {
    switch entry.key {
    case "proxy": settings.entry = try admittedString(entry, path: path, in: section, ProxyEntry.admit)
    case "proxy_ca_bundle": settings.caBundle = try admittedString(entry, path: path, in: section, CATrust.admitPath)
    case "proxy_user": settings.user = try admittedString(entry, path: path, in: section, ProxySettings.admitUser)
    default: settings.auth = try admittedString(entry, path: path, in: section, ProxySettings.admitAuth)
    }
  }
}

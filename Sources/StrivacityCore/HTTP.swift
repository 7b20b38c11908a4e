// HTTP as values. The transport (CurlTransport) sends an HTTPRequest and returns an HTTPResponse;
// everything above it (OAuth, the journey) builds and reads these values without knowing libcurl.

/// One header field as it appeared on the wire; names compare case-insensitively.
public struct HTTPHeader: Sendable, Equatable {
  public var name: String
  public var value: String
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }

  /// `Authorization: Bearer <token>` (RFC 6750 §2.1): made only from an admitted `BearerToken`,
  /// so no header line is ever built from a string that could break it.
  public static func authorization(_ token: BearerToken) -> HTTPHeader {
    HTTPHeader("Authorization", "Bearer \(token.value)")
  }

  /// RFC 9110 field-name: a token.
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty
      && name.utf8.allSatisfy { b in
        (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
          || "!#$%&'*+-.^_`|~".utf8.contains(b)
      }
  }

  /// RFC 9110 field-value: no control characters but tab (so no CR, LF or NUL).
  public static func isValidValue(_ value: String) -> Bool {
    value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
  }
}

/// A request to send. `body` is sent as-is; nothing here is ever logged unredacted.
public struct HTTPRequest: Sendable {
  public var method: String
  public var url: String
  public var headers: [HTTPHeader]
  public var body: [UInt8]?
  /// Overrides the client's total timeout for this request, in seconds.
  public var timeout: Double?
  /// Send on a new connection. For requests that must never be sent twice (a rotating refresh
  /// token): libcurl re-sends a request by itself when a reused connection dies before answering.
  public var freshConnection: Bool
  /// Lowers the client's limit on the response body for this request (an API's metadata).
  public var maxBodyBytes: Int?
  /// The secrets it carries (a client secret, an assertion, a refresh token, a code and its
  /// verifier, a Basic pair, a bearer token), set by whoever builds a request that carries any:
  /// kept out of the tenant's words in a failed answer (`HTTPResponse.redactingFailure`).
  public var sentSecrets: [String]

  public init(
    method: String = "GET", url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil,
    timeout: Double? = nil, freshConnection: Bool = false, maxBodyBytes: Int? = nil, sentSecrets: [String] = []
  ) {
    self.maxBodyBytes = maxBodyBytes
    self.sentSecrets = sentSecrets
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.timeout = timeout
    self.freshConnection = freshConnection
  }
}

/// A response: status, every header in order (repeated names kept), and the body.
public struct HTTPResponse: Sendable {
  public var status: Int
  public var headers: [HTTPHeader]
  public var body: [UInt8]

  public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The first value of a header, by case-insensitive name.
  public func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }

  /// Every value of a header, in the order received.
  public func headers(named name: String) -> [String] {
    headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
  }

  public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Sends requests. Implementations never follow redirects: callers read `Location` themselves.
public protocol HTTPClient: AnyObject {
  func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse
  /// Secrets the client itself sends with requests (a proxy's password): kept out of a failed
  /// answer as the request's own are (`HTTPResponse.redactingFailure`).
  var sentSecrets: [String] { get }
}

extension HTTPClient {
  public var sentSecrets: [String] { [] }
}

/// Why a request got no HTTP response. Messages name the origin (`host` holds scheme, host and
/// port; for DNS the host name alone) at most: never a URL's path, query, a header or a body,
/// which may carry secrets.
public enum TransportError: Error, Equatable, CustomStringConvertible {
  case invalidURL
  /// Plain http:// to a host that is not loopback, or a scheme other than http(s).
  case insecureURL(host: String)
  case dns(host: String)
  case refused(host: String)
  case tls(host: String, detail: String)
  /// The server's certificate does not verify against `trust` (CATrust's description); `fix`
  /// names the setting or variable in use (CATrust.fix).
  case untrustedCertificate(host: String, detail: String, trust: String, fix: String)
  case timeout(host: String, seconds: Double)
  /// The proxy (ProxyChoice's description: its address and where it came from) cannot be
  /// reached; `fix` names the setting or variable to check.
  case proxyUnreachable(proxy: String, detail: String, fix: String)
  /// The proxy answered `status` (407; tinyproxy says 401) to CONNECT: no credentials were sent
  /// (`user` nil), or these were refused; `fix` says where they are set.
  case proxyAuthentication(proxy: String, status: Int, user: String?, fix: String)
  /// The proxy would not open a tunnel to `host`: it answered `status` to CONNECT.
  case proxyRefused(proxy: String, host: String, status: Int)
  /// An https:// proxy's own certificate does not verify against `trust`.
  case untrustedProxyCertificate(proxy: String, detail: String, trust: String)
  /// The proxy took the connection and did not answer within `seconds`.
  case proxyTimeout(proxy: String, seconds: Double)
  case tooLarge(host: String, limit: Int)
  /// A header field that would break the request's framing (a CR, LF or other control).
  case invalidHeader(name: String)
  case protocolError(host: String, detail: String)
  case libraryUnavailable(detail: String)

  public var description: String {
    switch self {
    case .invalidURL: return "invalid URL"
    case .insecureURL(let host):
      return "refusing plain http:// to \(host): only https is allowed, except to loopback hosts"
    case .dns(let host): return "cannot resolve host \(host)"
    case .refused(let host): return "cannot connect to \(host): connection refused"
    case .tls(let host, let detail): return "TLS failure with \(host): \(detail)"
    case .untrustedCertificate(let host, let detail, let trust, let fix):
      return "the certificate of \(host) is not trusted (\(detail)), checked against \(trust); \(fix)"
    case .timeout(let host, let seconds):
      return "\(host) did not answer within \(formatSeconds(seconds))"
    case .proxyUnreachable(let proxy, let detail, let fix):
      return "cannot reach the proxy \(proxy): \(detail); \(fix)"
    case .proxyAuthentication(let proxy, let status, let user?, let fix):
      return "the proxy \(proxy) refused the credentials of \(user) (it answered \(status)); \(fix)"
    case .proxyAuthentication(let proxy, let status, nil, let fix):
      return "the proxy \(proxy) asks for authentication (it answered \(status)); \(fix)"
    case .proxyRefused(let proxy, let host, let status):
      return
        "the proxy \(proxy) would not connect to \(host): it answered \(status) to CONNECT (it cannot reach the host, "
        + "or does not allow it)"
    case .untrustedProxyCertificate(let proxy, let detail, let trust):
      return
        "the certificate of the proxy \(proxy) is not trusted (\(detail)), checked against \(trust); set "
        + "proxy_ca_bundle = \"/path/to/ca.pem\" in the config to the CA that signs it"
    case .proxyTimeout(let proxy, let seconds):
      return "the proxy \(proxy) took the connection but did not answer within \(formatSeconds(seconds))"
    case .tooLarge(let host, let limit): return "response from \(host) exceeds \(limit / 1_048_576) MiB"
    case .invalidHeader(let name): return "refusing to send a \(name) header with control characters"
    case .protocolError(let host, let detail): return "HTTP failure with \(host): \(detail)"
    case .libraryUnavailable(let detail): return detail
    }
  }
}

public func formatSeconds(_ seconds: Double) -> String {
  seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}

extension TransportError {
  /// What fixes an untrusted certificate checked against the system's store, for the message
  /// that says so (the config's `ca_bundle`: CATrust; another trust has a fix of its own).
  public static let untrustedCertificateFix =
    "if your network's CA signs it (a company proxy), set ca_bundle = \"/path/to/ca.pem\" in the config (or "
    + "CURL_CA_BUNDLE)"
}

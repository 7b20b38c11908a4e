// HTTP over libcurl, with the policy the whole tool relies on:
// - never follows redirects (the journey reads `Location` itself);
// - https only, plain http only to loopback hosts, checked before any connection;
// - one cookie jar per client (the journey keeps cookies across requests);
// - connect and total timeouts; the proxy chosen for it (ProxyChoice: never for loopback;
//   libcurl reads no variable of its own); the CAs chosen for it (CATrust; never disabled);
// - errors name the host only: never a URL query, a header or a body.
internal import CCurlShim
import StrivacityConfig
import StrivacityCore
import Synchronization

public final class CurlHTTPClient: HTTPClient, @unchecked Sendable {
  public struct Options: Sendable {
    public var connectTimeout: Double = 10
    public var totalTimeout: Double = 30
    /// Largest response body accepted, in bytes.
    public var maxBodyBytes = 10 * 1_048_576
    public var userAgent = "strivacity"
    /// The CA bundle (PEM) certificates are checked against, instead of libcurl's default.
    public var caFile: String?
    /// A directory of CA certificates named by hash, as SSL_CERT_DIR names one.
    public var caDirectory: String?
    /// How messages name the trust in use (CATrust's description), and what to change when a
    /// certificate does not verify against it (CATrust's fix).
    public var trust = "the system's store"
    public var trustFix = TransportError.untrustedCertificateFix
    /// The proxy (nil: always direct, whatever the environment says).
    public var proxy: ProxyChoice?
    /// The proxy's password for `proxy.user`, and where it came from ("the password in
    /// STRIVACITY_PROXY_PASSWORD", …), for the message when it is refused.
    public var proxyPassword: String?
    public var proxyPasswordSource: String?
    public init() {}
  }

  public let options: Options
  private let easy: Mutex<CurlEasy?> = Mutex(nil)

  public init(options: Options = Options()) {
    self.options = options
  }

  /// The proxy's password, which goes with every proxied request.
  public var sentSecrets: [String] { options.proxyPassword.map { [$0] } ?? [] }

  public func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
    let parts = try URLPolicy.check(request.url)
    // The header-line sink: a CR or LF from outside (a session id, a token) would end the line
    // and start another header or request. Refused, never escaped; the message names the field.
    for header in request.headers where !HTTPHeader.isValidName(header.name) || !HTTPHeader.isValidValue(header.value) {
      throw .invalidHeader(name: HTTPHeader.isValidName(header.name) ? header.name : "?")
    }
    guard request.url.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { throw .invalidURL }
    // The easy handle (and with it the cookie jar and open connections) lives as long as the client.
    let result: Result<HTTPResponse, TransportError> = easy.withLock { slot in
      do throws(TransportError) {
        if slot == nil { slot = try CurlEasy() }
        return .success(try perform(request, parts: parts, on: slot!))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  private func perform(_ request: HTTPRequest, parts: URLParts, on easy: CurlEasy) throws(TransportError)
    -> HTTPResponse
  {
    easy.reset()
    let limit = min(request.maxBodyBytes ?? options.maxBodyBytes, options.maxBodyBytes)
    let sink = ResponseSink(limit: limit)
    let context = Unmanaged.passRetained(sink)
    defer { context.release() }
    let timeout = request.timeout ?? options.totalTimeout
    let proxy = options.proxy?.proxy(forHost: parts.host, loopback: parts.isLoopback)
    do throws(CurlOptionError) {
      try easy.set(CURLOPT_URL, request.url)
      try easy.set(CURLOPT_FOLLOWLOCATION, 0)
      try easy.set(CURLOPT_NOSIGNAL, 1)
      try easy.set(CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000))
      try easy.set(CURLOPT_TIMEOUT_MS, Int(timeout * 1000))
      try easy.set(CURLOPT_USERAGENT, options.userAgent)
      try easy.set(CURLOPT_COOKIEFILE, "")  // in-memory cookie engine for this handle
      try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
      try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
      if let caFile = options.caFile { try easy.set(CURLOPT_CAINFO, caFile) }
      if let caDirectory = options.caDirectory { try easy.set(CURLOPT_CAPATH, caDirectory) }
      try setProtocols(parts.scheme, on: easy)
      // Take only what we can hold: gzip/deflate bodies are decoded by libcurl.
      try easy.set(CURLOPT_ACCEPT_ENCODING, "")
      try setProxy(proxy, on: easy)
      if request.freshConnection { try easy.set(CURLOPT_FRESH_CONNECT, 1) }
      switch request.method {
      case "GET": try easy.set(CURLOPT_HTTPGET, 1)
      case "POST": try easy.set(CURLOPT_POST, 1)
      case "HEAD": try easy.set(CURLOPT_NOBODY, 1)
      default: try easy.set(CURLOPT_CUSTOMREQUEST, request.method)
      }
      if let body = request.body { try easy.setBody(body) }
      // An empty "Expect:" stops libcurl from waiting for 100-continue on larger bodies.
      try easy.setHeaders(request.headers.map { "\($0.name): \($0.value)" } + ["Expect:"])
      try easy.setCallbacks(write: writeCallback, header: headerCallback, context: context.toOpaque())
    } catch {
      throw .protocolError(host: "\(parts.origin)", detail: error.message)
    }
    let rc = easy.perform()
    // Messages name the origin (scheme, host and port: which tenant, which stale port), never
    // a path or query.
    if sink.overflowed { throw .tooLarge(host: "\(parts.origin)", limit: limit) }
    guard rc == CURLE_OK else {
      // An https:// proxy's handshake comes before any CONNECT: a failure then is the proxy's.
      if let proxy, proxy.scheme == "https", easy.info(CURLINFO_HTTP_CONNECTCODE) == 0,
        let choice = options.proxy
      {
        if rc == CURLE_PEER_FAILED_VERIFICATION {
          let trust = choice.caBundle.map { "the CA bundle \($0) (from proxy_ca_bundle)" } ?? options.trust
          var detail = Self.verifyResult(easy.info(CURLINFO_PROXY_SSL_VERIFYRESULT))
          let proxyURL = "https://\(proxy.host):\(proxy.port ?? 443)/"
          if let proxyParts = URLParts(proxyURL),
            let shown = shownCertificate(proxyURL, parts: proxyParts, direct: true)
          {
            detail += "; it names \(shown.subject), issued by \(shown.issuer)"
          }
          throw .untrustedProxyCertificate(proxy: choice.description, detail: detail, trust: trust)
        }
        if case .tls(_, let detail) = Self.classify(rc, host: "", origin: "", timeout: timeout) {
          throw .tls(host: "the proxy \(choice.description)", detail: detail)
        }
      }
      if rc == CURLE_PEER_FAILED_VERIFICATION {
        var detail = Self.verifyResult(easy.info(CURLINFO_SSL_VERIFYRESULT))
        if let shown = shownCertificate(request.url, parts: parts) {
          detail += "; it names \(shown.subject), issued by \(shown.issuer)"
        }
        throw .untrustedCertificate(
          host: "\(parts.origin)", detail: detail, trust: options.trust, fix: options.trustFix)
      }
      if proxy != nil,
        let failure = proxyFailure(
          rc, connectCode: easy.info(CURLINFO_HTTP_CONNECTCODE), parts: parts, timeout: timeout)
      {
        throw failure
      }
      // A time-out before the connection was made (TCP, TLS) was the connect phase's bound.
      let connected = easy.info(parts.scheme == "https" ? CURLINFO_APPCONNECT_TIME_T : CURLINFO_CONNECT_TIME_T) > 0
      throw Self.classify(
        rc, host: parts.host, origin: "\(parts.origin)",
        timeout: connected ? timeout : min(timeout, options.connectTimeout))
    }
    return HTTPResponse(status: easy.info(CURLINFO_RESPONSE_CODE), headers: sink.headers, body: sink.body)
  }

  /// The proxy for this request (nil: direct; libcurl is told "" so that it reads no variable),
  /// with its CA, its authentication and our credentials for it.
  private func setProxy(_ proxy: ProxyURL?, on easy: CurlEasy) throws(CurlOptionError) {
    guard let proxy, let choice = options.proxy else {
      try easy.set(CURLOPT_PROXY, "")
      return
    }
    try easy.set(CURLOPT_PROXY, proxy.address)
    if let caBundle = choice.caBundle ?? options.caFile { try easy.set(CURLOPT_PROXY_CAINFO, caBundle) }
    // CURLAUTH_BASIC, or CURLAUTH_ANY (every bit but CURLAUTH_DIGEST_IE): macros Swift cannot import.
    try easy.set(CURLOPT_PROXYAUTH, choice.auth == .any ? ~(1 << 4) : 1)
    if let user = choice.user {
      try easy.set(CURLOPT_PROXYUSERNAME, user)
      try easy.set(CURLOPT_PROXYPASSWORD, options.proxyPassword ?? "")
    }
  }

  /// A failure that was the proxy's, said as such: it could not be resolved or reached, it
  /// asked for credentials (407) or refused ours, it would not open the tunnel, or it took the
  /// connection and never answered CONNECT. nil: the failure came after the tunnel was open.
  private func proxyFailure(_ rc: CURLcode, connectCode: Int, parts: URLParts, timeout: Double) -> TransportError? {
    guard let choice = options.proxy else { return nil }
    let named = choice.description
    switch connectCode {
    case 407, 401:
      guard let user = choice.user else {
        return .proxyAuthentication(
          proxy: named, status: connectCode, user: nil,
          fix: "set proxy_user = \"NAME\" in the config and the password in STRIVACITY_PROXY_PASSWORD, or "
            + "user:password in the proxy's URL")
      }
      let source = options.proxyPasswordSource ?? "the password in STRIVACITY_PROXY_PASSWORD"
      return .proxyAuthentication(
        proxy: named, status: connectCode, user: TerminalSafe.text(user, multiline: false),
        fix: options.proxyPassword == nil
          ? "no password was found for it: set STRIVACITY_PROXY_PASSWORD or run strivacity setup proxy --password-stdin"
          : "check \(source)")
    case 300...:
      return .proxyRefused(proxy: named, host: "\(parts.origin)", status: connectCode)
    case 200..<300:
      return nil
    default:
      break
    }
    switch rc {
    case CURLE_COULDNT_RESOLVE_PROXY:
      return .proxyUnreachable(proxy: named, detail: "its host does not resolve", fix: choice.fix)
    case CURLE_COULDNT_CONNECT:
      return .proxyUnreachable(proxy: named, detail: "connection refused or unreachable", fix: choice.fix)
    // No answer to CONNECT yet: libcurl counts that wait in the connect phase.
    case CURLE_OPERATION_TIMEDOUT: return .proxyTimeout(proxy: named, seconds: min(timeout, options.connectTimeout))
    default: return nil
    }
  }

  private func setProtocols(_ scheme: String, on easy: CurlEasy) throws(CurlOptionError) {
    // CURLOPT_PROTOCOLS_STR exists since 7.85; older libcurl only has the bitmask form.
    do {
      try easy.set(CURLOPT_PROTOCOLS_STR, scheme)
      try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, scheme)
    } catch {
      let mask = scheme == "https" ? Int(CURLPROTO_HTTPS) : Int(CURLPROTO_HTTP)
      try easy.set(CURLOPT_PROTOCOLS, mask)
      try easy.set(CURLOPT_REDIR_PROTOCOLS, mask)
    }
  }

  /// The subject and issuer of the certificate `url`'s server shows, for the message that it
  /// is not trusted: a second handshake on a connection of its own that only connects
  /// (CURLOPT_CONNECT_ONLY: nothing is sent over it, it is closed at once), with verification
  /// off for that alone. Tenant text: one line, no controls, bounded.
  /// `direct`: the server itself is a proxy, reached without one.
  private func shownCertificate(_ url: String, parts: URLParts, direct: Bool = false) -> (
    subject: String, issuer: String
  )? {
    guard let probe = try? CurlEasy() else { return nil }
    do throws(CurlOptionError) {
      try probe.set(CURLOPT_URL, url)
      try probe.set(CURLOPT_CONNECT_ONLY, 1)
      try probe.set(CURLOPT_NOSIGNAL, 1)
      try probe.set(CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000))
      try probe.set(CURLOPT_TIMEOUT_MS, Int(options.connectTimeout * 1000))
      try probe.set(CURLOPT_SSL_VERIFYPEER, 0)
      try probe.set(CURLOPT_SSL_VERIFYHOST, 0)
      try probe.set(CURLOPT_CERTINFO, 1)
      try setProtocols(parts.scheme, on: probe)
      try setProxy(direct ? nil : options.proxy?.proxy(forHost: parts.host, loopback: parts.isLoopback), on: probe)
    } catch {
      return nil
    }
    guard probe.perform() == CURLE_OK, let subject = probe.certificateField("Subject"),
      let issuer = probe.certificateField("Issuer")
    else { return nil }
    func inert(_ text: String) -> String { String(TerminalSafe.text(text, multiline: false).prefix(200)) }
    return (inert(subject), inert(issuer))
  }

  /// OpenSSL's verify result (X509_V_ERR_*) in words, for the common cases.
  static func verifyResult(_ code: Int) -> String {
    switch code {
    case 2, 20: return "its issuer is not among the trusted CAs"
    case 18: return "it is self-signed"
    case 19: return "a self-signed CA is in its chain"
    case 9: return "it is not valid yet"
    case 10: return "it has expired"
    case 62: return "it is for another host name"
    default: return "X509 verify error \(code)"
    }
  }

  static func classify(_ rc: CURLcode, host: String, origin: String, timeout: Double) -> TransportError {
    let text = String(cString: sc_easy_strerror(rc))
    switch rc {
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .dns(host: host)
    case CURLE_COULDNT_CONNECT: return .refused(host: origin)
    case CURLE_OPERATION_TIMEDOUT: return .timeout(host: origin, seconds: timeout)
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
      CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
      CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
      CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED:
      return .tls(host: origin, detail: text)
    case CURLE_UNSUPPORTED_PROTOCOL: return .insecureURL(host: origin)
    case CURLE_URL_MALFORMAT: return .invalidURL
    default: return .protocolError(host: origin, detail: text)
    }
  }
}

/// Collects one response. Header lines of interim responses (1xx, proxy CONNECT) are dropped
/// when the next status line starts.
private final class ResponseSink {
  let limit: Int
  var body: [UInt8] = []
  var headers: [HTTPHeader] = []
  var overflowed = false

  init(limit: Int) { self.limit = limit }

  func appendBody(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard body.count + bytes.count <= limit else {
      overflowed = true
      return false
    }
    body.append(contentsOf: bytes)
    return true
  }

  func appendHeaderLine(_ bytes: UnsafeBufferPointer<UInt8>) {
    var line = String(decoding: bytes, as: UTF8.self)
    while let last = line.last, last.isNewline { line.removeLast() }
    if line.hasPrefix("HTTP/") {
      headers.removeAll()
      return
    }
    if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
      // obsolete line folding: continue the previous value
      headers[headers.count - 1].value += " " + line.trimmingSpaces()
      return
    }
    guard let colon = line.firstIndex(of: ":") else { return }
    let name = String(line[..<colon])
    let value = String(line[line.index(after: colon)...]).trimmingSpaces()
    headers.append(HTTPHeader(name, value))
  }
}

private let writeCallback: sc_data_callback = { data, size, count, context in
  let sink = Unmanaged<ResponseSink>.fromOpaque(context!).takeUnretainedValue()
  let total = size * count
  guard let data else { return total }
  let ok = data.withMemoryRebound(to: UInt8.self, capacity: total) {
    sink.appendBody(UnsafeBufferPointer(start: $0, count: total))
  }
  return ok ? total : 0
}

private let headerCallback: sc_data_callback = { data, size, count, context in
  let sink = Unmanaged<ResponseSink>.fromOpaque(context!).takeUnretainedValue()
  let total = size * count
  guard let data else { return total }
  data.withMemoryRebound(to: UInt8.self, capacity: total) {
    sink.appendHeaderLine(UnsafeBufferPointer(start: $0, count: total))
  }
  return total
}

extension String {
  fileprivate func trimmingSpaces() -> String {
    var s = Substring(self)
    while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" { s.removeLast() }
    return String(s)
  }
}

/// libcurl result codes the tests name without importing the C module.
enum CURLcodeValue {
  static let couldntResolveHost = CURLE_COULDNT_RESOLVE_HOST
  static let peerFailedVerification = CURLE_PEER_FAILED_VERIFICATION
  static let couldntConnect = CURLE_COULDNT_CONNECT
}

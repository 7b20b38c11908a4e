// A small threaded HTTP/1.1 server that binds loopback addresses only.
//
// Used for the login redirect listener (RFC 8252 §7.3), the local tenant emulator and test
// servers. One thread accepts; each connection gets its own thread and may carry several
// requests (keep-alive). Handlers may ask for faults (delays, dropped connections, truncated
// bodies) so clients can be tested against bad servers.
import Glibc
import StrivacityCore
import Synchronization
import SystemIO

/// What to send back for one request.
public struct ServerReply: Sendable {
  public var status: Int
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]
  /// Wait this long before answering (slow server).
  public var delay: Double = 0
  /// Close the connection without answering.
  public var drop = false
  /// Send only the first N bytes of the encoded reply, then close.
  public var truncateAfter: Int?

  public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  public init(status: Int, contentType: String, text: String, headers: [(name: String, value: String)] = []) {
    self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: Array(text.utf8))
  }

  /// Closes the connection without a reply.
  public static var dropped: ServerReply {
    var reply = ServerReply(status: 0)
    reply.drop = true
    return reply
  }

  /// The reply's bytes. A header's name or value can never end its line: CR, LF and NUL in
  /// them are left out (a value from elsewhere cannot add a header or end the head).
  public func encoded() -> [UInt8] {
    func oneLine(_ text: String) -> String {
      String(String.UnicodeScalarView(text.unicodeScalars.filter { !"\r\n\0".unicodeScalars.contains($0) }))
    }
    var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
    for (name, value) in headers { head += "\(oneLine(name)): \(oneLine(value))\r\n" }
    if !headers.contains(where: { $0.name.lowercased() == "content-length" }) {
      head += "Content-Length: \(body.count)\r\n"
    }
    head += "\r\n"
    return Array(head.utf8) + body
  }
}

public enum ServerError: Error, CustomStringConvertible {
  case notLoopback(String)
  /// What failed, and errno.
  case socket(String, errno: Int32)

  public var description: String {
    switch self {
    case .notLoopback(let host): return "refusing to listen on \(host): only 127.0.0.1 and ::1 are allowed"
    case .socket(let detail, _): return detail
    }
  }

  /// The address asked for does not exist on this machine (EADDRNOTAVAIL, EAFNOSUPPORT): no
  /// IPv6 loopback, say.
  public var isAddressUnavailable: Bool {
    guard case .socket(_, let code) = self else { return false }
    return code == EADDRNOTAVAIL || code == EAFNOSUPPORT
  }
}

public final class LoopbackServer: @unchecked Sendable {
  public typealias Handler = @Sendable (ServerRequest) -> ServerReply

  /// The bound address: "127.0.0.1" or "::1".
  public let host: String
  public let port: Int
  private let listener: Int32
  private let handler: Handler
  private let limits: RequestParser.Limits
  private let maxConnections: Int
  private let requestDeadline: Double
  private struct State {
    var stopped = false
    /// Open connections and when each was accepted.
    var connections: [Int32: Double] = [:]
    var threads = 0
  }
  private let state = Mutex(State())

  /// The base URL, e.g. `http://127.0.0.1:43125`.
  public var baseURL: String { host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)" }

  /// Binds `host:port` (port 0 picks a free one) and starts serving on background threads.
  /// Any local user can connect, so the server defends itself: at most `maxConnections` at once
  /// (a new one closes the oldest, so trickling clients cannot make it deaf), and each request
  /// must arrive whole within `requestDeadlineSeconds` of the connection opening (or of the
  /// previous answer, on a kept-alive connection), however slowly its bytes trickle in: one
  /// clock for idling and for trickling, not an idle timer that each byte resets.
  public init(
    host: String = "127.0.0.1", port: Int = 0, limits: RequestParser.Limits = .init(),
    maxConnections: Int = 256, requestDeadlineSeconds: Double = 30,
    handler: @escaping Handler
  ) throws(ServerError) {
    guard host == "127.0.0.1" || host == "::1" else { throw .notLoopback(host) }
    self.host = host
    self.handler = handler
    self.limits = limits
    self.maxConnections = max(1, maxConnections)
    self.requestDeadline = requestDeadlineSeconds
    let ipv6 = host.contains(":")
    let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .socket("socket: \(String(cString: strerror(errno)))", errno: errno) }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let bound: Int32
    if ipv6 {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = in_port_t(UInt16(port).bigEndian)
      address.sin6_addr = in6addr_loopback
      bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    } else {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(port).bigEndian)
      address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
      bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
    }
    guard bound == 0 else {
      let code = errno
      close(fd)
      throw .socket("cannot listen on \(host) port \(port): \(String(cString: strerror(code)))", errno: code)
    }
    guard listen(fd, 512) == 0 else {
      let code = errno
      close(fd)
      throw .socket("listen: \(String(cString: strerror(code)))", errno: code)
    }
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    let rawPort = withUnsafePointer(to: &storage) { pointer -> UInt16 in
      ipv6
        ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
        : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
    }
    self.port = Int(UInt16(bigEndian: rawPort))
    self.listener = fd
    startThread { [self] in acceptLoop() }
  }

  /// Stops accepting, shuts down open connections and returns; idempotent. A server runs
  /// (and stays alive) until stopped.
  public func stop() {
    state.withLock { state in
      guard !state.stopped else { return }
      state.stopped = true
      // Under the lock: a connection fd in the set is still open (serve() closes under the
      // lock too), so shutdown() can never hit a recycled descriptor number. The listener is
      // only shut down here; the accept thread closes it when accept() fails, for the same reason.
      shutdown(listener, Int32(SHUT_RDWR))
      for fd in state.connections.keys { shutdown(fd, Int32(SHUT_RDWR)) }
    }
  }

  private func acceptLoop() {
    defer { close(listener) }
    while true {
      let fd = accept(listener, nil, nil)
      if fd < 0 {
        if state.withLock({ $0.stopped }) { return }
        if errno == EINTR || errno == ECONNABORTED { continue }
        if errno == EMFILE || errno == ENFILE {
          usleep(10_000)
          continue
        }
        return
      }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      let accepted = state.withLock { state -> Bool in
        guard !state.stopped else { return false }
        let live = state.connections.filter { $0.value.isFinite }
        if live.count >= maxConnections, let oldest = live.min(by: { $0.value < $1.value })?.key {
          // Its thread sees the shutdown and closes it (under this lock, so never a reused fd);
          // until then it is marked evicted (infinity) and no longer counts.
          shutdown(oldest, Int32(SHUT_RDWR))
          state.connections[oldest] = .infinity
        }
        state.connections[fd] = monotonicSeconds()
        return true
      }
      guard accepted else {
        close(fd)
        return
      }
      startThread { [self] in serve(fd) }
    }
  }

  private func serve(_ fd: Int32) {
    defer {
      state.withLock { state in
        state.connections[fd] = nil
        close(fd)
      }
    }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var parser = RequestParser(limits: limits)
    var chunk = [UInt8](repeating: 0, count: 65_536)
    var requestStarted = monotonicSeconds()
    while true {
      let request: ServerRequest?
      do {
        request = try parser.next()
      } catch {
        var reply = ServerReply(
          status: error.status, contentType: "text/plain; charset=utf-8", text: error.reason + "\n")
        reply.headers.append(("Connection", "close"))
        send(reply.encoded(), on: fd)
        return
      }
      if let request {
        var reply = handler(request)
        if reply.delay > 0 { usleep(useconds_t(min(reply.delay, 3600) * 1_000_000)) }
        if reply.drop { return }
        let close = request.wantsClose || reply.truncateAfter != nil
        if close { reply.headers.append(("Connection", "close")) }
        var bytes = reply.encoded()
        if let limit = reply.truncateAfter { bytes = Array(bytes.prefix(limit)) }
        guard send(bytes, on: fd), !close else { return }
        requestStarted = monotonicSeconds()
        continue
      }
      // The next read may wait only for what is left of this request's time.
      let left = requestDeadline - (monotonicSeconds() - requestStarted)
      guard left > 0 else { return }
      var timeout = timeval(tv_sec: Int(left), tv_usec: Int((left - left.rounded(.down)) * 1_000_000))
      if timeout.tv_sec == 0 && timeout.tv_usec == 0 { timeout.tv_usec = 1000 }
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return }
      parser.append(chunk[0..<n])
    }
  }

  @discardableResult
  private func send(_ bytes: [UInt8], on fd: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return false }
      offset += n
    }
    return true
  }
}

/// Starts a detached POSIX thread running `body`, on a 512 KiB stack.
func startThread(_ body: @escaping @Sendable () -> Void) { startDetachedThread(stackSize: 512 * 1024, body) }

func reasonPhrase(_ status: Int) -> String {
  switch status {
  case 200: return "OK"
  case 201: return "Created"
  case 204: return "No Content"
  case 302: return "Found"
  case 303: return "See Other"
  case 400: return "Bad Request"
  case 401: return "Unauthorized"
  case 403: return "Forbidden"
  case 404: return "Not Found"
  case 405: return "Method Not Allowed"
  case 411: return "Length Required"
  case 413: return "Content Too Large"
  case 415: return "Unsupported Media Type"
  case 429: return "Too Many Requests"
  case 431: return "Request Header Fields Too Large"
  case 500: return "Internal Server Error"
  case 502: return "Bad Gateway"
  case 503: return "Service Unavailable"
  case 504: return "Gateway Timeout"
  case 505: return "HTTP Version Not Supported"
  default: return "Status"
  }
}

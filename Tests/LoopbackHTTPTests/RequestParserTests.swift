import Glibc
import Testing

@testable import LoopbackHTTP

@Suite struct RequestParserTests {
  func parse(_ text: String, limits: RequestParser.Limits = .init()) throws(RequestParseError) -> [ServerRequest] {
    var parser = RequestParser(limits: limits)
    parser.append(Array(text.utf8))
    var out: [ServerRequest] = []
    while let request = try parser.next() { out.append(request) }
    return out
  }

  @Test func parsesPipelinedRequestsWithBodies() throws {
    let requests = try parse(
      "POST /flow/api/v1/form/additionalActions/registration?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: "
        + "2\r\nContent-Type:  application/json \r\n\r\n{}"
        + "GET /cb HTTP/1.1\r\nHost: a\r\n\r\n")
    #expect(requests.count == 2)
    #expect(requests[0].method == "POST")
    #expect(requests[0].path == "/flow/api/v1/form/additionalActions/registration")
    #expect(requests[0].query == "x=1")
    #expect(requests[0].header("content-type") == "application/json")
    #expect(requests[0].bodyText == "{}")
    #expect(requests[1].path == "/cb")
    #expect(requests[1].query == "")
  }

  @Test func waitsForMoreBytes() throws {
    var parser = RequestParser()
    parser.append(Array("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab".utf8))
    #expect(try parser.next() == nil)
    parser.append(Array("cde".utf8))
    #expect(try parser.next()?.bodyText == "abcde")
  }

  @Test(arguments: [
    ("GET / HTTP/1.1\r\nBad Header: x\r\n\r\n", 400),
    ("GET / HTTP/2.0\r\n\r\n", 505),
    ("GET /a b HTTP/1.1\r\n\r\n", 400),
    ("GET http://evil/ HTTP/1.1\r\n\r\n", 400),
    ("G(T / HTTP/1.1\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
    ("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
    ("POST / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413),
    ("GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\n: empty\r\n\r\n", 400),
  ])
  func rejectsMalformedRequests(_ text: String, _ status: Int) {
    #expect(throws: RequestParseError.self) { try parse(text) }
    do { _ = try parse(text) } catch { #expect(error.status == status, "\(error.reason)") }
  }

  @Test func limitsTheHead() {
    var limits = RequestParser.Limits()
    limits.maxHeadBytes = 64
    let long = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100) + "\r\n\r\n"
    #expect(throws: RequestParseError(status: 431, reason: "request head too large")) {
      try parse(long, limits: limits)
    }
    // Without a terminator, too many bytes also fail instead of buffering forever.
    #expect(throws: RequestParseError(status: 431, reason: "request head too large")) {
      try parse("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100), limits: limits)
    }
  }
}

@Suite struct LoopbackServerDefenceTests {
  /// A trickling client (slowloris) per connection cannot make the server deaf: connections
  /// over the cap close the oldest, and a request has a total deadline however its bytes trickle.
  @Test func tricklingClientsCannotMakeTheServerDeaf() throws {
    let server = try LoopbackServer(maxConnections: 8, requestDeadlineSeconds: 1) { _ in ServerReply(status: 204) }
    defer { server.stop() }
    func connect() -> Int32 {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(server.port).bigEndian)
      address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      return fd
    }
    let trickling = (0..<40).map { _ in connect() }
    for fd in trickling { _ = "GET / HTTP/1.1\r\n".withCString { write(fd, $0, 16) } }
    // A real client still gets its answer at once.
    let fd = connect()
    let request = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    _ = request.withCString { write(fd, $0, strlen($0)) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var buffer = [UInt8](repeating: 0, count: 256)
    let n = read(fd, &buffer, buffer.count)
    #expect(n > 0 && String(decoding: buffer[0..<max(0, n)], as: UTF8.self).hasPrefix("HTTP/1.1 204"))
    close(fd)
    // A trickler past the deadline is cut off, however it keeps sending.
    let slow = connect()
    var cut = false
    for _ in 0..<30 {
      if write(slow, "a", 1) < 0 { cut = true; break }
      usleep(100_000)
      var probe = pollfd(fd: slow, events: Int16(POLLIN), revents: 0)
      if poll(&probe, 1, 0) > 0 { cut = true; break }
    }
    #expect(cut, "the trickling request was closed within its deadline")
    close(slow)
    trickling.forEach { close($0) }
  }

  /// A header value with a line break cannot add a header or end the head.
  @Test func aReplysHeaderStaysOneLine() {
    let reply = ServerReply(status: 401, headers: [("WWW-Authenticate", "Bearer x\r\nSet-Cookie: a=b\n\r\n\0")])
    let text = String(decoding: reply.encoded(), as: UTF8.self)
    #expect(
      text
        == "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer xSet-Cookie: a=b\r\nContent-Length: 0\r\n\r\n")
  }
}

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
      "POST /flow/api/v1/form/additionalActions/registration?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Type:  application/json \r\n\r\n{}"
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
    #expect(throws: RequestParseError(status: 431, reason: "request head too large")) { try parse(long, limits: limits) }
    // Without a terminator, too many bytes also fail instead of buffering forever.
    #expect(throws: RequestParseError(status: 431, reason: "request head too large")) {
      try parse("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100), limits: limits)
    }
  }
}

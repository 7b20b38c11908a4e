// Real libcurl against real loopback servers (LoopbackHTTP).
import Foundation
import LoopbackHTTP
import StrivacityCore
import Synchronization
import Testing

@testable import CurlTransport

/// Records what the server saw, for assertions.
final class Seen: Sendable {
  let requests = Mutex<[ServerRequest]>([])
  func add(_ request: ServerRequest) { requests.withLock { $0.append(request) } }
  var all: [ServerRequest] { requests.withLock { $0 } }
}

@Suite struct CurlHTTPClientTests {
  /// A server that answers every request with 200 after `seconds`.
  static func slowServer(answeringAfter seconds: Double) throws -> LoopbackServer {
    try LoopbackServer { _ in
      var reply = ServerReply(status: 200)
      reply.delay = seconds
      return reply
    }
  }

  @Test func readsStatusHeadersAndBody() throws {
    let server = try LoopbackServer { _ in
      ServerReply(
        status: 200, headers: [("Content-Type", "application/json"), ("X-Multi", "one"), ("x-multi", "two")],
        body: Array("{\"ok\":true}".utf8))
    }
    defer { server.stop() }
    let response = try CurlHTTPClient().send(HTTPRequest(url: server.baseURL + "/hello"))
    #expect(response.status == 200)
    #expect(response.bodyText == "{\"ok\":true}")
    #expect(response.header("content-type") == "application/json")
    #expect(response.headers(named: "X-MULTI") == ["one", "two"])
  }

  @Test func neverFollowsRedirects() throws {
    let seen = Seen()
    let server = try LoopbackServer { request in
      seen.add(request)
      return ServerReply(
        status: 302, headers: [("Location", "http://127.0.0.1:1/next?session_id=abc")],
        body: Array("http://127.0.0.1:1/next?session_id=abc".utf8))
    }
    defer { server.stop() }
    let response = try CurlHTTPClient().send(HTTPRequest(url: server.baseURL + "/oauth2/auth?x=1"))
    #expect(response.status == 302)
    #expect(response.header("Location") == "http://127.0.0.1:1/next?session_id=abc")
    #expect(seen.all.map(\.target) == ["/oauth2/auth?x=1"])
  }

  @Test func sendsMethodHeadersAndBody() throws {
    let seen = Seen()
    let server = try LoopbackServer { request in
      seen.add(request)
      return ServerReply(status: 204)
    }
    defer { server.stop() }
    let client = CurlHTTPClient()
    let body = Array("grant_type=refresh_token&refresh_token=r".utf8)
    _ = try client.send(
      HTTPRequest(
        method: "POST", url: server.baseURL + "/oauth2/token",
        headers: [
          HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json"),
        ],
        body: body))
    _ = try client.send(HTTPRequest(method: "DELETE", url: server.baseURL + "/thing"))
    _ = try client.send(HTTPRequest(method: "POST", url: server.baseURL + "/empty", body: []))
    let requests = seen.all
    #expect(requests.map(\.method) == ["POST", "DELETE", "POST"])
    #expect(requests[0].body == body)
    #expect(requests[0].header("content-type") == "application/x-www-form-urlencoded")
    #expect(requests[0].header("Expect") == nil)
    #expect(requests[2].header("Content-Length") == "0")
  }

  @Test func keepsCookiesPerClient() throws {
    let seen = Seen()
    let server = try LoopbackServer { request in
      seen.add(request)
      if request.path == "/set" {
        return ServerReply(
          status: 200, headers: [("Set-Cookie", "sid=s1; Path=/; HttpOnly"), ("Set-Cookie", "lang=en; Path=/")])
      }
      return ServerReply(status: 200)
    }
    defer { server.stop() }
    let first = CurlHTTPClient()
    _ = try first.send(HTTPRequest(url: server.baseURL + "/set"))
    _ = try first.send(HTTPRequest(url: server.baseURL + "/use"))
    _ = try CurlHTTPClient().send(HTTPRequest(url: server.baseURL + "/other-client"))
    let cookies = seen.all.map { $0.header("Cookie") }
    #expect(cookies[1]?.contains("sid=s1") == true)
    #expect(cookies[1]?.contains("lang=en") == true)
    #expect(cookies[2] == nil)
  }

  @Test func refusesPlainHTTPToOtherHostsBeforeConnecting() {
    // 192.0.2.0/24 is TEST-NET-1: nothing is there, and nothing may be sent there.
    #expect(throws: TransportError.insecureURL(host: "192.0.2.1")) {
      try CurlHTTPClient().send(HTTPRequest(url: "http://192.0.2.1/.well-known/openid-configuration"))
    }
    #expect(throws: TransportError.insecureURL(host: "tenant.example.com")) {
      try CurlHTTPClient().send(HTTPRequest(url: "http://tenant.example.com/"))
    }
    #expect(throws: TransportError.insecureURL(host: "x")) {
      try CurlHTTPClient().send(HTTPRequest(url: "file://x/etc/passwd"))
    }
  }

  @Test func timesOutWithAOneLineMessageThatHidesSecrets() throws {
    let server = try Self.slowServer(answeringAfter: 3)
    defer { server.stop() }
    var options = CurlHTTPClient.Options()
    options.totalTimeout = 0.3
    let started = Date()
    do {
      _ = try CurlHTTPClient(options: options).send(
        HTTPRequest(
          method: "POST", url: server.baseURL + "/token?access_token=SECRET-IN-QUERY",
          headers: [HTTPHeader("Authorization", "Bearer SECRET-IN-HEADER")], body: Array("password=SECRET-IN-BODY".utf8)
        ))
      Issue.record("no timeout")
    } catch {
      let origin = server.baseURL  // http://127.0.0.1:PORT: the origin, no path
      #expect(error == .timeout(host: origin, seconds: 0.3))
      #expect(error.description == "\(origin) did not answer within 0.3 s")
      #expect(!error.description.contains("SECRET"))
      #expect(!error.description.contains("\n"))
    }
    #expect(Date().timeIntervalSince(started) < 2.5)
  }

  @Test func perRequestTimeoutOverridesTheClients() throws {
    let server = try Self.slowServer(answeringAfter: 2)
    defer { server.stop() }
    #expect(throws: TransportError.timeout(host: server.baseURL, seconds: 0.2)) {
      try CurlHTTPClient().send(HTTPRequest(url: server.baseURL + "/", timeout: 0.2))
    }
  }

  @Test func refusedConnectionsAreNamed() throws {
    let server = try LoopbackServer { _ in ServerReply(status: 200) }
    let url = server.baseURL + "/"
    server.stop()
    #expect(throws: TransportError.refused(host: server.baseURL)) {
      try CurlHTTPClient().send(HTTPRequest(url: url))
    }
  }

  @Test func droppedConnectionsAndTruncatedBodiesAreProtocolErrors() throws {
    let server = try LoopbackServer { request in
      if request.path == "/drop" { return .dropped }
      var reply = ServerReply(status: 200, body: Array(repeating: UInt8(ascii: "x"), count: 1000))
      reply.truncateAfter = 100
      return reply
    }
    defer { server.stop() }
    for path in ["/drop", "/truncate"] {
      do {
        _ = try CurlHTTPClient().send(HTTPRequest(url: server.baseURL + path))
        Issue.record("\(path) succeeded")
      } catch {
        guard case .protocolError(let host, _) = error else {
          Issue.record("\(path): \(error)")
          continue
        }
        #expect(host == server.baseURL)
      }
    }
  }

  @Test func oversizedBodiesAreCutOff() throws {
    let server = try LoopbackServer { _ in
      ServerReply(status: 200, body: [UInt8](repeating: 65, count: 3 * 1_048_576))
    }
    defer { server.stop() }
    var options = CurlHTTPClient.Options()
    options.maxBodyBytes = 1_048_576
    #expect(throws: TransportError.tooLarge(host: server.baseURL, limit: 1_048_576)) {
      try CurlHTTPClient(options: options).send(HTTPRequest(url: server.baseURL + "/big"))
    }
  }

  @Test func worksOverIPv6Loopback() throws {
    let server: LoopbackServer
    do {
      server = try LoopbackServer(host: "::1") { _ in ServerReply(status: 200, body: Array("v6".utf8)) }
    } catch {
      // Some containers have no IPv6 loopback at all; nothing to test there.
      return
    }
    defer { server.stop() }
    #expect(server.baseURL.hasPrefix("http://[::1]:"))
    #expect(try CurlHTTPClient().send(HTTPRequest(url: server.baseURL + "/")).bodyText == "v6")
  }

  @Test func reusesOneClientFromManyThreads() throws {
    let server = try LoopbackServer { request in ServerReply(status: 200, body: Array(request.path.utf8)) }
    defer { server.stop() }
    let client = CurlHTTPClient()
    let failures = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 40) { i in
      let body = try? client.send(HTTPRequest(url: server.baseURL + "/n\(i)")).bodyText
      if body != "/n\(i)" { failures.withLock { $0 += 1 } }
    }
    #expect(failures.withLock { $0 } == 0)
  }

  @Test func classifiesLibcurlErrors() {
    #expect(
      CurlHTTPClient.classify(CURLcodeValue.couldntResolveHost, host: "h", origin: "https://h:8443", timeout: 1)
        == .dns(host: "h"))
    #expect(
      CurlHTTPClient.classify(CURLcodeValue.peerFailedVerification, host: "h", origin: "https://h:8443", timeout: 1)
        .description.hasPrefix("TLS failure with https://h:8443: "))
    #expect(
      CurlHTTPClient.classify(CURLcodeValue.couldntConnect, host: "h", origin: "https://h:8443", timeout: 1).description
        == "cannot connect to https://h:8443: connection refused")
    #expect(TransportError.dns(host: "tenant.example").description == "cannot resolve host tenant.example")
  }
}

@Suite struct NoReplayTests {
  /// libcurl re-sends a request on its own when a reused connection dies before answering;
  /// a fresh-connection request must reach the server once, or fail.
  @Test func freshConnectionsAreNeverReplayed() throws {
    let posts = Mutex(0)
    let server = try LoopbackServer { request in
      if request.method == "POST" {
        let n = posts.withLock { count -> Int in
          count += 1
          return count
        }
        if n == 1 { return .dropped }
      }
      return ServerReply(status: 200)
    }
    defer { server.stop() }
    let client = CurlHTTPClient()
    _ = try client.send(HTTPRequest(url: server.baseURL + "/warm"))  // a connection to reuse
    #expect(throws: TransportError.self) {
      try client.send(HTTPRequest(method: "POST", url: server.baseURL + "/token", body: [], freshConnection: true))
    }
    #expect(posts.withLock { $0 } == 1)
  }
}

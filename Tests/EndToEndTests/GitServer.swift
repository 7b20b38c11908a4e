// A git smart-HTTP server for tests: git's own `git http-backend` (CGI) behind a loopback
// server that demands a token (Bearer, or Basic with the token as password) and checks it
// with the emulator's introspection endpoint.
import CurlTransport
import Foundation
import Glibc
import LoopbackHTTP
import StrivacityCore
import StrivacityTestSupport
import Synchronization

final class GitServer: @unchecked Sendable {
  let root: ScratchDirectory
  private var server: LoopbackServer!
  /// Every Authorization scheme and username seen, and how many requests were refused.
  let seen = Mutex<(schemes: [String], users: [String], refused: Int, tokens: [String])>(([], [], 0, []))

  init(introspect issuer: String) throws {
    root = try ScratchDirectory("git")
    let setup = try run(
      [
        "/bin/sh", "-c",
        """
        set -e
        git init -q --bare repo.git
        git init -q seed && cd seed
        git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m first
        git push -q ../repo.git HEAD:refs/heads/main
        git -C ../repo.git symbolic-ref HEAD refs/heads/main
        """,
      ], environment: ["PATH": "/usr/bin:/bin", "HOME": root.path], currentDirectory: root.path)
    guard setup.status == 0 else { throw TestFailure("git setup failed: \(setup.stderr)") }
    let gitRoot = root.path
    server = try LoopbackServer { [weak self] request in
      self?.handle(request, gitRoot: gitRoot, issuer: issuer) ?? ServerReply(status: 503)
    }
  }

  deinit { server.stop() }

  var host: String { "127.0.0.1:\(server.port)" }
  var url: String { server.baseURL + "/repo.git" }

  private func handle(_ request: ServerRequest, gitRoot: String, issuer: String) -> ServerReply {
    let authorization = request.header("Authorization") ?? ""
    var token: String?
    var user = ""
    if authorization.hasPrefix("Bearer ") {
      token = String(authorization.dropFirst(7))
    } else if authorization.hasPrefix("Basic "), let data = Data(base64Encoded: String(authorization.dropFirst(6))),
      let pair = String(data: data, encoding: .utf8), let colon = pair.firstIndex(of: ":")
    {
      user = String(pair[..<colon])
      token = String(pair[pair.index(after: colon)...])
    }
    guard let token, Self.active(token, issuer: issuer) else {
      seen.withLock { $0.refused += 1 }
      return ServerReply(
        status: 401, headers: [("WWW-Authenticate", "Basic realm=\"git\""), ("Content-Type", "text/plain")],
        body: Array("authentication required\n".utf8))
    }
    seen.withLock {
      $0.schemes.append(String(authorization.prefix { $0 != " " }))
      $0.users.append(user)
      $0.tokens.append(token)
    }
    return cgi(request, gitRoot: gitRoot, user: user.isEmpty ? "bearer" : user)
  }

  /// Whether the emulator's introspection says `token` is active (the registries of CargoTests ask it too).
  static func active(_ token: String, issuer: String) -> Bool {
    let body = "token=" + FormURLEncoding.escape(token)
    guard
      let response = try? CurlHTTPClient().send(
        HTTPRequest(
          method: "POST", url: issuer + "oauth2/introspect",
          headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
          body: Array(body.utf8)))
    else { return false }
    return JSONValue.parse(response.body)?["active"] == true
  }

  /// Runs git http-backend as a CGI script for one request.
  private func cgi(_ request: ServerRequest, gitRoot: String, user: String) -> ServerReply {
    var environment = [
      "GIT_PROJECT_ROOT": gitRoot, "GIT_HTTP_EXPORT_ALL": "1", "REQUEST_METHOD": request.method,
      "PATH_INFO": request.path, "QUERY_STRING": request.query, "REMOTE_USER": user, "REMOTE_ADDR": "127.0.0.1",
      "CONTENT_TYPE": request.header("Content-Type") ?? "", "CONTENT_LENGTH": String(request.body.count),
      "PATH": "/usr/bin:/bin", "GATEWAY_INTERFACE": "CGI/1.1",
    ]
    if let encoding = request.header("Content-Encoding") { environment["HTTP_CONTENT_ENCODING"] = encoding }
    if let protocolHeader = request.header("Git-Protocol") { environment["GIT_PROTOCOL"] = protocolHeader }
    guard let output = try? runBinary(["/usr/bin/git", "http-backend"], environment: environment, stdin: request.body)
    else {
      return ServerReply(status: 500)
    }
    // CGI answer: header lines, a blank line, the body.
    var headerEnd = 0
    var separator = 0
    for i in 0..<max(0, output.count - 1) {
      if output[i] == 10 && output[i + 1] == 10 { headerEnd = i; separator = 2; break }
      if i + 3 < output.count && output[i] == 13 && output[i + 1] == 10 && output[i + 2] == 13 && output[i + 3] == 10 {
        headerEnd = i
        separator = 4
        break
      }
    }
    let head = String(decoding: output[0..<headerEnd], as: UTF8.self)
    var status = 200
    var headers: [(name: String, value: String)] = []
    // isNewline: "\r\n" is one Character, equal to neither "\n" nor "\r".
    for line in head.split(whereSeparator: \.isNewline) {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = String(line[..<colon]), value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      if name.lowercased() == "status" { status = Int(value.prefix(3)) ?? 200 } else { headers.append((name, value)) }
    }
    return ServerReply(status: status, headers: headers, body: Array(output[(headerEnd + separator)...]))
  }
}

/// Runs a program with bytes on stdin and returns its stdout.
func runBinary(_ arguments: [String], environment: [String: String], stdin: [UInt8]) throws -> [UInt8] {
  let directory = try ScratchDirectory("cgi")
  let input = directory.file("stdin")
  FileManager.default.createFile(atPath: input, contents: Data(stdin))
  let result = try run(["/bin/sh", "-c", "exec \"$@\" < \"$0\"", input] + arguments, environment: environment)
  return result.stdoutBytes
}

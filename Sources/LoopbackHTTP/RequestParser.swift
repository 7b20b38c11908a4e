// A strict, incremental HTTP/1.1 request parser (RFC 9112) for servers on loopback.
//
// It accepts what browsers, curl and libcurl send: a request line, header fields and a body
// framed by Content-Length. Chunked request bodies, obsolete line folding, bare CR, and
// anything over the limits are rejected with the status a server should answer.

/// One parsed request. `target` is the request-target as sent (path and query, still encoded).
public struct ServerRequest: Sendable {
  public var method: String
  public var target: String
  public var version: String
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]

  /// The path part of the target (before `?`), percent-encoding kept.
  public var path: String {
    String(target.prefix { $0 != "?" })
  }

  /// The raw query (after `?`), or "" when there is none.
  public var query: String {
    guard let q = target.firstIndex(of: "?") else { return "" }
    return String(target[target.index(after: q)...])
  }

  /// The first value of a header, by case-insensitive name.
  public func header(_ name: String) -> String? {
    let lower = name.lowercased()
    return headers.first { $0.name.lowercased() == lower }?.value
  }

  public var bodyText: String { String(decoding: body, as: UTF8.self) }

  /// True when the client asked to close the connection after this request.
  var wantsClose: Bool {
    let connection = header("Connection")?.lowercased() ?? ""
    return version == "HTTP/1.0" ? !connection.contains("keep-alive") : connection.contains("close")
  }
}

/// Why a request could not be parsed, with the status to answer.
public struct RequestParseError: Error, Equatable, Sendable {
  public var status: Int
  public var reason: String
}

public struct RequestParser: Sendable {
  public struct Limits: Sendable {
    public var maxHeadBytes = 16_384
    public var maxHeaders = 100
    public var maxBodyBytes = 1_048_576
    public init() {}
  }

  public let limits: Limits
  private var buffer: [UInt8] = []

  public init(limits: Limits = Limits()) { self.limits = limits }

  /// Adds bytes read from the connection.
  public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
    buffer.append(contentsOf: bytes)
  }

  /// Returns the next complete request, nil if more bytes are needed, or throws if the
  /// bytes cannot be a valid request.
  public mutating func next() throws(RequestParseError) -> ServerRequest? {
    // Leading empty lines before a request are allowed (RFC 9112 §2.2).
    while buffer.starts(with: [13, 10]) { buffer.removeFirst(2) }
    guard let headEnd = findHeadEnd() else {
      if buffer.count > limits.maxHeadBytes { throw .init(status: 431, reason: "request head too large") }
      return nil
    }
    if headEnd > limits.maxHeadBytes { throw .init(status: 431, reason: "request head too large") }
    let head = buffer[..<headEnd]
    var lines = split(head)
    guard !lines.isEmpty else { throw .init(status: 400, reason: "empty request") }
    let requestLine = lines.removeFirst()
    let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
    guard parts.count == 3 else { throw .init(status: 400, reason: "malformed request line") }
    let method = String(decoding: parts[0], as: UTF8.self)
    let target = String(decoding: parts[1], as: UTF8.self)
    let version = String(decoding: parts[2], as: UTF8.self)
    guard !method.isEmpty, method.utf8.allSatisfy(isTokenByte) else {
      throw .init(status: 400, reason: "malformed method")
    }
    guard target.hasPrefix("/") || target == "*", parts[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
      throw .init(status: 400, reason: "malformed request target")
    }
    guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
      throw .init(status: 505, reason: "unsupported HTTP version")
    }
    guard lines.count <= limits.maxHeaders else { throw .init(status: 431, reason: "too many header fields") }
    var headers: [(name: String, value: String)] = []
    for line in lines {
      guard let colon = line.firstIndex(of: 58) else { throw .init(status: 400, reason: "malformed header field") }
      let name = line[line.startIndex..<colon]
      guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
        throw .init(status: 400, reason: "malformed header field name")
      }
      var value = line[line.index(after: colon)...]
      while let f = value.first, f == 32 || f == 9 { value.removeFirst() }
      while let l = value.last, l == 32 || l == 9 { value.removeLast() }
      guard value.allSatisfy({ $0 == 9 || $0 >= 32 && $0 != 127 }) else {
        throw .init(status: 400, reason: "control character in header field")
      }
      headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }
    let lowerNames = headers.map { $0.name.lowercased() }
    if lowerNames.contains("transfer-encoding") {
      throw .init(status: 411, reason: "chunked request bodies are not supported; send Content-Length")
    }
    var length = 0
    let lengths = Set(zip(lowerNames, headers).filter { $0.0 == "content-length" }.map { $0.1.value })
    if lengths.count > 1 { throw .init(status: 400, reason: "conflicting Content-Length") }
    if let text = lengths.first {
      guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), text.utf8.count <= 12, let n = Int(text)
      else {
        throw .init(status: 400, reason: "malformed Content-Length")
      }
      length = n
    }
    if length > limits.maxBodyBytes { throw .init(status: 413, reason: "request body too large") }
    let bodyStart = headEnd + 4
    guard buffer.count >= bodyStart + length else { return nil }
    let body = Array(buffer[bodyStart..<(bodyStart + length)])
    buffer.removeFirst(bodyStart + length)
    return ServerRequest(method: method, target: target, version: version, headers: headers, body: body)
  }

  /// Index of the CRLFCRLF that ends the head, if present.
  private func findHeadEnd() -> Int? {
    guard buffer.count >= 4 else { return nil }
    var i = 0
    let limit = min(buffer.count - 4, limits.maxHeadBytes + 4)
    while i <= limit {
      if buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 { return i }
      i += 1
    }
    return nil
  }

  /// Splits the head into CRLF-terminated lines; a bare CR or LF is an error we surface as
  /// a malformed line (it stays inside the line and fails the checks above).
  private func split(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
    var lines: [ArraySlice<UInt8>] = []
    var start = head.startIndex
    var i = head.startIndex
    while i < head.endIndex {
      if head[i] == 13, i + 1 < head.endIndex, head[i + 1] == 10 {
        lines.append(head[start..<i])
        i += 2
        start = i
      } else {
        i += 1
      }
    }
    lines.append(head[start..<head.endIndex])
    return lines
  }
}

private func isTokenByte(_ b: UInt8) -> Bool {
  // RFC 9110 tchar
  switch b {
  case 48...57, 65...90, 97...122: return true
  case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: return true
  default: return false
  }
}

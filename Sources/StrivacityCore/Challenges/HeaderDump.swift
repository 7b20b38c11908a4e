// curl's `--dump-header` output, read while curl runs: `strivacity curl` learns the final
// response's status and `WWW-Authenticate` lines before the body, so it can hold a challenged
// response's body back (and ask again) or let every byte through unchanged. Pure: bytes in,
// a decision out.

/// The head of the response curl's transfer ended with.
public struct ResponseHead: Sendable, Equatable {
  public var status: Int
  /// Each `WWW-Authenticate` line's value, in order.
  public var wwwAuthenticate: [String]
  /// With `-L`, the `Location` of each redirect curl followed to reach this response, in order
  /// (the API's words: compared, never shown).
  public var redirects: [String]

  public init(status: Int, wwwAuthenticate: [String], redirects: [String] = []) {
    self.status = status
    self.wwwAuthenticate = wwwAuthenticate
    self.redirects = redirects
  }

  /// A 401 or 403 with a challenge: what an API says when the token will not do (RFC 6750 §3).
  public var isChallenge: Bool { (status == 401 || status == 403) && !wwwAuthenticate.isEmpty }
}

/// Response heads as curl writes them: a status line, header lines, an empty line; one block per
/// response (1xx interim answers and, with `-L`, redirects before the final one).
public struct HeaderDump: Sendable {
  /// More than this is not read: the response is taken as not a challenge.
  public static let maxBytes = 256 * 1024

  let followsRedirects: Bool
  private var pending: [UInt8] = []
  private var redirects: [String] = []
  private var total = 0
  /// The decision, once made: the final response's head, or nil for "not one we can read".
  public private(set) var decided: ResponseHead??

  public init(followsRedirects: Bool) { self.followsRedirects = followsRedirects }

  /// Reads `chunk`; true once the final response's head is known (or will never be).
  public mutating func append(_ chunk: some Collection<UInt8>) -> Bool {
    guard decided == nil else { return true }
    total += chunk.count
    guard total <= Self.maxBytes else {
      decided = .some(nil)
      return true
    }
    pending += chunk
    while let end = Self.blockEnd(pending) {
      let block = Array(pending[..<end.lowerBound])
      pending.removeSubrange(..<end.upperBound)
      guard let head = Self.head(block) else {
        decided = .some(nil)
        return true
      }
      if (100..<200).contains(head.head.status) { continue }
      if followsRedirects, (300..<400).contains(head.head.status), let location = head.location {
        redirects.append(location)
        continue
      }
      var final = head.head
      final.redirects = redirects
      decided = .some(final)
      return true
    }
    return false
  }

  /// Curl ended: whatever was read is all there is.
  public mutating func finish() -> ResponseHead? {
    if decided == nil { decided = .some(nil) }
    return decided!
  }

  static func blockEnd(_ bytes: [UInt8]) -> Range<Int>? {
    var index = 0
    while index + 1 < bytes.count {
      if bytes[index] == 0x0A {
        if bytes[index + 1] == 0x0A { return index..<(index + 2) }
        if bytes[index + 1] == 0x0D, index + 2 < bytes.count, bytes[index + 2] == 0x0A {
          return index..<(index + 3)
        }
      }
      index += 1
    }
    return nil
  }

  static func head(_ block: [UInt8]) -> (head: ResponseHead, location: String?)? {
    let lines = block.split(separator: 0x0A, omittingEmptySubsequences: true).map { line in
      String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
    }
    // "HTTP/1.1 401 Unauthorized", "HTTP/2 401"
    guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/") else { return nil }
    let fields = statusLine.split(separator: " ", maxSplits: 2)
    guard fields.count >= 2, fields[1].utf8.count == 3, let status = Int(fields[1]), (100...599).contains(status)
    else { return nil }
    var challenges: [String] = []
    var location: String?
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = line[..<colon].lowercased()
      let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
      if name == "www-authenticate" {
        challenges.append(String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed()))
      } else if name == "location" {
        location = String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
      }
    }
    return (ResponseHead(status: status, wwwAuthenticate: challenges), location)
  }
}

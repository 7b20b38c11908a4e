// A confidential client's secret (issue 28, machine profiles): it comes from the environment, a
// file or the keyring, and goes only into a token or revocation request (the form body, or the
// Basic Authorization header that `HTTPHeader.basicAuthorization` alone builds). Any text works
// (newlines, `:`, `%`, `+`, non-ASCII: both encodings carry every byte); it is never shown.

/// A client secret, admitted: 1 to `maxBytes` bytes of text without NUL.
public struct ClientSecret: Sendable, Hashable, CustomStringConvertible {
  /// The secret itself: for a request's body or header, nothing else.
  public let value: String

  /// Longer is refused: no client secret is this long, and it bounds what is read.
  public static let maxBytes = 4096

  public init(admitting text: String) throws(AdmissionError) {
    guard (1...Self.maxBytes).contains(text.utf8.count) else {
      throw AdmissionError("the client secret must be 1 to \(Self.maxBytes) bytes (it is \(text.utf8.count))")
    }
    guard !text.utf8.contains(0) else { throw AdmissionError("the client secret has a NUL byte") }
    value = text
  }

  /// Never the secret: interpolating one by mistake shows only its length.
  public var description: String { Redact.token(value) }
}

extension HTTPHeader {
  /// `Authorization: Basic …` for a client (RFC 6749 §2.3.1): the client id and the secret each
  /// form-urlencoded, joined by `:`, then base64 (RFC 7617). The only Basic header built.
  public static func basicAuthorization(clientID: String, secret: ClientSecret) -> HTTPHeader {
    let credentials = FormURLEncoding.escape(clientID) + ":" + FormURLEncoding.escape(secret.value)
    return HTTPHeader("Authorization", "Basic " + Base64.encode(Array(credentials.utf8)))
  }
}

/// Standard base64 with padding (RFC 4648 §4), for the Basic header; the core has no Foundation.
public enum Base64 {
  static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  public static func encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let b0 = bytes[index]
      let b1 = index + 1 < bytes.count ? bytes[index + 1] : 0
      let b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
      out.append(alphabet[Int(b0 >> 2)])
      out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
      out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
      out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
      index += 3
    }
    return String(decoding: out, as: UTF8.self)
  }
}

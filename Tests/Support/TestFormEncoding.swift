// The tests' own form-urlencoding (RFC 6749 §2.3.1 and Appendix B), written apart from
// strivacity's so that a test checks strivacity's encoding against an independent one.
import Foundation

public enum TestFormEncoding {
  /// application/x-www-form-urlencoded, byte by byte of UTF-8: the unreserved characters and
  /// `*` as they are, space as `+`, every other byte as %XX.
  public static func encode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "*"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      case UInt8(ascii: " "): out += "+"
      default: out += String(format: "%%%02X", byte)
      }
    }
    return out
  }

  /// HTTP Basic credentials as RFC 6749 §2.3.1 builds them: `Basic ` and the base64 of the id
  /// and the secret, each encoded, joined by `:`.
  public static func basic(_ id: String, _ secret: String) -> String {
    "Basic " + Data((encode(id) + ":" + encode(secret)).utf8).base64EncodedString()
  }
}

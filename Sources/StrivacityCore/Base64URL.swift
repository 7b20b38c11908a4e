// base64url without padding (RFC 4648 §5), as JOSE and PKCE use it.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

public enum Base64URL {
  public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let standard = Data(bytes).base64EncodedString()
    return String(
      decoding: standard.utf8.compactMap { b -> UInt8? in
        switch b {
        case UInt8(ascii: "+"): return UInt8(ascii: "-")
        case UInt8(ascii: "/"): return UInt8(ascii: "_")
        case UInt8(ascii: "="): return nil
        default: return b
        }
      }, as: UTF8.self)
  }

  public static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

  /// Decodes base64url (padding optional); nil on any character outside the alphabet.
  public static func decode(_ text: some StringProtocol) -> [UInt8]? {
    guard text.utf8.allSatisfy({ isAlphabet($0) }) else { return nil }
    var standard = text.utf8.compactMap { b -> UInt8? in
      switch b {
      case UInt8(ascii: "-"): return UInt8(ascii: "+")
      case UInt8(ascii: "_"): return UInt8(ascii: "/")
      case UInt8(ascii: "="): return nil
      default: return b
      }
    }
    let remainder = standard.count % 4
    if remainder == 1 { return nil }
    if remainder > 0 { standard += Array(repeating: UInt8(ascii: "="), count: 4 - remainder) }
    return Data(base64Encoded: Data(standard)).map(Array.init)
  }

  private static func isAlphabet(_ b: UInt8) -> Bool {
    (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 45 || b == 95 || b == 61
  }
}

/// Cryptographically random bytes from the system generator.
public enum SecureRandom {
  public static func bytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
  }

  /// A URL-safe random token with `bytes` bytes of entropy.
  public static func token(bytes: Int = 32) -> String { Base64URL.encode(Self.bytes(bytes)) }
}

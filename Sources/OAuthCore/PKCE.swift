// Proof Key for Code Exchange (RFC 7636) with S256.
import Crypto
import StrivacityCore

public struct PKCE: Sendable, Equatable {
  /// 43–128 characters from the unreserved set (RFC 7636 §4.1).
  public let verifier: String
  public var challenge: String { Self.challenge(for: verifier) }
  public let method = "S256"

  /// A fresh verifier with 256 bits of entropy (43 characters).
  public init() { verifier = SecureRandom.token(bytes: 32) }

  public init(verifier: String) { self.verifier = verifier }

  /// base64url(SHA-256(ASCII(verifier))), RFC 7636 §4.2.
  public static func challenge(for verifier: String) -> String {
    Base64URL.encode(SHA256.hash(data: Array(verifier.utf8)))
  }

  /// Checks a verifier's syntax (RFC 7636 §4.1).
  public static func isValidVerifier(_ verifier: String) -> Bool {
    (43...128).contains(verifier.utf8.count)
      && verifier.utf8.allSatisfy { b in
        (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 45 || b == 46 || b == 95
          || b == 126
      }
  }
}

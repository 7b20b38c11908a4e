// The trust boundary for values: what a tenant sends (tokens, numbers) and what the local
// environment says (timeouts) enters through one function here, which checks it or refuses it
// with a sentence. Dangerous sinks take the admitted types, not strings: a token reaches a
// header line, a curl config line, git's credential protocol or a shell only as a BearerToken.
// DESIGN.md ("Trust boundary") lists every kind of outside input and the function that admits it.

/// Why an outside value was refused: one sentence that names the value's role, never its content
/// (it may be a secret, or crafted for the terminal).
public struct AdmissionError: Error, Equatable, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// An OAuth 2.0 bearer token (RFC 6750 §2.1 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" /
/// "~" / "+" / "/" ) *"="`), at most `maxLength` bytes. Nothing else can be put in a header
/// line, a curl config line, a git credential answer or a shell assignment: a token with a
/// newline, a quote or a control character is refused, never escaped.
/// Stored as a plain string; reading it back goes through `init(admitting:)` (TokenSet's decoder).
public struct BearerToken: Sendable, Hashable, Encodable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The token's text, safe for every line-oriented format.
  public let value: String
  /// Larger than any server accepts in a header line; refusing more bounds every write.
  public static let maxLength = 32_768

  public init(admitting text: String, what: String = "access token") throws(AdmissionError) {
    guard Self.isValid(text) else {
      throw AdmissionError(
        text.utf8.count > Self.maxLength
          ? "the \(what) is longer than \(Self.maxLength / 1024) KiB"
          : "the \(what) is not a valid bearer token (RFC 6750 b64token: letters, digits and -._~+/ with trailing =)")
    }
    value = text
  }

  /// For tokens written in strivacity's own code and tests; traps on an invalid literal.
  public init(stringLiteral text: String) {
    precondition(Self.isValid(text), "invalid bearer token literal")
    value = text
  }

  public static func isValid(_ text: String) -> Bool {
    let bytes = text.utf8
    guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
    var padding = false
    for byte in bytes {
      if byte == UInt8(ascii: "=") {
        padding = true
        continue
      }
      guard !padding, isToken68(byte) else { return false }
    }
    return bytes.first != UInt8(ascii: "=")
  }

  private static func isToken68(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
      UInt8(ascii: "/"):
      return true
    default: return false
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }

  /// Never the token: interpolating one by mistake shows only its length.
  public var description: String { Redact.token(value) }
}

/// The rule of one kind of admitted string: its one admitting function, and whether it is a
/// secret (shown only by its length when interpolated).
public protocol AdmissionRule: Sendable {
  static func admit(_ text: String) throws(AdmissionError) -> String
  /// What the value is called in the trap for a wrong literal in strivacity's own code.
  static var name: String { get }
  static var isSecret: Bool { get }
}

/// A string its `Rule` admitted. The only ways to make one are `init(admitting:)` and, in
/// strivacity's own code and tests, a literal (checked by the same rule; a wrong one traps).
public struct Admitted<Rule: AdmissionRule>: Sendable, Hashable, Encodable, CustomStringConvertible,
  ExpressibleByStringInterpolation
{
  public let value: String

  public init(admitting text: String) throws(AdmissionError) { value = try Rule.admit(text) }

  public init(stringLiteral text: String) {
    precondition((try? Rule.admit(text)) != nil, "invalid \(Rule.name) literal")
    value = text
  }

  public init(stringInterpolation: DefaultStringInterpolation) {
    self.init(stringLiteral: String(stringInterpolation: stringInterpolation))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }

  public var description: String { Rule.isSecret ? Redact.token(value) : value }
}

/// A refresh token (`Admit.refreshToken`: RFC 6749 VSCHAR, at most 32 KiB). It only ever goes
/// into a form body and the store.
public typealias RefreshToken = Admitted<RefreshTokenRule>
public enum RefreshTokenRule: AdmissionRule {
  public static func admit(_ text: String) throws(AdmissionError) -> String { try Admit.refreshToken(text) }
  public static let name = "refresh token"
  public static let isSecret = true
}

/// An ID token's compact form (`Admit.idToken`: three base64url parts, at most 32 KiB; its
/// signature and claims are checked by IDTokenValidator before it is stored).
public typealias IDToken = Admitted<IDTokenRule>
public enum IDTokenRule: AdmissionRule {
  public static func admit(_ text: String) throws(AdmissionError) -> String { try Admit.idToken(text) }
  public static let name = "ID token"
  public static let isSecret = true
}

/// A scope string (`Admit.scope`: RFC 6749 §3.3 syntax, at most 4 KiB). Not secret.
public typealias Scope = Admitted<ScopeRule>
public enum ScopeRule: AdmissionRule {
  public static func admit(_ text: String) throws(AdmissionError) -> String { try Admit.scope(text) }
  public static let name = "scope"
  public static let isSecret = false
}

public enum Admit {
  /// The token type of a token response: only `Bearer` (any case, RFC 6750 §4) is used by this
  /// client; DPoP, MAC and anything else are refused. Returns the canonical "Bearer".
  public static func tokenType(_ text: String?) throws(AdmissionError) -> String {
    guard let text else { return "Bearer" }
    guard text.lowercased() == "bearer" else {
      throw AdmissionError("the token type is not Bearer (only bearer tokens are supported)")
    }
    return "Bearer"
  }

  /// A refresh token (RFC 6749 Appendix A.17: `1*VSCHAR`, printable ASCII and space), at most
  /// `BearerToken.maxLength` bytes. It only ever goes into a form-encoded body and the store.
  public static func refreshToken(_ text: String) throws(AdmissionError) -> String {
    let bytes = text.utf8
    guard !bytes.isEmpty, bytes.count <= BearerToken.maxLength, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
      throw AdmissionError(
        "the refresh token is not printable ASCII (RFC 6749 VSCHAR) of at most \(BearerToken.maxLength / 1024) KiB")
    }
    return text
  }

  /// An ID token's compact form: three base64url parts joined by dots (its signature and claims
  /// are checked elsewhere); so it is also a valid bearer token for `token --id-token`.
  public static func idToken(_ text: String) throws(AdmissionError) -> String {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard text.utf8.count <= BearerToken.maxLength, parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
      parts.allSatisfy({ $0.utf8.allSatisfy(isBase64URL) })
    else {
      throw AdmissionError(
        "the ID token is not a compact JWS (three base64url parts) of at most \(BearerToken.maxLength / 1024) KiB")
    }
    return text
  }

  /// A scope string (RFC 6749 §3.3: scope-tokens of `%x21 / %x23-5B / %x5D-7E`, separated by
  /// single spaces), at most 4 KiB.
  public static func scope(_ text: String) throws(AdmissionError) -> String {
    let tokens = text.split(separator: " ", omittingEmptySubsequences: false)
    guard text.utf8.count <= 4096, tokens.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isScopeByte) }) else {
      throw AdmissionError("the scope is not RFC 6749 scope syntax")
    }
    return text
  }

  /// `acr_values` for a sign-in (OpenID Connect Core §3.1.2.1), from `login --acr-values` or an
  /// API's step-up challenge (RFC 9470): 1 to 16 values of printable ASCII but `"` separated by
  /// single spaces, at most 1 KiB (the value goes into the authorize URL and a shown command;
  /// whatever an API's challenge may carry is admitted here too).
  public static func acrValues(_ text: String) throws(AdmissionError) -> String {
    let values = text.split(separator: " ", omittingEmptySubsequences: false)
    guard (1...1024).contains(text.utf8.count), values.count <= 16,
      values.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != 0x22 } })
    else {
      throw AdmissionError("acr_values must be 1 to 16 values of printable characters separated by single spaces")
    }
    return text
  }

  /// The largest `max_age` asked for: ten years, as every lifetime (and an API's challenge).
  public static let maxAgeLimit = 315_360_000

  /// `max_age` for a sign-in (OpenID Connect Core §3.1.2.1): whole seconds from 0 to ten years.
  public static func maxAge(_ seconds: Int) throws(AdmissionError) -> Int {
    guard (0...maxAgeLimit).contains(seconds) else {
      throw AdmissionError("max_age must be a whole number of seconds from 0 to \(maxAgeLimit)")
    }
    return seconds
  }

  /// A lifetime in seconds (`expires_in`, `Retry-After`): from 0 to ten years, read as every
  /// number of a token set is (`number(_:in:what:)`). nil when absent.
  public static func lifetime(_ value: JSONValue?, what: String = "expires_in") throws(AdmissionError) -> Int64? {
    try number(value, in: 0...315_360_000, what: what)
  }

  /// A point in time of a token set (`expires_at`, `obtained_at`), in seconds since 1970: from
  /// 1970 to year 9999, read as every number of a token set is. nil when absent.
  public static func time(_ value: JSONValue?, what: String) throws(AdmissionError) -> Int64? {
    try number(value, in: 0...maxUnixTime, what: what)
  }

  /// The latest time admitted anywhere: 9999-12-31T23:59:59Z.
  public static let maxUnixTime: Int64 = 253_402_300_799

  /// The one number rule of a token set, whatever its wire shape: a JSON number, or a string of
  /// 1 to 12 decimal digits (some servers send `expires_in` so; the cache and the agent write
  /// text); finite, within `range`, fractions dropped. nil when absent or JSON null.
  public static func number(
    _ value: JSONValue?, in range: ClosedRange<Int64>, what: String
  ) throws(AdmissionError) -> Int64? {
    guard let value, !value.isNull else { return nil }
    let number: Double
    switch value {
    case .number(let n): number = n
    case .string(let s) where !s.isEmpty && s.utf8.count <= 12 && s.utf8.allSatisfy({ (0x30...0x39).contains($0) }):
      number = Double(s) ?? -1
    default: throw AdmissionError("\(what) is not a number of seconds")
    }
    return try integer(number, in: range, what: what)
  }

  /// A point in time in seconds since 1970 (JWT NumericDate): finite, from 1970 to year 9999.
  public static func unixTime(_ value: JSONValue?, what: String) throws(AdmissionError) -> Int64 {
    guard let number = value?.number else { throw AdmissionError("the \(what) claim is missing or not a number") }
    return try integer(number, in: 0...maxUnixTime, what: "the \(what) claim")
  }

  /// A finite number within `range`, truncated to an integer: the only conversion of outside
  /// numbers to integers (Int64(Double) traps on infinity, NaN and anything out of range).
  public static func integer(_ number: Double, in range: ClosedRange<Int64>, what: String) throws(AdmissionError)
    -> Int64
  {
    guard number.isFinite, number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
      throw AdmissionError("\(what) is out of range (\(range.lowerBound) to \(range.upperBound))")
    }
    return Int64(number.rounded(.towardZero))
  }

  /// A duration in seconds from the environment or a flag (`STRIVACITY_TIMEOUT=2.5`): a finite
  /// decimal within `range`.
  public static func seconds(_ text: String, in range: ClosedRange<Double>, what: String) throws(AdmissionError)
    -> Double
  {
    guard text.utf8.count <= 16, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") }),
      let value = Double(text), value.isFinite, range.contains(value)
    else {
      throw AdmissionError(
        "\(what) must be a number of seconds from \(formatSeconds(range.lowerBound)) to "
          + "\(formatSeconds(range.upperBound))"
      )
    }
    return value
  }

  static func isBase64URL(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "-"), UInt8(ascii: "_"):
      return true
    default: return false
    }
  }

  static func isScopeByte(_ b: UInt8) -> Bool { b == 0x21 || (0x23...0x5B).contains(b) || (0x5D...0x7E).contains(b) }
}

extension Admit {
  /// An `audience` value: 1 to 1,024 printable ASCII characters without spaces (a URI, or a
  /// name the tenant gave the API).
  public static func audience(_ text: String) throws(AdmissionError) -> String {
    guard (1...1024).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw AdmissionError("the audience must be 1 to 1024 printable characters without spaces")
    }
    return text
  }

  /// An RFC 8707 resource indicator: an absolute URI (a scheme, then more), printable ASCII
  /// without spaces, at most 2,048 bytes, without a fragment (§2).
  public static func resource(_ text: String) throws(AdmissionError) -> String {
    guard (1...2048).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw AdmissionError("a resource must be an absolute URI of at most 2048 printable characters")
    }
    guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex,
      text[..<colon].first!.isLetter,
      text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    else {
      throw AdmissionError("a resource must be an absolute URI (scheme:…), as RFC 8707 says")
    }
    guard !text.contains("#") else { throw AdmissionError("a resource must not have a fragment (RFC 8707)") }
    return text
  }

  /// One scope of a list (`scopes = [...]`): one RFC 6749 scope token, no spaces.
  public static func scopeToken(_ text: String) throws(AdmissionError) -> Scope {
    guard !text.contains(" ") else { throw AdmissionError("'\(text.prefix(64))' is more than one scope") }
    return try Scope(admitting: text)
  }
}

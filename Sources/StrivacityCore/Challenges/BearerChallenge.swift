// An API's `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9470, RFC 9728 §5.1), read
// from a response of an API that `strivacity curl` called: the one admission of what an API
// (not the tenant) says about the token it got. The header is hostile until admitted: it is
// bounded, parsed by RFC 9110 §11.6.1's grammar, and every value that can change what strivacity
// asks for next (scopes, acr_values, max_age, the metadata URL) passes its own rule. Nothing of
// it is ever shown raw: the error code and scopes that are shown are admitted tokens.

/// What an API's Bearer challenge asks for.
public struct BearerChallenge: Sendable, Equatable {
  /// The RFC 6750 / RFC 9470 error code, when there is one (a token of at most 64 characters).
  public var error: String?
  /// `scope`: the scopes the request needs (RFC 6750 §3), each one admitted scope token.
  public var scopes: [Scope]
  /// `acr_values` (RFC 9470 §3): space-separated values, each a printable token.
  public var acrValues: String?
  /// `max_age` (RFC 9470 §3): seconds since the sign-in that the API still accepts.
  public var maxAge: Int64?
  /// `resource_metadata` (RFC 9728 §5.1): where the API's protected-resource metadata is, an
  /// https URL (or http on loopback) without user info or fragment.
  public var resourceMetadata: String?

  public init(
    error: String? = nil, scopes: [Scope] = [], acrValues: String? = nil, maxAge: Int64? = nil,
    resourceMetadata: String? = nil
  ) {
    self.error = error
    self.scopes = scopes
    self.acrValues = acrValues
    self.maxAge = maxAge
    self.resourceMetadata = resourceMetadata
  }

  /// The limits: a longer header, or more parameters, is refused whole (no retry follows).
  public static let maxHeaderBytes = 8192
  public static let maxParameters = 32
  public static let maxScopes = 32
  public static let maxACRValues = 8

  /// The Bearer challenge among `headerValues` (each `WWW-Authenticate` line's value), or nil
  /// when there is none. Throws when the header is malformed, over a limit, or a Bearer
  /// parameter's value breaks its rule: a challenge that cannot be read is not answered.
  public static func admit(_ headerValues: [String]) throws(AdmissionError) -> BearerChallenge? {
    guard headerValues.reduce(0, { $0 + $1.utf8.count }) <= maxHeaderBytes else {
      throw AdmissionError("the WWW-Authenticate header is longer than \(maxHeaderBytes) bytes")
    }
    var bearer: [(String, String)]?
    for value in headerValues {
      for challenge in try ChallengeGrammar.challenges(Array(value.utf8))
      where challenge.scheme.lowercased() == "bearer" {
        guard bearer == nil else { throw AdmissionError("the WWW-Authenticate header has two Bearer challenges") }
        bearer = challenge.parameters
      }
    }
    guard let bearer else { return nil }
    var seen = Set<String>()
    var result = BearerChallenge()
    for (rawName, value) in bearer {
      let name = rawName.lowercased()
      // RFC 6750 §3: no attribute more than once.
      guard seen.insert(name).inserted else {
        throw AdmissionError("the Bearer challenge has \(name) twice")
      }
      switch name {
      case "error":
        guard (1...64).contains(value.utf8.count), value.utf8.allSatisfy(ChallengeGrammar.isTokenByte) else {
          throw AdmissionError("the Bearer challenge's error is not a short token")
        }
        result.error = value
      case "scope":
        let scopes = try Admit.scope(value).split(separator: " ").map { s throws(AdmissionError) in
          try Scope(admitting: String(s))
        }
        guard scopes.count <= maxScopes else {
          throw AdmissionError("the Bearer challenge asks for more than \(maxScopes) scopes")
        }
        result.scopes = scopes
      case "acr_values":
        let values = value.split(separator: " ", omittingEmptySubsequences: false)
        guard value.utf8.count <= 512, (1...maxACRValues).contains(values.count),
          values.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != 0x22 } })
        else {
          throw AdmissionError("the Bearer challenge's acr_values are not up to \(maxACRValues) printable values")
        }
        result.acrValues = value
      case "max_age":
        guard (1...10).contains(value.utf8.count), value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
          throw AdmissionError("the Bearer challenge's max_age is not a number of seconds")
        }
        result.maxAge = try Admit.integer(Double(value) ?? -1, in: 0...315_360_000, what: "max_age")
      case "resource_metadata":
        result.resourceMetadata = try ResourceMetadata.admitURL(value)
      default:
        continue  // realm, error_description, error_uri and the like: never used, never shown
      }
    }
    return result
  }

  /// The error code's meaning for a client (RFC 6750 §3.1, RFC 9470 §3).
  public enum Demand: Sendable, Equatable {
    /// `invalid_token`: the token expired or was revoked; a new one may do.
    case newToken
    /// `insufficient_scope`: a token with these scopes (none named: nothing can be done).
    case scopes([Scope])
    /// `insufficient_user_authentication`: a sign-in meeting these.
    case stepUp(acrValues: String?, maxAge: Int64?)
    /// No error (no token was sent, or the API gave none), or one a client cannot act on.
    case nothing
  }

  public var demand: Demand {
    switch error {
    case "invalid_token": return .newToken
    case "insufficient_scope": return scopes.isEmpty ? .nothing : .scopes(scopes)
    case "insufficient_user_authentication":
      return acrValues == nil && maxAge == nil ? .nothing : .stepUp(acrValues: acrValues, maxAge: maxAge)
    default: return .nothing
    }
  }
}

/// RFC 9110 §11.6.1's `#challenge` over bytes: `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`,
/// `auth-param = token BWS "=" BWS ( token / quoted-string )`. Refuses control characters other
/// than tab, bytes above 0x7E, unterminated quoted strings, and more than
/// `BearerChallenge.maxParameters` parameters in one challenge.
enum ChallengeGrammar {
  struct Challenge {
    var scheme: String
    var parameters: [(String, String)]
  }

  static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
    default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
  }

  static func isToken68Byte(_ byte: UInt8) -> Bool {
    isTokenByte(byte) && !Array("!#$&'*^`|".utf8).contains(byte) || byte == UInt8(ascii: "/")
  }

  static func challenges(_ bytes: [UInt8]) throws(AdmissionError) -> [Challenge] {
    guard bytes.allSatisfy({ $0 == 0x09 || (0x20...0x7E).contains($0) }) else {
      throw AdmissionError("the WWW-Authenticate header has control or non-ASCII characters")
    }
    var reader = Reader(bytes: bytes)
    var result: [Challenge] = []
    while true {
      reader.skipListSeparators()
      if reader.atEnd { return result }
      guard let scheme = reader.token() else { throw AdmissionError("the WWW-Authenticate header is malformed") }
      var challenge = Challenge(scheme: scheme, parameters: [])
      let spaced = reader.skipSpaces()
      if spaced, !reader.atEnd, reader.peek != UInt8(ascii: ",") {
        // token68, or the first auth-param: a token followed by "=" then not a token68's end.
        let mark = reader.position
        let isParameter = reader.startsParameter()
        reader.position = mark
        if isParameter {
          try parameters(&reader, into: &challenge)
        } else {
          guard reader.token68() else { throw AdmissionError("the WWW-Authenticate header is malformed") }
        }
      }
      result.append(challenge)
    }
  }

  /// `#auth-param` after a scheme, up to the next challenge (a token not followed by "=").
  static func parameters(_ reader: inout Reader, into challenge: inout Challenge) throws(AdmissionError) {
    while true {
      let mark = reader.position
      guard let name = reader.token() else { throw AdmissionError("the WWW-Authenticate header is malformed") }
      _ = reader.skipSpaces()
      guard reader.peek == UInt8(ascii: "=") else {
        // The next challenge's scheme.
        reader.position = mark
        return
      }
      reader.position += 1
      _ = reader.skipSpaces()
      let value: String
      if reader.peek == UInt8(ascii: "\"") {
        value = try reader.quotedString()
      } else if let token = reader.token() {
        value = token
      } else {
        throw AdmissionError("the WWW-Authenticate header has a parameter without a value")
      }
      challenge.parameters.append((name, value))
      guard challenge.parameters.count <= BearerChallenge.maxParameters else {
        throw AdmissionError("the WWW-Authenticate header has more than \(BearerChallenge.maxParameters) parameters")
      }
      _ = reader.skipSpaces()
      if reader.atEnd { return }
      guard reader.peek == UInt8(ascii: ",") else { throw AdmissionError("the WWW-Authenticate header is malformed") }
      reader.skipListSeparators()
      if reader.atEnd { return }
    }
  }

  struct Reader {
    let bytes: [UInt8]
    var position = 0

    var atEnd: Bool { position >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[position] }

    mutating func skipSpaces() -> Bool {
      let start = position
      while let byte = peek, byte == 0x20 || byte == 0x09 { position += 1 }
      return position > start
    }

    mutating func skipListSeparators() {
      while let byte = peek, byte == 0x20 || byte == 0x09 || byte == UInt8(ascii: ",") { position += 1 }
    }

    /// Whether an auth-param starts here: a token, "=" and a value (not a token68's padding).
    mutating func startsParameter() -> Bool {
      guard token() != nil else { return false }
      _ = skipSpaces()
      guard peek == UInt8(ascii: "=") else { return false }
      position += 1
      _ = skipSpaces()
      return !atEnd && peek != UInt8(ascii: ",") && peek != UInt8(ascii: "=")
    }

    mutating func token() -> String? {
      let start = position
      while let byte = peek, ChallengeGrammar.isTokenByte(byte) { position += 1 }
      return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    /// `token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`, then the
    /// challenge's end.
    mutating func token68() -> Bool {
      let start = position
      while let byte = peek, ChallengeGrammar.isToken68Byte(byte) { position += 1 }
      guard position > start else { return false }
      while peek == UInt8(ascii: "=") { position += 1 }
      _ = skipSpaces()
      return atEnd || peek == UInt8(ascii: ",")
    }

    /// A quoted-string's value (RFC 9110 §5.6.4), its quoted-pairs undone.
    mutating func quotedString() throws(AdmissionError) -> String {
      position += 1
      var value: [UInt8] = []
      while let byte = peek {
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return String(decoding: value, as: UTF8.self)
        case UInt8(ascii: "\\"):
          guard let escaped = peek else { break }
          value.append(escaped)
          position += 1
        default: value.append(byte)
        }
      }
      throw AdmissionError("the WWW-Authenticate header has an unterminated quoted string")
    }
  }
}

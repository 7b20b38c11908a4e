// RFC 8259 JSON text read into a JSONValue in one pass over its bytes: what JSONValue.parse runs.
// Foundation's JSONDecoder did this before, through JSONValue's Decodable conformance, which
// tries each type in turn; on the hot path (a package manager's request, say) that cost more than the rest
// of the answer together. It reads what the decoder read, no more and no less: RFC 8259's
// grammar (no comments, leading zeros, bare words) with the decoder's two allowances, a comma
// after the last element of an array or object and a UTF-8 byte-order mark before the text;
// strings of valid UTF-8 with no raw control characters and no lone surrogates; numbers that
// are finite and not rounded to zero; nesting to at most 512 levels; a duplicated key keeps its
// first value. One difference: JSON is UTF-8 here (RFC 8259 §8.1), where the decoder guessed
// UTF-16 or UTF-32 from zero bytes. JSONValueParserTests compares the two, case by case and on
// random documents.

struct JSONParser {
  /// The decoder's depth limit: deeper documents are not JSON to us.
  static let maxDepth = 512

  private let bytes: [UInt8]
  private var at = 0
  private var depth = 0

  /// The document `bytes` holds, whole (whitespace around it only); nil when it is not JSON.
  static func parse(_ bytes: [UInt8]) -> JSONValue? {
    var parser = JSONParser(bytes: bytes)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.at = 3 }
    parser.skipWhitespace()
    guard let value = parser.value() else { return nil }
    parser.skipWhitespace()
    return parser.at == bytes.count ? value : nil
  }

  private init(bytes: [UInt8]) { self.bytes = bytes }

  private var current: UInt8? { at < bytes.count ? bytes[at] : nil }

  private mutating func skipWhitespace() {
    while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
  }

  private mutating func value() -> JSONValue? {
    guard let byte = current else { return nil }
    switch byte {
    case UInt8(ascii: "{"): return object()
    case UInt8(ascii: "["): return array()
    case UInt8(ascii: "\""): return string().map { .string($0) }
    case UInt8(ascii: "t"): return word("true", .bool(true))
    case UInt8(ascii: "f"): return word("false", .bool(false))
    case UInt8(ascii: "n"): return word("null", .null)
    default: return number()
    }
  }

  private mutating func word(_ text: StaticString, _ value: JSONValue) -> JSONValue? {
    let count = text.utf8CodeUnitCount
    guard bytes.count - at >= count else { return nil }
    for i in 0..<count where bytes[at + i] != text.utf8Start[i] { return nil }
    at += count
    return value
  }

  private mutating func object() -> JSONValue? {
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maxDepth else { return nil }
    at += 1
    var object: [String: JSONValue] = [:]
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      at += 1
      return .object(object)
    }
    while true {
      skipWhitespace()
      if current == UInt8(ascii: "}"), !object.isEmpty {  // the decoder's trailing comma
        at += 1
        return .object(object)
      }
      guard current == UInt8(ascii: "\""), let key = string() else { return nil }
      skipWhitespace()
      guard current == UInt8(ascii: ":") else { return nil }
      at += 1
      skipWhitespace()
      guard let value = value() else { return nil }
      if object[key] == nil { object[key] = value }
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): at += 1
      case UInt8(ascii: "}"):
        at += 1
        return .object(object)
      default: return nil
      }
    }
  }

  private mutating func array() -> JSONValue? {
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maxDepth else { return nil }
    at += 1
    var array: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      at += 1
      return .array(array)
    }
    while true {
      skipWhitespace()
      if current == UInt8(ascii: "]"), !array.isEmpty {  // the decoder's trailing comma
        at += 1
        return .array(array)
      }
      guard let value = value() else { return nil }
      array.append(value)
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): at += 1
      case UInt8(ascii: "]"):
        at += 1
        return .array(array)
      default: return nil
      }
    }
  }

  /// A string at `at` (its opening quote): its text, escapes resolved; nil when malformed.
  private mutating func string() -> String? {
    at += 1
    let start = at
    // The common case: no escape. The bytes up to the closing quote, checked as UTF-8.
    while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
      guard byte >= 0x20 else { return nil }
      at += 1
    }
    guard let stop = current else { return nil }
    if stop == UInt8(ascii: "\"") {
      at += 1
      return String(validating: bytes[start..<(at - 1)], as: UTF8.self)
    }
    var out = Array(bytes[start..<at])
    while let byte = current {
      switch byte {
      case UInt8(ascii: "\""):
        at += 1
        return String(validating: out, as: UTF8.self)
      case UInt8(ascii: "\\"):
        at += 1
        guard let escaped = current else { return nil }
        at += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          guard let scalar = unicodeEscape() else { return nil }
          out.append(contentsOf: String(Character(scalar)).utf8)
        default: return nil
        }
      case 0..<0x20: return nil
      default:
        out.append(byte)
        at += 1
      }
    }
    return nil
  }

  /// After `\u`: one code point, a surrogate pair read whole; nil for a lone surrogate.
  private mutating func unicodeEscape() -> Unicode.Scalar? {
    guard let high = hex4() else { return nil }
    if (0xD800...0xDBFF).contains(high) {
      guard bytes.count - at >= 2, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
        return nil
      }
      at += 2
      guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
      return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }
    return Unicode.Scalar(high)  // nil for a lone low surrogate
  }

  private mutating func hex4() -> UInt32? {
    guard bytes.count - at >= 4 else { return nil }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[at]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt32(digit)
      at += 1
    }
    return value
  }

  /// RFC 8259's number grammar, read as a Double; nil when malformed, not finite, or rounded to
  /// zero from digits that are not all zeros.
  private mutating func number() -> JSONValue? {
    let start = at
    if current == UInt8(ascii: "-") { at += 1 }
    guard let first = current, isDigit(first) else { return nil }
    at += 1
    if first != UInt8(ascii: "0") { skipDigits() }
    if current == UInt8(ascii: ".") {
      at += 1
      guard let byte = current, isDigit(byte) else { return nil }
      skipDigits()
    }
    let zeroDigits = !bytes[start..<at].contains { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      at += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { at += 1 }
      guard let byte = current, isDigit(byte) else { return nil }
      skipDigits()
    }
    guard let value = Double(String(decoding: bytes[start..<at], as: UTF8.self)), value.isFinite,
      value != 0 || zeroDigits
    else { return nil }
    return .number(value)
  }

  private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  private mutating func skipDigits() {
    while let byte = current, isDigit(byte) { at += 1 }
  }
}

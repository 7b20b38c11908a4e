// A JSON document as a value: what servers send that no struct fully describes (screens with
// unknown fields, journey files), kept losslessly enough to echo and to validate with paths.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

public enum JSONValue: Sendable, Equatable, Codable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value):
      if value == value.rounded(), abs(value) < 1e15 {
        try container.encode(Int64(value))
      } else {
        try container.encode(value)
      }
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// Parses JSON text; nil when it is not JSON (JSONParser: RFC 8259, strictly).
  public static func parse(_ bytes: [UInt8]) -> JSONValue? { JSONParser.parse(bytes) }

  public static func parse(_ text: String) -> JSONValue? { parse(Array(text.utf8)) }

  /// Compact JSON with sorted keys (stable output for tests and golden files).
  public func serialized(pretty: Bool = false) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting =
      pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    return Array((try? encoder.encode(self)) ?? Data("null".utf8))
  }

  public var text: String { String(decoding: serialized(), as: UTF8.self) }

  /// `text` as a JSON string, quotes included, for answers written by hand on the hot path (no
  /// encoder): `"` `\\`, controls and DEL escaped, everything else as it is.
  public static func quoted(_ text: String) -> String {
    let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x7F }
    if plain { return "\"" + text + "\"" }
    var out: [UInt8] = [0x22]
    let hex = Array("0123456789abcdef".utf8)
    for byte in text.utf8 {
      switch byte {
      case 0x22, 0x5C: out += [0x5C, byte]
      case 0..<0x20, 0x7F: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      default: out.append(byte)
      }
    }
    out.append(0x22)
    return String(decoding: out, as: UTF8.self)
  }

  public subscript(key: String) -> JSONValue? {
    if case .object(let object) = self { return object[key] }
    return nil
  }

  public subscript(index: Int) -> JSONValue? {
    if case .array(let array) = self, array.indices.contains(index) { return array[index] }
    return nil
  }

  public var string: String? { if case .string(let s) = self { return s }; return nil }
  public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
  public var number: Double? { if case .number(let n) = self { return n }; return nil }
  public var int: Int? {
    if case .number(let n) = self, n == n.rounded(), abs(n) < 1e15 { return Int(n) }
    return nil
  }
  public var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
  public var object: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
  public var isNull: Bool { self == .null }

  /// The JSON type name, for messages.
  public var typeName: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}

// Not ExpressibleByNilLiteral on purpose: `cond ? nil : value` would silently mean `.null`
// where an absent value was meant.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}

// JSONValue.parse (JSONParser, one pass over the bytes) against Foundation's JSONDecoder through
// JSONValue's Decodable conformance, which it replaced: the same value, or nil, for every case
// here and for random documents and random damage to them; but for text the decoder took for
// UTF-16 or UTF-32 (zero bytes first, or their byte-order marks), which is not JSON to us.
import Foundation
import Testing

@testable import StrivacityCore

@Suite struct JSONValueParserTests {
  static func decoder(_ bytes: [UInt8]) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) }

  static let cases: [String] = [
    "", " ", "{}", "[]", " { } ", "[1,2,3]", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":1 \"b\":2}",
    "{\"a\":1,\"a\":2}", "null", "true", "false", "nul", "truex", "True", "\"x\"", "\"x", "x\"", "'x'",
    "0", "-0", "01", "-01", "1.", ".5", "1.5", "1e5", "1E+5", "1e-5", "1e", "1e+", "-", "+1", "0x10", "1.5e308",
    "1e400", "-1e400", "1e-400", "123456789012345678901234567890", "NaN", "Infinity", "[1 2]", "[[[]]]",
    "\"\\u00e9\"", "\"\\uD83D\\uDE00\"", "\"\\uD83D\"", "\"\\uDE00\"", "\"\\uD83Dx\"", "\"\\uD83D\\u0041\"",
    "\"\\u12\"", "\"\\uZZZZ\"", "\"\\x\"", "\"\\/\\b\\f\\n\\r\\t\\\\\\\"\"", "\"a\tb\"", "\"a\nb\"", "\"\u{7f}\"",
    "\"é\"", "\"😀\"", "{\"é\":[\"😀\",{\"\":null}]}", "[\"\\u0000\"]", "{\"a\":{\"b\":{\"c\":[true,false,null]}}}",
    " \t\r\n[ \t\r\n1 \t\r\n] \t\r\n", "[1]\u{0C}", "\u{FEFF}{}", "{}{}", "[]]", "[\"a\",\"b\"]x", "{\"a\":}",
    "{\"a\"}", "{:1}", "{\"a\":1:2}", "[-]", "[1e5.5]", "[1.5e]", "[00]", "[-0.0e-0]",
  ]

  @Test func eachCaseReadsAsTheDecoderReadIt() {
    for text in Self.cases {
      let bytes = Array(text.utf8)
      #expect(JSONValue.parse(bytes) == Self.decoder(bytes), "\(text.debugDescription)")
    }
  }

  @Test func bytesThatAreNotUTF8AreNotJSON() {
    for bytes: [UInt8] in [
      [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0xFF], [0x5B, 0x80, 0x5D],
    ] {
      #expect(JSONValue.parse(bytes) == nil, "\(bytes)")
      #expect(Self.decoder(bytes) == nil, "\(bytes)")
    }
  }

  /// Random documents, then the same with random bytes replaced, inserted or removed.
  @Test func randomDocumentsAndTheirDamageReadAsTheDecoderReadThem() {
    var random = SplitMix(seed: 40)
    let alphabet =
      Array("{}[]\",:\\u0123456789abcdefABCDEFeE+-. tfnrul\t\n".utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
    for round in 0..<5000 {
      let document = Self.document(&random, depth: 0)
      var bytes = document.serialized()
      #expect(JSONValue.parse(bytes) == document, "round \(round)")
      for _ in 0..<(1 + random.next(3)) where !bytes.isEmpty {
        let at = random.next(bytes.count)
        switch random.next(3) {
        case 0: bytes[at] = alphabet[random.next(alphabet.count)]
        case 1: bytes.insert(alphabet[random.next(alphabet.count)], at: at)
        default: bytes.remove(at: at)
        }
      }
      if bytes.prefix(2).contains(0) || bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
        // The decoder took these for UTF-16 or UTF-32; JSON is UTF-8 to us (RFC 8259 §8.1).
        #expect(JSONValue.parse(bytes) == nil, "round \(round): \(bytes)")
      } else {
        #expect(JSONValue.parse(bytes) == Self.decoder(bytes), "round \(round): \(bytes)")
      }
    }
  }

  @Test func quotedTextReadsBackAsItself() {
    for text in ["", "plain.token-_~+/=", "a\"b\\c", "\u{0}\u{1f}\u{7f}\n", "é😀", "</script>"] {
      let quoted = JSONValue.quoted(text)
      #expect(JSONValue.parse(quoted) == .string(text), "\(quoted)")
      #expect(!quoted.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "\(quoted)")
    }
  }

  static func document(_ random: inout SplitMix, depth: Int) -> JSONValue {
    switch random.next(depth > 3 ? 5 : 7) {
    case 0: return .null
    case 1: return .bool(random.next(2) == 0)
    case 2:
      let values: [Double] = [0, -1, 1.5, 1e21, -2.5e-7, 123_456_789, Double(random.next(1_000_000))]
      return .number(values[random.next(values.count)])
    case 3, 4:
      let pieces = ["a", "é", "😀", "\"", "\\", "\n", "\u{1}", "/", " ", "\u{7f}", "key"]
      return .string((0..<random.next(5)).map { _ in pieces[random.next(pieces.count)] }.joined())
    case 5: return .array((0..<random.next(4)).map { _ in document(&random, depth: depth + 1) })
    default:
      var object: [String: JSONValue] = [:]
      for i in 0..<random.next(4) {
        object["k\(i)\(["", "é", "\""][random.next(3)])"] = document(&random, depth: depth + 1)
      }
      return .object(object)
    }
  }
}

/// A small seeded generator, so a failing round is the same on every run.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next(_ bound: Int) -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((z ^ (z >> 31)) % UInt64(bound))
  }
}

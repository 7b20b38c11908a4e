// TOML's strings, both ways, in one place: how the config writer quotes a value or key
// (`TOMLString.quoted`), and how the parser reads quoted keys and values back (basic strings
// with their escapes, literal strings). A change to one is checked against the other here.
import StrivacityCore

public enum TOMLString {
  /// `text` as a TOML basic string: quotes, backslashes and control characters escaped, so that
  /// `TOML.parse` reads back exactly `text`.
  public static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7f {
          out += "\\u" + String(scalar.value, radix: 16).leftPadded(4)
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }

  /// Whether `c` may appear in a bare (unquoted) key: A-Z a-z 0-9 _ -.
  static func isBareKeyScalar(_ c: Unicode.Scalar) -> Bool {
    (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "_" || c == "-"
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}

extension TOMLParser {
  mutating func parseLiteralString() throws(TOMLError) -> String {
    i += 1
    var out = ""
    while let c = peek {
      if c == "'" {
        i += 1
        return out
      }
      if c == "\n" || c == "\r" { break }
      if c.value < 0x20 && c != "\t" || c.value == 0x7f { throw fail("control character in string") }
      out.unicodeScalars.append(c)
      i += 1
    }
    throw fail("unterminated string: expected a closing '")
  }

  mutating func parseBasicString() throws(TOMLError) -> String {
    i += 1
    var out = ""
    while let c = peek {
      switch c {
      case "\"":
        i += 1
        return out
      case "\n", "\r":
        throw fail("unterminated string: expected a closing \"")
      case "\\":
        let escapeStart = position
        i += 1
        guard let e = peek else { break }
        i += 1
        switch e {
        case "\"": out += "\""
        case "\\": out += "\\"
        case "b": out += "\u{8}"
        case "f": out += "\u{C}"
        case "n": out += "\n"
        case "r": out += "\r"
        case "t": out += "\t"
        case "u", "U":
          let count = e == "u" ? 4 : 8
          guard i + count <= s.count else { throw fail("truncated unicode escape", at: escapeStart) }
          var hex = ""
          for k in 0..<count { hex.unicodeScalars.append(s[i + k]) }
          guard let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) else {
            throw fail("invalid unicode escape '\\\(e)\(hex)'", at: escapeStart)
          }
          out.unicodeScalars.append(scalar)
          i += count
        default:
          throw fail("invalid escape '\\\(e)'", at: escapeStart)
        }
      default:
        if c.value < 0x20 && c != "\t" || c.value == 0x7f { throw fail("control character in string") }
        out.unicodeScalars.append(c)
        i += 1
      }
    }
    throw fail("unterminated string: expected a closing \"")
  }
}

// The trust boundary for text bound for a terminal. A tenant's labels, messages, error
// descriptions and claims, and anything else from outside, may carry escape sequences (OSC 52
// clipboard writes, title changes, screen clears, fake prompts) or bidi overrides that make
// text read differently from what it is. `TerminalSafe.text` makes every such character
// visible; the terminal sink (TerminalUI's `writeTerminal`) applies `TerminalSafe.sink`, which
// keeps only the few styling sequences strivacity itself emits.

public enum TerminalSafe {
  /// Outside text made inert: C0 controls (but newline and tab, when `multiline`), DEL, C1
  /// controls, bidi embeddings, overrides, isolates and marks, and line/paragraph separators
  /// become visible stand-ins (`^[`, `<U+202E>`). Everything else is kept as it is.
  public static func text(_ text: String, multiline: Bool = true) -> String {
    guard text.unicodeScalars.contains(where: { isUnsafe($0, multiline: multiline) }) else { return text }
    // Built as UTF-8 bytes: appending to a String's scalars costs more the longer it is.
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 64)
    var previous: Unicode.Scalar?
    for scalar in text.unicodeScalars {
      defer { previous = scalar }
      if multiline && scalar == "\n" && previous == "\r" {
        // CRLF line ends: the CR was held back (as `^M`), the line break is kept.
        out.removeLast(2)
      }
      append(scalar, to: &out, multiline: multiline)
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `scalar` as UTF-8, or its visible stand-in when it is unsafe.
  private static func append(_ scalar: Unicode.Scalar, to out: inout [UInt8], multiline: Bool) {
    if isUnsafe(scalar, multiline: multiline) {
      out += visible(scalar).utf8
    } else if let encoded = UTF8.encode(scalar) {
      out += encoded
    }
  }

  /// The sequences strivacity's own styling writes (TerminalUI's `Style` and spinner): SGR
  /// reset, bold, dim, red, cyan, and erase-to-end-of-line. Nothing else may reach a terminal.
  public static let ownSequences: [String] = [
    "\u{1B}[0m", "\u{1B}[1m", "\u{1B}[2m", "\u{1B}[31m", "\u{1B}[36m", "\u{1B}[K",
  ]

  /// What the terminal sink writes: `text` made inert as by `text(_:)`, except that the exact
  /// sequences in `ownSequences` are kept.
  public static func sink(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { isUnsafe($0, multiline: true) }) else { return text }
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 64)
    let scalars = Array(text.unicodeScalars)
    var i = 0
    outer: while i < scalars.count {
      if scalars[i] == "\u{1B}" {
        for (own, bytes) in ownScalars
        where i + own.count <= scalars.count && own.indices.allSatisfy({ scalars[i + $0] == own[$0] }) {
          out += bytes
          i += own.count
          continue outer
        }
      }
      append(scalars[i], to: &out, multiline: true)
      i += 1
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `ownSequences` as scalars to compare and as the bytes written.
  private static let ownScalars = ownSequences.map { (Array($0.unicodeScalars), Array($0.utf8)) }

  /// True for a character that must not reach a terminal as itself.
  public static func isUnsafe(_ scalar: Unicode.Scalar, multiline: Bool = true) -> Bool {
    switch scalar.value {
    case 0x0A, 0x09: return !multiline
    case 0x00...0x1F, 0x7F...0x9F: return true
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
    default: return false
    }
  }

  static func visible(_ scalar: Unicode.Scalar) -> String {
    switch scalar.value {
    case 0x00...0x1F: return "^" + String(Unicode.Scalar(UInt8(scalar.value) + 0x40))
    case 0x7F: return "^?"
    default:
      let hex = String(scalar.value, radix: 16, uppercase: true)
      return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
    }
  }
}

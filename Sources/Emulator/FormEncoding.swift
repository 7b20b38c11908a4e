// Encodings the emulator speaks: forms (shared with the client) and HTML escaping.
import StrivacityCore

/// Form encoding for the emulator: the shared implementation in StrivacityCore.
typealias FormEncoding = FormURLEncoding

enum HTML {
  static func escape(_ text: String) -> String {
    var out = ""
    for c in text {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.append(c)
      }
    }
    return out
  }
}

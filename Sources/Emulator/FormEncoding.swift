// application/x-www-form-urlencoded, as OAuth requests and hosted pages use it.
import Foundation

enum FormEncoding {
  /// Decodes `a=1&b=2`. Repeated names keep every value in order. A name without `=` is
  /// absent, as some SDKs send bare names for unset parameters (protocol §3.2).
  static func decode(_ text: String) -> [(String, String)] {
    text.split(separator: "&").compactMap { pair in
      guard let eq = pair.firstIndex(of: "=") else { return nil }
      return (unescape(pair[..<eq]), unescape(pair[pair.index(after: eq)...]))
    }
  }

  static func dictionary(_ text: String) -> [String: String] {
    var out: [String: String] = [:]
    for (key, value) in decode(text) where out[key] == nil { out[key] = value }
    return out
  }

  static func unescape(_ text: Substring) -> String {
    String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
  }

  static func escape(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }

  static func encode(_ pairs: [(String, String)]) -> String {
    pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
  }

  /// `url` with `pairs` appended to its query.
  static func appending(_ pairs: [(String, String)], to url: String) -> String {
    url + (url.contains("?") ? "&" : "?") + encode(pairs)
  }
}

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

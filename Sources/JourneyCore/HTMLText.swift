// Reducing server-sent HTML (static widgets, checkbox labels) to readable terminal text:
// tags dropped, links shown as "text (URL)", line breaks kept, entities decoded.
import StrivacityCore

public enum HTMLText {
  public static func plain(_ html: String) -> String {
    var out = ""
    var i = html.startIndex
    var pendingHref: [String?] = []
    var linkText = ""
    while i < html.endIndex {
      let c = html[i]
      if c == "<", let close = html[i...].firstIndex(of: ">") {
        let tag = html[html.index(after: i)..<close].trimming(" \t\n/")
        let name = String(tag.prefix { !$0.isWhitespace }).lowercased()
        let closing = html[html.index(after: i)] == "/"
        switch name {
        case "a" where !closing:
          pendingHref.append(attribute("href", in: String(tag)))
          linkText = ""
        case "a" where closing:
          let href = pendingHref.popLast() ?? nil
          if let href, !href.isEmpty, href != linkText.trimming(" ") { out += " (\(href))" }
        case "br": out += "\n"
        case "p", "div", "li", "h1", "h2", "h3", "h4", "tr":
          if !out.isEmpty && !out.hasSuffix("\n") { out += "\n" }
          if name == "li" && !closing { out += "• " }
        default: break
        }
        i = html.index(after: close)
        continue
      }
      if c == "&", let semi = html[i...].prefix(10).firstIndex(of: ";") {
        let entity = String(html[html.index(after: i)..<semi])
        if let decoded = decode(entity) {
          out += decoded
          if !pendingHref.isEmpty { linkText += decoded }
          i = html.index(after: semi)
          continue
        }
      }
      out.append(c)
      if !pendingHref.isEmpty { linkText.append(c) }
      i = html.index(after: i)
    }
    // Collapse runs of spaces (HTML whitespace) but keep explicit line breaks.
    return out.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
      .joined(separator: "\n").trimming(" \n")
  }

  /// Whether text carries markup (an element or an entity), for widgets whose `render` is absent.
  public static func looksLikeHTML(_ text: String) -> Bool {
    text.contains(/<\/?[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?\/?>/) || text.contains(/&(#[0-9]+|#x[0-9a-fA-F]+|[a-z]+);/)
  }

  static func attribute(_ name: String, in tag: String) -> String? {
    guard let range = tag.firstRange(of: name + "=") else { return nil }
    var rest = tag[range.upperBound...]
    guard let quote = rest.first else { return nil }
    if quote == "\"" || quote == "'" {
      rest = rest.dropFirst()
      return String(rest.prefix { $0 != quote })
    }
    return String(rest.prefix { !$0.isWhitespace })
  }

  static func decode(_ entity: String) -> String? {
    switch entity {
    case "amp": return "&"
    case "lt": return "<"
    case "gt": return ">"
    case "quot": return "\""
    case "apos", "#39": return "'"
    case "nbsp": return " "
    default:
      if entity.hasPrefix("#x") || entity.hasPrefix("#X"), let v = UInt32(entity.dropFirst(2), radix: 16), let s = Unicode.Scalar(v) {
        return String(Character(s))
      }
      if entity.hasPrefix("#"), let v = UInt32(entity.dropFirst()), let s = Unicode.Scalar(v) { return String(Character(s)) }
      return nil
    }
  }
}

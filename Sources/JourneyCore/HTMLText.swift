// Reducing server-sent HTML (static widgets, checkbox labels) to readable terminal text:
// tags dropped, links shown as "text (URL)", line breaks kept, entities decoded.
import StrivacityCore

public enum HTMLText {
  /// One pass over `html`: every character is looked at a bounded number of times, whatever
  /// the markup (the text comes from the tenant, which is not trusted).
  public static func plain(_ html: String) -> String {
    var out = ""
    // A "<" after the last ">" opens no tag and is text. Knowing where that is up front means
    // no "<" rescans the rest of the text for a ">" that is not there.
    let lastClose = html.lastIndex(of: ">")
    var i = html.startIndex
    var pendingHref: [String?] = []
    var link = LinkText()
    while i < html.endIndex {
      let c = html[i]
      if c == "<", let lastClose, i < lastClose {
        let open = html.index(after: i)
        var close = open
        while html[close] != ">" { close = html.index(after: close) }  // stops at lastClose at the latest
        let tag = html[open..<close].trimming(" \t\n/")
        let name = String(tag.prefix { !$0.isWhitespace }).lowercased()
        let closing = html[open] == "/"
        switch name {
        case "a" where !closing:
          pendingHref.append(attribute("href", in: tag))
          link = LinkText()
        case "a" where closing:
          let href = pendingHref.popLast() ?? nil
          if let href, !href.isEmpty, !link.trimmedEquals(href) { out += " (\(href))" }
        case "br": out += "\n"
        case "p", "div", "li", "h1", "h2", "h3", "h4", "tr":
          // `last`, not `hasSuffix`: the latter may normalise all of `out` on each call.
          if !out.isEmpty && out.last != "\n" { out += "\n" }
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
          if !pendingHref.isEmpty {
            for d in decoded { link.append(d) }
          }
          i = html.index(after: semi)
          continue
        }
      }
      out.append(c)
      if !pendingHref.isEmpty { link.append(c) }
      i = html.index(after: i)
    }
    // Collapse runs of spaces (HTML whitespace) but keep explicit line breaks.
    return out.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
      .joined(separator: "\n").trimming(" \n")
  }

  /// The text of the innermost open link, with where it starts and ends once its outer spaces
  /// are trimmed, kept as it grows: comparing it with the href at `</a>` costs the href's
  /// length, not the text's, however many `</a>` there are.
  struct LinkText {
    private var text = ""
    /// UTF-8 offsets of the first character that is not a space, and just past the last one.
    private var lead: Int?
    private var trail = 0

    mutating func append(_ c: Character) {
      let start = text.utf8.count
      text.append(c)
      if c != " " {
        if lead == nil { lead = start }
        trail = text.utf8.count
      }
    }

    /// Whether the text, leading and trailing spaces trimmed, is `other`.
    func trimmedEquals(_ other: String) -> Bool {
      guard let lead else { return other.isEmpty }
      // Canonically equivalent texts differ in UTF-8 length by a small factor (normalisation
      // expands at most 3×); a far longer text cannot be equal, and comparing it (which may
      // normalise it whole) on every `</a>` would be quadratic.
      guard trail - lead <= 8 * other.utf8.count + 64 else { return false }
      let bytes = text.utf8
      let from = bytes.index(bytes.startIndex, offsetBy: lead)
      let to = bytes.index(bytes.startIndex, offsetBy: trail)
      return text[from..<to] == other
    }
  }

  /// Whether text carries markup (an element or an entity), for widgets whose `render` is absent:
  /// `</?[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?/?>` or `&(#[0-9]+|#x[0-9a-fA-F]+|[a-z]+);` anywhere,
  /// found by a hand-written scan that looks at each character a bounded number of times.
  public static func looksLikeHTML(_ text: String) -> Bool {
    containsElementTag(text) || containsEntity(text)
  }

  static func containsElementTag(_ text: String) -> Bool {
    let end = text.endIndex
    var i = text.startIndex
    // Every failed attempt stops at a character that cannot continue it; none of the characters
    // it passed is a "<", so the next attempt starts from where this one stopped.
    while let open = text[i...].firstIndex(of: "<") {
      var j = text.index(after: open)
      if j < end, text[j] == "/" { j = text.index(after: j) }
      guard j < end, ascii(text[j], \.isLetter) else {
        i = j
        continue
      }
      j = text.index(after: j)
      while j < end, ascii(text[j], { $0.isLetter || $0.isNumber }) { j = text.index(after: j) }
      guard j < end else { return false }
      let c = text[j]
      if c == ">" { return true }
      if c == "/" {
        let k = text.index(after: j)
        if k < end, text[k] == ">" { return true }
      } else if c.isWhitespace {
        // Attributes: anything up to a ">", but no "<" on the way.
        var k = text.index(after: j)
        while k < end, text[k] != "<", text[k] != ">" { k = text.index(after: k) }
        if k < end, text[k] == ">" { return true }
        j = k
      }
      i = j
    }
    return false
  }

  static func containsEntity(_ text: String) -> Bool {
    let end = text.endIndex
    var i = text.startIndex
    while let amp = text[i...].firstIndex(of: "&") {
      var j = text.index(after: amp)
      let isPart: (Character) -> Bool
      if j < end, text[j] == "#" {
        j = text.index(after: j)
        if j < end, text[j] == "x" {
          j = text.index(after: j)
          isPart = { ascii($0, \.isHexDigit) }
        } else {
          isPart = { ascii($0, \.isNumber) }
        }
      } else {
        isPart = { ascii($0) { $0.isLowercase } }
      }
      let start = j
      while j < end, isPart(text[j]) { j = text.index(after: j) }
      if j > start, j < end, text[j] == ";" { return true }
      i = j
    }
    return false
  }

  /// Whether `c` is one ASCII scalar satisfying `test`.
  private static func ascii(_ c: Character, _ test: (Character) -> Bool) -> Bool {
    c.utf8.count == 1 && test(c)
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
      if entity.hasPrefix("#x") || entity.hasPrefix("#X"), let v = UInt32(entity.dropFirst(2), radix: 16),
        let s = Unicode.Scalar(v)
      {
        return String(Character(s))
      }
      if entity.hasPrefix("#"), let v = UInt32(entity.dropFirst()), let s = Unicode.Scalar(v) {
        return String(Character(s))
      }
      return nil
    }
  }
}

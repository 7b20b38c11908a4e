// What a tenant said when it refused: the words of a failed answer that is not a screen, for a
// message that quotes them. Outside text: inert (no control characters), one line, bounded. Every
// quotation of outside text goes through `quoted`, which cuts before it makes inert and looks at no
// more than `window` of the text, so a 10 MiB error_description costs what 240 characters do.
// Pure; the callers add what was asked and what to do.

public enum TenantWords {
  /// Longest quotation kept, in characters: the one bound of every quotation of outside text.
  public static let limit = 240
  /// Most of an outside text looked at, in bytes or scalars: an HTML page's start, and the run of
  /// spaces and controls a quotation may skip before it is cut.
  public static let window = 65_536

  /// The tenant's words in a failed answer's body: an OAuth error document's
  /// "error: error_description", a JSON `message`, the text of an HTML page (its title and
  /// paragraphs, tags and scripts left out), or plain text. nil when the body says nothing.
  public static func of(_ body: [UInt8], contentType: String? = nil) -> String? {
    guard !body.isEmpty else { return nil }
    if let json = JSONValue.parse(body) {
      if let error = json["error"]?.string {
        return quoted(error: error, description: json["error_description"]?.string)
      }
      return json["message"]?.string.flatMap { quoted($0) }
    }
    let start = Array(body.prefix(window))
    let looksHTML = contentType?.lowercased().contains("html") == true || start.firstRange(of: Array("</".utf8)) != nil
    return quoted(looksHTML ? Self.text(ofHTML: start) : String(decoding: start, as: UTF8.self))
  }

  /// The `error` and `error_description` of a redirect's query, as "error: description".
  public static func of(error: String, description: String?) -> String {
    quoted(error: error, description: description) ?? "(no words)"
  }

  /// "error: description", each cut before they are joined.
  static func quoted(error: String, description: String?) -> String? {
    let code = quoted(error) ?? ""
    guard let description, let words = quoted(description) else { return code.isEmpty ? nil : code }
    return quoted(code + ": " + words)
  }

  /// `text` as one inert line of at most `limit` characters (cut with "…"); nil when nothing is
  /// left. Runs of white space become one space; controls, bidi marks and separators become
  /// visible (`TerminalSafe`). One pass, stopped as soon as the line is full: linear in the
  /// quotation, not in `text`.
  public static func quoted(_ text: some StringProtocol) -> String? {
    var out = String.UnicodeScalarView()
    var kept = 0  // scalars in `out`
    var looked = 0
    var space = false
    var cut = false
    for scalar in text.unicodeScalars {
      looked += 1
      // Enough scalars for `limit` characters and the one that says it goes on.
      if kept > 4 * limit || looked > window {
        cut = true
        break
      }
      if scalar.properties.isWhitespace {
        space = kept > 0
        continue
      }
      if space {
        out.append(" ")
        kept += 1
        space = false
      }
      if TerminalSafe.isUnsafe(scalar, multiline: false) {
        let shown = TerminalSafe.visible(scalar).unicodeScalars
        out.append(contentsOf: shown)
        kept += shown.count
      } else {
        out.append(scalar)
        kept += 1
      }
    }
    guard kept > 0 else { return nil }
    let line = String(out)
    guard cut || line.count > limit else { return line }
    return String(line.prefix(limit - 1)) + "…"
  }

  /// The visible text of an HTML page: tags become spaces, the head, script and style
  /// elements are dropped, the common entities are decoded. One pass: an element whose end is
  /// not on the page is not looked for again.
  static func text(ofHTML page: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(page.count)
    var missing: Set<String> = []
    var i = 0
    while i < page.count {
      guard page[i] == UInt8(ascii: "<") else {
        out.append(page[i])
        i += 1
        continue
      }
      out.append(UInt8(ascii: " "))
      if let element = ["script", "style", "head"].first(where: { opens(page, at: i, $0) }), !missing.contains(element)
      {
        if let end = find(page, "</" + element + ">", from: i) {
          i = end
          continue
        }
        missing.insert(element)
      }
      i = (page[i...].firstIndex(of: UInt8(ascii: ">")) ?? page.count - 1) + 1
    }
    var text = String(decoding: out, as: UTF8.self)
    for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " ")] {
      text = text.replacing(entity, with: character)
    }
    return text.replacing("&amp;", with: "&")
  }

  /// Whether the tag at `at` (a `<`) opens `element`, in any case.
  private static func opens(_ page: [UInt8], at: Int, _ element: String) -> Bool {
    let name = Array(element.utf8)
    let end = at + 1 + name.count
    guard end <= page.count, zip(page[(at + 1)..<end], name).allSatisfy({ lower($0) == $1 }) else { return false }
    return end == page.count || !isLetterOrDigit(page[end])
  }

  /// Just past the first `target` (lower-case ASCII) at or after `from`, in any case; nil when
  /// there is none. At most `target.count` looks per byte.
  private static func find(_ page: [UInt8], _ target: String, from: Int) -> Int? {
    let needle = Array(target.utf8)
    guard needle.count <= page.count else { return nil }
    var i = from
    while i + needle.count <= page.count {
      if zip(page[i..<(i + needle.count)], needle).allSatisfy({ lower($0) == $1 }) { return i + needle.count }
      i += 1
    }
    return nil
  }

  private static func lower(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b + 0x20 : b }
  private static func isLetterOrDigit(_ b: UInt8) -> Bool {
    (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
  }
}

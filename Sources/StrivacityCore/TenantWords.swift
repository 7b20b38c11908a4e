// What a tenant said when it refused: the words of a failed answer that is not a screen, for a
// message that quotes them. Outside text: inert (no control characters), one line, bounded.
// Pure; the callers add what was asked and what to do.

public enum TenantWords {
  /// Longest quotation kept, in characters.
  public static let limit = 240

  /// The tenant's words in a failed answer's body: an OAuth error document's
  /// "error: error_description", a JSON `message`, the text of an HTML page (its title and
  /// paragraphs, tags and scripts left out), or plain text. nil when the body says nothing.
  public static func of(_ body: [UInt8], contentType: String? = nil) -> String? {
    guard !body.isEmpty else { return nil }
    if let json = JSONValue.parse(body) {
      if let error = json["error"]?.string {
        return quoted(json["error_description"]?.string.map { "\(error): \($0)" } ?? error)
      }
      return json["message"]?.string.flatMap(quoted)
    }
    let text = String(decoding: body.prefix(65_536), as: UTF8.self)
    let looksHTML = contentType?.lowercased().contains("html") == true || text.contains("</")
    return quoted(looksHTML ? Self.text(ofHTML: text) : text)
  }

  /// The `error` and `error_description` of a redirect's query, as "error: description".
  public static func of(error: String, description: String?) -> String {
    quoted(description.map { "\(error): \($0)" } ?? error) ?? "(no words)"
  }

  /// `text` as one inert line of at most `limit` characters; nil when nothing is left.
  public static func quoted(_ text: String) -> String? {
    let line = TerminalSafe.text(text.split(whereSeparator: \.isWhitespace).joined(separator: " "), multiline: false)
    guard !line.isEmpty else { return nil }
    return line.count > limit ? String(line.prefix(limit - 1)) + "…" : line
  }

  /// The visible text of an HTML page: tags become spaces, the head, script and style
  /// elements are dropped, the common entities are decoded.
  static func text(ofHTML html: String) -> String {
    var out = ""
    var rest = Substring(html)
    while let open = rest.firstIndex(of: "<") {
      out += rest[..<open] + " "
      let tag = rest[open...]
      let lower = tag.prefix(8).lowercased()
      let closing =
        lower.hasPrefix("<script")
        ? "</script>"
        : lower.hasPrefix("<style") ? "</style>" : lower.hasPrefix("<head") ? "</head>" : nil
      if let closing, let end = tag.firstRange(of: closing) ?? tag.firstRange(of: closing.uppercased()) {
        rest = tag[end.upperBound...]
      } else if let end = tag.firstIndex(of: ">") {
        rest = tag[tag.index(after: end)...]
      } else {
        rest = ""
      }
    }
    out += rest
    for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " ")] {
      out = out.replacing(entity, with: character)
    }
    return out.replacing("&amp;", with: "&")
  }
}

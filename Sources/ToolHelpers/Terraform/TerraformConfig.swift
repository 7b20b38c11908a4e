// Terraform's CLI config file (~/.terraformrc, OpenTofu's ~/.tofurc, or what
// TF_CLI_CONFIG_FILE names), edited for `strivacity setup-terraform`: one top-level block,
//
//   credentials_helper "strivacity" {
//     args = []
//   }
//
// added or removed, and every other byte of the file kept as the user wrote it. The file is HCL
// (or JSON); it is not parsed whole: its lines are scanned for where strings, comments, heredocs
// and braces open and close, which is all it takes to know where a top-level block starts and
// ends. Terraform reads one `credentials_helper` block: another helper's is never replaced, and
// anything this scan cannot place for certain (a JSON file, an unbalanced file, a block that
// shares its lines with something else) is refused, with the lines to add by hand.
import StrivacityCore

public enum TerraformConfig {
  /// The helper's name: Terraform runs `terraform-credentials-strivacity`.
  public static let helperName = "strivacity"

  /// The block setup-terraform writes.
  public static let block = ["credentials_helper \"\(helperName)\" {", "  args = []", "}"]

  /// A top-level block of the file: its type (`credentials_helper`, `credentials`, …), its
  /// label, and its lines.
  public struct Block: Sendable, Equatable {
    public var type: String
    public var label: String?
    public var lines: ClosedRange<Int>
  }

  /// Why the file is not edited: the other helper's name when it is that.
  public enum Refusal: Error, Equatable, CustomStringConvertible {
    /// Another helper is configured (Terraform reads one).
    case otherHelper(String)
    case cannotPlace(String)

    public var description: String {
      let manual = "; add the lines yourself:\n  " + TerraformConfig.block.joined(separator: "\n  ")
      switch self {
      case .otherHelper(let name):
        return "it configures credentials helper \"\(HostEntry.shown(name))\" already, and Terraform runs only one: "
          + "remove that block first to use strivacity's"
      case .cannotPlace(let why): return why + manual
      }
    }
  }

  /// The labels of the file's top-level `credentials "HOST"` blocks: hosts whose token
  /// Terraform takes from the file, before asking any helper.
  public static func credentialsHosts(_ text: String) -> [String] {
    ((try? Scanned(text))?.blocks ?? []).filter { $0.type == "credentials" }.compactMap(\.label)
  }

  /// `text` with strivacity's `credentials_helper` block (added at the end, or an existing
  /// `credentials_helper "strivacity"` block rewritten); throws for another helper's.
  public static func settingHelper(_ text: String) throws(Refusal) -> String {
    var file = try Scanned(text)
    let helpers = file.blocks.filter { $0.type == "credentials_helper" }
    guard helpers.count <= 1 else { throw .cannotPlace("it has more than one credentials_helper block") }
    if let helper = helpers.first {
      guard helper.label == helperName else { throw .otherHelper(helper.label ?? "") }
      file.lines.replaceSubrange(helper.lines, with: block)
    } else {
      if let last = file.lines.last, !last.trimming(" \t\r").isEmpty { file.lines.append("") }
      file.lines += block
    }
    return try file.text()
  }

  /// `text` without strivacity's `credentials_helper` block (and the blank line setup put
  /// before it); nil when there is none.
  public static func removingHelper(_ text: String) throws(Refusal) -> String? {
    var file = try Scanned(text)
    guard
      let helper = file.blocks.first(where: { $0.type == "credentials_helper" && $0.label == helperName })
    else { return nil }
    var range = helper.lines.lowerBound...helper.lines.upperBound
    let after = helper.lines.upperBound + 1
    if range.lowerBound > 0, file.lines[range.lowerBound - 1].trimming(" \t\r").isEmpty,
      after == file.lines.count || file.lines[after].trimming(" \t\r").isEmpty
    {
      range = (range.lowerBound - 1)...range.upperBound
    }
    file.lines.removeSubrange(range)
    return try file.text()
  }

  /// The file's lines and its top-level blocks.
  struct Scanned {
    var lines: [String]
    var blocks: [Block] = []

    init(_ text: String) throws(Refusal) {
      // Split on the byte: a Character "\r\n" is not "\n", and would hide a line break.
      lines =
        text.isEmpty
        ? []
        : text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
      if text.utf8.last == 0x0A { lines.removeLast() }
      if text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) == UInt8(ascii: "{") {
        throw .cannotPlace("it is written in JSON")
      }
      var state = LexState()
      var open: (start: Int, type: String, label: String?)?
      for (number, line) in lines.enumerated() {
        let before = state
        state.scan(line)
        if let block = open {
          if state.atTop {
            // The block's last line: nothing after its brace but a comment.
            var closing = before
            guard let end = closing.scan(line, untilClosed: true), Self.onlyComment(line, after: end) else {
              throw .cannotPlace("line \(number + 1) ends a \(block.type) block beside something else")
            }
            blocks.append(Block(type: block.type, label: block.label, lines: block.start...number))
            open = nil
          }
          continue
        }
        guard before.atTop, let (type, label, rest) = Self.blockHeader(line) else { continue }
        // One line: the block must be the whole line (a comment may follow); else its first
        // line must not close it.
        var inner = LexState()
        inner.depth = 1
        let end = inner.scan(String(rest), untilClosed: true)
        if state.atTop {
          guard let end, Self.onlyComment(String(rest), after: end) else {
            throw .cannotPlace("line \(number + 1) holds a \(type) block beside something else")
          }
          blocks.append(Block(type: type, label: label, lines: number...number))
        } else {
          guard end == nil else {
            throw .cannotPlace("line \(number + 1) holds a \(type) block beside something else")
          }
          open = (number, type, label)
        }
      }
      guard state.atTop, open == nil else {
        throw .cannotPlace("the file ends inside a block, string, comment or heredoc")
      }
    }

    /// `TYPE "LABEL" {` or `TYPE LABEL {` at the start of a line (after spaces): the type, the
    /// label, and the rest of the line after the brace; nil for any other line.
    static func blockHeader(_ line: String) -> (type: String, label: String?, rest: Substring)? {
      var rest = line.drop { $0 == " " || $0 == "\t" }
      let identifier: (Character) -> Bool = { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
      let type = rest.prefix(while: identifier)
      guard !type.isEmpty, type.first?.isLetter == true else { return nil }
      rest = rest.dropFirst(type.count).drop { $0 == " " || $0 == "\t" }
      var label: String?
      if rest.first == "\"" {
        let body = rest.dropFirst()
        guard let end = body.firstIndex(of: "\""), !body[..<end].contains("\\") else { return nil }
        label = String(body[..<end])
        rest = body[body.index(after: end)...].drop { $0 == " " || $0 == "\t" }
      } else if let first = rest.first, identifier(first) {
        let bare = rest.prefix(while: identifier)
        label = String(bare)
        rest = rest.dropFirst(bare.count).drop { $0 == " " || $0 == "\t" }
      }
      guard rest.first == "{" else { return nil }
      return (String(type), label, rest.dropFirst())
    }

    /// Whether `text` holds nothing but spaces or a comment from scalar `index` on.
    static func onlyComment(_ text: String, after index: Int) -> Bool {
      let after = String(String.UnicodeScalarView(Array(text.unicodeScalars)[index...])).trimming(" \t\r")
      return after.isEmpty || after.hasPrefix("#") || after.hasPrefix("//")
    }

    /// The edited text; refused if the edit left the file unbalanced (it never should).
    func text() throws(Refusal) -> String {
      var state = LexState()
      for line in lines { state.scan(line) }
      guard state.atTop else { throw .cannotPlace("the edit would leave the file unbalanced") }
      return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }
  }

  /// Where an HCL text is, line by line: in a string, a /* comment */, a heredoc, how deep in
  /// braces and brackets. `#` and `//` comments end with their line; so do quoted strings
  /// (HCL's cannot span lines).
  struct LexState {
    var string = false
    var comment = false
    /// The heredoc's closing word while in one.
    var heredoc: String?
    var depth = 0

    var atTop: Bool { !string && !comment && heredoc == nil && depth == 0 }

    /// Scans one line; with `untilClosed`, stops after the brace that brings the depth to 0
    /// and returns the index of the scalar after it (nil when the line does not close it).
    @discardableResult
    mutating func scan(_ line: String, untilClosed: Bool = false) -> Int? {
      if let word = heredoc {
        if line.trimming(" \t\r") == word { heredoc = nil }
        return nil
      }
      let c = Array(line.unicodeScalars)
      var i = 0
      while i < c.count {
        if comment {
          if c[i] == "*", i + 1 < c.count, c[i + 1] == "/" {
            comment = false
            i += 2
            continue
          }
        } else if string {
          if c[i] == "\\" {
            i += 2
            continue
          }
          if c[i] == "\"" { string = false }
        } else {
          switch c[i] {
          case "#": return nil
          case "/" where i + 1 < c.count && c[i + 1] == "/": return nil
          case "/" where i + 1 < c.count && c[i + 1] == "*":
            comment = true
            i += 2
            continue
          case "<" where i + 1 < c.count && c[i + 1] == "<":
            // <<WORD or <<-WORD to the end of the line: the heredoc starts on the next line.
            var j = i + 2
            if j < c.count, c[j] == "-" { j += 1 }
            let word = String(
              String.UnicodeScalarView(
                c[j...].prefix { $0.properties.isAlphabetic || $0 == "_" || ("0"..."9").contains($0) }))
            if !word.isEmpty {
              heredoc = word
              return nil
            }
          case "\"": string = true
          case "{", "[", "(": depth += 1
          case "}", "]", ")":
            depth = max(0, depth - 1)
            if untilClosed && depth == 0 { return i + 1 }
          default: break
          }
        }
        i += 1
      }
      // A quoted string left open is an error in HCL; it ends with its line here.
      string = false
      return nil
    }
  }
}

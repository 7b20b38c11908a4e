// cargo's config file ($CARGO_HOME/config.toml), edited for `strivacity setup-cargo`: one key,
// `credential-provider` in `[registries.NAME]`, set or removed, and every other byte of the file
// kept as the user wrote it. cargo's files use all of TOML (inline tables, multi-line strings),
// more than this program's own config parser reads, so the file is not parsed whole: its lines are
// scanned for where strings, arrays and inline tables open and close, which is all it takes to
// know which lines are table headers and where one key's value ends. Anything it cannot place
// for certain (the registry's table written as dotted keys or an inline table, an unbalanced
// file) is refused, with the lines to add by hand.
import StrivacityConfig
import StrivacityCore

public enum CargoConfig {
  /// A cargo registry name: what cargo accepts (letters, digits, `-`, `_`), so it is a bare key.
  public static func admitRegistry(_ name: String) throws(AdmissionError) -> String {
    guard (1...64).contains(name.utf8.count),
      name.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
      })
    else { throw AdmissionError("'\(HostEntry.shown(name))' is not a cargo registry name (letters, digits, - and _)") }
    return name
  }

  /// The line that names the provider: `credential-provider = ["PATH", ARGS…]`.
  public static func providerLine(_ provider: [String]) -> String {
    "credential-provider = [" + provider.map(TOMLString.quoted).joined(separator: ", ") + "]"
  }

  /// `text` with `[registries.REGISTRY]`'s credential-provider set to `provider` (the table
  /// added at the end when there is none).
  public static func settingProvider(_ text: String, registry: String, provider: [String]) throws(AdmissionError)
    -> String
  {
    var file = try Scanned(text, registry: registry)
    let line = providerLine(provider)
    if let header = file.header {
      if let key = file.providerLines {
        file.lines.replaceSubrange(key, with: [line])
      } else {
        // After the table's last line that is not blank.
        var at = file.sectionEnd
        while at > header + 1 && file.lines[at - 1].trimming(" \t\r").isEmpty { at -= 1 }
        file.lines.insert(line, at: at)
      }
    } else {
      if let last = file.lines.last, !last.trimming(" \t\r").isEmpty { file.lines.append("") }
      file.lines += ["[registries.\(registry)]", line]
    }
    return try file.text()
  }

  /// `text` without `[registries.REGISTRY]`'s credential-provider when `isOurs` says its value
  /// is this program's (nil when there is nothing of ours to remove).
  public static func removingProvider(_ text: String, registry: String, isOurs: ([String]) -> Bool)
    throws(AdmissionError) -> String?
  {
    var file = try Scanned(text, registry: registry)
    guard let key = file.providerLines else { return nil }
    let value = file.lines[key].joined(separator: "\n")
    guard let parsed = try? TOML.parse(value), case .array(let items)? = parsed["credential-provider"] else {
      return nil
    }
    let words = items.compactMap { item -> String? in if case .string(let s) = item { return s } else { return nil } }
    guard words.count == items.count, isOurs(words) else { return nil }
    file.lines.removeSubrange(key)
    return try file.text()
  }

  /// `[registries.REGISTRY]`'s `index`, when the table has it on one line.
  public static func index(_ text: String, registry: String) -> String? {
    guard let file = try? Scanned(text, registry: registry), let header = file.header else { return nil }
    for line in file.lines[(header + 1)..<file.sectionEnd] {
      if let parsed = try? TOML.parse(line), case .string(let index)? = parsed["index"] { return index }
    }
    return nil
  }

  /// The file's lines, with where the registry's table and its credential-provider are.
  struct Scanned {
    var lines: [String]
    let endsWithNewline: Bool
    /// The `[registries.NAME]` line.
    var header: Int?
    /// The line after the table's last (the next header's, or the end).
    var sectionEnd = 0
    /// The lines of credential-provider's assignment in that table.
    var providerLines: Range<Int>?

    init(_ text: String, registry: String) throws(AdmissionError) {
      let manual = "; add the lines yourself:\n  [registries.\(registry)]\n  credential-provider = [\"…/strivacity\"]"
      endsWithNewline = text.hasSuffix("\n")
      lines = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      if endsWithNewline { lines.removeLast() }
      var state = LexState()
      var section: [String]? = []  // nil: an array of tables, or a header this scan does not read
      var assignment: (start: Int, inProvider: Bool)?
      for (number, line) in lines.enumerated() {
        let startsAtTop = state.atTop
        let first = line.trimming(" \t\r").first
        state.scan(line)
        if let open = assignment {
          if state.atTop {
            if open.inProvider { providerLines = open.start..<(number + 1) }
            assignment = nil
          }
          continue
        }
        guard startsAtTop, let first, first != "#" else { continue }
        if first == "[" {
          guard state.atTop else {
            throw AdmissionError("line \(number + 1) is not a table header cargo would read" + manual)
          }
          section = Self.headerPath(line)
          if header != nil && sectionEnd == 0 { sectionEnd = number }
          if section == ["registries", registry] {
            guard header == nil else { throw AdmissionError("[registries.\(registry)] is there twice" + manual) }
            header = number
          }
          continue
        }
        // A key = value line: its dotted key, from the current table.
        let key = Self.keyPath(line)
        let full = (section ?? ["?"]) + key
        if full.count >= 2, full[0] == "registries", full[1] == registry, section != ["registries", registry] {
          throw AdmissionError("registry \(registry) is written as dotted keys or an inline table" + manual)
        }
        let isProvider = section == ["registries", registry] && key == ["credential-provider"]
        if isProvider && providerLines != nil {
          throw AdmissionError("credential-provider is there twice in [registries.\(registry)]" + manual)
        }
        if state.atTop {
          if isProvider { providerLines = number..<(number + 1) }
        } else {
          assignment = (number, isProvider)
        }
      }
      guard state.atTop, assignment == nil else {
        throw AdmissionError("the file ends inside a string, array or inline table" + manual)
      }
      if header != nil && sectionEnd == 0 { sectionEnd = lines.count }
    }

    /// The keys of a `[a.b."c"]` header line; nil for `[[…]]` or one that does not read as a header.
    static func headerPath(_ line: String) -> [String]? {
      guard !line.trimming(" \t\r").hasPrefix("[["), let table = try? TOML.parse(line) else { return nil }
      var path: [String] = []
      var current = table
      while current.entries.count == 1, case .table(let inner) = current.entries[0].value {
        path.append(current.entries[0].key)
        current = inner
      }
      return current.entries.isEmpty ? path : nil
    }

    /// The dotted key of a `key = value` line (["?"] when it cannot be read: never a match).
    static func keyPath(_ line: String) -> [String] {
      var key: [String] = []
      var part = ""
      var quote: Character?
      for c in line.trimming(" \t\r") {
        if let q = quote {
          if c == q { quote = nil } else { part.append(c) }
        } else if c == "\"" || c == "'" {
          quote = c
        } else if c == "." {
          key.append(part.trimming(" \t"))
          part = ""
        } else if c == "=" {
          key.append(part.trimming(" \t"))
          return key
        } else {
          part.append(c)
        }
      }
      return ["?"]
    }

    /// The edited text; refused if the edit left the file unbalanced (it never should).
    func text() throws(AdmissionError) -> String {
      var state = LexState()
      for line in lines { state.scan(line) }
      guard state.atTop else { throw AdmissionError("the edit would leave the file unbalanced") }
      return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }
  }

  /// Where a TOML text is, character by character: in which string, how deep in arrays and
  /// inline tables. Comments end at the line's end; so do basic and literal strings.
  struct LexState {
    enum InString { case none, basic, literal, multiBasic, multiLiteral }
    var string = InString.none
    var depth = 0

    var atTop: Bool { string == .none && depth == 0 }

    mutating func scan(_ line: String) {
      let c = Array(line.unicodeScalars)
      var i = 0
      func starts(_ text: String, at index: Int) -> Bool {
        let t = Array(text.unicodeScalars)
        return index + t.count <= c.count && Array(c[index..<(index + t.count)]) == t
      }
      while i < c.count {
        switch string {
        case .basic:
          if c[i] == "\\" { i += 2; continue }
          if c[i] == "\"" { string = .none }
        case .literal:
          if c[i] == "'" { string = .none }
        case .multiBasic:
          if c[i] == "\\" { i += 2; continue }
          if starts("\"\"\"", at: i) { string = .none; i += 3; continue }
        case .multiLiteral:
          if starts("'''", at: i) { string = .none; i += 3; continue }
        case .none:
          if c[i] == "#" { return }
          if starts("\"\"\"", at: i) { string = .multiBasic; i += 3; continue }
          if starts("'''", at: i) { string = .multiLiteral; i += 3; continue }
          if c[i] == "\"" { string = .basic }
          if c[i] == "'" { string = .literal }
          if c[i] == "[" || c[i] == "{" { depth += 1 }
          if c[i] == "]" || c[i] == "}" { depth = max(0, depth - 1) }
        }
        i += 1
      }
      // A one-line string left open is an error in TOML; it ends with its line here.
      if string == .basic || string == .literal { string = .none }
    }
  }
}

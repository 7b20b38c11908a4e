// A strict parser for the subset of TOML 1.0 that strivacity's config uses.
//
// Supported: comments, [tables] with dotted and quoted keys, key = value with bare, quoted and
// dotted keys, basic and literal strings (single line), integers, booleans, arrays of those
// (which may span lines), and arrays of tables (`[[contexts]]`: each header opens the next table
// of the array; no table may be opened under one). Everything else TOML allows (floats, dates,
// inline tables, multi-line strings) is rejected with its position rather than misread.
import StrivacityCore

/// A position in the source: 1-based line and column (columns count Unicode scalars).
public struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
  public var line: Int
  public var column: Int
  public var description: String { "\(line):\(column)" }
}

public indirect enum TOMLValue: Sendable, Equatable {
  case string(String)
  case integer(Int64)
  case boolean(Bool)
  case array([TOMLValue])
  case table(TOMLTable)

  var typeName: String {
    switch self {
    case .string: return "a string"
    case .integer: return "an integer"
    case .boolean: return "a boolean"
    case .array: return "an array"
    case .table: return "a table"
    }
  }
}

/// An ordered table; each entry remembers where its key was written.
public struct TOMLTable: Sendable, Equatable {
  public struct Entry: Sendable, Equatable {
    public var key: String
    public var value: TOMLValue
    public var position: SourcePosition
  }
  public private(set) var entries: [Entry] = []
  /// Entry index by key: lookups and duplicate checks in constant time, so a file of thousands
  /// of profiles parses in linear time.
  private var positions: [String: Int] = [:]
  /// Where the table was opened ([header] or first dotted key); nil for the root.
  public var position: SourcePosition?
  /// True when opened by a [header] (a second header for it is an error).
  var explicitlyDefined = false

  public subscript(key: String) -> TOMLValue? { positions[key].map { entries[$0].value } }
  func index(of key: String) -> Int? { positions[key] }

  mutating func append(_ entry: Entry) {
    positions[entry.key] = entries.count
    entries.append(entry)
  }

  mutating func setValue(_ value: TOMLValue, at index: Int) { entries[index].value = value }

  public static func == (lhs: TOMLTable, rhs: TOMLTable) -> Bool {
    lhs.entries == rhs.entries && lhs.position == rhs.position && lhs.explicitlyDefined == rhs.explicitlyDefined
  }
}

public struct TOMLError: Error, Sendable, Equatable {
  public var position: SourcePosition
  public var message: String
}

public enum TOML {
  /// Parses `text` into its root table.
  public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
    var parser = TOMLParser(Array(text.unicodeScalars))
    return try parser.parseDocument()
  }
}

/// The parser's state; its string reading (quoted keys and values, escapes) is in TOMLStrings.swift.
struct TOMLParser {
  let s: [Unicode.Scalar]
  var i = 0
  var line = 1
  var lineStart = 0
  var root = TOMLTable()
  var currentPath: [String] = []
  /// True when `currentPath` names an array of tables (`[[path]]`): keys go to its last table.
  var inTableArray = false
  /// The paths opened by `[[…]]` headers: only these may take another element.
  var tableArrays: Set<[String]> = []

  init(_ scalars: [Unicode.Scalar]) { s = scalars }

  var position: SourcePosition { SourcePosition(line: line, column: i - lineStart + 1) }
  var atEnd: Bool { i >= s.count }
  var peek: Unicode.Scalar? { i < s.count ? s[i] : nil }

  func fail(_ message: String, at position: SourcePosition? = nil) -> TOMLError {
    TOMLError(position: position ?? self.position, message: message)
  }

  mutating func skipSpaces() { while let c = peek, c == " " || c == "\t" { i += 1 } }

  mutating func skipComment() throws(TOMLError) {
    guard peek == "#" else { return }
    while let c = peek, c != "\n" {
      if c.value < 0x20 && c != "\t" && c != "\r" || c.value == 0x7f {
        throw fail("control character in comment")
      }
      i += 1
    }
  }

  /// Consumes the end of a line (after optional spaces and a comment), or fails.
  mutating func expectLineEnd() throws(TOMLError) {
    skipSpaces()
    try skipComment()
    if atEnd { return }
    if peek == "\r", i + 1 < s.count, s[i + 1] == "\n" { i += 1 }
    guard peek == "\n" else { throw fail("expected the end of the line, found '\(peek!)'") }
    newline()
  }

  /// How deep anything may nest: table headers, dotted keys and arrays, counted together (a
  /// value in `[a.b]` written `c.d = [[1]]` is 6 deep). Every part of building and reading the
  /// tree recurses once per level: a deep enough file would otherwise overflow the stack.
  static let maxDepth = 32
  var depth = 0

  func tooDeep(at position: SourcePosition? = nil) -> TOMLError {
    fail(
      "nested more than \(Self.maxDepth) deep (tables, dotted keys and arrays together)", at: position ?? self.position)
  }

  mutating func newline() {
    i += 1
    line += 1
    lineStart = i
  }

  /// Skips blank lines, comments and (inside arrays) newlines.
  mutating func skipBlank() throws(TOMLError) {
    while true {
      skipSpaces()
      try skipComment()
      if peek == "\r", i + 1 < s.count, s[i + 1] == "\n" { i += 1 }
      if peek == "\n" { newline() } else { return }
    }
  }

  mutating func parseDocument() throws(TOMLError) -> TOMLTable {
    if peek == "\u{FEFF}" { i += 1; lineStart = i }
    while true {
      try skipBlank()
      guard let c = peek else { return root }
      if c == "[" {
        try parseHeader()
      } else {
        try parseKeyValue(into: currentPath)
      }
      try expectLineEnd()
    }
  }

  mutating func parseHeader() throws(TOMLError) {
    let start = position
    i += 1
    let array = peek == "["
    if array { i += 1 }
    skipSpaces()
    let path = try parseKey()
    skipSpaces()
    guard peek == "]" else { throw fail("expected ']' to close the table header") }
    i += 1
    if array {
      guard peek == "]" else { throw fail("expected ']]' to close the header of an array of tables") }
      i += 1
      try appendTable(path, at: start)
    } else {
      if let outer = tableArrays.first(where: { path.count > $0.count && Array(path.prefix($0.count)) == $0 }) {
        throw fail(
          "tables under an array of tables ([[\(outer.joined(separator: "."))]]) are not supported in this file",
          at: start)
      }
      try defineTable(path, at: start)
    }
    currentPath = path
    inTableArray = array
  }

  /// A dotted key, `within` levels deep already (the current table's).
  mutating func parseKey(within: Int = 0) throws(TOMLError) -> [String] {
    let start = position
    var parts: [String] = []
    while true {
      skipSpaces()
      guard within + parts.count < Self.maxDepth else { throw tooDeep(at: start) }
      parts.append(try parseSimpleKey())
      skipSpaces()
      if peek == "." { i += 1 } else { return parts }
    }
  }

  mutating func parseSimpleKey() throws(TOMLError) -> String {
    guard let c = peek else { throw fail("expected a key") }
    if c == "\"" { return try parseBasicString() }
    if c == "'" { return try parseLiteralString() }
    var key = ""
    while let c = peek, TOMLString.isBareKeyScalar(c) {
      key.unicodeScalars.append(c)
      i += 1
    }
    if key.isEmpty { throw fail("expected a key, found '\(c)'") }
    return key
  }

  mutating func parseKeyValue(into tablePath: [String]) throws(TOMLError) {
    let keyPosition = position
    let key = try parseKey(within: tablePath.count)
    skipSpaces()
    guard peek == "=" else {
      throw fail("expected '=' after the key '\(key.joined(separator: "."))'")
    }
    i += 1
    skipSpaces()
    depth = tablePath.count + key.count
    defer { depth = 0 }
    let value = try parseValue()
    if inTableArray {
      try insertInLastTable(value, array: tablePath, key: key, keyPosition: keyPosition)
    } else {
      try insert(value, at: tablePath + key, keyPosition: keyPosition)
    }
  }

  mutating func parseValue() throws(TOMLError) -> TOMLValue {
    guard let c = peek else { throw fail("expected a value") }
    switch c {
    case "\"":
      if i + 2 < s.count, s[i + 1] == "\"", s[i + 2] == "\"" {
        throw fail("multi-line strings are not supported in this file")
      }
      return .string(try parseBasicString())
    case "'":
      if i + 2 < s.count, s[i + 1] == "'", s[i + 2] == "'" {
        throw fail("multi-line strings are not supported in this file")
      }
      return .string(try parseLiteralString())
    case "[": return try parseArray()
    case "{": throw fail("inline tables are not supported in this file; use a [table] section")
    case "t", "f": return try parseBoolean()
    default:
      if c == "+" || c == "-" || (c >= "0" && c <= "9") { return try parseNumber() }
      if c == "\n" || c == "\r" || c == "#" { throw fail("expected a value after '='") }
      throw fail("unexpected '\(c)': strings must be quoted")
    }
  }

  mutating func parseBoolean() throws(TOMLError) -> TOMLValue {
    let start = position
    var word = ""
    while let c = peek, TOMLString.isBareKeyScalar(c) {
      word.unicodeScalars.append(c)
      i += 1
    }
    switch word {
    case "true": return .boolean(true)
    case "false": return .boolean(false)
    default: throw fail("unexpected '\(word)': strings must be quoted", at: start)
    }
  }

  mutating func parseNumber() throws(TOMLError) -> TOMLValue {
    let start = position
    var text = ""
    while let c = peek, TOMLString.isBareKeyScalar(c) || c == "+" || c == "." || c == ":" {
      text.unicodeScalars.append(c)
      i += 1
    }
    var digits = text
    var negative = false
    if digits.hasPrefix("+") || digits.hasPrefix("-") {
      negative = digits.hasPrefix("-")
      digits.removeFirst()
    }
    let underscoresOK = !digits.hasPrefix("_") && !digits.hasSuffix("_") && !digits.contains("__")
    let plain = digits.replacingUnderscores()
    guard underscoresOK, !plain.isEmpty, plain.allSatisfy({ $0 >= "0" && $0 <= "9" }),
      plain == "0" || !plain.hasPrefix("0"), let magnitude = Int64(plain)
    else {
      throw fail("'\(text)' is not a supported number (only decimal integers are)", at: start)
    }
    return .integer(negative ? -magnitude : magnitude)
  }

  mutating func parseArray() throws(TOMLError) -> TOMLValue {
    guard depth < Self.maxDepth else { throw tooDeep() }
    depth += 1
    defer { depth -= 1 }
    i += 1
    var items: [TOMLValue] = []
    while true {
      try skipBlank()
      if peek == "]" {
        i += 1
        return .array(items)
      }
      if atEnd { throw fail("unterminated array: expected ']'") }
      items.append(try parseValue())
      try skipBlank()
      if peek == "," {
        i += 1
      } else if peek == "]" {
        i += 1
        return .array(items)
      } else if atEnd {
        throw fail("unterminated array: expected ']'")
      } else {
        throw fail("expected ',' or ']' in array, found '\(peek!)'")
      }
    }
  }

  // MARK: building the tree

  mutating func defineTable(_ path: [String], at position: SourcePosition) throws(TOMLError) {
    try withTable(path, creatingAt: position) { (table: inout TOMLTable) throws(TOMLError) in
      if table.explicitlyDefined {
        throw TOMLError(position: position, message: "the table [\(path.joined(separator: "."))] is defined twice")
      }
      table.explicitlyDefined = true
    }
  }

  /// A `[[path]]` header: a new table at the end of the array at `path` (made by the first).
  mutating func appendTable(_ path: [String], at position: SourcePosition) throws(TOMLError) {
    let key = path.last!
    let known = tableArrays.contains(path)
    try withTable(Array(path.dropLast()), creatingAt: position) { (table: inout TOMLTable) throws(TOMLError) in
      var element = TOMLTable()
      element.position = position
      element.explicitlyDefined = true
      guard let index = table.index(of: key) else {
        table.append(.init(key: key, value: .array([.table(element)]), position: position))
        return
      }
      guard known, case .array(var items) = table.entries[index].value else {
        throw TOMLError(
          position: position,
          message: "[[\(path.joined(separator: "."))]] would redefine '\(key)', which is not an array of tables")
      }
      table.setValue(.string(""), at: index)  // release the copy before mutating
      items.append(.table(element))
      table.setValue(.array(items), at: index)
    }
    tableArrays.insert(path)
  }

  /// A key's value in the last table of the array of tables at `array`.
  mutating func insertInLastTable(
    _ value: TOMLValue, array: [String], key: [String], keyPosition: SourcePosition
  ) throws(TOMLError) {
    let name = array.last!
    try withTable(Array(array.dropLast()), creatingAt: keyPosition) { (table: inout TOMLTable) throws(TOMLError) in
      guard let index = table.index(of: name), case .array(var items) = table.entries[index].value,
        case .table(var element)? = items.last
      else { throw TOMLError(position: keyPosition, message: "no table of [[\(name)]] to put the key in") }
      table.setValue(.string(""), at: index)
      defer { table.setValue(.array(items), at: index) }
      items.removeLast()
      defer { items.append(.table(element)) }
      try Self.descend(&element, key.dropLast(), fullPath: array + key, position: keyPosition) {
        (inner: inout TOMLTable) throws(TOMLError) in
        if inner.index(of: key.last!) != nil {
          throw TOMLError(
            position: keyPosition, message: "the key '\(key.joined(separator: "."))' is defined twice in this table")
        }
        inner.append(.init(key: key.last!, value: value, position: keyPosition))
      }
    }
  }

  mutating func insert(_ value: TOMLValue, at path: [String], keyPosition: SourcePosition) throws(TOMLError) {
    let parent = Array(path.dropLast())
    let key = path.last!
    try withTable(parent, creatingAt: keyPosition) { (table: inout TOMLTable) throws(TOMLError) in
      if table.index(of: key) != nil {
        throw TOMLError(position: keyPosition, message: "the key '\(path.joined(separator: "."))' is defined twice")
      }
      table.append(.init(key: key, value: value, position: keyPosition))
    }
  }

  mutating func withTable(
    _ path: [String], creatingAt position: SourcePosition,
    _ body: (inout TOMLTable) throws(TOMLError) -> Void
  ) throws(TOMLError) {
    try Self.descend(&root, path[...], fullPath: path, position: position, body)
  }

  static func descend(
    _ table: inout TOMLTable, _ path: ArraySlice<String>, fullPath: [String],
    position: SourcePosition, _ body: (inout TOMLTable) throws(TOMLError) -> Void
  ) throws(TOMLError) {
    guard let head = path.first else { return try body(&table) }
    if let index = table.index(of: head) {
      guard case .table(var child) = table.entries[index].value else {
        throw TOMLError(
          position: position,
          message: "'\(fullPath.joined(separator: "."))' would redefine the key '\(head)', which is not a table")
      }
      table.setValue(.string(""), at: index)  // release the copy before mutating
      defer { table.setValue(.table(child), at: index) }
      try descend(&child, path.dropFirst(), fullPath: fullPath, position: position, body)
    } else {
      var child = TOMLTable()
      child.position = position
      try descend(&child, path.dropFirst(), fullPath: fullPath, position: position, body)
      table.append(.init(key: head, value: .table(child), position: position))
    }
  }
}

extension String {
  fileprivate func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}

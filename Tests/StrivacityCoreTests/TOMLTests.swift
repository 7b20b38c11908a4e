import Testing

@testable import StrivacityConfig
@testable import StrivacityCore

@Suite struct TOMLTests {
  @Test func parsesTheSubsetWeUse() throws {
    let text = """
      # leading comment
      default_profile = "work"   # trailing comment
      count = 1_000
      negative = -3
      enabled = true

      [profiles.work]
      tenant = "https://a.example/"
      'literal key' = 'C:\\path'
      escaped = "tab\\there \\u00e9 \\"q\\""
      list = [
        "one",   # comment inside an array
        "two",
      ]
      empty = []

      [profiles."with.dot"]
      x.y = "dotted"
      """
    let root = try TOML.parse(text)
    #expect(root["default_profile"] == .string("work"))
    #expect(root["count"] == .integer(1000))
    #expect(root["negative"] == .integer(-3))
    #expect(root["enabled"] == .boolean(true))
    guard case .table(let profiles) = root["profiles"], case .table(let work) = profiles["work"] else {
      Issue.record("profiles.work missing")
      return
    }
    #expect(work["tenant"] == .string("https://a.example/"))
    #expect(work["literal key"] == .string("C:\\path"))
    #expect(work["escaped"] == .string("tab\there é \"q\""))
    #expect(work["list"] == .array([.string("one"), .string("two")]))
    #expect(work["empty"] == .array([]))
    guard case .table(let dotted) = profiles["with.dot"], case .table(let x) = dotted["x"] else {
      Issue.record("dotted profile missing")
      return
    }
    #expect(x["y"] == .string("dotted"))
    #expect(work.entries.first?.position == SourcePosition(line: 8, column: 1))
  }

  @Test func acceptsCRLFAndBOM() throws {
    let root = try TOML.parse("\u{FEFF}a = 1\r\n[t]\r\nb = \"x\"\r\n")
    #expect(root["a"] == .integer(1))
  }

  struct Bad: Sendable, CustomTestStringConvertible {
    var text: String
    var line: Int
    var column: Int
    var fragment: String
    var testDescription: String { fragment }
  }

  @Test(arguments: [
    Bad(text: "a = ", line: 1, column: 5, fragment: "expected a value"),
    Bad(text: "a = 1\nb", line: 2, column: 2, fragment: "expected '='"),
    Bad(text: "a = \"open", line: 1, column: 10, fragment: "unterminated string"),
    Bad(text: "x = 1\nx = 2", line: 2, column: 1, fragment: "defined twice"),
    Bad(text: "[t]\n[t]", line: 2, column: 1, fragment: "defined twice"),
    Bad(text: "a = bare", line: 1, column: 5, fragment: "strings must be quoted"),
    Bad(text: "a = 1.5", line: 1, column: 5, fragment: "not a supported number"),
    Bad(text: "a = 1979-05-27", line: 1, column: 5, fragment: "not a supported number"),
    Bad(text: "a = {b = 1}", line: 1, column: 5, fragment: "inline tables"),
    Bad(text: "[[t]]\n[t.x]", line: 2, column: 1, fragment: "tables under an array of tables"),
    Bad(text: "[[t]]\n[t]", line: 2, column: 1, fragment: "not a table"),
    Bad(text: "[t]\n[[t]]", line: 2, column: 1, fragment: "not an array of tables"),
    Bad(text: "a = [1]\n[[a]]", line: 2, column: 1, fragment: "not an array of tables"),
    Bad(text: "[[t]\na = 1", line: 1, column: 5, fragment: "expected ']]'"),
    Bad(text: "[[t]]\na = 1\na = 2", line: 3, column: 1, fragment: "defined twice"),
    Bad(text: "[[ ]]", line: 1, column: 4, fragment: "expected a key"),
    Bad(text: "a = \"\"\"x\"\"\"", line: 1, column: 5, fragment: "multi-line strings"),
    Bad(text: "a = [1, 2", line: 1, column: 10, fragment: "unterminated array"),
    Bad(text: "a = [1 2]", line: 1, column: 8, fragment: "expected ',' or ']'"),
    Bad(text: "a = 1 b = 2", line: 1, column: 7, fragment: "expected the end of the line"),
    Bad(text: "a = \"\\q\"", line: 1, column: 6, fragment: "invalid escape"),
    Bad(text: "a = 1\na.b = 2", line: 2, column: 1, fragment: "not a table"),
    Bad(text: "[t\na = 1", line: 1, column: 3, fragment: "expected ']'"),
    Bad(text: "a = 0123", line: 1, column: 5, fragment: "not a supported number"),
    Bad(text: "a = 99999999999999999999", line: 1, column: 5, fragment: "not a supported number"),
    // Deep nesting is an error, not a stack overflow.
    // Deep nesting of every kind, counted together, is an error naming the line, not a stack
    // overflow (30000 parts killed both binaries with signal 11).
    Bad(
      text: "a = " + String(repeating: "[", count: 50_000), line: 1, column: 36, fragment: "nested more than 32 deep"),
    Bad(
      text: "x = 1\n" + Array(repeating: "a", count: 30_000).joined(separator: ".") + " = 1", line: 2, column: 1,
      fragment: "nested more than 32 deep"),
    Bad(
      text: "x = 1\n\n[" + Array(repeating: "a", count: 30_000).joined(separator: ".") + "]", line: 3, column: 2,
      fragment: "nested more than 32 deep"),
    Bad(
      text: "[" + Array(repeating: "t", count: 20).joined(separator: ".") + "]\n"
        + Array(repeating: "k", count: 13).joined(separator: ".") + " = 1", line: 2, column: 1,
      fragment: "nested more than 32 deep"),
    Bad(
      text: "[" + Array(repeating: "t", count: 30).joined(separator: ".") + "]\nk = [[[1]]]", line: 2, column: 6,
      fragment: "nested more than 32 deep"),
  ])
  func reportsErrorsWithPosition(_ bad: Bad) {
    do {
      _ = try TOML.parse(bad.text)
      Issue.record("parsed: \(bad.text)")
    } catch {
      #expect(error.position == SourcePosition(line: bad.line, column: bad.column), "\(error.message)")
      #expect(error.message.contains(bad.fragment), "\(error.message)")
    }
  }

  /// Just under the limit parses: 32 levels of tables, keys and arrays together.
  @Test func nestingUpToTheLimitParses() throws {
    _ = try TOML.parse(
      "[" + Array(repeating: "t", count: 20).joined(separator: ".") + "]\n"
        + Array(repeating: "k", count: 12).joined(separator: ".") + " = 1")
    _ = try TOML.parse("[" + Array(repeating: "t", count: 30).joined(separator: ".") + "]\nk = [1]")
    _ = try TOML.parse(Array(repeating: "a", count: 32).joined(separator: ".") + " = 1")
  }
}

/// The writer's quoting and the parser's unescaping (TOMLStrings.swift) agree on every character.
@Suite struct TOMLStringTests {
  @Test func quotedStringsReadBackExactly() throws {
    var samples = ["", "plain", "a\"b\\c", "line\nbreak\r\ttab", "é ünïcode 🔑", "\u{0}\u{1f}\u{7f}\u{80}"]
    samples.append(String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self))
    for text in samples {
      let root = try TOML.parse("k = \(TOMLString.quoted(text))\n\(TOMLString.quoted(text)) = 1\n")
      #expect(root["k"] == .string(text))
      #expect(root.entries.map(\.key).last == text)
    }
  }
}

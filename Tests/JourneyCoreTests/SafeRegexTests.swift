import StrivacityCore
import Testing

@testable import JourneyCore

@Suite struct SafeRegexTests {
  /// Small patterns inside the subset, on which Swift's backtracking Regex is safe to run.
  static let comparedPatterns = [
    "", "a", "ab", "a|b", "a*", "a+", "a?", "a*?", "a+?", "a??", "(a|b)*", "(?:ab)+", "(a|ab)(c|bcd)?",
    "a{2}", "a{1,}", "a{0,2}", "a{1,2}?", "(ab){0,2}", "(a|b){2,3}", "[ab]", "[^a]", "[a-b1]+", "[^ab]*",
    "[a\\-]", "[-a]", "[a-]", ".", ".*", ".+a", "a.b", "\\d", "\\d+", "\\D*", "\\w+", "\\W", "\\s", "\\S+",
    "[\\d ]+", "[^\\s]+", "[\\w ]{1,3}", "\\x61", "\\u0062+", "\\.", "a\\|b", "\\(a\\)", "^a", "b$", "^(a|b)+$",
    "()", "(|a)", "a(|b)b", "(a*)*", "(a|a)*b", "(a+)+", "((a)|b)+", "a\\s?b", "[ab1 ]{3}", "(?:a|b1)+ ?",
    "\\d{1,2} \\w", "(?:(?:a)?b)*",
  ]

  /// Every string of at most three characters over a small alphabet.
  static let comparedInputs: [String] = {
    let alphabet = ["a", "b", "1", " ", "."]
    var all = [""]
    var frontier = [""]
    for _ in 0..<3 {
      frontier = frontier.flatMap { prefix in alphabet.map { prefix + $0 } }
      all += frontier
    }
    return all
  }()

  @Test func agreesWithSwiftRegexOnSmallCases() throws {
    var compared = 0
    for pattern in Self.comparedPatterns {
      let safe = try #require(SafeRegex(pattern), "\(pattern) is inside the subset")
      let reference = try Regex(pattern).matchingSemantics(.unicodeScalar)
      for text in Self.comparedInputs {
        let expected = try reference.wholeMatch(in: text) != nil
        #expect(safe.wholeMatch(text) == expected, "\(pattern) on \(text.debugDescription)")
        compared += 1
      }
    }
    #expect(compared > 5_000)
  }

  /// Patterns and answers where the reference engine's conventions differ from ECMAScript's or
  /// the inputs leave ASCII: spelled out.
  @Test(arguments: [
    ("[^@]+@[^@]+", "a@b", true),
    ("[^@]+@[^@]+", "nope", false),
    ("[^@]+@[^@]+", "a@b@c", false),
    ("\\d{6}", "123456", true),
    ("\\d{6}", "12345", false),
    ("\\d", "٣", false),  // ASCII digits only
    ("\\w+", "héllo", false),  // ASCII word characters only
    ("\\s", "\u{A0}", true),  // ECMAScript white space
    ("\\s", "\u{FEFF}", true),
    ("\\s", "\u{85}", false),
    (".", "\n", false),
    (".", "\r", false),
    (".", "\u{2028}", false),
    (".", "é", true),
    (".", "e\u{301}", false),  // two scalars
    ("..", "e\u{301}", true),
    ("\\u00e9", "é", true),
    ("\\uD83D\\uDE00", "😀", true),  // a surrogate pair is one scalar
    ("[\\uD83D\\uDE00-\\uD83D\\uDE4F]", "😃", true),
    ("\\x41\\t\\n\\r\\f\\v", "A\t\n\r\u{0C}\u{0B}", true),
    ("[\\]\\-\\\\\\/]+", "]-\\/", true),
    ("\\$\\^\\{\\}\\[\\]\\*\\+\\?\\.", "$^{}[]*+?.", true),
    ("a\\$", "a$", true),
    ("a\\$", "a", false),
    ("a\\\\$", "a\\", true),
    ("^$", "", true),
    ("^", "", true),
    ("$", "x", false),
    ("[^a]", "\u{10FFFF}", true),
    ("a{0}", "", true),
    ("a{0}", "a", false),
    ("a{3,}", "aa", false),
    ("a{3,}", "aaaaaaa", true),
    ("(a{2}){3}", "aaaaaa", true),
    ("(a{2}){3}", "aaaaa", false),
    ("[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}", "someone@example.com", true),
    ("[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}", "someone@example", false),
  ])
  func table(_ pattern: String, _ text: String, _ expected: Bool) throws {
    let regex = try #require(SafeRegex(pattern))
    #expect(regex.wholeMatch(text) == expected)
  }

  @Test(arguments: [
    "(a)\\1", "\\1", "\\0", "(?=a)", "(?!a)", "(?<=a)b", "(?<!a)b", "(?<n>a)", "\\k<n>", "(?i)a", "(?i:a)", "\\b",
    "\\B",
    "\\p{L}", "\\cA", "\\u{61}", "\\uZZZZ", "\\u12", "\\x4", "\\q", "\\<", "\\uD800", "\\uDC00", "\\uD800\\u0041",
    "a{", "a{1", "a{,2}", "a{2,1}", "a{1001}", "a{0,1001}", "a{99999999999999999999}", "{1}", "x{a}",
    "(a", "a)", "((a)", "[a", "[]", "[^]", "[[a]]", "[a&&b]", "[b-a]", "[\\d-z]", "[a-\\d]", "]", "}", "a]", "a}",
    "*a", "+", "?", "a**", "a*+", "a++", "a?*", "a{2}{3}", "a*??", "a|*", "(*)", "a^", "a$b", "(^a)", "(a$)", "^^a",
    "a$$", "\\", "a\\", "[\\b]", "[\\1]",
  ])
  func rejectsUnsupportedSyntax(_ pattern: String) {
    #expect(SafeRegex(pattern) == nil, "\(pattern)")
  }

  @Test func boundsOnSize() {
    #expect(SafeRegex(String(repeating: "a", count: 1_000)) != nil)
    #expect(SafeRegex(String(repeating: "a", count: 1_001)) == nil)
    #expect(SafeRegex("a{1000}") != nil)
    #expect(SafeRegex("(a{1000}){1000}") == nil)
    #expect(SafeRegex("((a{1000}){1000}){1000}") == nil)
    #expect(SafeRegex("((((a{1000}){1000}){1000}){1000}){1000}") == nil)
    #expect(SafeRegex("(a|b){0,1000}(c{1000}){30}") == nil)
    #expect(SafeRegex(String(repeating: "(", count: 400) + String(repeating: ")", count: 400)) == nil)
    // Repeating nothing costs nothing, however often.
    let empties = SafeRegex("((((){1000}){1000}){1000}){1000}")
    #expect(empties?.wholeMatch("") == true)
    #expect(empties?.wholeMatch("a") == false)
  }

  /// Exponential for a backtracking engine; one pass here. No timing assertion: returning is the test.
  @Test(arguments: ["(a|a)*b", "(a+)+$", "(a*)*b", "(x+x+)+y", "^(a|aa)+$", "(.*a){20}"])
  func catastrophicPatternsReturn(_ pattern: String) throws {
    let regex = try #require(SafeRegex(pattern))
    let letter: Character = pattern.contains("x") ? "x" : "a"
    for count in [30, 5_000] {
      #expect(!regex.wholeMatch(String(repeating: letter, count: count) + "!"))
    }
  }

  @Test func validatorUsesTheLinearMatcher() {
    func input(_ pattern: String) -> Widget {
      Widget(json: [
        "type": "input", "id": "i", "label": "I", "readonly": false, "validator": ["regex": .string(pattern)],
      ])
    }
    #expect(
      WidgetValidation.problem(input("(a|a)*b"), .string(String(repeating: "a", count: 5_000))) == "Invalid format")
    #expect(WidgetValidation.problem(input("(a|a)*b"), "aab") == nil)
    #expect(WidgetValidation.problem(input("(?=a)b"), "anything") == nil, "not admitted: left to the server")
  }
}

@Suite struct HTMLTextLinearityTests {
  @Test func unclosedAnglesStayText() {
    let angles = String(repeating: "<", count: 20_000)
    #expect(HTMLText.plain(angles) == angles)
    let anchors = String(repeating: "<a ", count: 20_000)
    #expect(HTMLText.plain(anchors) == String(anchors.dropLast()))
    #expect(HTMLText.plain(angles + "x>" + angles) == angles)
  }

  @Test func manyOpenLinksReturn() {
    let count = 5_000
    let html = String(repeating: "<a href=\"u\">", count: count) + String(repeating: "x</a>", count: count)
    let text = HTMLText.plain(html)
    #expect(text.hasPrefix("x (u)x (u)"))
    #expect(text.hasSuffix("x (u)"))
    #expect(
      HTMLText.plain(
        String(repeating: "<a href=\"x\">", count: count) + " x " + String(repeating: "</a>", count: count)) == "x")
    // Text not in NFC (normalised whenever it is compared whole) before many `</a>` and `<p>`.
    let marks = String(repeating: "\u{301}", count: count)
    let unnormalised = HTMLText.plain(
      String(repeating: "<a href=\"u\">", count: count) + "x" + marks + String(repeating: "</a>", count: count))
    #expect(unnormalised.hasSuffix(" (u)"))
    #expect(HTMLText.plain("x" + marks + String(repeating: "<p>", count: count)) == "x" + marks)
  }

  @Test func looksLikeHTMLAgreesWithTheRegex() {
    let samples = [
      "", "plain text", "a < b and c > d", "1 < 2", "<", ">", "<>", "< b>", "<b>", "<B>", "</b>", "<br/>", "<br />",
      "<b/ >", "<b//>", "<1>", "<b1>", "<h1 class=\"x\">", "<a href='u'>t</a>", "<a\nhref=u>", "<a\thref=u>",
      "<a href=<b>", "<a href=\"x\"", "x<y", "<-->", "<!-- c -->", "<é>", "<a\u{301}>", "<a \u{301}>", "<b\u{A0}x>",
      "<b\r\nx>", "</", "</>", "</ b>", "<<b>>", "<a <b>", "&", "&;", "&amp;", "&AMP;", "&amp", "& amp;", "&#;",
      "&#12;", "&#x;", "&#x1F;", "&#X1F;", "&#xg;", "&#12a;", "&a1;", "&&amp;", "&#&#1;", "Tom & Jerry; friends",
      "AT&T;", "&nbsp;", "a&b;c", "&é;", String(repeating: "<a ", count: 2_000), String(repeating: "&#", count: 2_000),
      String(repeating: "<a ", count: 2_000) + ">",
    ]
    for sample in samples {
      let old =
        sample.contains(/<\/?[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?\/?>/)
        || sample.contains(/&(#[0-9]+|#x[0-9a-fA-F]+|[a-z]+);/)
      #expect(HTMLText.looksLikeHTML(sample) == old, "\(sample.prefix(40).debugDescription)")
    }
  }

  @Test func longUnterminatedMarkupReturns() {
    #expect(!HTMLText.looksLikeHTML(String(repeating: "<a ", count: 20_000)))
    #expect(!HTMLText.looksLikeHTML(String(repeating: "&#x1", count: 20_000)))
    #expect(HTMLText.looksLikeHTML(String(repeating: "<a ", count: 20_000) + "<b>"))
  }

  @Test func decodedControlsAreLeftForTheTerminalLayer() {
    #expect(HTMLText.plain("a&#x1b;b") == "a\u{1B}b")
  }
}

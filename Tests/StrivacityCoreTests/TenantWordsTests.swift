// A tenant's words in a failed answer, in each shape it may send them, made inert and bounded.
import StrivacityCore
import Testing

@Suite struct TenantWordsTests {
  @Test func oauthErrorsMessagesPagesAndTextAreQuoted() {
    #expect(
      TenantWords.of(Array(#"{"error":"invalid_client","error_description":"unknown client"}"#.utf8))
        == "invalid_client: unknown client")
    #expect(TenantWords.of(Array(#"{"error":"access_denied"}"#.utf8)) == "access_denied")
    #expect(TenantWords.of(Array(#"{"message":"Tenant is suspended"}"#.utf8)) == "Tenant is suspended")
    #expect(TenantWords.of(Array(#"{"other":1}"#.utf8)) == nil)
    let page = """
      <!doctype html><html><head><title>Invalid redirect URI</title><style>p { color: red }</style></head>
      <body><h1>Invalid redirect URI</h1><script>alert("x")</script>
      <p>The redirect_uri is not registered &amp; was &lt;refused&gt;.</p></body></html>
      """
    #expect(
      TenantWords.of(Array(page.utf8), contentType: "text/html; charset=utf-8")
        == "Invalid redirect URI The redirect_uri is not registered & was <refused>.")
    #expect(TenantWords.of(Array("  Service\\n unavailable \\n".utf8)) == "Service\\n unavailable \\n")
    #expect(TenantWords.of(Array("Service\n  unavailable\n".utf8)) == "Service unavailable")
    #expect(TenantWords.of([]) == nil)
    #expect(TenantWords.of(Array("<html><body></body></html>".utf8)) == nil)
  }

  @Test func hostileWordsAreInertAndBounded() throws {
    let escape = try #require(TenantWords.quoted("\u{1b}]52;c;aGk=\u{07}red\u{1b}[31m\r\nline"))
    #expect(!escape.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f })
    let long = try #require(TenantWords.of(Array(String(repeating: "word ", count: 1000).utf8)))
    #expect(long.count == TenantWords.limit && long.hasSuffix("…"))
    #expect(TenantWords.of(error: "x", description: nil) == "x")
    #expect(TenantWords.of(error: "x", description: "y\nz") == "x: y z")
  }
}

/// Issue 46, point 4: a quotation costs what its bound does, whatever the tenant sends. The
/// times are loose guards against quadratic work (the old code took seconds to minutes on each),
/// not performance goals.
@Suite struct TenantWordsCostTests {
  static let clock = ContinuousClock()
  static let megabyte = 1_048_576

  static func timed(_ work: () -> String?) -> (String?, Duration) {
    var out: String?
    let took = clock.measure { out = work() }
    return (out, took)
  }

  @Test func aMegabyteOfControlsIsCutBeforeItIsMadeInert() throws {
    let clears = String(repeating: "\u{1B}[2J", count: Self.megabyte / 4)
    let (words, took) = Self.timed { TenantWords.quoted(clears) }
    let line = try #require(words)
    #expect(line.count == TenantWords.limit && line.hasSuffix("…") && line.hasPrefix("^[[2J"))
    #expect(took < .seconds(1), "\(took)")
  }

  /// Whole messages and doctor's lines are made inert too: in one pass, and doctor's cut first.
  @Test func makingAMegabyteInertIsOnePass() throws {
    let clears = String(repeating: "\u{1B}[2J", count: Self.megabyte / 4)
    let (inert, took) = Self.timed { TerminalSafe.text(clears, multiline: false) }
    #expect(inert?.utf8.count == Self.megabyte / 4 * 5)
    #expect(took < .seconds(2), "\(took)")
    let (line, cut) = Self.timed { DoctorCheck.line(clears) }
    #expect(line?.count == DoctorCheck.lengthLimit)
    #expect(cut < .seconds(1), "\(cut)")
  }

  @Test func anErrorDescriptionOfMegabytesIsCutWhereItIsRead() throws {
    let body =
      Array(#"{"error":"invalid_grant","error_description":""#.utf8)
      + Array("\\u001b[2J ".utf8).repeated(9 * Self.megabyte / 10) + Array(#""}"#.utf8)
    let (words, took) = Self.timed { TenantWords.of(body) }
    #expect(try #require(words).count <= TenantWords.limit)
    #expect(took < .seconds(10), "\(took)")
  }

  @Test func aPageOfHeadTagsIsReadInOnePass() throws {
    let page = Array(String(repeating: "<head>", count: 65_536 / 6).utf8)
    let (words, took) = Self.timed { TenantWords.of(page, contentType: "text/html") }
    #expect(words == nil)
    #expect(took < .seconds(1), "\(took)")
    #expect(TenantWords.of(Array("<HEAD><title>t</title></Head><header>Hi</header>".utf8)) == "Hi")
  }
}

extension Array {
  fileprivate func repeated(_ times: Int) -> [Element] {
    var out: [Element] = []
    out.reserveCapacity(count * times)
    for _ in 0..<times { out += self }
    return out
  }
}

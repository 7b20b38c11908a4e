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

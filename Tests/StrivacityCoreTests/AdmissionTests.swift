import Testing

@testable import StrivacityCore

// The trust boundary's admission functions, each with the hostile values that reached a sink
// before it existed.
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

@Suite struct AdmissionTests {
  @Test(arguments: [
    "abc", "a.b.c", "A-Z_0~9+/", "abc==", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln",
    String(repeating: "a", count: BearerToken.maxLength),
  ])
  func bearerTokensThatAreAdmitted(_ token: String) throws {
    #expect(try BearerToken(admitting: token).value == token)
  }

  @Test(arguments: [
    "", "x\nurl = http://127.0.0.1:9/\nupload-file = /etc/hostname\nnext\n", "a b", "a\"b", "a\\b", "a'b",
    "a\u{1B}]52;c;aGk=\u{07}",
    "a\r\nX-Injected: 1", "a\0b", "=abc", "ab=c", "tökén", String(repeating: "a", count: BearerToken.maxLength + 1),
  ])
  func bearerTokensThatAreRefused(_ token: String) {
    #expect(throws: AdmissionError.self) { try BearerToken(admitting: token) }
  }

  @Test func refusalsNeverQuoteTheValue() {
    do {
      _ = try BearerToken(admitting: "secret\nvalue")
      Issue.record("admitted")
    } catch {
      #expect(!error.description.contains("secret"))
      #expect(error.description.contains("RFC 6750"))
    }
    #expect("\(BearerToken("abc"))" == "<redacted 3 bytes>")
  }

  @Test func tokenTypes() throws {
    #expect(try Admit.tokenType(nil) == "Bearer")
    #expect(try Admit.tokenType("bearer") == "Bearer")
    #expect(throws: AdmissionError.self) { try Admit.tokenType("Bearer\r\nX-Injected: 1") }
    #expect(throws: AdmissionError.self) { try Admit.tokenType("DPoP") }
  }

  @Test func refreshIDTokensAndScopesAreTypes() throws {
    #expect(try RefreshToken(admitting: "r e f-1").value == "r e f-1")
    #expect(throws: AdmissionError.self) { try RefreshToken(admitting: "r\nx") }
    #expect(try IDToken(admitting: "aGk.aGk.").value == "aGk.aGk.")
    #expect(throws: AdmissionError.self) { try IDToken(admitting: "a.b c.d") }
    #expect(try Scope(admitting: "openid profile").value == "openid profile")
    #expect(throws: AdmissionError.self) { try Scope(admitting: "a  b") }
    #expect("\(RefreshToken("rt-SECRET"))" == "<redacted 9 bytes>" && "\(IDToken("a.b.c"))" == "<redacted 5 bytes>")
    #expect(HTTPHeader.authorization("at.1") == HTTPHeader("Authorization", "Bearer at.1"))
  }

  @Test func refreshIDTokensAndScopes() throws {
    #expect(try Admit.refreshToken("r e f-1") == "r e f-1")
    #expect(throws: AdmissionError.self) { try Admit.refreshToken("r\nx") }
    #expect(throws: AdmissionError.self) { try Admit.refreshToken("") }
    #expect(try Admit.idToken("aGk.aGk.aGk") == "aGk.aGk.aGk")
    #expect(try Admit.idToken("aGk.aGk.") == "aGk.aGk.")
    for bad in ["aGk.aGk", "aGk.aGk.aGk.aGk", "a\n.b.c", "a.b.c d", ".b.c"] {
      #expect(throws: AdmissionError.self) { try Admit.idToken(bad) }
    }
    #expect(try Admit.scope("openid profile offline_access") == "openid profile offline_access")
    for bad in ["openid\u{1B}[2J", "a  b", "a\"b", " a", "a\\b"] {
      #expect(throws: AdmissionError.self) { try Admit.scope(bad) }
    }
  }

  @Test func numbersFromTheTenant() throws {
    #expect(try Admit.lifetime(nil) == nil)
    #expect(try Admit.lifetime(.null) == nil)
    #expect(try Admit.lifetime(.number(3600)) == 3600)
    #expect(try Admit.lifetime(.number(59.9)) == 59)
    #expect(try Admit.lifetime(.string("3600")) == 3600)
    for bad: JSONValue in [
      .number(1e300), .number(-5), .number(.infinity), .number(.nan), .string("1e3"), .string("-1"), .string(""),
      .bool(true),
    ] {
      #expect(throws: AdmissionError.self) { try Admit.lifetime(bad) }
    }
    #expect(try Admit.time(.string("1795363532"), what: "expires_at") == 1_795_363_532)
    #expect(try Admit.time(nil, what: "expires_at") == nil)
    for bad: JSONValue in [.number(-1), .number(1e300), .string("1e3"), .string("253402300800"), .bool(true)] {
      #expect(throws: AdmissionError.self) { try Admit.time(bad, what: "expires_at") }
    }
    #expect(try Admit.unixTime(.number(1_795_363_532), what: "exp") == 1_795_363_532)
    for bad: JSONValue? in [nil, .number(1e300), .number(-1), .number(.infinity), .string("1")] {
      #expect(throws: AdmissionError.self) { try Admit.unixTime(bad, what: "exp") }
    }
  }

  @Test func numbersFromTheEnvironment() throws {
    #expect(try Admit.seconds("2.5", in: 0.1...3600, what: "T") == 2.5)
    for bad in ["inf", "1e300", "nan", "-1", "0.05", "3601", "", "0x10", " 5"] {
      #expect(throws: AdmissionError.self) { try Admit.seconds(bad, in: 0.1...3600, what: "T") }
    }
  }

  @Test func storedSetsAreAdmittedAgain() throws {
    func stored(_ access: String, type: String = "Bearer") -> [UInt8] {
      let object: JSONValue = [
        "v": 1, "tokens": ["access_token": .string(access), "token_type": .string(type), "obtained_at": 1],
      ]
      return object.serialized()
    }
    #expect(try TokenSet.decode(stored("good"), source: "test").accessToken.value == "good")
    for (access, type) in [("x\nurl = http://evil/", "Bearer"), ("ok", "Bearer\r\nX: 1")] {
      #expect(throws: StoreError.self) { try TokenSet.decode(stored(access, type: type), source: "test") }
    }
  }
}

@Suite struct TerminalSafeTests {
  let hostile = "name\u{1B}]52;c;aGk=\u{07}\u{1B}[2J\u{1B}]0;pwned\u{07}\u{1B}[31m\u{202E}\u{9B}31m\u{7F}"

  @Test func outsideTextLosesEveryControl() {
    let safe = TerminalSafe.text(hostile)
    #expect(!safe.unicodeScalars.contains { TerminalSafe.isUnsafe($0) })
    #expect(safe == "name^[]52;c;aGk=^G^[[2J^[]0;pwned^G^[[31m<U+202E><U+009B>31m^?")
    #expect(TerminalSafe.text("a\r\nb\nc\td") == "a\nb\nc\td")
    #expect(TerminalSafe.text("a\nb", multiline: false) == "a^Jb")
    #expect(TerminalSafe.text("fake\rprompt") == "fake^Mprompt")
    #expect(TerminalSafe.text("plain ünïcødé 日本") == "plain ünïcødé 日本")
  }

  @Test func theSinkKeepsOnlyOwnStyling() {
    let own = "\u{1B}[1mbold\u{1B}[0m \u{1B}[31mred\u{1B}[0m\u{1B}[K"
    #expect(TerminalSafe.sink(own) == own)
    let out = TerminalSafe.sink(own + hostile)
    #expect(out.hasPrefix(own))
    // Of the hostile part, only an exact own sequence (the SGR red) survives the sink: which is
    // why tenant text is also made inert where it enters (TerminalSafe.text), red included.
    #expect(!out.contains("\u{1B}]"))
    #expect(!out.contains("\u{1B}[2J"))
    #expect(!out.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E || $0.value == 0x07 })
  }
}

@Suite struct BrowserURLTests {
  let tenant = Origin(scheme: "https", host: "t.example", port: 443)

  @Test(arguments: ["https://t.example/provider/flow?x=1", "https://t.example:443/a", "HTTPS://T.EXAMPLE/a"])
  func admitted(_ url: String) throws {
    #expect(try BrowserURL(admitting: url, origin: tenant).value == url)
  }

  @Test(arguments: [
    "file:///etc/passwd", "--new-window=https://evil.example/", "-https://t.example/", "javascript:alert(1)",
    "https://evil.example/provider/flow", "https://t.example:8443/a", "http://t.example/a",
    "https://t.example/a --argument",
    "https://t.example/a\n", "https://evil@t.example/", "https://t.example@evil.example/", "x-handler://t.example/", "",
    "https://evil.example\\.t.example/", "https://t.example/provide--\\x=1",
  ])
  func refused(_ url: String) {
    #expect(throws: AdmissionError.self) { try BrowserURL(admitting: url, origin: tenant) }
  }

  @Test func loopbackTenantsMayUseHTTP() throws {
    let local = Origin(scheme: "http", host: "127.0.0.1", port: 8400)
    #expect(try BrowserURL(admitting: "http://127.0.0.1:8400/provider/flow", origin: local).value.hasPrefix("http://"))
    #expect(throws: AdmissionError.self) {
      try BrowserURL(admitting: "http://127.0.0.1:8401/provider/flow", origin: local)
    }
  }

  @Test func originsCompareSchemeHostAndPort() {
    #expect(URLParts("https://t.example/x")?.origin == URLParts("https://T.example:443/y")?.origin)
    #expect(URLParts("https://t.example/x")?.origin != URLParts("https://t.example:8443/x")?.origin)
    #expect(URLParts("https://t.example/x")?.origin != URLParts("http://t.example/x")?.origin)
    #expect("\(URLParts("https://t.example:8443/x")!.origin)" == "https://t.example:8443")
  }
}

@Suite struct NestingTests {
  @Test func deeplyNestedJSONIsNotJSONToUs() {
    // The decoder's own depth limit answers; no stack overflow whatever the depth.
    for depth in [600, 100_000] {
      let text = "{\"x\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
      #expect(JSONValue.parse(text) == nil, "depth \(depth)")
    }
    let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
    #expect(JSONValue.parse(fine) != nil)
  }
}

/// A sign-in's step-up parameters, from the command line or an API's challenge (RFC 9470).
@Suite struct StepUpAdmissionTests {
  @Test func acrValuesAreBoundedScopeTokens() throws {
    #expect(try Admit.acrValues("mfa") == "mfa")
    #expect(try Admit.acrValues("urn:mace:incommon:iap:silver phr") == "urn:mace:incommon:iap:silver phr")
    let many = (1...17).map { "a\($0)" }.joined(separator: " ")
    for bad in [
      "", " mfa", "mfa ", "a  b", "a\"b", "\u{1b}[31m", "m\u{e9}", many, String(repeating: "a", count: 1025),
    ] {
      #expect(throws: AdmissionError.self, "\(bad.debugDescription)") { try Admit.acrValues(bad) }
    }
  }

  @Test func maxAgeIsZeroToTenYears() throws {
    #expect(try Admit.maxAge(0) == 0)
    #expect(try Admit.maxAge(Admit.maxAgeLimit) == Admit.maxAgeLimit)
    for bad in [-1, Admit.maxAgeLimit + 1, Int.max, Int.min] {
      #expect(throws: AdmissionError.self) { try Admit.maxAge(bad) }
    }
  }
}

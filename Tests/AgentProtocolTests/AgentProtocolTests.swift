// The agent's socket protocol (AgentProtocol, AgentMessage): frames, lines, and token answers.
import Agent
import StrivacityConfig
import StrivacityCore
import Testing

@Suite struct AgentProtocolTests {
  func decode(_ text: String) throws(AgentProtocolError) -> AgentMessage {
    try AgentMessage(decoding: Array(text.utf8)[...])
  }

  /// An API's request is its own op (an agent that does not know it refuses it, never answers
  /// it as `token`), and its target reads back as it was written, admitted again.
  @Test func anAPIsTargetReadsBackAsItWasWritten() throws {
    let adHoc = try AdHocTarget(audience: "aud", resources: ["x:1", "x:2"], scopes: ["b", "a"])
    let targets: [AgentTokenTarget] = [
      .signIn, .api("orders", extraScopes: []), .api("orders", extraScopes: [try Scope(admitting: "w")]), .adHoc(adHoc),
    ]
    for target in targets {
      let request = try #require(
        AgentClient.tokenRequest(
          profile: "p", freshness: Freshness(seconds: 60, explicit: false), idToken: false, configPath: "/c",
          environment: [:], target: target))
      #expect(request["op"] == (target == .signIn ? "token" : "api-token"))
      let frame = AgentProtocol.frame(request)
      #expect(try AgentTokenTarget(request: try AgentMessage(decoding: frame.dropFirst(4))) == target)
    }
    for text in [
      "v=1\nop=api-token\napi=../x\n", "v=1\nop=api-token\n", "v=1\nop=api-token\naudience=a b\n",
      "v=1\nop=api-token\napi=a\nscope.0=two words\n", "v=1\nop=api-token\napi=a\naudience=b\n", "v=1\nop=ping\n",
    ] {
      #expect(throws: AgentProtocolError.self, "\(text)") { try AgentTokenTarget(request: try decode(text)) }
    }
  }

  @Test func aRequestReadsBackAsItWasWritten() throws {
    var request = AgentMessage()
    do { let added = request.set("op", "token"); #expect(added) }
    do { let added = request.set("env.HOME", "/home/u = x"); #expect(added) }
    let frame = AgentProtocol.frame(request)
    #expect(AgentProtocol.payloadLength(Array(frame.prefix(4))) == frame.count - 4)
    #expect(String(decoding: frame.dropFirst(4), as: UTF8.self) == "v=1\nop=token\nenv.HOME=/home/u = x\n")
    #expect(try AgentMessage(decoding: frame.dropFirst(4)) == request)
  }

  @Test(arguments: [
    ("", "empty"), ("v=1", "does not end a line"), ("op=ping\n", "not version"), ("v=2\n", "not version"),
    ("v=1\nop\n", "not name=value"), ("v=1\nop=a\nop=b\n", "repeated"), ("v=1\nbad name=x\n", "malformed"),
    ("v=1\nv=1\n", "malformed"), ("v=1\n\n", "not name=value"),
  ])
  func malformedMessagesAreRefusedWhole(text: String, reason: String) {
    #expect(throws: AgentProtocolError.self) { try decode(text) }
    #expect((try? decode(text)) == nil, "\(reason)")
  }

  @Test func valuesThatWouldBreakALineAreNotSent() {
    var message = AgentMessage()
    do { let added = message.set("message", "two\nlines"); #expect(!added) }
    do { let added = message.set("message", "a\rb"); #expect(!added) }
    do { let added = message.set("message", "nul\0"); #expect(!added) }
    do { let added = message.set("v", "2"); #expect(!added) }
    do { let added = message.set("", "x"); #expect(!added) }
    #expect(message.fields.isEmpty)
    let refusal = AgentMessage.refusal(status: .signInRequired, message: "line one\nline two")
    #expect(refusal["message"] == "line one line two")
    #expect(refusal.status == 3)
  }

  @Test func frameHeadersOverTheLimitAreRefused() {
    #expect(AgentProtocol.payloadLength([0, 1, 0, 0]) == 65_536)
    #expect(AgentProtocol.payloadLength([0, 1, 0, 1]) == nil)
    #expect(AgentProtocol.payloadLength([0xFF, 0xFF, 0xFF, 0xFF]) == nil)
    #expect(AgentProtocol.payloadLength([0, 0, 1]) == nil)
  }

  @Test func aTokenAnswerCarriesNoRefreshTokenAndIsAdmitted() throws {
    let tokens = TokenSet(
      accessToken: try BearerToken(admitting: "at-1"), refreshToken: "rt-secret", idToken: "h.p.s", scope: "openid",
      expiresAt: 1_700_003_600, obtainedAt: 1_700_000_000)
    let answer = AgentMessage.answer(tokens, includeIDToken: false)
    #expect(answer["refresh_token"] == nil && answer["id_token"] == nil)
    var expected = tokens
    expected.refreshToken = nil
    expected.idToken = nil
    #expect(answer.tokenSet == expected)
    #expect(AgentMessage.answer(tokens, includeIDToken: true).tokenSet?.idToken == "h.p.s")
    // A token that would break a header line, or times that are not times: no tokens at all.
    for (name, value) in [
      ("access_token", "a b"), ("expires_at", "-1"), ("obtained_at", "1e9"), ("token_type", "Bearer\u{7}"),
    ] {
      var forged = AgentMessage()
      forged.set("status", "0")
      for field in answer.fields where field.name != "status" {
        forged.set(field.name, field.name == name ? value : field.value)
      }
      if answer[name] == nil { forged.set(name, value) }
      #expect(forged.tokenSet == nil, "\(name)=\(value)")
    }
    #expect(AgentMessage.refusal(status: .signInRequired, message: "no").tokenSet == nil)
  }
}

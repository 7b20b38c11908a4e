import StrivacityConfig
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct CargoProtocolTests {
  func parse(_ text: String) throws(CargoParseError) -> CargoRequest { try CargoProtocol.parse(Array(text.utf8)) }

  @Test func parsesWhatCargoSends() throws {
    let request = try parse(
      #"{"v":1,"registry":{"index-url":"sparse+https://r.example.com/index/","name":"internal","#
        + #""headers":["HTTP/1.1 401","#
        + #""www-authenticate: Bearer error=\"insufficient_scope\", scope=\"crates:read\""]},"#
        + #""kind":"get","operation":"read","args":["--profile","work"],"extra":true}"#)
    #expect(request.kind == .get(operation: "read"))
    #expect(request.indexURL == "sparse+https://r.example.com/index/" && request.name == "internal")
    let invocation = try CargoInvocation(request: request)
    #expect(invocation.profile == "work")
    #expect(invocation.registryURL == "https://r.example.com/index/")
    #expect(invocation.challenge == .scopes([try Scope(admitting: "crates:read")]))
    #expect(try parse(#"{"v":1,"registry":{"index-url":"x"},"kind":"logout"}"#).kind == .logout)
    #expect(try parse(#"{"v":1,"registry":{"index-url":"x"},"kind":"new"}"#).kind == .other("new"))
  }

  @Test func refusesWhatIsNotCargos() {
    #expect(throws: CargoParseError.notJSON) { try parse("get") }
    #expect(throws: CargoParseError.notJSON) { try parse("[1]") }
    #expect(throws: CargoParseError.unsupportedVersion) { try parse(#"{"v":2,"registry":{"index-url":"x"}}"#) }
    #expect(throws: CargoParseError.tooLarge) { try parse(String(repeating: " ", count: CargoProtocol.maxLine + 1)) }
    #expect(throws: CargoParseError.self) { try parse(#"{"v":1,"registry":{"index-url":7},"kind":"get"}"#) }
    #expect(throws: CargoParseError.self) { try parse(#"{"v":1,"registry":{"index-url":"x"},"kind":"get"}"#) }
    #expect(throws: CargoParseError.self) {
      try parse(#"{"v":1,"registry":{"index-url":"x"},"kind":"get","operation":"read","args":[1]}"#)
    }
    #expect(throws: AdmissionError.self) {
      try CargoInvocation(request: CargoRequest(kind: .get(operation: "read"), indexURL: "x", args: ["--config", "y"]))
    }
  }

  @Test func answersAreOneJSONLineOfTheProtocolsShape() throws {
    let token = try BearerToken(admitting: "abc.def")
    #expect(
      CargoProtocol.tokenAnswer(token, expiresAt: 1_700_000_000)
        == #"{"Ok":{"cache":"expires","expiration":1700000000,"kind":"get","operation_independent":true,"#
        + #""token":"Bearer abc.def"}}"# + "\n")
    #expect(CargoProtocol.errorAnswer(.urlNotSupported) == #"{"Err":{"kind":"url-not-supported"}}"# + "\n")
    let other = CargoProtocol.errorAnswer(.other, message: "bad\u{1b}[2J\nline")
    #expect(!other.dropLast().contains("\n") && !other.contains("\u{1b}"))
  }

  @Test func theRegistryURLIsDecidedAsCurlsURLsAre() throws {
    var profile = Profile(name: "work")
    profile.hosts = [try HostEntry(admitting: "r.example.com")]
    profile.apis = [API(name: "crates", url: try HostEntry(admitting: "https://api.example.com/crates/"))]
    func decision(_ url: String) throws -> CargoInvocation.Decision {
      try CargoInvocation(request: CargoRequest(kind: .get(operation: "read"), indexURL: url))
        .decision(for: profile, tenant: "https://t.example.com")
    }
    #expect(try decision("sparse+https://r.example.com/index/") == .token(api: nil))
    #expect(try decision("sparse+https://api.example.com/crates/index/") == .token(api: profile.apis[0]))
    #expect(try decision("sparse+https://index.crates.io/") == .notOurs)
    #expect(try decision("ssh://git@r.example.com/index.git") == .notOurs)
    #expect(try decision("sparse+https://api.example.com/other/") == .notOurs)
    for hostile in [
      "sparse+https://user:pw@r.example.com/index/", "sparse+https://r.example.com/a/%2e%2e/b/",
      "sparse+https://r.example.com/a/..;x/",
    ] {
      guard case .refused = try decision(hostile) else {
        Issue.record("\(hostile) is not refused")
        continue
      }
    }
  }

  /// Index URLs that look like the profile's places but are not (issue 46's controls): none gets
  /// a token, each is "not ours" or refused.
  @Test func lookalikeIndexURLsGetNoToken() throws {
    var profile = Profile(name: "work")
    profile.hosts = [try HostEntry(admitting: "r.example.com")]
    profile.apis = [API(name: "crates", url: try HostEntry(admitting: "https://api.example.com/crates/"))]
    for url in [
      "sparse+https://r.example.com.evil.net/index/", "sparse+https://evil-r.example.com/index/",
      "sparse+https://r.example.co/index/", "sparse+http://r.example.com/index/",
      "sparse+https://r.example.com:8443/index/", "sparse+https://api.example.com/crates-evil/index/",
      "sparse+https://api.example.com/cratesx/", "sparse+https://api.example.com.evil.net/crates/",
      "sparse+https://xr.example.com/index/",
    ] {
      let decision = try CargoInvocation(request: CargoRequest(kind: .get(operation: "read"), indexURL: url))
        .decision(for: profile, tenant: "https://t.example.com")
      if case .token = decision { Issue.record("\(url) got a token") }
    }
  }
}

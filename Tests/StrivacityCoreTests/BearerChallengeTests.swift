import StrivacityCore
import Testing

@Suite struct BearerChallengeTests {
  func admitted(_ values: String...) throws -> BearerChallenge? { try BearerChallenge.admit(values) }

  @Test func readsEachDemand() throws {
    let expired = try #require(try admitted(#"Bearer realm="orders", error="invalid_token", error_description="x""#))
    #expect(expired.demand == .newToken)
    let scope = try #require(try admitted(#"Bearer error="insufficient_scope", scope="orders:read orders:write""#))
    #expect(scope.demand == .scopes([try Scope(admitting: "orders:read"), try Scope(admitting: "orders:write")]))
    let stepUp = try #require(
      try admitted(#"Bearer error="insufficient_user_authentication", acr_values="mfa phr", max_age=60"#))
    #expect(stepUp.demand == .stepUp(acrValues: "mfa phr", maxAge: 60))
    let metadata = try #require(
      try admitted(#"Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/v1""#))
    #expect(metadata.demand == .nothing)
    #expect(metadata.resourceMetadata == "https://api.example.com/.well-known/oauth-protected-resource/v1")
  }

  @Test func findsBearerAmongOtherChallenges() throws {
    let both = try #require(try admitted(#"Basic realm="x", Negotiate abc123==, Bearer error=invalid_token"#))
    #expect(both.error == "invalid_token")
    #expect(try admitted(#"Basic realm="x""#) == nil)
    #expect(try admitted("Negotiate", #"bearer error="insufficient_scope", scope=a"#)?.scopes.count == 1)
    // A quoted comma and an escaped quote are inside the value.
    let quoted = try #require(try admitted(#"Bearer error_description="a, \"b\"", error="invalid_token""#))
    #expect(quoted.error == "invalid_token")
    // `error=` alone is a token68 (RFC 9110), not a parameter: a challenge with no demand.
    #expect(try admitted("Bearer error=")?.demand == .nothing)
  }

  /// The hostile shapes the issue names: each refused whole (so nothing is retried), none
  /// crashes, and no message carries the header's bytes.
  @Test func refusesHostileHeaders() throws {
    let huge = "Bearer error=\"insufficient_scope\", scope=\"" + String(repeating: "a", count: 64 * 1024) + "\""
    let many = "Bearer " + (0..<1000).map { "p\($0)=v" }.joined(separator: ", ")
    let hostile = [
      huge,
      #"Bearer error="invalid_token, scope="a"#,  // unterminated
      many,
      "Bearer error=\"invalid_token\", error_description=\"\u{1B}]0;pwned\u{07}\"",
      "Bearer error=\"insufficient_scope\", scope=\"a\u{1B}[2Jb\"",
      "Bearer error=\"insufficient_scope\", scope=\"a\u{0}b\"",
      #"Bearer error="insufficient_scope", scope="a  b""#,
      #"Bearer error="insufficient_scope", scope="caf\#u{E9}""#,
      #"Bearer error=invalid_token, error=insufficient_scope"#,
      #"Bearer error="insufficient_user_authentication", max_age="-1""#,
      #"Bearer error="insufficient_user_authentication", max_age="99999999999""#,
      #"Bearer error="insufficient_user_authentication", acr_values="""#,
      #"Bearer resource_metadata="http://evil.example.com/.well-known/oauth-protected-resource""#,
      #"Bearer resource_metadata="https://user@evil.example.com/x""#,
      #"Bearer resource_metadata="file:///etc/passwd""#,
      #"Bearer error=invalid_token, Bearer error=insufficient_scope"#,
      #"Bearer error="invalid_token" scope="a""#,  // no comma
      "Bearer =x",
    ]
    for header in hostile {
      #expect(throws: AdmissionError.self, "\(header.prefix(80))") { try BearerChallenge.admit([header]) }
      if let error = try? BearerChallenge.admit([header]) { Issue.record("admitted: \(String(describing: error))") }
      do {
        _ = try BearerChallenge.admit([header])
      } catch {
        #expect(!error.description.contains("\u{1B}") && error.description.utf8.count < 200)
      }
    }
  }

  @Test func scopesOnTheLimitPass() throws {
    let scopes = (0..<BearerChallenge.maxScopes).map { "s\($0)" }.joined(separator: " ")
    let challenge = try #require(try admitted("Bearer error=insufficient_scope, scope=\"\(scopes)\""))
    #expect(challenge.scopes.count == BearerChallenge.maxScopes)
    #expect(throws: AdmissionError.self) {
      try BearerChallenge.admit(["Bearer error=insufficient_scope, scope=\"\(scopes) one-more\""])
    }
  }

  @Test func wellKnownURLInsertsTheSuffixAfterTheHost() {
    #expect(
      ResourceMetadata.wellKnownURL(for: "https://api.example.com/orders/")
        == "https://api.example.com/.well-known/oauth-protected-resource/orders/")
    #expect(
      ResourceMetadata.wellKnownURL(for: "https://api.example.com/")
        == "https://api.example.com/.well-known/oauth-protected-resource")
    #expect(
      ResourceMetadata.wellKnownURL(for: "http://127.0.0.1:8080/resources/orders/")
        == "http://127.0.0.1:8080/.well-known/oauth-protected-resource/resources/orders/")
    #expect(ResourceMetadata.wellKnownURL(for: "http://api.example.com/") == nil)
    #expect(ResourceMetadata.wellKnownURL(for: "https://u@api.example.com/") == nil)
  }

  @Test func metadataIsAdmittedOnlyForThisIssuerAndThisURL() throws {
    let issuer = "https://tenant.example.com"
    func doc(_ servers: String, resource: String = "https://api.example.com/orders/") -> [UInt8] {
      Array(
        #"{"resource":"\#(resource)","authorization_servers":\#(servers),"scopes_supported":["orders:read"],"#
          .utf8) + Array(#""resource_name":"orders"}"#.utf8)
    }
    let good = try ResourceMetadata.admit(
      doc(#"["https://tenant.example.com"]"#), requestURL: "https://api.example.com/orders/1", issuer: issuer)
    #expect(good.scopesSupported.map(\.value) == ["orders:read"])
    #expect(good.name == "orders")
    do {
      _ = try ResourceMetadata.admit(
        doc(#"["https://evil.example.com"]"#), requestURL: "https://api.example.com/orders/1", issuer: issuer)
      Issue.record("another authorization server was accepted")
    } catch {
      #expect(error.description.contains("https://evil.example.com"))
    }
    #expect(throws: AdmissionError.self) {
      try ResourceMetadata.admit(
        doc(#"["https://tenant.example.com"]"#), requestURL: "https://api.example.com/billing/1", issuer: issuer)
    }
    #expect(throws: AdmissionError.self) {
      try ResourceMetadata.admit(
        doc(#"["https://tenant.example.com"]"#, resource: "https://api.example.com/orders/#x"),
        requestURL: "https://api.example.com/orders/1", issuer: issuer)
    }
    #expect(throws: AdmissionError.self) {
      try ResourceMetadata.admit(
        Array(repeating: 0x20, count: ResourceMetadata.maxBytes + 1), requestURL: "https://a.example/", issuer: issuer)
    }
  }
}

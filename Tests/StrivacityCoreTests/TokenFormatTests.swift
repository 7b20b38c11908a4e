import Testing
@testable import StrivacityCore

@Suite struct TokenFormatTests {
  let tokens = TokenSet(accessToken: "at.value", idToken: "id.value", scope: "openid profile", expiresAt: 1_795_363_532, obtainedAt: 1_795_359_932)
  /// 215 s after the set was obtained: `env` says what is left, not the lifetime.
  let now: Int64 = 1_795_360_147

  @Test(arguments: [
    (Int64(0), "1970-01-01T00:00:00Z"), (951_782_400, "2000-02-29T00:00:00Z"), (1_795_363_532, "2026-11-22T16:05:32Z"),
    (4_102_444_799, "2099-12-31T23:59:59Z"), (-1, "1969-12-31T23:59:59Z"),
  ])
  func rfc3339(_ seconds: Int64, _ text: String) {
    #expect(RFC3339.format(seconds) == text)
  }

  @Test func everyFormat() {
    func render(_ format: TokenFormat, id: Bool = false) -> String {
      format.render(token: id ? "id.value" : "at.value", tokens: tokens, profile: "work", idToken: id, now: now)
    }
    #expect(render(.raw) == "at.value\n")
    #expect(render(.header) == "Authorization: Bearer at.value\n")
    #expect(render(.json) == #"{"access_token":"at.value","expires_at":"2026-11-22T16:05:32Z","profile":"work","scope":"openid profile","token_type":"Bearer"}"# + "\n")
    #expect(render(.env) == """
      STRIVACITY_ACCESS_TOKEN='at.value'
      STRIVACITY_TOKEN_EXPIRES_AT='2026-11-22T16:05:32Z'
      STRIVACITY_TOKEN_EXPIRES_IN=3385
      export STRIVACITY_ACCESS_TOKEN STRIVACITY_TOKEN_EXPIRES_AT STRIVACITY_TOKEN_EXPIRES_IN

      """)
    #expect(render(.curl) == "header = \"Authorization: Bearer at.value\"\n")
    #expect(render(.execCredential) == #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"expirationTimestamp":"2026-11-22T16:05:32Z","token":"at.value"}}"# + "\n")
    #expect(render(.raw, id: true) == "id.value\n")
    #expect(render(.json, id: true) == #"{"id_token":"id.value","profile":"work"}"# + "\n")
    #expect(render(.env, id: true) == "STRIVACITY_ID_TOKEN='id.value'\nexport STRIVACITY_ID_TOKEN\n")
  }

  @Test func quotingIsSafe() {
    #expect(TokenFormat.env.shellQuote("a'b") == "'a'\\''b'")
  }
}

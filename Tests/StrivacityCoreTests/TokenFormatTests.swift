import Testing

@testable import StrivacityCore

@Suite struct TokenFormatTests {
  let tokens = TokenSet(
    accessToken: "at.value", idToken: "id.value.sig", scope: "openid profile",
    expiresAt: 1_795_363_532, obtainedAt: 1_795_359_932)
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
    func render(_ format: TokenOutput, id: Bool = false) -> String {
      TokenRenderer.text(
        id ? "id.value" : "at.value", of: tokens, to: .stdout(format, profile: "work", idToken: id, now: now))
    }
    #expect(render(.raw) == "at.value\n")
    #expect(render(.header) == "Authorization: Bearer at.value\n")
    #expect(
      render(.json)
        == #"{"access_token":"at.value","expires_at":"2026-11-22T16:05:32Z","profile":"work","scope":"openid "#
        + #"profile","token_type":"Bearer"}"#
        + "\n")
    #expect(
      render(.env) == """
        STRIVACITY_ACCESS_TOKEN='at.value'
        STRIVACITY_TOKEN_EXPIRES_AT='2026-11-22T16:05:32Z'
        STRIVACITY_TOKEN_EXPIRES_IN=3385
        export STRIVACITY_ACCESS_TOKEN STRIVACITY_TOKEN_EXPIRES_AT STRIVACITY_TOKEN_EXPIRES_IN

        """)
    #expect(render(.curl) == "header = \"Authorization: Bearer at.value\"\n")
    #expect(
      render(.execCredential(ExecCredentialInfo()))
        == #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","#
        + #""status":{"expirationTimestamp":"2026-11-22T16:05:32Z","token":"at.value"}}"#
        + "\n")
    #expect(render(.raw, id: true) == "id.value\n")
    #expect(render(.json, id: true) == #"{"id_token":"id.value","profile":"work"}"# + "\n")
    #expect(render(.env, id: true) == "STRIVACITY_ID_TOKEN='id.value'\nexport STRIVACITY_ID_TOKEN\n")
  }

  @Test func quotingIsSafe() {
    #expect(TokenRenderer.shellQuote("a'b") == "'a'\\''b'")
  }
}

@Suite struct ExecCredentialInfoTests {
  func info(_ text: String?) throws(AdmissionError) -> ExecCredentialInfo {
    try ExecCredentialInfo.from(text.map { ["KUBERNETES_EXEC_INFO": $0] } ?? [:])
  }

  @Test func kubectlsTwoVersionsAndInteractivityAreRead() throws {
    #expect(try info(nil) == ExecCredentialInfo(apiVersion: ExecCredentialInfo.v1, interactive: nil))
    #expect(try info("") == ExecCredentialInfo())
    #expect(
      try info(#"{"apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#).interactive == false)
    let beta = try info(
      #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{"interactive":true}}"#)
    #expect(beta == ExecCredentialInfo(apiVersion: ExecCredentialInfo.v1beta1, interactive: true, fromKubectl: true))
    #expect(try info(#"{"apiVersion":"client.authentication.k8s.io/v1","spec":{}}"#).interactive == nil)
  }

  @Test(arguments: [
    #"{"apiVersion":"client.authentication.k8s.io/v2"}"#, #"{"spec":{}}"#, "{", "[]", #"{"apiVersion":1}"#,
    #"{"apiVersion":"client.authentication.k8s.io/v1\u001b[31m"}"#,
  ])
  func anythingElseIsRefusedWithWhatStrivacitySpeaks(text: String) {
    #expect(throws: AdmissionError.self) { try info(text) }
    do {
      _ = try info(text)
    } catch {
      #expect(
        error.description.contains("KUBERNETES_EXEC_INFO") || error.description.contains(ExecCredentialInfo.v1beta1))
      #expect(!error.description.contains("\u{1B}"), "no escape reaches the message")
    }
  }

  @Test func theCredentialIsInTheVersionAsked() throws {
    let tokens = TokenSet(
      accessToken: try BearerToken(admitting: "at"), expiresAt: 1_700_000_000, obtainedAt: 1_699_996_400)
    for version in ExecCredentialInfo.versions {
      let text = TokenRenderer.text(
        tokens.accessToken, of: tokens,
        to: .stdout(.execCredential(ExecCredentialInfo(apiVersion: version)), profile: "p", now: 1_699_996_400))
      #expect(JSONValue.parse(text)?["apiVersion"]?.string == version)
      #expect(JSONValue.parse(text)?["status"]?["expirationTimestamp"]?.string == "2023-11-14T22:13:20Z")
    }
  }
}

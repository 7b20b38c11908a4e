// TokenRenderer, the one place a token becomes bytes: every format at every destination that
// holds it, byte for byte as strivacity has always written it (stdout's line break, a kept
// file's bare token and short json, exec's variable), and nothing but an admitted token.
import Testing

@testable import StrivacityCore

@Suite struct TokenRendererTests {
  /// Every character a bearer token may have, so that nothing is escaped anywhere.
  static let token: BearerToken = "eyJ0.a-b_c~d+e/f=="
  static let idToken: BearerToken = "id.value.sig"
  let tokens = TokenSet(
    accessToken: token, idToken: "id.value.sig", scope: "openid profile", expiresAt: 1_795_363_532,
    obtainedAt: 1_795_359_932)
  /// A set whose server said neither expiry nor scope.
  let bare = TokenSet(accessToken: token, obtainedAt: 1_795_359_932)
  /// 215 s after the set was obtained: `env` says what is left.
  let now: Int64 = 1_795_360_147

  func text(_ tokens: TokenSet, _ destination: TokenRenderer.Destination, id: Bool = false) -> String {
    let token = id ? Self.idToken : Self.token
    let bytes = TokenRenderer.render(token, of: tokens, to: destination)
    #expect(bytes == Array(TokenRenderer.text(token, of: tokens, to: destination).utf8), "render and text agree")
    return String(decoding: bytes, as: UTF8.self)
  }

  func stdout(_ format: TokenFormat, id: Bool = false, exec: String = ExecCredentialInfo.v1)
    -> TokenRenderer.Destination
  {
    // Without a program's variables, each format's plain context; kubectl's apiVersion as given.
    var output = (try? TokenOutput(format, environment: [:])) ?? .raw
    if case .execCredential = output { output = .execCredential(ExecCredentialInfo(apiVersion: exec)) }
    return .stdout(output, profile: "work", idToken: id, now: now)
  }

  @Test func stdoutHoldsEveryFormatEndingWithALineBreak() {
    let goldens: [(TokenFormat, String)] = [
      (.raw, "eyJ0.a-b_c~d+e/f==\n"),
      (.header, "Authorization: Bearer eyJ0.a-b_c~d+e/f==\n"),
      (
        .json,
        #"{"access_token":"eyJ0.a-b_c~d+e/f==","expires_at":"2026-11-22T16:05:32Z","profile":"work","#
          + #""scope":"openid profile","token_type":"Bearer"}"# + "\n"
      ),
      (
        .env,
        "STRIVACITY_ACCESS_TOKEN='eyJ0.a-b_c~d+e/f=='\nSTRIVACITY_TOKEN_EXPIRES_AT='2026-11-22T16:05:32Z'\n"
          + "STRIVACITY_TOKEN_EXPIRES_IN=3385\n"
          + "export STRIVACITY_ACCESS_TOKEN STRIVACITY_TOKEN_EXPIRES_AT STRIVACITY_TOKEN_EXPIRES_IN\n"
      ),
      (.curl, "header = \"Authorization: Bearer eyJ0.a-b_c~d+e/f==\"\n"),
      (
        .execCredential,
        #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"#
          + #""expirationTimestamp":"2026-11-22T16:05:32Z","token":"eyJ0.a-b_c~d+e/f=="}}"# + "\n"
      ),
      (
        .googleExecutable,
        #"{"expiration_time":1795363532,"id_token":"eyJ0.a-b_c~d+e/f==","success":true,"#
          + #""token_type":"urn:ietf:params:oauth:token-type:jwt","version":1}"# + "\n"
      ),
    ]
    #expect(goldens.map(\.0) == TokenFormat.allCases, "a golden for every format")
    for (format, golden) in goldens { #expect(text(tokens, stdout(format)) == golden, "\(format)") }
    #expect(
      text(tokens, stdout(.execCredential, exec: ExecCredentialInfo.v1beta1))
        == #"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"#
        + #""expirationTimestamp":"2026-11-22T16:05:32Z","token":"eyJ0.a-b_c~d+e/f=="}}"# + "\n")
  }

  @Test func stdoutOfTheIDTokenSaysNoExpiryOrScope() {
    let goldens: [(TokenFormat, String)] = [
      (.raw, "id.value.sig\n"),
      (.header, "Authorization: Bearer id.value.sig\n"),
      (.json, #"{"id_token":"id.value.sig","profile":"work"}"# + "\n"),
      (.env, "STRIVACITY_ID_TOKEN='id.value.sig'\nexport STRIVACITY_ID_TOKEN\n"),
      (.curl, "header = \"Authorization: Bearer id.value.sig\"\n"),
      (
        .execCredential,
        #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"#
          + #""token":"id.value.sig"}}"# + "\n"
      ),
      (
        .googleExecutable,
        #"{"id_token":"id.value.sig","success":true,"token_type":"urn:ietf:params:oauth:token-type:jwt","#
          + #""version":1}"# + "\n"
      ),
    ]
    #expect(goldens.map(\.0) == TokenFormat.allCases, "a golden for every format")
    for (format, golden) in goldens { #expect(text(tokens, stdout(format, id: true), id: true) == golden, "\(format)") }
  }

  @Test func stdoutOfASetWithoutExpiryOrScope() {
    #expect(
      text(bare, stdout(.json))
        == #"{"access_token":"eyJ0.a-b_c~d+e/f==","expires_at":null,"profile":"work","scope":null,"#
        + #""token_type":"Bearer"}"# + "\n")
    #expect(
      text(bare, stdout(.env)) == "STRIVACITY_ACCESS_TOKEN='eyJ0.a-b_c~d+e/f=='\nexport STRIVACITY_ACCESS_TOKEN\n")
    #expect(
      text(bare, stdout(.execCredential))
        == #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"#
        + #""token":"eyJ0.a-b_c~d+e/f=="}}"# + "\n")
    // No expiry known: none said (Google's client then asks again each time).
    #expect(
      text(bare, stdout(.googleExecutable))
        == #"{"id_token":"eyJ0.a-b_c~d+e/f==","success":true,"token_type":"urn:ietf:params:oauth:token-type:jwt","#
        + #""version":1}"# + "\n")
  }

  /// The token type Google's client asked for (its configuration's subject_token_type) is the
  /// one answered; the token is under id_token for both.
  @Test func googleExecutableAnswersInTheTokenTypeAsked() {
    let asked = GoogleExecutableInfo(tokenType: GoogleExecutableInfo.idToken)
    #expect(
      text(tokens, .stdout(.googleExecutable(asked), profile: "work", now: now))
        == #"{"expiration_time":1795363532,"id_token":"eyJ0.a-b_c~d+e/f==","success":true,"#
        + #""token_type":"urn:ietf:params:oauth:token-type:id_token","version":1}"# + "\n")
  }

  /// The agent's sinks and `exec --file-env`'s file: read whole, so raw has no line break, and
  /// json has the token's own fields only (no profile, no scope).
  @Test func aKeptFileHoldsItsFormatsAsTheyWereAlwaysWritten() {
    let goldens: [(SinkFormat, String)] = [
      (.raw, "eyJ0.a-b_c~d+e/f=="),
      (
        .json,
        #"{"access_token":"eyJ0.a-b_c~d+e/f==","expires_at":"2026-11-22T16:05:32Z","token_type":"Bearer"}"# + "\n"
      ),
      (.header, "Authorization: Bearer eyJ0.a-b_c~d+e/f==\n"),
    ]
    #expect(goldens.map(\.0) == SinkFormat.allCases, "a golden for every format a file holds")
    for (format, golden) in goldens {
      #expect(text(tokens, .file(format)) == golden, "\(format)")
      #expect(TokenRenderer.keptFile(tokens, as: format) == Array(golden.utf8), "\(format)")
      // An expired token unrenewed: the file is emptied, whatever its format.
      #expect(TokenRenderer.keptFile(nil, as: format) == [])
    }
    #expect(
      text(bare, .file(.json)) == #"{"access_token":"eyJ0.a-b_c~d+e/f==","expires_at":null,"token_type":"Bearer"}"#
        + "\n")
  }

  /// A sink's format is named as `token --format` names it, and a file holds no format that
  /// needs stdout's context (env's time left, kubectl's apiVersion).
  @Test func aFileHoldsTheFormatsOfTokenItNames() {
    #expect(SinkFormat.allCases.map(\.format) == [.raw, .json, .header])
    for format in SinkFormat.allCases { #expect(format.rawValue == format.format.rawValue) }
  }

  /// `exec`'s variable (`--env`, or STRIVACITY_ACCESS_TOKEN): the access token alone.
  @Test func aVariableHoldsTheTokenAlone() {
    #expect(text(tokens, .variable) == "eyJ0.a-b_c~d+e/f==")
    #expect(text(bare, .variable) == "eyJ0.a-b_c~d+e/f==")
  }

  /// Only a `BearerToken` can be rendered (this fails to compile if the renderer ever takes a
  /// String), and no text that could break a line, a quote or a file read whole is admitted as one.
  @Test(arguments: [
    "", "a\nb", "a\r\nX-Evil: 1", "a'b", "a\"b", "a\\b", "a b", "a\tb", "a\u{0}b", "\u{1B}[31m", "$(id)", "a;b",
    "=abc", "a=b", "tok\u{E9}n", String(repeating: "a", count: BearerToken.maxLength + 1),
  ])
  func aHostileTokenCannotBeRendered(hostile: String) {
    let render: (BearerToken, TokenSet, TokenRenderer.Destination) -> [UInt8] = TokenRenderer.render
    let text: (BearerToken, TokenSet, TokenRenderer.Destination) -> String = TokenRenderer.text
    _ = (render, text)
    #expect(throws: AdmissionError.self) { try BearerToken(admitting: hostile) }
    #expect(throws: AdmissionError.self) { try BearerToken(admitting: hostile, what: "ID token") }
  }
}

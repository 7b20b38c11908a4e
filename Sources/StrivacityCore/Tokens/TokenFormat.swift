// How a token is written out: `strivacity token`'s formats (for shell scripts, curl and
// Kubernetes) and the one renderer that turns an admitted token into bytes for every destination
// — stdout, a file kept fresh (the agent's sinks, `exec --file-env`), a command's environment
// variable (`exec`). A new format is a case here and its arm of `TokenRenderer.render`.

public enum TokenFormat: String, Sendable, CaseIterable {
  /// The token alone, one line (in a file or a variable: without the line break).
  case raw
  /// `Authorization: Bearer …`, for `curl -H @file`.
  case header
  /// access_token, token_type, expires_at (RFC 3339), scope, profile (in a file: the first three).
  case json
  /// `STRIVACITY_ACCESS_TOKEN=…` lines, single-quoted: safe for `eval`.
  case env
  /// curl config lines (`header = "Authorization: Bearer …"`), for `curl -K -`.
  case curl
  /// A Kubernetes ExecCredential, in the apiVersion kubectl asks for (v1 or v1beta1).
  case execCredential = "exec-credential"
  /// Google's executable-sourced credential response (version 1, the token as an OIDC subject
  /// token, its expiration_time), for workload identity federation (`setup-gcloud`).
  case googleExecutable = "google-executable"

  func shellQuote(_ text: String) -> String { "'" + text.replacing("'", with: "'\\''") + "'" }
}

/// The one place a token becomes bytes. Only an admitted `BearerToken` can be rendered: no
/// newline, quote, backslash or control character can reach a header line, a curl config line,
/// a shell assignment or a file read whole, so nothing needs escaping.
public enum TokenRenderer {
  /// Where the bytes go, and what that destination may hold.
  public enum Destination: Sendable, Equatable {
    /// `strivacity token`'s stdout (and the config `strivacity curl` hands curl): any format, each
    /// ending with a line break. `token` is the access token, or the ID token with `idToken`;
    /// `profile` is named by json; `now` (seconds since 1970) is when it is printed (`env` says
    /// how long the token has left); `exec` is what kubectl asked for (`exec-credential` only),
    /// `google` what Google's client did (`google-executable` only).
    case stdout(
      TokenFormat, profile: String, idToken: Bool = false, now: Int64, exec: ExecCredentialInfo = ExecCredentialInfo(),
      google: GoogleExecutableInfo = GoogleExecutableInfo())
    /// A file a program reads whole, replaced as the token is renewed (the agent's sinks, `exec
    /// --file-env`'s file): the formats of `SinkFormat`; raw without a line break, json with the
    /// token's own fields only (which profile and scopes are the config's to say).
    case file(SinkFormat)
    /// A variable of a command's environment (`exec`): the access token alone.
    case variable
  }

  /// The bytes of `token` (of `tokens`) for `destination`.
  public static func render(_ token: BearerToken, of tokens: TokenSet, to destination: Destination) -> [UInt8] {
    Array(text(token, of: tokens, to: destination).utf8)
  }

  /// A kept file's bytes (the agent's sinks, `exec --file-env`'s file): the access token of
  /// `tokens` in `format`, or none when there is none to hold (it expired unrenewed: the file is
  /// emptied, never left holding a stale token).
  public static func keptFile(_ tokens: TokenSet?, as format: SinkFormat) -> [UInt8] {
    tokens.map { render($0.accessToken, of: $0, to: .file(format)) } ?? []
  }

  /// The same as text, for what takes text (a variable's value, the config curl reads on stdin).
  public static func text(_ admitted: BearerToken, of tokens: TokenSet, to destination: Destination) -> String {
    let format: TokenFormat
    // What only stdout says: nil for a file or a variable.
    var printed: (profile: String, now: Int64, exec: ExecCredentialInfo, google: GoogleExecutableInfo)?
    var idToken = false
    switch destination {
    case .stdout(let asked, let profile, let id, let now, let exec, let google):
      format = asked
      printed = (profile, now, exec, google)
      idToken = id
    case .file(let held):
      format = held.format
    case .variable:
      format = .raw
    }
    // env, exec-credential and google-executable need what only stdout says (the time left,
    // kubectl's apiVersion, Google's token type):
    // no SinkFormat is either, so a file never reaches their precondition.
    let token = admitted.value
    let expiry = idToken ? nil : tokens.expiresAt.map(RFC3339.format)
    switch format {
    case .raw:
      // Read whole, a file's or a variable's token ends with its last character.
      return printed == nil ? token : token + "\n"
    case .header:
      let header = HTTPHeader.authorization(admitted)
      return "\(header.name): \(header.value)\n"
    case .json:
      var object: [String: JSONValue] = [idToken ? "id_token" : "access_token": .string(token)]
      if let printed { object["profile"] = .string(printed.profile) }
      if !idToken {
        object["token_type"] = "Bearer"
        object["expires_at"] = expiry.map(JSONValue.string) ?? .null
        if printed != nil { object["scope"] = tokens.scope.map { JSONValue.string($0.value) } ?? .null }
      }
      return String(decoding: JSONValue.object(object).serialized(), as: UTF8.self) + "\n"
    case .env:
      guard let printed else { preconditionFailure("only stdout holds the env format") }
      let name = idToken ? "STRIVACITY_ID_TOKEN" : "STRIVACITY_ACCESS_TOKEN"
      var lines = ["\(name)=\(format.shellQuote(token))"]
      if let expiry {
        lines.append("STRIVACITY_TOKEN_EXPIRES_AT=\(format.shellQuote(expiry))")
        lines.append("STRIVACITY_TOKEN_EXPIRES_IN=\(tokens.secondsLeft(now: printed.now) ?? 0)")
      }
      lines.append("export \(name)" + (expiry == nil ? "" : " STRIVACITY_TOKEN_EXPIRES_AT STRIVACITY_TOKEN_EXPIRES_IN"))
      return lines.joined(separator: "\n") + "\n"
    case .curl:
      let header = HTTPHeader.authorization(admitted)
      return "header = \"\(header.name): \(header.value)\"\n"
    case .execCredential:
      guard let printed else { preconditionFailure("only stdout holds the exec-credential format") }
      var status: [String: JSONValue] = ["token": .string(token)]
      if let expiry { status["expirationTimestamp"] = .string(expiry) }
      let credential: JSONValue = [
        "apiVersion": .string(printed.exec.apiVersion), "kind": "ExecCredential", "status": .object(status),
      ]
      return String(decoding: credential.serialized(), as: UTF8.self) + "\n"
    case .googleExecutable:
      guard let printed else { preconditionFailure("only stdout holds the google-executable format") }
      return printed.google.response(token: token, expiresAt: idToken ? nil : tokens.expiresAt)
    }
  }
}

/// What a sink's file holds: the formats of `strivacity token` a file may hold, rendered for a
/// file by `TokenRenderer` (destination `.file`).
public enum SinkFormat: String, Sendable, CaseIterable {
  /// The access token alone, without a line break (tools read the whole file as the token).
  case raw
  /// `{"access_token":…,"token_type":"Bearer","expires_at":"RFC 3339"}` and a line break.
  case json
  /// `Authorization: Bearer …` and a line break, for `curl -H @FILE`.
  case header

  /// The token format it is.
  public var format: TokenFormat {
    switch self {
    case .raw: .raw
    case .json: .json
    case .header: .header
    }
  }
}

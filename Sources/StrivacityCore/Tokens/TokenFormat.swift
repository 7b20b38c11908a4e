// How a token is written out: `strivacity token`'s formats (for shell scripts, curl and
// Kubernetes) and the one renderer that turns an admitted token into bytes for every destination
// — stdout, a file kept fresh (the agent's sinks, `exec --file-env`), a command's environment
// variable (`exec`). A new format is a case here, its case of `TokenOutput` (with what the
// program running strivacity tells it, if anything) and its arm of `TokenRenderer.text`.

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

  /// The failure response on stdout besides the one line on stderr, for a program that reads
  /// only stdout (google-executable: Google's client merges stderr into it); nil for the others.
  /// The format's alone: a failure to admit the context (`TokenOutput.init`) is shaped too.
  public func failure(_ status: ExitStatus, message: String) -> String? {
    switch self {
    case .googleExecutable: GoogleExecutableInfo.failure(status, message: message)
    case .raw, .header, .json, .env, .curl, .execCredential: nil
    }
  }
}

/// What `strivacity token` prints, admitted once: a format with what the program running
/// strivacity said for it (kubectl's KUBERNETES_EXEC_INFO, Google's
/// GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE). What differs between formats beyond the bytes (the
/// failure's shape, warnings, signing in, kubectl's clusters) is asked of it, never of the name.
public enum TokenOutput: Equatable, Sendable {
  case raw, header, json, env, curl
  /// What kubectl asked for: the apiVersion, whether a person is there, the API server.
  case execCredential(ExecCredentialInfo)
  /// What Google's client asked for: the token type.
  case googleExecutable(GoogleExecutableInfo)

  /// The one admission: `format` as asked, with what `environment` says for it (only the
  /// format's own variables are read); throws what the full command line refuses with exit 2.
  public init(_ format: TokenFormat, environment: [String: String]) throws(AdmissionError) {
    switch format {
    case .raw: self = .raw
    case .header: self = .header
    case .json: self = .json
    case .env: self = .env
    case .curl: self = .curl
    case .execCredential: self = .execCredential(try ExecCredentialInfo.from(environment))
    case .googleExecutable: self = .googleExecutable(try GoogleExecutableInfo.from(environment))
    }
  }

  /// The format's name (`--format`).
  public var format: TokenFormat {
    switch self {
    case .raw: .raw
    case .header: .header
    case .json: .json
    case .env: .env
    case .curl: .curl
    case .execCredential: .execCredential
    case .googleExecutable: .googleExecutable
    }
  }

  /// The failure response on stdout, if the format has one (`TokenFormat.failure`).
  public func failure(_ status: ExitStatus, message: String) -> String? { format.failure(status, message: message) }

  /// Whether a person may be there: false for Google's client, which waits without a terminal
  /// and reads stderr with stdout. Then nothing but a failure's one line goes to stderr (no
  /// warning, no progress), a keyring's dialog gets the short bound, and nobody is signed in.
  public var attended: Bool {
    if case .googleExecutable = self { return false }
    return true
  }

  /// Whether a missing sign-in may be offered on the terminal (--login, a prompt): not to an
  /// unattended program, nor to kubectl when it says nobody is there (interactiveMode Never).
  public var offersSignIn: Bool {
    switch self {
    case .googleExecutable: false
    case .execCredential(let exec): exec.interactive != false
    case .raw, .header, .json, .env, .curl: true
    }
  }

  /// Whether kubectl's API server may have the token of `profile` (whose kube_clusters are
  /// `clusters`): the one rule, `ExecCredentialInfo.decision`; every other format is allowed.
  public func clusterDecision(_ clusters: [KubeServer], profile: String) -> KubeClusterDecision {
    guard case .execCredential(let exec) = self else { return .allow }
    return exec.decision(clusters: clusters, profile: profile)
  }
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
    /// how long the token has left); the output carries what kubectl or Google's client asked.
    case stdout(TokenOutput, profile: String, idToken: Bool = false, now: Int64)
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

  /// Single-quoted for a shell: safe for `eval`.
  static func shellQuote(_ text: String) -> String { "'" + text.replacing("'", with: "'\\''") + "'" }

  /// The same as text, for what takes text (a variable's value, the config curl reads on stdin).
  public static func text(_ admitted: BearerToken, of tokens: TokenSet, to destination: Destination) -> String {
    let output: TokenOutput
    // What only stdout says: nil for a file or a variable.
    var printed: (profile: String, now: Int64)?
    var idToken = false
    switch destination {
    case .stdout(let asked, let profile, let id, let now):
      output = asked
      printed = (profile, now)
      idToken = id
    case .file(let held):
      output = held.output
    case .variable:
      output = .raw
    }
    // env needs what only stdout says (the time left): no SinkFormat is env, so a file never
    // reaches its precondition (nor exec-credential or google-executable, stdout's only).
    let token = admitted.value
    let expiry = idToken ? nil : tokens.expiresAt.map(RFC3339.format)
    switch output {
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
      var lines = ["\(name)=\(shellQuote(token))"]
      if let expiry {
        lines.append("STRIVACITY_TOKEN_EXPIRES_AT=\(shellQuote(expiry))")
        lines.append("STRIVACITY_TOKEN_EXPIRES_IN=\(tokens.secondsLeft(now: printed.now) ?? 0)")
      }
      lines.append("export \(name)" + (expiry == nil ? "" : " STRIVACITY_TOKEN_EXPIRES_AT STRIVACITY_TOKEN_EXPIRES_IN"))
      return lines.joined(separator: "\n") + "\n"
    case .curl:
      let header = HTTPHeader.authorization(admitted)
      return "header = \"\(header.name): \(header.value)\"\n"
    case .execCredential(let exec):
      var status: [String: JSONValue] = ["token": .string(token)]
      if let expiry { status["expirationTimestamp"] = .string(expiry) }
      let credential: JSONValue = [
        "apiVersion": .string(exec.apiVersion), "kind": "ExecCredential", "status": .object(status),
      ]
      return String(decoding: credential.serialized(), as: UTF8.self) + "\n"
    case .googleExecutable(let google):
      return google.response(token: token, expiresAt: idToken ? nil : tokens.expiresAt)
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
  public var format: TokenFormat { output.format }

  /// The output it is (none needs a context).
  public var output: TokenOutput {
    switch self {
    case .raw: .raw
    case .json: .json
    case .header: .header
    }
  }
}

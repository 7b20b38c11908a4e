// Google's executable-sourced credentials (workload and workforce identity federation: google-auth,
// gcloud and the other Google client libraries run a command and read a subject token from its
// stdout). Three things: what the client tells the command (GOOGLE_EXTERNAL_ACCOUNT_* variables:
// outside input, admitted by `GoogleExecutableInfo.from`), the response it reads (version 1,
// success with the token or failure with a code and a message: `response`, `failure`). The
// credential configuration that makes a client run `strivacity token --format google-executable`
// is ToolHelpers' (Google/GcloudCredentialFile.swift).

public struct GoogleExecutableInfo: Equatable, Sendable {
  /// The subject token types strivacity answers (an OIDC token; SAML it cannot give).
  public static let jwt = "urn:ietf:params:oauth:token-type:jwt"
  public static let idToken = "urn:ietf:params:oauth:token-type:id_token"
  public static let tokenTypes = [jwt, idToken]
  /// The response format's version this answers in (google-auth refuses a higher one).
  public static let version = 1

  /// The token type to answer with: the credential configuration's subject_token_type.
  public var tokenType: String

  public init(tokenType: String = GoogleExecutableInfo.jwt) {
    self.tokenType = tokenType
  }

  /// From the environment the client sets (GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE); without it (a
  /// person running the command), a JWT. GOOGLE_EXTERNAL_ACCOUNT_INTERACTIVE changes nothing:
  /// this command never signs in. The audience, the service account and an output file the
  /// client names are not read: the token is the configured API's, and it is printed only.
  public static func from(_ environment: [String: String]) throws(AdmissionError) -> GoogleExecutableInfo {
    guard let asked = environment["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE"], !asked.isEmpty else {
      return GoogleExecutableInfo()
    }
    guard tokenTypes.contains(asked) else {
      let shown = TerminalSafe.text(String(asked.prefix(100)), multiline: false)
      throw AdmissionError(
        "the credential configuration asks for a subject token of type '\(shown)'; strivacity gives "
          + "\(jwt) or \(idToken): set subject_token_type to one of them")
    }
    return GoogleExecutableInfo(tokenType: asked)
  }

  /// The success response: the token under `id_token` (the field both OIDC types use), and its
  /// expiry in seconds since 1970 when known (the client then reuses it until that time).
  public func response(token: String, expiresAt: Int64?) -> String {
    var object: [String: JSONValue] = [
      "version": .number(Double(Self.version)), "success": true, "token_type": .string(tokenType),
      "id_token": .string(token),
    ]
    if let expiresAt { object["expiration_time"] = .number(Double(expiresAt)) }
    return JSONValue.object(object).text + "\n"
  }

  /// The failure response for an exit status and the one-line message said on stderr too; the
  /// code names the status (`sign_in_required`, …), as the README's exit-code table does.
  public static func failure(_ status: ExitStatus, message: String) -> String {
    let object: [String: JSONValue] = [
      "version": .number(Double(version)), "success": false, "code": .string(code(status)),
      "message": .string(TerminalSafe.text(message, multiline: false)),
    ]
    return JSONValue.object(object).text + "\n"
  }

  /// The response's `code` for an exit status.
  public static func code(_ status: ExitStatus) -> String {
    switch status {
    case .ok: "ok"
    case .failure: "failure"
    case .usage: "usage"
    case .signInRequired: "sign_in_required"
    case .transient: "transient"
    case .server: "server"
    case .store: "store"
    case .keyringLocked: "keyring_locked"
    case .keyringDenied: "keyring_denied"
    case .clientRefused: "client_refused"
    case .interrupted: "interrupted"
    }
  }
}

// How `strivacity token` prints a token: for shell scripts, curl, and Kubernetes. Every format
// is one write of data to stdout, safe to consume as documented.

public enum TokenFormat: String, Sendable, CaseIterable {
  /// The token alone, one line.
  case raw
  /// `Authorization: Bearer …`, for `curl -H @file`.
  case header
  /// access_token, token_type, expires_at (RFC 3339), scope, profile.
  case json
  /// `STRIVACITY_ACCESS_TOKEN=…` lines, single-quoted: safe for `eval`.
  case env
  /// curl config lines (`header = "Authorization: Bearer …"`), for `curl -K -`.
  case curl
  /// A Kubernetes ExecCredential, in the apiVersion kubectl asks for (v1 or v1beta1).
  case execCredential = "exec-credential"

  /// Renders `token` (the access token, or the ID token with --id-token). Only an admitted
  /// `BearerToken` can be rendered: no newline, quote, backslash or control character can reach
  /// a header line, a curl config line or a shell assignment, so nothing needs escaping.
  /// `now` (seconds since 1970) is when it is printed: `env` says how long the token has left.
  /// `exec`: what kubectl asked for (`exec-credential` only).
  public func render(
    token admitted: BearerToken, tokens: TokenSet, profile: String, idToken: Bool, now: Int64,
    exec: ExecCredentialInfo = ExecCredentialInfo()
  ) -> String {
    let token = admitted.value
    let expiry = idToken ? nil : tokens.expiresAt.map(RFC3339.format)
    switch self {
    case .raw:
      return token + "\n"
    case .header:
      return "Authorization: Bearer \(token)\n"
    case .json:
      var object: [String: JSONValue] = [
        idToken ? "id_token" : "access_token": .string(token), "profile": .string(profile),
      ]
      if !idToken {
        object["token_type"] = "Bearer"
        object["expires_at"] = expiry.map(JSONValue.string) ?? .null
        object["scope"] = tokens.scope.map { JSONValue.string($0.value) } ?? .null
      }
      return String(decoding: JSONValue.object(object).serialized(), as: UTF8.self) + "\n"
    case .env:
      let name = idToken ? "STRIVACITY_ID_TOKEN" : "STRIVACITY_ACCESS_TOKEN"
      var lines = ["\(name)=\(shellQuote(token))"]
      if let expiry {
        lines.append("STRIVACITY_TOKEN_EXPIRES_AT=\(shellQuote(expiry))")
        lines.append("STRIVACITY_TOKEN_EXPIRES_IN=\(tokens.secondsLeft(now: now) ?? 0)")
      }
      lines.append("export \(name)" + (expiry == nil ? "" : " STRIVACITY_TOKEN_EXPIRES_AT STRIVACITY_TOKEN_EXPIRES_IN"))
      return lines.joined(separator: "\n") + "\n"
    case .curl:
      return "header = \"Authorization: Bearer \(token)\"\n"
    case .execCredential:
      var status: [String: JSONValue] = ["token": .string(token)]
      if let expiry { status["expirationTimestamp"] = .string(expiry) }
      let credential: JSONValue = [
        "apiVersion": .string(exec.apiVersion), "kind": "ExecCredential", "status": .object(status),
      ]
      return String(decoding: credential.serialized(), as: UTF8.self) + "\n"
    }
  }

  func shellQuote(_ text: String) -> String { "'" + text.replacing("'", with: "'\\''") + "'" }

}

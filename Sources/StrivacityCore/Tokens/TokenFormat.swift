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

/// RFC 3339 timestamps in UTC (`2026-11-22T16:05:32Z`), computed without Foundation.
public enum RFC3339 {
  public static func format(_ seconds: Int64) -> String {
    let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
    let secondOfDay = seconds - days * 86400
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let time = "\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))"
    return "\(year)-\(two(month))-\(two(day))T\(time)Z"
  }
}

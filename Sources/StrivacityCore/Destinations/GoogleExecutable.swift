// Google's executable-sourced credentials (workload and workforce identity federation: google-auth,
// gcloud and the other Google client libraries run a command and read a subject token from its
// stdout). Three things: what the client tells the command (GOOGLE_EXTERNAL_ACCOUNT_* variables:
// outside input, admitted by `GoogleExecutableInfo.from`), the response it reads (version 1,
// success with the token or failure with a code and a message: `response`, `failure`), and the
// credential configuration that makes a client run `strivacity token --format google-executable`
// (`GoogleCredentialConfiguration`, written by `strivacity setup-gcloud`).

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

/// A Google credential configuration (`"type": "external_account"`) whose subject token comes from
/// `strivacity token --format google-executable`: the file GOOGLE_APPLICATION_CREDENTIALS names.
public struct GoogleCredentialConfiguration: Equatable, Sendable {
  /// Google's Security Token Service.
  public static let defaultTokenURL = "https://sts.googleapis.com/v1/token"
  /// How long the client waits for the command (google-auth takes 5 to 120 s): a refresh at the
  /// tenant, bounded by STRIVACITY_TIMEOUT's default, fits.
  public static let timeoutMillis = 30_000
  /// What marks a configuration as one strivacity wrote (setup-gcloud replaces only those).
  public static let formatWords = ["token", "--format", "google-executable"]

  /// The workload (or workforce) identity pool provider: `//iam.googleapis.com/projects/…/providers/…`.
  public var audience: String
  /// The command's words: the small strivacity by absolute path, then `formatWords` and the options.
  public var command: [String]
  public var tokenURL: String
  /// generateAccessToken of the service account to impersonate, when the pool's identities act as one.
  public var impersonationURL: String?
  public var subjectTokenType: String

  public init(
    audience: String, command: [String], tokenURL: String = Self.defaultTokenURL, impersonationURL: String? = nil,
    subjectTokenType: String = GoogleExecutableInfo.jwt
  ) {
    self.audience = audience
    self.command = command
    self.tokenURL = tokenURL
    self.impersonationURL = impersonationURL
    self.subjectTokenType = subjectTokenType
  }

  /// The command `strivacity` (at `binary`) runs for a profile's API; nil profile: the default one.
  public static func command(binary: String, api: String, profile: String?) -> [String] {
    [binary] + formatWords + ["--api", api] + (profile.map { ["--profile", $0] } ?? [])
  }

  /// Checks the values a person gave (--audience, the URLs, the command's words); the refusal
  /// names what is wrong. Google's clients split the command at whitespace, unquoted.
  public func check() throws(AdmissionError) {
    try Self.checkOptions(audience: audience, tokenURL: tokenURL, impersonationURL: impersonationURL)
    for word in command {
      guard !word.isEmpty, !word.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true })
      else {
        throw AdmissionError(
          "the command '\(TerminalSafe.text(word, multiline: false))' holds a space: Google's clients split "
            + "the command at whitespace, so strivacity must be installed at a path without one")
      }
    }
  }

  /// The values a person gives setup-gcloud (--audience and the URLs), checked as `check` does.
  public static func checkOptions(audience: String, tokenURL: String, impersonationURL: String?)
    throws(AdmissionError)
  {
    try checkWord(audience, "--audience")
    guard audience.hasPrefix("//") else {
      throw AdmissionError(
        "--audience must be the identity pool provider's resource name, "
          + "//iam.googleapis.com/projects/NUMBER/locations/global/workloadIdentityPools/POOL/providers/PROVIDER")
    }
    try checkURL(tokenURL, "--token-url")
    if let impersonationURL { try checkURL(impersonationURL, "--service-account-impersonation-url") }
  }

  /// A value without whitespace or control characters, at most 1024 bytes.
  static func checkWord(_ value: String, _ option: String) throws(AdmissionError) {
    guard !value.isEmpty, value.utf8.count <= 1024,
      !value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
    else {
      throw AdmissionError("\(option) must be one word of printable characters (at most 1024 bytes)")
    }
  }

  /// https, or http to this machine (a stand-in or a proxy of one's own).
  static func checkURL(_ value: String, _ option: String) throws(AdmissionError) {
    try checkWord(value, option)
    let loopback = ["http://127.0.0.1:", "http://127.0.0.1/", "http://localhost:", "http://localhost/", "http://[::1]"]
    guard value.hasPrefix("https://") && value.count > 8 || loopback.contains(where: value.hasPrefix) else {
      throw AdmissionError("\(option) must be an https URL (or http to 127.0.0.1, localhost or [::1])")
    }
  }

  /// The file's JSON (pretty, sorted keys, a line break at the end).
  public var json: String {
    var object: [String: JSONValue] = [
      "type": "external_account", "audience": .string(audience), "subject_token_type": .string(subjectTokenType),
      "token_url": .string(tokenURL),
      "credential_source": [
        "executable": [
          "command": .string(command.joined(separator: " ")),
          "timeout_millis": .number(Double(Self.timeoutMillis)),
        ]
      ],
    ]
    if let impersonationURL { object["service_account_impersonation_url"] = .string(impersonationURL) }
    return String(decoding: JSONValue.object(object).serialized(pretty: true), as: UTF8.self) + "\n"
  }

  /// Whether `text` (an existing file) is a configuration strivacity wrote: an external account
  /// whose executable runs `token --format google-executable`. setup-gcloud replaces only those
  /// without --force.
  public static func isOurs(_ text: String) -> Bool {
    guard let json = JSONValue.parse(text), json["type"]?.string == "external_account",
      let command = json["credential_source"]?["executable"]?["command"]?.string
    else { return false }
    let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
    return words.count > formatWords.count && Array(words[1...formatWords.count]) == formatWords
  }
}

// The Google credential configuration `strivacity setup gcloud` writes (the file
// GOOGLE_APPLICATION_CREDENTIALS names): an "external_account" whose subject token comes from
// `strivacity token --format google-executable` (GoogleExecutableInfo, StrivacityCore), as a
// value: its JSON, the checks of what a person gives, and whether a file is one strivacity wrote.
import StrivacityCore

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

  /// The command `strivacity` (at `binary`) runs for a profile's API; nil profile: the default
  /// one; `config`, a config file other than the default (by absolute path).
  public static func command(binary: String, api: String, profile: String?, config: String? = nil) -> [String] {
    [binary] + formatWords + ["--api", api] + (profile.map { ["--profile", $0] } ?? [])
      + (config.map { ["--config", $0] } ?? [])
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

// AWS's `credential_process` (the AWS CLI's and every AWS SDK's "sourcing credentials with an
// external process"), as data:
// - the AWS config names the command, `credential_process = strivacity aws-credential-process
//   --api NAME [--profile P]`; the SDK runs it and reads stdout;
// - the answer is one JSON object, `{"Version": 1, "AccessKeyId", "SecretAccessKey",
//   "SessionToken", "Expiration"}` (RFC 3339), exit 0; any failure is text on stderr, a non-zero
//   exit status and nothing on stdout;
// - the credentials come from STS's AssumeRoleWithWebIdentity, sent the API's access token as
//   the web identity token (`stsRequest`), whose XML answer is outside input admitted here
//   (`credentials(_:)`: bounded, every field checked, Expiration read as a time);
// - they are kept in the kernel's keyring (never a file) until `margin` before they expire, the
//   record naming the API token they were made from (`record`, `cached`), so that a token
//   renewed or dropped by logout is never answered for by the credentials of the one before.
// Values in, text out: both binaries answer through these functions.
import StrivacityConfig
import StrivacityCore

/// Temporary AWS credentials, admitted (`init(admitting…)`): only these reach stdout or the cache.
public struct AWSCredentials: Sendable, Equatable, CustomStringConvertible {
  public let accessKeyID: String
  public let secretAccessKey: String
  public let sessionToken: String
  /// When they expire, seconds since the epoch.
  public let expiration: Int64

  /// Longest session token taken: STS's are a few KiB at most.
  public static let maxSessionToken = 16 * 1024

  /// AccessKeyId: 16 to 128 upper-case letters and digits; SecretAccessKey (at most 1 KiB) and
  /// SessionToken (at most `maxSessionToken`): base64's characters. Nothing else is ever written
  /// into the JSON answer or the cache's lines.
  public init(admittingKey key: String, secret: String, sessionToken: String, expiration: Int64)
    throws(AdmissionError)
  {
    guard (16...128).contains(key.utf8.count),
      key.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) })
    else { throw AdmissionError("the AccessKeyId is not 16 to 128 upper-case letters and digits") }
    guard (1...1024).contains(secret.utf8.count), secret.utf8.allSatisfy(Self.isBase64Byte) else {
      throw AdmissionError("the SecretAccessKey is not base64 of at most 1 KiB")
    }
    guard (1...Self.maxSessionToken).contains(sessionToken.utf8.count), sessionToken.utf8.allSatisfy(Self.isBase64Byte)
    else { throw AdmissionError("the SessionToken is not base64 of at most \(Self.maxSessionToken / 1024) KiB") }
    accessKeyID = key
    secretAccessKey = secret
    self.sessionToken = sessionToken
    self.expiration = expiration
  }

  static func isBase64Byte(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "+")
      || b == UInt8(ascii: "/") || b == UInt8(ascii: "=")
  }

  /// Never the secrets: the key id (not a secret) and the expiry.
  public var description: String { "AWS credentials \(accessKeyID) until \(RFC3339.format(expiration))" }
}

/// Why no credentials are answered: `message` (our words, and STS's made inert) goes to stderr
/// as one line, the exit status is `status`.
public struct AWSCredentialError: Error, Equatable, Sendable {
  public var message: String
  public var status: ExitStatus
  public init(_ message: String, status: ExitStatus) {
    self.message = message
    self.status = status
  }
}

public enum AWSCredentialProcess {
  /// Said before a line of ours on stderr: the SDK shows it among its own.
  public static let messagePrefix = "aws credential_process: "
  /// Credentials are answered from the cache only while they have more than this left: botocore
  /// refreshes a process's credentials 15 minutes before they expire (and refuses ones within 10).
  public static let margin: Int64 = 15 * 60
  /// Most bytes of STS's answer read.
  public static let maxResponse = 64 * 1024
  /// STS's API version this speaks.
  static let version = "2011-06-15"

  /// The plain forms the small binary answers: `--api NAME`, and `--profile P`, in either order;
  /// nil for anything else (the full command line's to read).
  public static func plainArguments(_ arguments: ArraySlice<String>) -> (api: String, profile: String?)? {
    var api: String?
    var profile: String?
    var rest = arguments
    while let option = rest.first {
      rest = rest.dropFirst()
      guard let value = rest.first, !value.hasPrefix("-") else { return nil }
      rest = rest.dropFirst()
      switch option {
      case "--api" where api == nil: api = value
      case "--profile" where profile == nil: profile = value
      default: return nil
      }
    }
    return api.map { ($0, profile) }
  }

  /// Where STS is asked: `aws_sts_endpoint` of the API, else AWS_ENDPOINT_URL_STS, else
  /// AWS_ENDPOINT_URL (the SDKs' variables), else STS's global endpoint; each admitted as the
  /// config's value is (https, plain http only on loopback).
  public static func endpoint(_ role: AWSRole, environment: [String: String]) throws(AWSCredentialError) -> String {
    if let configured = role.stsEndpoint { return configured }
    for name in ["AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL"] {
      guard let value = environment[name], !value.isEmpty else { continue }
      do {
        return try AWSRole.admitEndpoint(value)
      } catch {
        throw AWSCredentialError("\(name): \(error.description); unset it or fix it", status: .usage)
      }
    }
    return AWSRole.defaultEndpoint
  }

  /// STS's AssumeRoleWithWebIdentity for `role` with the API's `token`, as a form POST (the
  /// Query API: no signature, the token is the proof). `sentSecrets` keeps the token out of any
  /// failed answer that echoes it.
  public static func stsRequest(role: AWSRole, token: BearerToken, profile: String, endpoint: String) -> HTTPRequest {
    let form = FormURLEncoding.encode([
      ("Action", "AssumeRoleWithWebIdentity"), ("Version", version), ("RoleArn", role.roleARN),
      ("RoleSessionName", role.sessionName(profile: profile)), ("WebIdentityToken", token.value),
    ])
    return HTTPRequest(
      method: "POST", url: endpoint,
      headers: [
        HTTPHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"),
        HTTPHeader("Accept", "text/xml"),
      ],
      body: Array(form.utf8), freshConnection: false, maxBodyBytes: maxResponse, sentSecrets: [token.value])
  }

  /// STS's answer: the credentials of a 200's `AssumeRoleWithWebIdentityResult`, each field
  /// admitted; anything else an error in STS's words (its Code and Message, inert, cut short),
  /// with what fixes it.
  public static func credentials(_ response: HTTPResponse, role: AWSRole) throws(AWSCredentialError)
    -> AWSCredentials
  {
    // A refusal is judged by its status first (a proxy's HTML 503 is still transient); its
    // words only when they are text of our size.
    guard response.status == 200 else {
      let words = response.body.count <= maxResponse ? String(validating: response.body, as: UTF8.self) : nil
      throw refusal(response.status, words ?? "", role: role)
    }
    guard response.body.count <= maxResponse, let text = String(validating: response.body, as: UTF8.self) else {
      throw AWSCredentialError("AWS STS's answer is not UTF-8 text of at most 64 KiB", status: .server)
    }
    let unusable = AWSCredentialError("AWS STS's answer is not an AssumeRoleWithWebIdentity result", status: .server)
    guard let result = XMLText.element("AssumeRoleWithWebIdentityResult", in: text[...]),
      let block = XMLText.element("Credentials", in: result),
      let key = XMLText.element("AccessKeyId", in: block), let secret = XMLText.element("SecretAccessKey", in: block),
      let session = XMLText.element("SessionToken", in: block),
      let expirationText = XMLText.element("Expiration", in: block)
    else { throw unusable }
    guard let expiration = RFC3339.parse(String(expirationText)) else {
      throw AWSCredentialError("AWS STS's Expiration is not an RFC 3339 time", status: .server)
    }
    do {
      return try AWSCredentials(
        admittingKey: String(key), secret: String(secret), sessionToken: String(session), expiration: expiration)
    } catch {
      throw AWSCredentialError("AWS STS's credentials are unusable: \(error.description)", status: .server)
    }
  }

  /// A refusal of STS's (`<ErrorResponse><Error><Code>…<Message>…`), said with what fixes it:
  /// throttling and STS's own trouble are transient (exit 4), the rest needs a fix (exit 5).
  static func refusal(_ status: Int, _ text: String, role: AWSRole) -> AWSCredentialError {
    let error = XMLText.element("Error", in: text[...])
    let code = error.flatMap { XMLText.element("Code", in: $0) }.map { shown($0, limit: 64) } ?? "HTTP \(status)"
    let words = error.flatMap { XMLText.element("Message", in: $0) }.map { ": " + shown($0, limit: 300) } ?? ""
    let transient = status >= 500 || code == "Throttling" || code == "IDPCommunicationError"
    let fix =
      transient
      ? "try again later"
      : "check aws_role_arn (\(role.roleARN)) and that the role trusts the tenant as its web identity provider, "
        + "for the API's audience"
    return AWSCredentialError(
      "AWS STS refused AssumeRoleWithWebIdentity (\(code)\(words)): \(fix)", status: transient ? .transient : .server)
  }

  /// Outside text for one line: XML's five entities read, made inert, cut at `limit` characters.
  static func shown(_ text: Substring, limit: Int) -> String {
    var value = String(text.prefix(limit * 2))
    for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
      value = value.replacing(entity, with: character)
    }
    let cut = value.count > limit ? String(value.prefix(limit)) + "…" : value
    return TerminalSafe.text(cut, multiline: false)
  }

  /// The answer on stdout: one JSON line (written by hand: the small binary answers it too).
  public static func answer(_ credentials: AWSCredentials) -> String {
    "{\"Version\":1,\"AccessKeyId\":\"\(credentials.accessKeyID)\","
      + "\"SecretAccessKey\":\"\(credentials.secretAccessKey)\",\"SessionToken\":\"\(credentials.sessionToken)\","
      + "\"Expiration\":\"\(RFC3339.format(credentials.expiration))\"}\n"
  }

  // MARK: the cache

  /// Where the kernel's cache keeps the credentials of `role` for `api` of the profile `key`
  /// names: a slot of its own beside the API's token, named from the API's slot (so from its
  /// settings), the role, the session name and the endpoint; any change is another slot.
  public static func cacheKey(_ key: StoreKey, api: API, role: AWSRole, profile: String, endpoint: String) -> StoreKey {
    let named = [
      "aws-credential-process", api.slot.description, role.roleARN, role.sessionName(profile: profile), endpoint,
    ]
    var text = ""
    for line in named { text += line + "\n" }
    return key.with(slot: .adHoc(digest: AdHocTarget.digest(text)))
  }

  /// The cache's payload: `key=value` lines, the API token they were made from as its digest.
  public static func record(_ credentials: AWSCredentials, token: BearerToken) -> [UInt8] {
    Array(
      ("access_key_id=\(credentials.accessKeyID)\nsecret_access_key=\(credentials.secretAccessKey)\n"
        + "session_token=\(credentials.sessionToken)\nexpiration=\(credentials.expiration)\n"
        + "token=\(AdHocTarget.digest(token.value))\n").utf8)
  }

  /// How long the kernel keeps them: until `margin` before they expire; nil when that is past.
  public static func cacheSeconds(_ credentials: AWSCredentials, now: Int64) -> Int64? {
    let seconds = credentials.expiration - margin - now
    return seconds > 0 ? seconds : nil
  }

  /// The credentials a cache record holds, admitted again (another process of the user's can
  /// write the key), if they were made from `token` and have more than `margin` left; else nil.
  public static func cached(_ record: [UInt8], token: BearerToken, now: Int64) -> AWSCredentials? {
    var fields: [Substring: Substring] = [:]
    guard let text = String(validating: record, as: UTF8.self) else { return nil }
    for line in text.split(separator: "\n") {
      guard let eq = line.firstIndex(of: "="), fields[line[..<eq]] == nil else { return nil }
      fields[line[..<eq]] = line[line.index(after: eq)...]
    }
    guard fields.count == 5, fields["token"].map(String.init) == AdHocTarget.digest(token.value),
      let key = fields["access_key_id"], let secret = fields["secret_access_key"],
      let session = fields["session_token"], let expiration = fields["expiration"].flatMap({ Int64($0) }),
      expiration - margin > now
    else { return nil }
    return try? AWSCredentials(
      admittingKey: String(key), secret: String(secret), sessionToken: String(session), expiration: expiration)
  }
}

/// Just enough of XML to read STS's answers, which are small and flat: an element's text
/// between `<NAME>` and `</NAME>` (no attributes on it), found once. A document with a
/// declaration other than the leading `<?xml …?>`, a DOCTYPE, a comment or CDATA (`<!`) is not
/// read at all: nothing is expanded, nothing hides an element.
enum XMLText {
  /// The content of the one `NAME` element of `text`; nil when there is none, more than one, or
  /// the document has `<!` or a processing instruction past its start.
  static func element(_ name: String, in text: Substring) -> Substring? {
    guard !text.contains("<!") else { return nil }
    if let pi = text.firstRange(of: "<?"), pi.lowerBound != text.startIndex { return nil }
    let open = "<\(name)>"
    let close = "</\(name)>"
    guard let start = text.firstRange(of: open), let end = text[start.upperBound...].firstRange(of: close),
      text[end.upperBound...].firstRange(of: open) == nil,
      text[start.upperBound..<end.lowerBound].firstRange(of: open) == nil
    else { return nil }
    return text[start.upperBound..<end.lowerBound]
  }
}

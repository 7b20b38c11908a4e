// The AWS role an API's token is exchanged for (`strivacity aws-credential-process`), from keys
// of the API's table:
//
//   [profiles.work.apis.aws]
//   url = "https://sts.amazonaws.com/"
//   audience = "sts.amazonaws.com"
//   aws_role_arn = "arn:aws:iam::123456789012:role/ci"   # the role STS is asked to assume
//   aws_session_name = "alice"                           # RoleSessionName (optional)
//   aws_sts_endpoint = "https://sts.eu-west-1.amazonaws.com/"  # optional
//
// Each value admitted when the file is read, by the rules STS itself states (so a bad one is the
// config's error, never STS's).
import StrivacityCore

public struct AWSRole: Sendable, Equatable {
  /// `arn:PARTITION:iam::ACCOUNT:role/PATH/NAME`.
  public var roleARN: String
  /// RoleSessionName; nil: `strivacity-PROFILE` (`sessionName(profile:)`).
  public var sessionName: String?
  /// Where STS is; nil: the environment's (AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL), else the global one.
  public var stsEndpoint: String?

  public init(roleARN: String, sessionName: String? = nil, stsEndpoint: String? = nil) {
    self.roleARN = roleARN
    self.sessionName = sessionName
    self.stsEndpoint = stsEndpoint
  }

  /// STS's global endpoint.
  public static let defaultEndpoint = "https://sts.amazonaws.com/"

  /// A role ARN: `arn:`, a partition (`aws`, `aws-cn`, `aws-us-gov`, …: lower-case letters and
  /// `-`), `:iam::`, a 12-digit account, `:role/`, then the role's path and name (STS's
  /// characters: letters, digits and `+=,.@_-/`), 20 to 2048 characters in all.
  public static func admitRoleARN(_ text: String) throws(AdmissionError) -> String {
    let refusal = AdmissionError(
      "it must be a role's ARN, arn:aws:iam::ACCOUNT:role/NAME (12-digit account; letters, digits and +=,.@_-/)")
    let parts = text.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
    guard (20...2048).contains(text.utf8.count), parts.count == 6, parts[0] == "arn", parts[2] == "iam",
      parts[3].isEmpty, !parts[1].isEmpty,
      parts[1].utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == UInt8(ascii: "-") }),
      parts[4].utf8.count == 12, parts[4].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
      parts[5].hasPrefix("role/"), parts[5].utf8.count > 5, !parts[5].hasSuffix("/"),
      parts[5].utf8.allSatisfy({ isNameByte($0) || $0 == UInt8(ascii: "/") })
    else { throw refusal }
    return text
  }

  /// RoleSessionName: 2 to 64 of letters, digits and `+=,.@_-`.
  public static func admitSessionName(_ text: String) throws(AdmissionError) -> String {
    guard (2...64).contains(text.utf8.count), text.utf8.allSatisfy(isNameByte) else {
      throw AdmissionError("it must be 2 to 64 letters, digits or +=,.@_-")
    }
    return text
  }

  /// An STS endpoint: https (plain http only on loopback, for tests), no user info, query or
  /// fragment; at most 2048 characters. Used for `aws_sts_endpoint` and the AWS_ENDPOINT_URL_STS
  /// and AWS_ENDPOINT_URL variables alike: the token goes nowhere else.
  public static func admitEndpoint(_ text: String) throws(AdmissionError) -> String {
    let refusal = AdmissionError(
      "it must be an https:// URL (http:// only on loopback) without user info, query or fragment")
    guard text.utf8.count <= 2048, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
      !text.contains("@"), !text.contains("?"), !text.contains("#"), !text.contains("\\"),
      let parts = URLParts(text), parts.scheme == "https" || (parts.scheme == "http" && parts.isLoopback)
    else { throw refusal }
    return text
  }

  /// The session name STS is sent: the configured one, else `strivacity-PROFILE` (cut to 64,
  /// characters STS refuses as `_`).
  public func sessionName(profile: String) -> String {
    if let sessionName { return sessionName }
    let bytes = Array("strivacity-\(profile)".utf8.prefix(64)).map { Self.isNameByte($0) ? $0 : UInt8(ascii: "_") }
    return String(decoding: bytes, as: UTF8.self)
  }

  static func isNameByte(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "+=,.@_-".utf8.contains(b)
  }
}

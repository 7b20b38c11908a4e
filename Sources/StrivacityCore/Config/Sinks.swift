// Token files `strivacity agent` keeps fresh (issue 30), each a named table under a profile,
//
//   [profiles.work.sinks.deploy]
//   path = "/run/user/1000/deploy.token"   # absolute; the file is replaced atomically
//   api = "orders"                         # optional: one of the profile's apis (else its own token)
//   format = "raw"                         # raw | json | header
//   mode = "0640"                          # optional: 0600 (default) or 0640, never world-readable
//
// so that a program that cannot ask for a token (a systemd service, a tool reading
// AWS_WEB_IDENTITY_TOKEN_FILE or a kubeconfig's tokenFile) can read one. Everything in it is
// admitted when the file is read; what is written is rendered by TokenRenderer (Tokens/
// TokenFormat.swift), only from an admitted token.

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

/// One `[profiles.P.sinks.NAME]` table, admitted.
public struct Sink: Sendable, Equatable {
  public var name: String
  /// Absolute, without `.`/`..` segments or control characters (`Sink.admitPath`).
  public var path: String
  /// The profile's API whose token goes there; nil: the profile's own token.
  public var api: String?
  public var format: SinkFormat
  /// 0o600 or 0o640.
  public var mode: UInt32

  public init(name: String, path: String, api: String? = nil, format: SinkFormat = .raw, mode: UInt32 = 0o600) {
    self.name = name
    self.path = path
    self.api = api
    self.format = format
    self.mode = mode
  }

  /// The modes a sink may have: private, or readable by the file's group (a service's).
  public static let modes: [String: UInt32] = ["0600": 0o600, "0640": 0o640]

  /// A sink's path: absolute, at most 4096 bytes, no control character, no empty, `.` or `..`
  /// segment (the file is exactly where it says), not a directory's (a trailing slash).
  public static func admitPath(_ text: String) throws(AdmissionError) -> String {
    guard (2...4096).contains(text.utf8.count), text.hasPrefix("/"), !text.hasSuffix("/"),
      text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F })
    else {
      throw AdmissionError("it must be an absolute path to a file, without control characters")
    }
    let segments = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    guard segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
      throw AdmissionError("it must not have '.', '..' or empty segments: write the path the file is at")
    }
    return text
  }
}

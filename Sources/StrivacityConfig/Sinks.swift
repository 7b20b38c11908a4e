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
import StrivacityCore

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

extension Config {
  /// `[profiles.P.sinks.NAME]` tables: each needs a `path`; every value admitted, or the line is
  /// an error naming the key. Also the `api` lines, checked against the profile's APIs once they
  /// are all read.
  static func parseSinks(
    _ field: TOMLTable.Entry, profile: String, path: String, warnings: inout [ConfigWarning]
  ) throws(ConfigError) -> ([Sink], [(name: String, position: SourcePosition)]) {
    var sinks: [Sink] = []
    var apis: [(name: String, position: SourcePosition)] = []
    for sinkEntry in try namedTables(field, "sinks", profile: profile, path: path) {
      let (section, fields) = try namedSection(sinkEntry, "sinks", "sink", profile: profile, path: path)
      var sink = Sink(name: sinkEntry.key, path: "")
      for item in fields.entries {
        switch item.key {
        case "path":
          sink.path = try admittedString(item, path: path, in: section, Sink.admitPath)
        case "api":
          let name = try string(item, path: path)
          guard ProfileName.isValid(name) else {
            throw .invalid(path: path, position: item.position, message: "\(section) api: not an API name")
          }
          sink.api = name
          apis.append((name, item.position))
        case "format":
          let text = try string(item, path: path)
          guard let format = SinkFormat(rawValue: text) else {
            throw .invalid(
              path: path, position: item.position, message: "\(section) format must be \"raw\", \"json\" or \"header\"")
          }
          sink.format = format
        case "mode":
          guard case .string(let text) = item.value, let mode = Sink.modes[text] else {
            throw .invalid(
              path: path, position: item.position,
              message: "\(section) mode must be \"0600\" or \"0640\" (a token file is never world-readable)")
          }
          sink.mode = mode
        default:
          warnings.append(
            .unknownKey(item.key, in: section, valid: ConfigKeys.sink, path: path, position: item.position))
        }
      }
      guard !sink.path.isEmpty else {
        throw .invalid(
          path: path, position: sinkEntry.position,
          message:
            "\(section) has no path: write the file to keep the token in, e.g. path = \"/run/user/1000/app.token\"")
      }
      if let other = sinks.first(where: { $0.path == sink.path }) {
        throw .invalid(
          path: path, position: sinkEntry.position, message: "\(section) has the same path as the sink \(other.name)")
      }
      sinks.append(sink)
    }
    return (sinks, apis)
  }
}

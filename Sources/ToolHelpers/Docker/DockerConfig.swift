// Docker's config (config.json) and containers' auth file (auth.json), edited for `strivacity
// setup docker`: their `credHelpers` object, every other key kept. Bytes in, bytes out: the
// command line reads and writes the files (ToolConfigFile), this says what they become.
import StrivacityCore

public enum DockerConfig {
  /// What docker, podman and skopeo are told to run: docker-credential-<this>.
  public static let helperName = "strivacity"

  /// Why a file is left as it is.
  public enum Refusal: Error, Equatable, Sendable {
    /// The file is not a JSON object.
    case notAnObject
    /// Its `credHelpers` is not a JSON object.
    case helpersNotAnObject

    /// The sentence, about the file at `path`.
    public func sentence(_ path: String) -> String {
      switch self {
      case .notAnObject: "\(path) is not a JSON object: left as it is; fix it, then run this again"
      case .helpersNotAnObject: "\(path): credHelpers is not a JSON object: left as it is"
      }
    }
  }

  /// The file with `credHelpers[host] = "strivacity"`; nil when it says so already. `bytes`:
  /// the file's, nil when there is none.
  public static func settingHelper(_ bytes: [UInt8]?, host: String) throws(Refusal) -> [UInt8]? {
    try edited(bytes) { $0[host] = .string(helperName) }
  }

  /// The file without strivacity's `credHelpers` entry for `host` (another helper's is kept);
  /// nil when it has none.
  public static func removingHelper(_ bytes: [UInt8]?, host: String) throws(Refusal) -> [UInt8]? {
    try edited(bytes) { if $0[host] == .string(helperName) { $0.removeValue(forKey: host) } }
  }

  /// The registries the file sends to strivacity.
  public static func hosts(_ bytes: [UInt8]) -> [String] {
    guard case .object(let document)? = JSONValue.parse(bytes), case .object(let helpers)? = document["credHelpers"]
    else { return [] }
    return helpers.filter { $0.value == .string(helperName) }.keys.sorted()
  }

  /// Changes the `credHelpers` object (missing: an empty object), all else kept: the new bytes,
  /// nil when the change changes nothing.
  static func edited(_ bytes: [UInt8]?, _ change: (inout [String: JSONValue]) -> Void) throws(Refusal) -> [UInt8]? {
    var document: [String: JSONValue] = [:]
    if let bytes {
      let blank = bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
      if !blank {
        guard case .object(let object)? = JSONValue.parse(bytes) else { throw .notAnObject }
        document = object
      }
    }
    var helpers: [String: JSONValue] = [:]
    if let existing = document["credHelpers"] {
      guard case .object(let object) = existing else { throw .helpersNotAnObject }
      helpers = object
    }
    let before = helpers
    change(&helpers)
    if helpers == before { return nil }
    if helpers.isEmpty {
      document.removeValue(forKey: "credHelpers")
    } else {
      document["credHelpers"] = .object(helpers)
    }
    // An emptied file reads `{}` (the encoder's pretty form of an empty object has a blank line).
    let text = document.isEmpty ? Array("{}".utf8) : JSONValue.object(document).serialized(pretty: true)
    return text + [0x0A]
  }
}

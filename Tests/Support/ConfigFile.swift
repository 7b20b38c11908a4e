// strivacity's config file as the tests write and read it: where it lives below a HOME, and the
// `[profiles.NAME]` table most tests start from. One writer for every suite, so a test says
// only what its profile adds.
import Foundation

public enum StrivacityConfig {
  /// Where strivacity reads its config, relative to HOME.
  public static let path = ".config/strivacity/config.toml"

  /// A profile's table: `[profiles.NAME]` with its tenant, client id and (when given) grant, a
  /// line each, then `settings` (TOML lines, the profile's own keys and any tables after it) as
  /// they are.
  public static func profile(
    _ name: String, tenant: String, clientID: String, grant: String? = nil, _ settings: String = ""
  ) -> String {
    var lines = ["[profiles.\(name)]", "tenant = \"\(tenant)\"", "client_id = \"\(clientID)\""]
    if let grant { lines.append("grant = \"\(grant)\"") }
    return lines.joined(separator: "\n") + "\n" + settings
  }
}

extension ScratchDirectory {
  /// The config file's path when this directory is HOME.
  public var configPath: String { file(StrivacityConfig.path) }

  /// Writes `text` as strivacity's config when this directory is HOME (mode 0600, its directory
  /// made); the file's path.
  @discardableResult
  public func writeConfig(_ text: String) throws -> String { try write(StrivacityConfig.path, text) }

  /// The config file as it is now (as strivacity left it, say).
  public func readConfig() throws -> String { try String(contentsOfFile: configPath, encoding: .utf8) }
}

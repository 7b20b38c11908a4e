// What `strivacity doctor` reads in a cargo config file, as pure functions over its bytes: each
// `[registries.NAME]` table's credential-provider and index. cargo takes a registry's own
// credential-provider before `registry.global-credential-providers` (which never shadows it),
// and a deeper config file (a project's `.cargo/config.toml`) or the variable
// CARGO_REGISTRIES_<NAME>_CREDENTIAL_PROVIDER before $CARGO_HOME's: those are what shadow.
// The file is scanned line by line (a cargo config may hold TOML that strivacity's config
// parser refuses: inline tables, floats): a table's header, then single-line `key = value`.
import StrivacityConfig
import StrivacityCore

public enum CargoExamination {
  /// A `[registries.NAME]` table as the file writes it.
  public struct Registry: Sendable, Equatable {
    public var name: String
    /// The provider's words (a string is split at spaces, as cargo splits it); nil when unset.
    public var provider: [String]?
    public var index: String?
  }

  /// The file's registries, in the order their tables first appear; nothing for bytes that are
  /// not UTF-8.
  public static func registries(_ bytes: [UInt8]) -> [Registry] {
    guard let text = String(validating: bytes, as: UTF8.self) else { return [] }
    var found: [Registry] = []
    var current: Int?
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let line = raw.trimming(" \t\r")
      if line.hasPrefix("[") {
        current = nil
        guard let keys = headerKeys(line), keys.count == 2, keys[0] == "registries" else { continue }
        current = found.firstIndex { $0.name == keys[1] }
        if current == nil {
          found.append(Registry(name: keys[1]))
          current = found.count - 1
        }
        continue
      }
      guard let index = current, let table = try? TOML.parse(String(line)), let entry = table.entries.first else {
        continue
      }
      switch (entry.key, entry.value) {
      case ("credential-provider", .string(let words)):
        found[index].provider = words.split(separator: " ").map(String.init)
      case ("credential-provider", .array(let items)):
        found[index].provider = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
      case ("index", .string(let url)): found[index].index = url
      default: break
      }
    }
    return found
  }

  /// The keys of a `[a.b."c"]` header (nil for `[[…]]`, or one that does not read), read by the
  /// TOML parser itself.
  static func headerKeys(_ line: String) -> [String]? {
    guard !line.hasPrefix("[["), let table = try? TOML.parse(line + "\n") else { return nil }
    var keys: [String] = []
    var level = table
    while level.entries.count == 1, case .table(let inner) = level.entries[0].value {
      keys.append(level.entries[0].key)
      level = inner
    }
    return keys.isEmpty ? nil : keys
  }

  /// The config files cargo reads before $CARGO_HOME's when run in `directory`: its own and each
  /// directory's above it, deepest first.
  public static func projectConfigs(from directory: String) -> [String] {
    var parts = directory.split(separator: "/").map(String.init)
    var paths: [String] = []
    while true {
      let base = parts.isEmpty ? "" : "/" + parts.joined(separator: "/")
      paths += [base + "/.cargo/config.toml", base + "/.cargo/config"]
      guard !parts.isEmpty else { return paths }
      parts.removeLast()
    }
  }

  /// Whether a provider's words run strivacity (its program's name is strivacity's).
  public static func isOurs(_ provider: [String]) -> Bool {
    guard let program = provider.first?.split(separator: "/").last else { return false }
    return program == "strivacity" || program == "strivacity-cli"
  }

  /// The variable cargo reads the registry's credential-provider from before any file.
  public static func providerVariable(_ registry: String) -> String {
    "CARGO_REGISTRIES_\(registry.uppercased().replacing("-", with: "_"))_CREDENTIAL_PROVIDER"
  }
}

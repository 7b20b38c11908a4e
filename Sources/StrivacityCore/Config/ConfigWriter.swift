// Updating a profile in the config file's text while keeping everything else (comments, other
// profiles, key order) as the user wrote it. Only non-secret settings are ever written.

public enum ConfigValue: Sendable, Equatable {
  case string(String)
  case strings([String])

  var toml: String {
    switch self {
    case .string(let text): return TOMLString.quoted(text)
    case .strings(let items): return "[" + items.map(TOMLString.quoted).joined(separator: ", ") + "]"
    }
  }
}

public enum ConfigWriter {
  /// Returns `text` with `settings` set in `[profiles.PROFILE]` (the table is added if missing).
  /// Throws when the result would not parse (it never should).
  public static func update(
    _ text: String, profile: String, settings: [(key: String, value: ConfigValue)], path: String
  ) throws(ConfigError) -> String {
    var lines = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    let header = lines.firstIndex { isHeader($0, profile: profile) }
    if let header {
      var end = lines[(header + 1)...].firstIndex { $0.trimming(" \t\r").hasPrefix("[") } ?? lines.count
      for (key, value) in settings {
        let line = "\(key) = \(value.toml)"
        if let existing = lines[(header + 1)..<end].firstIndex(where: { assigns($0, key) }) {
          lines[existing] = line
        } else {
          var insertAt = end
          while insertAt > header + 1 && lines[insertAt - 1].trimming(" \t\r").isEmpty { insertAt -= 1 }
          lines.insert(line, at: insertAt)
          end += 1
        }
      }
    } else {
      if let last = lines.last, !last.trimming(" \t\r").isEmpty { lines.append("") }
      lines.append(
        "[profiles.\(ProfileName.isValid(profile) && !profile.contains(".") ? profile : TOMLString.quoted(profile))]")
      lines += settings.map { "\($0.key) = \($0.value.toml)" }
    }
    let result = lines.joined(separator: "\n") + "\n"
    _ = try Config.parse(result, path: path)
    return result
  }

  private static func isHeader(_ line: String, profile: String) -> Bool {
    let trimmed = line.trimming(" \t\r")
    guard trimmed.hasPrefix("["), !trimmed.hasPrefix("[["), let root = try? TOML.parse(trimmed) else { return false }
    guard case .table(let profiles)? = root["profiles"], profiles.entries.count == 1 else { return false }
    return profiles.entries[0].key == profile
  }

  private static func assigns(_ line: String, _ key: String) -> Bool {
    let trimmed = line.trimming(" \t\r")
    guard trimmed.hasPrefix(key) else { return false }
    let rest = trimmed.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }
    return rest.hasPrefix("=")
  }
}

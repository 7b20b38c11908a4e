// Updating a profile in the config file's text while keeping everything else (comments, other
// profiles, key order) as the user wrote it. Only non-secret settings are ever written.
import StrivacityCore

public enum ConfigValue: Sendable, Equatable {
  case string(String)
  case strings([String])

  public var toml: String {
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
    try update(text, table: ["profiles", profile], settings: settings, path: path)
  }

  /// Returns `text` with `settings` set in the table named by `table`'s keys (`["profiles", "work",
  /// "apis", "orders"]` is `[profiles.work.apis.orders]`), added at the end if missing. Throws
  /// when the result would not parse (it never should).
  public static func update(
    _ text: String, table: [String], settings: [(key: String, value: ConfigValue)], path: String
  ) throws(ConfigError) -> String {
    var lines = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    let header = lines.firstIndex { isHeader($0, table: table) }
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
      lines.append(headerLine(table))
      lines += settings.map { "\($0.key) = \($0.value.toml)" }
    }
    let result = lines.joined(separator: "\n") + "\n"
    _ = try Config.parse(result, path: path)
    return result
  }

  /// Returns `text` without `keys` in the table `table` names (nil: without the table, its header
  /// to the next one), everything else kept; `text` itself when none of it is there. A key's
  /// value on one line only (what `update` writes).
  public static func removing(
    _ text: String, table: [String], keys: [String]?, path: String
  ) throws(ConfigError) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let header = lines.firstIndex(where: { isHeader($0, table: table) }) else { return text }
    let end = lines[(header + 1)...].firstIndex { $0.trimming(" \t\r").hasPrefix("[") } ?? lines.count
    if let keys {
      let kept = lines[(header + 1)..<end].filter { line in !keys.contains { assigns(line, $0) } }
      lines.replaceSubrange(header + 1..<end, with: kept)
    } else {
      lines.removeSubrange(header..<end)
    }
    var result = lines.joined(separator: "\n")
    if !result.isEmpty, !result.hasSuffix("\n") { result += "\n" }
    _ = try Config.parse(result, path: path)
    return result
  }

  /// Returns `text` with the top-level `key` set to `value` (`default_profile`): its line
  /// replaced, else one added before the first table.
  public static func settingTopLevel(_ text: String, key: String, value: ConfigValue, path: String)
    throws(ConfigError) -> String
  {
    var lines = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    let firstTable = lines.firstIndex { $0.trimming(" \t\r").hasPrefix("[") } ?? lines.count
    let line = "\(key) = \(value.toml)"
    if let existing = lines[..<firstTable].firstIndex(where: { assigns($0, key) }) {
      lines[existing] = line
    } else {
      var at = firstTable
      while at > 0 && lines[at - 1].trimming(" \t\r").isEmpty { at -= 1 }
      lines.insert(contentsOf: at < lines.count && at == firstTable ? [line, ""] : [line], at: at)
    }
    let result = lines.joined(separator: "\n") + "\n"
    _ = try Config.parse(result, path: path)
    return result
  }

  /// Returns `text` with a `[[contexts]]` rule (`match` one of its keys, and `profile`) placed
  /// before the other rules, so that it is the one that matches where it was made.
  public static func addingContext(
    _ text: String, match: (key: String, value: String), profile: String, path: String
  ) throws(ConfigError) -> String {
    var lines = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    let rule = [
      "[[contexts]]", "\(match.key) = \(TOMLString.quoted(match.value))", "profile = \(TOMLString.quoted(profile))",
    ]
    if let first = lines.firstIndex(where: { $0.trimming(" \t\r").hasPrefix("[[contexts]]") }) {
      lines.insert(contentsOf: rule + [""], at: first)
    } else {
      if let last = lines.last, !last.trimming(" \t\r").isEmpty { lines.append("") }
      lines += rule
    }
    let result = lines.joined(separator: "\n") + "\n"
    _ = try Config.parse(result, path: path)
    return result
  }

  /// `[a.b.c]`, each key bare when it can be, else quoted.
  public static func headerLine(_ table: [String]) -> String {
    "[" + table.map { ProfileName.isValid($0) && !$0.contains(".") ? $0 : TOMLString.quoted($0) }.joined(separator: ".")
      + "]"
  }

  /// Whether `line` is exactly `table`'s header: a `[…]` line making one nested table per key,
  /// each holding only the next (so `[profiles.work.apis.orders]` is not `[profiles.work]`).
  private static func isHeader(_ line: String, table: [String]) -> Bool {
    let trimmed = line.trimming(" \t\r")
    guard trimmed.hasPrefix("["), !trimmed.hasPrefix("[["), var current = try? TOML.parse(trimmed) else { return false }
    for key in table {
      guard current.entries.count == 1, current.entries[0].key == key, case .table(let inner) = current.entries[0].value
      else { return false }
      current = inner
    }
    return current.entries.isEmpty
  }

  private static func assigns(_ line: String, _ key: String) -> Bool {
    let trimmed = line.trimming(" \t\r")
    guard trimmed.hasPrefix(key) else { return false }
    let rest = trimmed.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }
    return rest.hasPrefix("=")
  }
}

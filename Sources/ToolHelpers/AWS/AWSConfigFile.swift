// The AWS config file (~/.aws/config, AWS_CONFIG_FILE) as `strivacity setup aws` edits it: one
// `credential_process = strivacity aws-credential-process --api NAME --profile P` line in the
// profile's section (`[default]`, `[profile NAME]`), written or removed as a pure function over
// the file's bytes, every other byte kept (other sections, comments, CRLF, bytes that are not
// UTF-8). The file is read as botocore reads it (Python's configparser): a section is `[…]` on
// a line of its own, a key ends at its first `=` or `:`, a line indented deeper than its key
// continues the key's value, `#` and `;` start comment lines. A section that already names
// another way to credentials (static keys, a role, a web identity, SSO, another program) is
// refused: which of two an SDK takes differs between SDKs. What takes credentials before any
// credential_process (the environment's keys, the credentials file's) is said (`shadowing`).
import StrivacityCore

public enum AWSConfigFile {
  /// The key written.
  public static let key = "credential_process"

  /// Keys that are a way to credentials of their own, in a profile's section.
  static let sources = [
    "aws_access_key_id", "aws_secret_access_key", "aws_session_token", "role_arn", "source_profile",
    "credential_source", "web_identity_token_file", "sso_session", "sso_start_url", "sso_account_id", "sso_role_name",
  ]

  /// The static keys, which the SDKs take from the credentials file before any credential_process.
  static let staticKeys = ["aws_access_key_id", "aws_secret_access_key", "aws_session_token"]

  /// An AWS profile's name: 1 to 64 letters, digits or `-_.+@` (what `aws configure` takes,
  /// with nothing to quote in a section header or a command line).
  public static func admitProfileName(_ text: String) throws(AdmissionError) -> String {
    guard (1...64).contains(text.utf8.count),
      text.utf8.allSatisfy({ isAlphanumeric($0) || "-_.+@".utf8.contains($0) })
    else { throw AdmissionError("an AWS profile's name is 1 to 64 letters, digits or -_.+@") }
    return text
  }

  /// The section header of `profile`, as written.
  public static func header(_ profile: String) -> String { profile == "default" ? "[default]" : "[profile \(profile)]" }

  /// The command the SDKs run: the program by absolute path and its words, each quoted for a
  /// POSIX shell when it needs it (botocore splits it as a shell does; other SDKs run it with
  /// `sh -c`). A word with a control character cannot be written on one line: refused.
  public static func command(program: String, api: String, profile: String, config: String? = nil)
    throws(AdmissionError) -> String
  {
    let words =
      [program, "aws-credential-process", "--api", api, "--profile", profile] + (config.map { ["--config", $0] } ?? [])
    guard
      words.allSatisfy({ !$0.isEmpty && !$0.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) })
    else { throw AdmissionError("a path with a control character cannot be written into an AWS config") }
    return words.map { word in
      word.utf8.allSatisfy { isAlphanumeric($0) || "-_.+@/:=,".utf8.contains($0) }
        ? word : "'" + word.replacing("'", with: "'\\''") + "'"
    }.joined(separator: " ")
  }

  /// Whether `value`, a credential_process, runs strivacity's aws-credential-process (for
  /// `api`, when given): ours to replace or remove.
  public static func isOurs(_ value: String, api: String? = nil) -> Bool {
    let words = shellWords(value)
    guard words.count >= 2, words[1] == "aws-credential-process",
      let name = words[0].split(separator: "/").last, name == "strivacity" || name == "strivacity-cli"
    else { return false }
    guard let api else { return true }
    return zip(words.dropFirst(2), words.dropFirst(3)).contains { $0 == "--api" && $1 == api }
  }

  /// `file` with `profile`'s credential_process set to `command`: replacing one of ours, else
  /// added after the section's last key, else with the section added at the end. Refused
  /// (nothing changed) when the section has another way to credentials, another program's
  /// credential_process, or when the profile has two sections.
  public static func setting(_ file: [UInt8], profile: String, command: String) throws(AdmissionError) -> [UInt8] {
    let ini = INI(file)
    let line = Array("\(key) = \(command)".utf8)
    guard let section = try ini.section(profile) else {
      // A blank line before the new section; none when the file ends without a newline (then
      // neither does it after: `removing` takes it back byte for byte).
      var added = file.isEmpty ? [] : (file.last == 0x0A ? ini.eol : ini.eol + ini.eol)
      added += Array(header(profile).utf8) + ini.eol + line
      return file + added + (file.isEmpty || file.last == 0x0A ? ini.eol : [])
    }
    let entries = ini.entries(section)
    var conflicting: [String] = []
    for entry in entries where sources.contains(entry.key) && !conflicting.contains(entry.key) {
      conflicting.append(entry.key)
    }
    guard conflicting.isEmpty else {
      throw AdmissionError(
        "\(header(profile)) has \(conflicting.joined(separator: ", ")), a way to credentials of its own that AWS's "
          + "SDKs may take instead of credential_process: remove it, or name another profile with --aws-profile")
    }
    let processes = entries.filter { $0.key == key }
    guard processes.count <= 1 else { throw AdmissionError("\(header(profile)) has credential_process twice") }
    if let existing = processes.first {
      let value = ini.value(existing)
      guard isOurs(value) else {
        throw AdmissionError(
          "\(header(profile)) runs another program (credential_process = "
            + "\(TerminalSafe.text(String(value.prefix(200)), multiline: false))): remove it, or name another "
            + "profile with --aws-profile")
      }
      return ini.replacing(existing.lines, with: line)
    }
    return ini.inserting(line, at: entries.last?.lines.upperBound ?? section.lowerBound + 1)
  }

  /// `file` without `profile`'s credential_process when it is ours for `api` (and without the
  /// section, when nothing else was in it: as `setting` added it); nil when it has none.
  public static func removing(_ file: [UInt8], profile: String, api: String) throws(AdmissionError) -> [UInt8]? {
    let ini = INI(file)
    guard let section = try ini.section(profile) else { return nil }
    let entries = ini.entries(section)
    guard let ours = entries.first(where: { $0.key == key && isOurs(ini.value($0), api: api) }) else { return nil }
    let alone =
      entries.count == 1 && ini.lines[(section.lowerBound + 1)..<ours.lines.lowerBound].allSatisfy { $0.kind == .blank }
    guard alone else { return ini.replacing(ours.lines, with: nil) }
    let first =
      section.lowerBound > 0 && ini.lines[section.lowerBound - 1].kind == .blank
      ? section.lowerBound - 1 : section.lowerBound
    return ini.replacing(first..<ours.lines.upperBound, with: nil)
  }

  /// The credential_process `profile`'s section has (for saying what is there); nil: none.
  public static func process(_ file: [UInt8], profile: String) -> String? {
    let ini = INI(file)
    guard let section = try? ini.section(profile) else { return nil }
    return ini.entries(section).first { $0.key == key }.map(ini.value)
  }

  /// Something the AWS CLI and SDKs take before a credential_process: what it is, and what
  /// fixes it.
  public struct Shadow: Sendable, Equatable {
    public var what: String
    public var fix: String
    /// Whether it is a choice of the shell's (AWS_PROFILE naming another profile), not a way to
    /// credentials that wins.
    public var chosen: Bool
    /// As `setup aws` says it.
    public var sentence: String { "\(what): \(fix)" }
  }

  /// What the AWS CLI and SDKs take before `profile`'s credential_process, each a sentence
  /// saying what fixes it (`shadows`).
  public static func shadowing(
    _ environment: [String: String], profile: String, credentials: [UInt8]?, credentialsPath: String
  ) -> [String] {
    shadows(environment, profile: profile, credentials: credentials, credentialsPath: credentialsPath).map(\.sentence)
  }

  /// What the AWS CLI and SDKs take before `profile`'s credential_process: the environment's
  /// keys and web identity, another profile chosen by AWS_PROFILE, and the static keys of the
  /// credentials file's section `[profile]` (`credentials`, read from `credentialsPath`).
  public static func shadows(
    _ environment: [String: String], profile: String, credentials: [UInt8]?, credentialsPath: String
  ) -> [Shadow] {
    var found: [Shadow] = []
    let given = { (name: String) in environment[name].map { !$0.isEmpty } ?? false }
    if given("AWS_ACCESS_KEY_ID") {
      found.append(
        Shadow(
          what: "AWS_ACCESS_KEY_ID is set, and the AWS CLI and SDKs take it before any credential_process",
          fix: "unset it (and AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN)", chosen: false))
    }
    if given("AWS_WEB_IDENTITY_TOKEN_FILE") {
      found.append(
        Shadow(
          what: "AWS_WEB_IDENTITY_TOKEN_FILE is set, and the AWS CLI and SDKs take it (with AWS_ROLE_ARN) before any "
            + "credential_process", fix: "unset it", chosen: false))
    }
    if let chosen = environment["AWS_PROFILE"], !chosen.isEmpty, chosen != profile {
      found.append(
        Shadow(
          what: "AWS_PROFILE names another profile, which the AWS CLI and SDKs use",
          fix: "set AWS_PROFILE=\(profile), or unset it and pass --profile \(profile)", chosen: true))
    }
    if let credentials {
      let ini = INI(credentials)
      let keys = ini.lines.indices.filter { ini.lines[$0].kind == .header(profile) }.flatMap { index in
        ini.entries(index..<ini.sectionEnd(index)).map(\.key).filter(staticKeys.contains)
      }
      if !keys.isEmpty {
        found.append(
          Shadow(
            what: "\(credentialsPath) has \(keys.joined(separator: ", ")) in [\(profile)], which the AWS CLI and SDKs "
              + "take before credential_process", fix: "remove them from it", chosen: false))
      }
    }
    return found
  }

  static func isAlphanumeric(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
  }

  /// `text` split into words as a POSIX shell does, enough for our own commands: blanks
  /// separate words, single quotes quote, a backslash outside them escapes.
  static func shellWords(_ text: String) -> [String] {
    var words: [String] = []
    // Appended to in place (linear in the text); `inWord`: '' makes an empty word.
    var word = ""
    var inWord = false
    var quoted = false
    var escaped = false
    for c in text {
      if escaped {
        word.append(c)
        inWord = true
        escaped = false
      } else if quoted {
        if c == "'" { quoted = false } else { word.append(c) }
      } else if c == "'" {
        quoted = true
        inWord = true
      } else if c == "\\" {
        escaped = true
      } else if c == " " || c == "\t" {
        if inWord { words.append(word) }
        word = ""
        inWord = false
      } else {
        word.append(c)
        inWord = true
      }
    }
    if inWord { words.append(word) }
    return words
  }
}

/// An INI file's lines, classified as configparser reads them; edits return new bytes, every
/// line not edited kept as it was.
struct INI {
  enum Kind: Equatable {
    case blank, comment, continuation
    /// `[NAME]`: the text between the first `[` and the last `]`.
    case header(String)
    /// `NAME = value` (or `:`): the name, trimmed, in lower case.
    case key(String)
  }

  struct Line {
    /// Where it starts, where its text ends (before `\r\n` or `\n`), where it ends.
    var start: Int, textEnd: Int, end: Int
    var kind: Kind
  }

  /// An entry: its name and its lines (the key's and those continuing its value).
  struct Entry {
    var key: String
    var lines: Range<Int>
  }

  let bytes: [UInt8]
  let lines: [Line]
  /// The file's line ending, from its first line (`\n` for a file without one).
  let eol: [UInt8]

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
    var lines: [Line] = []
    var start = 0
    var keyIndent: Int?  // the indentation of the section's last key: deeper lines continue it
    while start < bytes.count {
      let newline = bytes[start...].firstIndex(of: 0x0A)
      let end = newline.map { $0 + 1 } ?? bytes.count
      var textEnd = newline ?? bytes.count
      if newline != nil, textEnd > start, bytes[textEnd - 1] == 0x0D { textEnd -= 1 }
      let text = bytes[start..<textEnd]
      let isSpace = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0B || b == 0x0C }
      let indent = text.prefix(while: isSpace).count
      let kind: Kind
      if let first = text.dropFirst(indent).first {
        if first == UInt8(ascii: "#") || first == UInt8(ascii: ";") {
          kind = .comment
        } else if let keyIndent, indent > keyIndent {
          kind = .continuation
        } else if first == UInt8(ascii: "["), let close = text.lastIndex(of: UInt8(ascii: "]")),
          close > text.startIndex + indent + 1
        {
          kind = .header(String(decoding: text[(text.startIndex + indent + 1)..<close], as: UTF8.self))
          keyIndent = nil
        } else {
          let name = text.dropFirst(indent).prefix { $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: ":") }
          kind = .key(Self.trimmed(name).lowercased())
          keyIndent = indent
        }
      } else {
        kind = .blank
      }
      lines.append(Line(start: start, textEnd: textEnd, end: end, kind: kind))
      start = end
    }
    self.lines = lines
    let first = lines.first { $0.end > $0.textEnd }
    eol = first.map { Array(bytes[$0.textEnd..<$0.end]) } ?? [0x0A]
  }

  /// Where the section whose header is line `header` ends: the next header, or the end.
  func sectionEnd(_ header: Int) -> Int {
    lines[(header + 1)...].firstIndex { if case .header = $0.kind { true } else { false } } ?? lines.count
  }

  /// The lines of `profile`'s section in an AWS config (`[default]` or `[profile NAME]`, as
  /// botocore finds them: `profile` and the name separated by blanks, the name maybe quoted),
  /// its header first; nil when there is none; refused when there are two.
  func section(_ profile: String) throws(AdmissionError) -> Range<Int>? {
    let headers = lines.indices.filter { index in
      guard case .header(let name) = lines[index].kind else { return false }
      if name == "default" { return profile == "default" }
      let words = name.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard words.count == 2, words[0] == "profile" else { return false }
      var named = words[1]
      if named.count >= 2, let quote = named.first, quote == "\"" || quote == "'", named.last == quote {
        named = named.dropFirst().dropLast()
      }
      return named == profile
    }
    guard headers.count <= 1 else {
      throw AdmissionError("profile \(profile) has \(headers.count) sections: merge them into one, then run this again")
    }
    return headers.first.map { $0..<sectionEnd($0) }
  }

  /// The entries of `section` (its header first).
  func entries(_ section: Range<Int>) -> [Entry] {
    var entries: [Entry] = []
    for index in section.dropFirst() {
      switch lines[index].kind {
      case .key(let name): entries.append(Entry(key: name, lines: index..<(index + 1)))
      case .continuation:
        if let last = entries.indices.last { entries[last].lines = entries[last].lines.lowerBound..<(index + 1) }
      default: break
      }
    }
    return entries
  }

  /// An entry's value on its key's line: after the first `=` or `:`, trimmed.
  func value(_ entry: Entry) -> String {
    let line = lines[entry.lines.lowerBound]
    let text = bytes[line.start..<line.textEnd]
    guard let delimiter = text.firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ":") }) else {
      return ""
    }
    return Self.trimmed(text[(delimiter + 1)...])
  }

  /// `text` without the blanks around it, as text.
  static func trimmed(_ text: ArraySlice<UInt8>) -> String {
    let blank = { (b: UInt8) in b == 0x20 || b == 0x09 }
    let start = text.firstIndex { !blank($0) } ?? text.endIndex
    let end = text.lastIndex { !blank($0) }.map { $0 + 1 } ?? start
    return String(decoding: text[start..<max(start, end)], as: UTF8.self)
  }

  /// The file with the lines `range` replaced by `line` (ending as the last of them did), or
  /// removed (nil). Lines removed up to the end of a file that does not end with a newline take
  /// the newline before them too.
  func replacing(_ range: Range<Int>, with line: [UInt8]?) -> [UInt8] {
    let last = lines[range.upperBound - 1]
    var start = lines[range.lowerBound].start
    var replacement: [UInt8] = []
    if let line {
      replacement = line + bytes[last.textEnd..<last.end]
    } else if last.end == last.textEnd, range.lowerBound > 0 {
      start = lines[range.lowerBound - 1].textEnd
    }
    return Array(bytes[..<start]) + replacement + bytes[last.end...]
  }

  /// The file with `line` added before line `index`, after `index - 1` (a newline first when
  /// that one has none).
  func inserting(_ line: [UInt8], at index: Int) -> [UInt8] {
    let previous = lines[index - 1]
    let at = previous.end
    let hasNewline = previous.end > previous.textEnd
    let added = hasNewline ? line + eol : eol + line
    return Array(bytes[..<at]) + added + bytes[at...]
  }
}

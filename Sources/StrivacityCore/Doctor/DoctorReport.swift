// `strivacity doctor`'s report, as pure values: each check's outcome, its detail and its fix,
// rendered for a person (one row a check, wrapped to the screen's width) or as JSON for a support
// ticket (each whole). What a check says may quote the tenant, the config or the environment: it
// is made inert and bounded when the check is made, so neither rendering can carry an escape
// sequence or a tenant's screenfuls.

/// One check: what was looked at, how it went, what was seen, and what to do about it (thrown
/// where a check stops early).
public struct DoctorCheck: Sendable, Equatable, Error {
  public enum Outcome: String, Sendable, CaseIterable {
    case pass, warn, fail, skipped

    /// The glyph a person reads in the first column.
    public var glyph: String {
      switch self {
      case .pass: return "✔"
      case .warn: return "!"
      case .fail: return "✘"
      case .skipped: return "-"
      }
    }
  }

  /// A stable key (`config`, `tenant`, `discovery`, …): what scripts and tickets name.
  public let id: String
  public let outcome: Outcome
  public let detail: String
  /// What to do; empty when nothing is to be done.
  public let fix: String
  /// The documented exit status of a failure of this check (`ExitStatus`).
  public let status: ExitStatus

  /// Longest detail or fix kept, in characters: far beyond anything strivacity says itself (a
  /// path, a keyring's advice, a tenant's error_description of a few lines), so that only a
  /// tenant's screenfuls are cut.
  public static let lengthLimit = 2000

  public init(_ id: String, _ outcome: Outcome, _ detail: String, fix: String = "", status: ExitStatus = .failure) {
    self.id = id
    self.outcome = outcome
    self.detail = Self.line(detail)
    self.fix = Self.line(fix)
    self.status = status
  }

  /// Outside text as one inert, bounded line (the text rendering wraps it, never cuts it).
  public static func line(_ text: String) -> String {
    // Cut before it is made inert: what is beyond the bound is never looked at.
    let inert = TerminalSafe.text(String(text.prefix(lengthLimit + 1)), multiline: false)
    guard inert.count > lengthLimit else { return inert }
    return String(inert.prefix(lengthLimit - 1)) + "…"
  }
}

public struct DoctorReport: Sendable, Equatable {
  public var profile: String?
  public var checks: [DoctorCheck]

  public init(profile: String?, checks: [DoctorCheck] = []) {
    self.profile = profile.map { DoctorCheck.line($0) }
    self.checks = checks
  }

  public mutating func add(_ check: DoctorCheck) { checks.append(check) }

  /// Whether any check by this key failed (later checks that need it are skipped).
  public func failed(_ id: String) -> Bool { checks.contains { $0.id == id && $0.outcome == .fail } }

  /// 0 when nothing failed (warnings allowed); else the documented status of the first failure.
  public var exitStatus: ExitStatus { checks.first { $0.outcome == .fail }?.status ?? .ok }

  /// The width a report is wrapped to when it is not for a terminal.
  public static let defaultColumns = 80

  /// One row per check (`✔ name  detail`), its fix below it when it has one and did not pass;
  /// a detail or fix longer than `columns` allow goes on in lines of its own, indented under its
  /// start (never cut; `wrap`). With `colour`, the glyph in colour (the caller decides: a terminal, no
  /// NO_COLOR).
  public func text(colour: Bool, columns: Int = DoctorReport.defaultColumns) -> String {
    let width = (checks.map(\.id.count).max() ?? 0)
    let indent = String(repeating: " ", count: 2 + width + 2)
    // However narrow the screen, a few words a line.
    let room = max(columns - indent.count, 24)
    var lines: [String] = []
    if let profile { lines.append("strivacity doctor: profile \(profile)") }
    for check in checks {
      let glyph = colour ? Self.paint(check.outcome) : check.outcome.glyph
      let name = check.id + String(repeating: " ", count: width - check.id.count)
      let detail = Self.wrap(check.detail, room)
      lines.append("\(glyph) \(name)  \(detail[0])")
      lines += detail.dropFirst().map { indent + $0 }
      if !check.fix.isEmpty, check.outcome != .pass {
        let fix = Self.wrap(check.fix, room - 2)
        lines.append(indent + "→ " + fix[0])
        lines += fix.dropFirst().map { indent + "  " + $0 }
      }
    }
    let failures = checks.filter { $0.outcome == .fail }.count
    let warnings = checks.filter { $0.outcome == .warn }.count
    lines.append(
      failures == 0
        ? (warnings == 0 ? "all checks passed" : "no failures, \(warnings) warning\(warnings == 1 ? "" : "s")")
        : "\(failures) failed, \(warnings) warning\(warnings == 1 ? "" : "s"); exit status \(exitStatus.rawValue)")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The same as JSON, with stable keys: `profile`, `exit_status`, and `checks` in order, each
  /// with `check`, `outcome` (pass, warn, fail, skipped), `detail` and `fix`, each whole.
  public var json: JSONValue {
    .object([
      "profile": profile.map { .string($0) } ?? .null,
      "exit_status": .number(Double(exitStatus.rawValue)),
      "checks": .array(
        checks.map {
          .object([
            "check": .string($0.id), "outcome": .string($0.outcome.rawValue), "detail": .string($0.detail),
            "fix": .string($0.fix),
          ])
        }),
    ])
  }

  /// `text` in lines of at most `width` characters, broken at the last space that allows it; a
  /// word longer than a line (a path, a URL) stands whole on a line of its own, for the terminal
  /// to fold and a person to copy. At least one line.
  public static func wrap(_ text: String, _ width: Int) -> [String] {
    var rest = Substring(text)
    var lines: [String] = []
    while rest.count > width {
      let head = rest.prefix(width + 1)
      if let space = head.lastIndex(of: " "), let end = head[..<space].lastIndex(where: { $0 != " " }) {
        lines.append(String(rest[...end]))
        rest = rest[space...].drop { $0 == " " }
      } else if let space = rest.firstIndex(of: " ") {
        if space > rest.startIndex { lines.append(String(rest[..<space])) }
        rest = rest[space...].drop { $0 == " " }
      } else {
        break
      }
    }
    if !rest.isEmpty || lines.isEmpty { lines.append(String(rest)) }
    return lines
  }

  /// The glyph in strivacity's own colours (TerminalSafe.ownSequences: red, cyan, dim, reset).
  static func paint(_ outcome: DoctorCheck.Outcome) -> String {
    switch outcome {
    case .pass: return "\u{1B}[36m\(outcome.glyph)\u{1B}[0m"
    case .warn: return "\u{1B}[1m\(outcome.glyph)\u{1B}[0m"
    case .fail: return "\u{1B}[31m\(outcome.glyph)\u{1B}[0m"
    case .skipped: return "\u{1B}[2m\(outcome.glyph)\u{1B}[0m"
    }
  }
}

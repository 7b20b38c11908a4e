// `strivacity doctor`'s report, as pure values: each check's outcome, one line of detail and one
// line of fix, rendered for a person (one screen) or as JSON for a support ticket. What a check
// says may quote the tenant, the config or the environment: it is made inert and bounded when
// the check is made, so neither rendering can carry an escape sequence or a screenful.

/// One check: what was looked at, how it went, what was seen, and what to do about it.
public struct DoctorCheck: Sendable, Equatable {
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

  /// Longest detail or fix kept, in characters: one line on a wide screen, whatever the tenant sent.
  public static let lineLimit = 200

  public init(_ id: String, _ outcome: Outcome, _ detail: String, fix: String = "", status: ExitStatus = .failure) {
    self.id = id
    self.outcome = outcome
    self.detail = Self.line(detail)
    self.fix = Self.line(fix)
    self.status = status
  }

  /// Outside text as one inert, bounded line.
  public static func line(_ text: String) -> String {
    let inert = TerminalSafe.text(text, multiline: false)
    guard inert.count > lineLimit else { return inert }
    return String(inert.prefix(lineLimit - 1)) + "…"
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

  /// One line per check (`✔ name  detail`), its fix on the next line when it has one and did
  /// not pass; with `colour`, the glyph in colour (the caller decides: a terminal, no NO_COLOR).
  public func text(colour: Bool) -> String {
    let width = (checks.map(\.id.count).max() ?? 0)
    var lines: [String] = []
    if let profile { lines.append("strivacity doctor: profile \(profile)") }
    for check in checks {
      let glyph = colour ? Self.paint(check.outcome) : check.outcome.glyph
      let name = check.id + String(repeating: " ", count: width - check.id.count)
      lines.append("\(glyph) \(name)  \(check.detail)")
      if !check.fix.isEmpty, check.outcome != .pass {
        lines.append("  " + String(repeating: " ", count: width) + "  → \(check.fix)")
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
  /// with `check`, `outcome` (pass, warn, fail, skipped), `detail` and `fix`.
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

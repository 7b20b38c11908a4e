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

/// A tenant's `Date` header (RFC 9110 §5.6.7, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`) as
/// seconds since the epoch; nil for anything else. For the clock-skew check.
public enum HTTPDate {
  static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  public static func parse(_ text: String) -> Int64? {
    let parts = text.split(separator: " ")
    guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]),
      let month = months.firstIndex(of: String(parts[2]))
    else { return nil }
    let time = parts[4].split(separator: ":").compactMap { Int($0) }
    guard time.count == 3, (1...31).contains(day), (1970...9999).contains(year), (0...23).contains(time[0]),
      (0...59).contains(time[1]), (0...60).contains(time[2])
    else { return nil }
    return daysFromCivil(year: year, month: month + 1, day: day) * 86400
      + Int64(time[0] * 3600 + time[1] * 60 + time[2])
  }

  /// `seconds` since the epoch as an IMF-fixdate (what a server's `Date` says).
  public static func format(_ seconds: Int64) -> String {
    let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
    let time = seconds - days * 86400
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
    let stamp = RFC3339.format(seconds)  // 1994-11-06T08:49:37Z
    let parts = stamp.prefix(10).split(separator: "-").map(String.init)
    let month = months[(Int(parts[1]) ?? 1) - 1]
    func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return
      "\(weekday), \(parts[2]) \(month) \(parts[0]) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let m = Int64(month)
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }
}

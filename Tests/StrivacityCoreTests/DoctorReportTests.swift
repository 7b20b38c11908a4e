// `strivacity doctor`'s report as values: its two renderings, its exit status, and outside text
// made inert and bounded; long text wrapped, not cut.
import StrivacityCore
import Testing

@Suite struct DoctorReportTests {
  static let report = DoctorReport(
    profile: "work",
    checks: [
      DoctorCheck("config", .pass, "/home/u/.config/strivacity/config.toml parses (1 profile)"),
      DoctorCheck("tenant", .fail, "TCP: cannot connect", fix: "check the port", status: .transient),
      DoctorCheck("discovery", .skipped, "skipped: the tenant cannot be reached"),
      DoctorCheck("clock", .warn, "this machine's clock is 90 s ahead", fix: "synchronise the clock"),
      DoctorCheck("store", .fail, "locked", fix: "unlock it", status: .keyringLocked),
    ])

  @Test func textIsOneLinePerCheckWithItsFix() {
    #expect(
      Self.report.text(colour: false) == """
        strivacity doctor: profile work
        ✔ config     /home/u/.config/strivacity/config.toml parses (1 profile)
        ✘ tenant     TCP: cannot connect
                     → check the port
        - discovery  skipped: the tenant cannot be reached
        ! clock      this machine's clock is 90 s ahead
                     → synchronise the clock
        ✘ store      locked
                     → unlock it
        2 failed, 1 warning; exit status 4

        """)
  }

  @Test func colourIsOnlyStrivacitysOwnAndOnlyWhenAsked() {
    let coloured = Self.report.text(colour: true)
    #expect(coloured.contains("\u{1B}[31m✘\u{1B}[0m") && coloured.contains("\u{1B}[36m✔\u{1B}[0m"))
    #expect(TerminalSafe.sink(coloured) == coloured)
    #expect(!Self.report.text(colour: false).contains("\u{1B}"))
  }

  @Test func theExitStatusIsTheFirstFailures() {
    #expect(Self.report.exitStatus == .transient)
    let warnings = DoctorReport(
      profile: nil, checks: [DoctorCheck("clock", .warn, "skew"), DoctorCheck("x", .skipped, "")])
    #expect(warnings.exitStatus == .ok)
    #expect(warnings.text(colour: false).hasSuffix("no failures, 1 warning\n"))
    #expect(
      DoctorReport(profile: nil, checks: [DoctorCheck("a", .pass, "")]).text(colour: false)
        == "✔ a  \nall checks passed\n")
  }

  @Test func jsonHasStableKeys() throws {
    let json = Self.report.json
    #expect(json["profile"] == "work")
    #expect(json["exit_status"]?.int == 4)
    let checks = try #require(json["checks"]?.array)
    #expect(checks.count == 5)
    #expect(checks.allSatisfy { Set(($0.object ?? [:]).keys) == ["check", "outcome", "detail", "fix"] })
    #expect(checks[1]["check"] == "tenant" && checks[1]["outcome"] == "fail" && checks[1]["fix"] == "check the port")
    #expect(DoctorReport(profile: nil).json["profile"] == .null)
  }

  @Test func outsideTextIsInertAndBounded() {
    let hostile = DoctorCheck(
      "discovery", .fail, "issuer \u{1B}]52;c;AAAA\u{7}\u{202E}x\nsecond line", fix: String(repeating: "y", count: 5000)
    )
    #expect(!hostile.detail.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) })
    #expect(hostile.detail.contains("^[") && hostile.detail.contains("<U+202E>") && !hostile.detail.contains("\n"))
    #expect(hostile.fix.count == DoctorCheck.lengthLimit && hostile.fix.hasSuffix("…"))
    let report = DoctorReport(profile: "p\u{1B}[2J", checks: [hostile])
    #expect(!report.text(colour: false).contains("\u{1B}"))
    #expect(report.profile == "p^[[2J")
  }

  /// A long detail or fix (a keyring's advice, a tenant's error_description) is never cut: the
  /// text wraps it under its start, within the columns; the JSON holds it whole.
  @Test func longDetailsWrapInTextAndStayWholeInJSON() throws {
    let detail =
      "the tenant refused the client secret for ci-bot (invalid_client: Client authentication failed because "
      + "the secret given does not match the one registered for this client, or it expired on 2024-01-01), sent "
      + "as client_secret_basic: check the secret in CI_SECRET"
    let fix = "set CI_SECRET to client ci-bot's current secret (the tenant's console shows whether it expired)"
    let report = DoctorReport(
      profile: "ci",
      checks: [
        DoctorCheck("config", .pass, "fine"),
        DoctorCheck("credentials", .fail, detail, fix: fix, status: .clientRefused),
      ])
    let text = report.text(colour: false, columns: 60)
    #expect(
      text == """
        strivacity doctor: profile ci
        ✔ config       fine
        ✘ credentials  the tenant refused the client secret for
                       ci-bot (invalid_client: Client authentication
                       failed because the secret given does not
                       match the one registered for this client, or
                       it expired on 2024-01-01), sent as
                       client_secret_basic: check the secret in
                       CI_SECRET
                       → set CI_SECRET to client ci-bot's current
                         secret (the tenant's console shows whether
                         it expired)
        1 failed, 0 warnings; exit status 9

        """, "\(text)")
    #expect(text.split(separator: "\n").allSatisfy { $0.count <= 60 })
    // Nothing lost: the words are those of the detail and the fix.
    let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    #expect(words.contains(detail) && words.contains(fix))
    let checks = try #require(report.json["checks"]?.array)
    #expect(checks[1]["detail"]?.string == detail && checks[1]["fix"]?.string == fix)
    // The default is 80 columns; a word longer than a line (a path) stands whole on its own; a
    // screen too narrow still gets a few words a line.
    #expect(report.text(colour: false) == report.text(colour: false, columns: DoctorReport.defaultColumns))
    let path = "/home/someone/" + String(repeating: "x", count: 40) + "/config.toml"
    let long = DoctorReport(profile: nil, checks: [DoctorCheck("a", .warn, "\(path) parses, with one warning")])
    #expect(
      long.text(colour: false, columns: 10) == """
        ! a  \(path)
             parses, with one warning
        no failures, 1 warning

        """)
    #expect(DoctorReport.wrap("one two three", 3) == ["one", "two", "three"])
    #expect(DoctorReport.wrap("", 10) == [""] && DoctorReport.wrap("a  b", 1) == ["a", "b"])
    #expect(DoctorReport.wrap("  ab cd", 3) == ["ab", "cd"])
  }

  @Test func httpDatesReadAndWrite() {
    #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    #expect(HTTPDate.parse(HTTPDate.format(1_795_000_000)) == 1_795_000_000)
    for bad in [
      "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT",
      "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
    ] {
      #expect(HTTPDate.parse(bad) == nil, "\(bad)")
    }
  }
}

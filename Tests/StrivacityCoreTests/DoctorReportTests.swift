// `strivacity doctor`'s report as values: its two renderings, its exit status, and outside text
// made inert and bounded.
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
    #expect(hostile.fix.count == DoctorCheck.lineLimit && hostile.fix.hasSuffix("…"))
    let report = DoctorReport(profile: "p\u{1B}[2J", checks: [hostile])
    #expect(!report.text(colour: false).contains("\u{1B}"))
    #expect(report.profile == "p^[[2J")
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

// `doctor`'s first checks in-process: a config whose other profile's table is malformed names
// that table, and the profile in use is examined all the same.
import Broker
import Foundation
import StrivacityConfig
import StrivacityCore
import Testing

@Suite struct ExaminationConfigTests {
  @Test func anotherProfilesMistakeIsNamedAndTheOneInUseIsExamined() throws {
    let config = "[profiles.home]\nclient_id = [\"not\", \"a\", \"string\"]\n\n" + personProfile
    let bench = try Bench(profile: config, tenant: FakeTenant { _ in HTTPResponse(status: 500) })
    let report = Examination(
      context: bench.context(), overrides: ProfileOverrides(profile: "work"), log: Log(verbose: false)
    )
    .run()
    let first = try #require(report.checks.first)
    #expect(first.id == "config" && first.outcome == .fail)
    #expect(first.detail.hasSuffix("config.toml:2:1: in [profiles.home]: 'client_id' must be a string, not an array"))
    #expect(
      first.fix.hasPrefix("correct [profiles.home] in ") && first.fix.contains("the profile in use, 'work', parses"))
    #expect(report.checks.contains { $0.id == "profile" && $0.outcome == .pass })
    #expect(report.exitStatus == .usage)
  }

  @Test func theProfileInUsesOwnMistakeStopsTheExamination() throws {
    let config = "[profiles.home]\n" + personProfile.replacing("client_id = \"cli\"", with: "client_id = 5")
    let bench = try Bench(profile: config, tenant: FakeTenant { _ in HTTPResponse(status: 500) })
    let report = Examination(
      context: bench.context(), overrides: ProfileOverrides(profile: "work"), log: Log(verbose: false)
    )
    .run()
    #expect(report.checks.map(\.id) == ["config"])
    #expect(report.checks[0].detail.contains("in [profiles.work]"))
  }
}

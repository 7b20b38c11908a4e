// `doctor`'s first checks, the built binary in a private HOME: a config whose other profile's
// table is malformed names that table, and the profile in use is examined all the same; the
// profile in use's own mistake stops the examination.
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct DoctorConfigTests {
  static let work = """
    [profiles.work]
    tenant = "http://127.0.0.1:9/"
    client_id = "cli"
    store = "file"
    """

  static func checks(_ sandbox: Sandbox) throws -> (status: Int32, checks: [JSONValue]) {
    let result = try sandbox.strivacity(["doctor", "--profile", "work", "--format", "json"])
    return (result.status, JSONValue.parse(Array(result.stdout.utf8))?["checks"]?.array ?? [])
  }

  @Test func anotherProfilesMistakeIsNamedAndTheOneInUseIsExamined() throws {
    let sandbox = try Sandbox(config: "[profiles.home]\nclient_id = [\"not\", \"a\", \"string\"]\n\n" + Self.work)
    let (status, checks) = try Self.checks(sandbox)
    let first = try #require(checks.first)
    #expect(first["check"] == "config" && first["outcome"] == "fail")
    #expect(
      first["detail"]?.string?.hasSuffix(
        "config.toml:2:1: in [profiles.home]: 'client_id' must be a string, not an array") == true, "\(first)")
    let fix = first["fix"]?.string ?? ""
    #expect(fix.hasPrefix("correct [profiles.home] in ") && fix.contains("the profile in use, 'work', parses"))
    #expect(checks.contains { $0["check"] == "profile" && $0["outcome"] == "pass" })
    #expect(status == 2)
  }

  @Test func theProfileInUsesOwnMistakeStopsTheExamination() throws {
    let config = "[profiles.home]\n" + Self.work.replacing("client_id = \"cli\"", with: "client_id = 5")
    let (status, checks) = try Self.checks(try Sandbox(config: config))
    #expect(checks.map { $0["check"]?.string } == ["config"])
    #expect(checks.first?["detail"]?.string?.contains("in [profiles.work]") == true)
    #expect(status == 2)
  }
}

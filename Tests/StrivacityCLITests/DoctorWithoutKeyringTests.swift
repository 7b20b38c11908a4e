// `doctor` for a machine profile where nothing gives its secret and there is no keyring at all (a
// CI runner: no session bus): the credentials row says what it looked for and how to give the
// secret, and none of the keyring's advice (issue 39, point 2).
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct DoctorWithoutKeyringTests {
  @Test func aMissingMachineSecretNamesWhatWasLookedForNotTheKeyring() throws {
    let sandbox = try Sandbox(
      config: """
        [profiles.ci]
        tenant = "http://127.0.0.1:9/"
        client_id = "ci-bot"
        grant = "client_credentials"
        """)
    let json = try sandbox.strivacity(["doctor", "--profile", "ci", "--format", "json"])  // no session bus
    let checks = JSONValue.parse(Array(json.stdout.utf8))?["checks"]?.array ?? []
    let row = try #require(checks.first { $0["check"] == "credentials" }, "\(json.stdout)")
    #expect(row["outcome"] == "fail")
    #expect(
      row["detail"]?.string
        == "no client secret: STRIVACITY_CLIENT_SECRET is not set and [profiles.ci] names no client_secret_env or "
        + "client_secret_file, and no keyring is here to keep one (no D-Bus session bus)", "\(json.stdout)")
    #expect(
      row["fix"]?.string
        == "set STRIVACITY_CLIENT_SECRET to client ci-bot's secret, or name client_secret_env or client_secret_file "
        + "in [profiles.ci] of \(sandbox.home)/.config/strivacity/config.toml", "\(json.stdout)")
    let text = try sandbox.strivacity(["doctor", "--profile", "ci"])
    #expect(text.stdout.contains("✘ credentials"), "\(text.stdout)")
    for output in [json.stdout, text.stdout] {
      #expect(!output.contains("gnome-keyring") && !output.contains("dbus-run-session"), "\(output)")
    }
  }
}

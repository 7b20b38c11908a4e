// Machine profiles (issue 28), as far as they go today: the config is read and checked, and
// every command says plainly that this version cannot use one yet (exit 2), never starting a
// sign-in or touching the keyring.
import StrivacityTestSupport
import Testing

@Suite struct MachineProfileTests {
  @Test func everyCommandSaysAMachineProfileIsNotUsableYet() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("grant = \"client_credentials\"\nclient_secret_env = \"CI_SECRET\"\n")
    let expected =
      "strivacity: error: profile '\(h.profile)' is a machine profile (grant = \"client_credentials\"), which this "
      + "version of strivacity reads but cannot use yet\n"
    for arguments in [["token"], ["status"], ["login"], ["curl", h.emulator.issuer]] {
      for binary in ["strivacity", "strivacity-cli"] {
        let result = try run(
          [TestEnvironment.binary(binary)] + [arguments[0], "--profile", h.profile] + arguments.dropFirst(),
          environment: h.environment.merging(["CI_SECRET": "s3cret"]) { _, new in new })
        #expect(result.status == 2 && result.stdout.isEmpty, "\(binary) \(arguments): \(result.stderr)")
        #expect(result.stderr == expected, "\(binary) \(arguments)")
      }
    }
    #expect(try h.stats()["grants"]?.object?.isEmpty ?? true, "nothing was asked of the tenant")
  }
}

// `strivacity setup-proxy` for a tenant the proxy is never used for (the emulator on loopback):
// the line says the tenant was reached directly and the password kept unchecked, never that it
// went through a proxy where nothing listens.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

extension KeptProxyPasswordTests {
  @Test func aLoopbackTenantIsReachedDirectlyAndThePasswordKeptUnchecked() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    // Port 1: nothing listens there (binding it needs root).
    let proxy = "http://127.0.0.1:1"
    let setup = try run(
      [
        TestEnvironment.binary("strivacity"), "setup-proxy", "--profile", h.profile, "--proxy", proxy, "--user",
        "alice", "--password-stdin",
      ],
      environment: h.environment, stdin: "secret-pw\n")
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(
      setup.stderr.hasSuffix(
        "strivacity: reached \(h.emulator.issuer) directly, not through the proxy \(proxy): loopback addresses "
          + "are never proxied, so the password was not tried against the proxy; it is kept in the keyring, "
          + "unchecked\n"), "\(setup.stderr)")
    #expect(!setup.stderr.contains("through \(proxy) (from"), "\(setup.stderr)")
    let lookup = try run(
      ["/usr/bin/secret-tool", "lookup", "profile", h.profile, "kept", "proxy-password"], environment: h.environment)
    #expect(lookup.status == 0 && !lookup.stdout.isEmpty, "the password was not kept")
  }
}

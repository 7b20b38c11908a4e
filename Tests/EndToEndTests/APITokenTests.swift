// Tokens for each API (issue 27): `token --api NAME` and `--for URL` against the emulator's API
// security policies, with the real keyring.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite(.serialized) struct APITokenTests {
  static let apis = """
    [profiles.PROFILE.apis.orders]
    url = "https://api.example.com/orders/"
    audience = "https://api.example.com/orders"
    scopes = ["orders:read"]

    [profiles.PROFILE.apis.billing]
    url = "https://api.example.com/billing/"
    resource = ["https://api.example.com/billing/"]
    """

  func config(_ h: Harness, _ apis: String = Self.apis) throws {
    try h.writeProfile("\n" + apis.replacingOccurrences(of: "PROFILE", with: h.profile))
  }

  @Test func choosingAnAPIThatIsNotThereIsExitTwo() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try config(h)
    let unknown = try h.strivacity(["token", "--profile", h.profile, "--api", "shipping"])
    #expect(unknown.status == 2)
    #expect(unknown.stdout.isEmpty)
    #expect(
      unknown.stderr == "strivacity: error: profile \(h.profile) has no API 'shipping'; its APIs: orders, billing\n")
    let both = try h.strivacity(["token", "--profile", h.profile, "--api", "orders", "--for", "https://x.example/"])
    #expect(both.status == 2 && both.stderr.contains("use either --api or --for"), "\(both.stderr)")
    let idToken = try h.strivacity(["token", "--profile", h.profile, "--api", "orders", "--id-token"])
    #expect(idToken.status == 2 && idToken.stderr.contains("--id-token is the sign-in's"), "\(idToken.stderr)")
    let elsewhere = try h.strivacity(["token", "--profile", h.profile, "--for", "https://other.example/x"])
    #expect(elsewhere.status == 2)
    #expect(
      elsewhere.stderr.contains("https://other.example/x is under none of profile \(h.profile)'s APIs"),
      "\(elsewhere.stderr)")
    let unsafe = try h.strivacity(["token", "--profile", h.profile, "--for", "https://api.example.com/%2e%2e/x"])
    #expect(unsafe.status == 2 && unsafe.stderr.contains("encoded dot"), "\(unsafe.stderr)")
    // No APIs at all: the message says how to add one.
    try h.writeProfile()
    let none = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(none.status == 2)
    #expect(none.stderr.contains("it has none: add a [profiles.\(h.profile).apis.NAME] section"), "\(none.stderr)")
  }

  /// A URL on the tenant (or a host of the profile), under no API, gets the sign-in's token.
  @Test func aURLUnderNoAPIGetsTheProfilesOwnToken() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try config(h)
    let own = try h.strivacity(["token", "--profile", h.profile])
    let viaTenant = try h.strivacity(["token", "--profile", h.profile, "--for", h.emulator.issuer + "userinfo"])
    #expect(viaTenant.status == 0, "\(viaTenant.stderr)")
    #expect(viaTenant.stdout == own.stdout)
  }
}

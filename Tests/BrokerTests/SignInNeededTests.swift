// setup-api's last line: whether the new API entry needs a sign-in first, in-process.
import Broker
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@Suite struct SignInNeededTests {
  static let billing = "https://api.example.com/billing/"

  @Test func aPersonNotSignedInIsToldToSignIn() throws {
    let bench = try Bench(profile: personProfile, tenant: FakeTenant { _ in HTTPResponse(status: 500) })
    let line = try bench.broker("work").signInNeeded(forResource: Self.billing, scopes: [], apiName: "billing")
    #expect(line == "sign in to use it: strivacity login --profile work")
  }

  @Test func aNewResourceNeedsConsentAnExistingOneDoesNot() throws {
    let bench = try Bench(profile: personProfile, tenant: FakeTenant { _ in HTTPResponse(status: 500) })
    try bench.signedIn(
      TokenSet(accessToken: "at", refreshToken: "rt", scope: "openid orders:read", obtainedAt: bench.now), "work")
    let broker = try bench.broker("work")
    #expect(
      broker.signInNeeded(forResource: Self.billing, scopes: ["billing:read"], apiName: "billing")
        == "sign in again to consent to it (the current sign-in did not ask for \(Self.billing)): strivacity login "
        + "--profile work; on a terminal, strivacity token --profile work --api billing offers that itself")
    let orders = "https://api.example.com/orders/"
    #expect(
      broker.signInNeeded(forResource: orders, scopes: ["orders:read"], apiName: "orders-too")
        == "no sign-in needed: the current sign-in already covers \(orders)")
    #expect(
      broker.signInNeeded(forResource: orders, scopes: ["orders:write"], apiName: "orders-too").hasPrefix(
        "sign in again"))
  }

  @Test func aMachineNeedsNone() throws {
    let bench = try Bench(profile: machineProfile, tenant: FakeTenant { _ in HTTPResponse(status: 500) })
    #expect(
      try bench.broker("ci").signInNeeded(forResource: Self.billing, scopes: [], apiName: "billing")
        == "no sign-in needed: a machine profile asks for its tokens with its own credentials")
  }
}

// What a tool's credential helper (cargo's provider, Docker's erase) asks of the broker,
// in-process: a challenge answered as curl's are but never with a sign-in, and a kept API token
// made expired so that the next ask renews it.
import Broker
import Foundation
import OAuthCore
import StrivacityConfig
import StrivacityCore
import Testing

@Suite struct HelperTokensTests {
  static let fresh = Freshness(seconds: 60, explicit: false)

  func bench() throws -> Bench {
    let bench = try Bench(
      profile: personProfile, tenant: FakeTenant { _ in FakeTenant.tokens("at-api", refresh: "rt-2") })
    try bench.signedIn(
      TokenSet(accessToken: "at-1", refreshToken: "rt-1", expiresAt: bench.now + 3600, obtainedAt: bench.now), "work")
    return bench
  }

  @Test func aStepUpOrScopesForNoAPINameTheCommandAndAskNothing() throws {
    let bench = try bench()
    let broker = try bench.broker("work")
    let stepUp = try #require(throws: BrokerError.self) {
      try broker.helperTokens(api: nil, challenge: .stepUp(acrValues: "mfa", maxAge: 300), Self.fresh)
    }
    #expect(stepUp.status == .signInRequired)
    #expect(stepUp.message.hasSuffix("run strivacity login --profile work --acr-values 'mfa' --max-age 300"))
    let scopes = try #require(throws: BrokerError.self) {
      try broker.helperTokens(api: nil, challenge: .scopes([try Scope(admitting: "r:write")]), Self.fresh)
    }
    #expect(scopes.status == .usage && scopes.message.contains("strivacity setup api --profile work URL"))
    #expect(bench.tenant.tokenRequests.isEmpty)
    // No challenge: the kept token, no request.
    #expect(try broker.helperTokens(api: nil, challenge: nil, Self.fresh).accessToken.value == "at-1")
    #expect(bench.tenant.tokenRequests.isEmpty)
  }

  /// Docker's and Terraform's `get`: the API's token, kept between asks, and no sign-in when
  /// the refresh token is refused.
  @Test func aHelpersTokenIsTheAPIsKeptOneAndNeverASignIn() throws {
    let bench = try bench()
    let broker = try bench.broker("work")
    let orders = try #require(broker.resolved.profile.api(named: "orders"))
    // As HelperCommand asks for a helper's API token: the profile's margin, no challenge.
    func token(_ broker: TokenBroker) throws -> BearerToken {
      try broker.helperTokens(api: orders, challenge: nil, .asked(nil, profile: broker.resolved.profile)).accessToken
    }
    #expect(try token(broker).value == "at-api")
    #expect(try token(bench.broker("work")).value == "at-api")
    #expect(bench.tenant.tokenRequests.count == 1, "the second ask is answered from the kept token")
    let refused = try Bench(
      profile: personProfile,
      tenant: FakeTenant { _ in FakeTenant.error("invalid_grant") })
    try refused.signedIn(
      TokenSet(accessToken: "at-1", refreshToken: "rt-1", expiresAt: refused.now + 3600, obtainedAt: refused.now),
      "work")
    let failure = try #require(throws: BrokerError.self) {
      try token(refused.broker("work"))
    }
    #expect(failure.status == .signInRequired && failure.message.contains("strivacity login --profile work"))
  }

  @Test func anExpiredKeptAPITokenIsRenewedOnTheNextAsk() throws {
    let bench = try bench()
    let broker = try bench.broker("work")
    let orders = try #require(broker.resolved.profile.api(named: "orders"))
    _ = try broker.apiTokens(orders, Self.fresh)
    #expect(bench.tenant.tokenRequests.count == 1)
    _ = try broker.apiTokens(orders, Self.fresh)
    #expect(bench.tenant.tokenRequests.count == 1, "kept")
    try broker.expireKept(orders)
    _ = try bench.broker("work").apiTokens(orders, Self.fresh)
    #expect(bench.tenant.tokenRequests.count == 2, "renewed after erase")
  }
}

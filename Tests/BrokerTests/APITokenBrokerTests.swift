// API tokens in-process: the refresh grant narrowed to the API, the answer checked to be for it
// (a JWT's aud and scope), kept in the API's slot; a refusal that a sign-in may cure, with the
// sign-in passed in; and machine profiles, whose renewal is their client credentials.
import Broker
import Foundation
import OAuthCore
import StrivacityConfig
import StrivacityCore
import Synchronization
import Testing

@Suite struct APITokenBrokerTests {
  static let fresh = Freshness(seconds: 60, explicit: false)

  /// A JWT (unsigned: only its claims are read here) with `claims`.
  static func jwt(_ claims: [String: JSONValue]) -> String {
    let header = Base64URL.encode(JSONValue.object(["alg": "RS256", "typ": "JWT"]).serialized())
    return header + "." + Base64URL.encode(JSONValue.object(claims).serialized()) + ".c2ln"
  }

  func bench(_ answer: @escaping ([String: String]) -> HTTPResponse) throws -> Bench {
    let bench = try Bench(profile: personProfile, tenant: FakeTenant(answer: answer))
    try bench.signedIn(
      TokenSet(accessToken: "at-1", refreshToken: "rt-1", expiresAt: bench.now + 3600, obtainedAt: bench.now), "work")
    return bench
  }

  func orders(_ broker: TokenBroker) throws -> API {
    try #require(broker.resolved.profile.api(named: "orders"))
  }

  @Test func anAPITokenIsTheRefreshGrantNarrowedToTheAPI() throws {
    let bench = try bench { _ in FakeTenant.tokens("at-orders", refresh: "rt-2", scope: "orders:read") }
    let broker = try bench.broker("work")
    let tokens = try broker.apiTokens(try orders(broker), Self.fresh)
    #expect(tokens.accessToken.value == "at-orders")
    #expect(
      bench.tenant.tokenRequests == [
        [
          "grant_type": "refresh_token", "refresh_token": "rt-1", "client_id": "cli",
          "resource": "https://api.example.com/orders/", "scope": "orders:read",
        ]
      ])
    // Kept in the API's slot; the rotated refresh token in the sign-in's set.
    #expect(try bench.store.load(broker.key(for: try orders(broker)))?.accessToken.value == "at-orders")
    #expect(try bench.store.load(broker.key)?.refreshToken?.value == "rt-2")
    #expect(try bench.store.load(broker.key)?.accessToken.value == "at-1")
    // Kept and fresh: the next ask makes no request.
    _ = try bench.broker("work").apiTokens(try orders(broker), Self.fresh)
    #expect(bench.tenant.tokenRequests.count == 1)
  }

  @Test(
    arguments: [
      (
        ["aud": "https://other.example/", "scope": "orders:read"], "is not for resource https://api.example.com/orders/"
      ),
      (["aud": "https://api.example.com/orders/", "scope": "profile"], "lacks the scope orders:read"),
    ] as [([String: JSONValue], String)])
  func aTokenNotForTheAPIIsNotKept(_ claims: [String: JSONValue], _ said: String) throws {
    let token = Self.jwt(claims)
    let bench = try bench { _ in FakeTenant.tokens(token) }
    let broker = try bench.broker("work")
    let failure = try #require(throws: BrokerError.self) { try broker.apiTokens(try orders(broker), Self.fresh) }
    #expect(failure.status == .server)
    #expect(failure.message.contains(said), "\(failure.message)")
    #expect(failure.message.hasSuffix("it was not kept"))
    #expect(try bench.store.load(broker.key(for: try orders(broker))) == nil)
  }

  @Test func aRefusedScopeWithNobodyToAskNamesTheLogin() throws {
    let bench = try bench { _ in FakeTenant.error("invalid_scope") }
    let broker = try bench.broker("work")
    let failure = try #require(throws: BrokerError.self) { try broker.apiTokens(try orders(broker), Self.fresh) }
    #expect(failure.status == .signInRequired)
    #expect(!failure.signInOffered)
    let refusal = "the tenant refused a token for API orders (scope orders:read): invalid_scope"
    #expect(failure.message == refusal + "; run strivacity login --profile work")
  }

  /// The sign-in is the command line's, passed in: asked for the API's target, and the token
  /// asked for once more after it.
  @Test func aRefusalIsCuredByTheSignInPassedIn() throws {
    let refusing = Mutex(true)
    let bench = try bench { _ in
      refusing.withLock { $0 } ? FakeTenant.error("invalid_target") : FakeTenant.tokens("at-orders")
    }
    let broker = try bench.broker("work")
    let asked = Mutex<[SignInExtras]>([])
    broker.signIn = { _, extras, _ in
      asked.withLock { $0.append(extras) }
      refusing.withLock { $0 = false }
      return .signedIn
    }
    #expect(try broker.apiTokens(try orders(broker), Self.fresh).accessToken.value == "at-orders")
    #expect(
      asked.withLock { $0 }
        == [SignInExtras(scopes: [try Scope(admitting: "orders:read")], resources: ["https://api.example.com/orders/"])]
    )
  }

  @Test func aDeclinedSignInIsTheRefusalOffered() throws {
    let bench = try bench { _ in FakeTenant.error("invalid_target") }
    let broker = try bench.broker("work")
    broker.signIn = { _, _, _ in .declined }
    let failure = try #require(throws: BrokerError.self) { try broker.apiTokens(try orders(broker), Self.fresh) }
    #expect(failure.status == .signInRequired)
    #expect(failure.signInOffered)
  }
}

@Suite struct MachineBrokerTests {
  static let fresh = Freshness(seconds: 60, explicit: false)

  func bench(_ answer: @escaping ([String: String]) -> HTTPResponse) throws -> Bench {
    try Bench(profile: machineProfile, tenant: FakeTenant(answer: answer), environment: ["CI_SECRET": "s3cret"])
  }

  @Test func aMachineRenewsWithItsClientCredentials() throws {
    let bench = try bench { _ in FakeTenant.tokens("at-machine", lifetime: 300) }
    let tokens = try bench.broker("ci").freshTokens(Self.fresh)
    #expect(tokens.accessToken.value == "at-machine")
    #expect(bench.tenant.tokenRequests == [["grant_type": "client_credentials"]])
    let request = try #require(bench.tenant.requests.last)
    let basic = "Basic " + Data("ci-bot:s3cret".utf8).base64EncodedString()
    #expect(request.headers.contains { $0.name == "Authorization" && $0.value == basic })
    // Kept: the next ask makes no request, until the clock says it is due.
    _ = try bench.broker("ci").freshTokens(Self.fresh)
    #expect(bench.tenant.tokenRequests.count == 1)
    bench.now += 280
    _ = try bench.broker("ci").freshTokens(Self.fresh)
    #expect(bench.tenant.tokenRequests.count == 2)
  }

  @Test func aRefusedSecretNamesWhereItCameFromNeverItself() throws {
    let bench = try bench { _ in FakeTenant.error("invalid_client", status: 401) }
    let failure = try #require(throws: BrokerError.self) { try bench.broker("ci").freshTokens(Self.fresh) }
    #expect(failure.status == .clientRefused)
    #expect(failure.message.contains("the tenant refused the client secret for ci-bot (invalid_client)"))
    #expect(failure.message.contains("CI_SECRET"))
    #expect(!failure.message.contains("s3cret"))
  }

  @Test func aMissingSecretAsksNothingOfTheTenant() throws {
    let bench = try Bench(profile: machineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("x") })
    let failure = try #require(throws: BrokerError.self) { try bench.broker("ci").freshTokens(Self.fresh) }
    #expect(failure.message.contains("CI_SECRET"))
    #expect(bench.tenant.tokenRequests.isEmpty)
  }
}

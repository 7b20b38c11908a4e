// TokenBroker.freshTokens in-process: every outcome of a refresh at the token endpoint, what is
// stored after each, and the exit status each failure carries.
import Broker
import Foundation
import OAuthCore
import StrivacityCore
import Synchronization
import Testing

@Suite struct FreshTokensTests {
  static let fresh = Freshness(seconds: 60, explicit: false)

  func bench(_ answer: @escaping ([String: String]) -> HTTPResponse) throws -> Bench {
    try Bench(profile: personProfile, tenant: FakeTenant(answer: answer))
  }

  /// A signed-in set obtained at `obtained`, living an hour.
  func held(_ bench: Bench, obtained: Int64, refresh: RefreshToken? = "rt-1") throws {
    try bench.signedIn(
      TokenSet(accessToken: "at-1", refreshToken: refresh, expiresAt: obtained + 3600, obtainedAt: obtained), "work")
  }

  /// A set due for a refresh, kept with endpoints that name `keptTokenEndpoint`.
  func heldDue(_ bench: Bench, keptTokenEndpoint: String) throws {
    var tokens = TokenSet(
      accessToken: "at-1", refreshToken: "rt-1", expiresAt: bench.now + 10, obtainedAt: bench.now - 3590)
    tokens.endpoints = [
      "issuer": bench.tenant.base, "authorization_endpoint": bench.tenant.base + "/oauth2/auth",
      "token_endpoint": keptTokenEndpoint,
    ]
    try bench.signedIn(tokens, "work")
  }

  @Test func aFreshSetIsHandedOutWithoutARequest() throws {
    let bench = try bench { _ in
      Issue.record("no request was expected"); return HTTPResponse(status: 500)
    }
    try held(bench, obtained: bench.now - 10)
    let tokens = try bench.broker("work").freshTokens(Self.fresh)
    #expect(tokens.accessToken.value == "at-1")
    #expect(bench.tenant.requests.isEmpty)
  }

  @Test func anAgingSetIsRefreshedOnceAndStored() throws {
    let bench = try bench { _ in FakeTenant.tokens("at-2", refresh: "rt-2") }
    try held(bench, obtained: bench.now - 3590)
    let broker = try bench.broker("work")
    let tokens = try broker.freshTokens(Self.fresh)
    #expect(tokens.accessToken.value == "at-2")
    #expect(tokens.refreshToken?.value == "rt-2")
    #expect(tokens.expiresAt == bench.now + 3600)
    #expect(
      bench.tenant.tokenRequests == [["grant_type": "refresh_token", "refresh_token": "rt-1", "client_id": "cli"]])
    #expect(try bench.store.load(broker.key)?.accessToken.value == "at-2")
    // The endpoints are kept with the set: the next refresh needs no discovery request.
    #expect(try bench.store.load(broker.key)?.endpoints?["token_endpoint"] == bench.tenant.tokenEndpoint)
  }

  @Test func aRefreshWithoutANewRefreshTokenKeepsTheOldOne() throws {
    let bench = try bench { _ in FakeTenant.tokens("at-2") }
    try held(bench, obtained: bench.now - 3590)
    #expect(try bench.broker("work").freshTokens(Self.fresh).refreshToken?.value == "rt-1")
  }

  @Test func aForcedRefreshAsksEvenWhenFresh() throws {
    let bench = try bench { _ in FakeTenant.tokens("at-2") }
    try held(bench, obtained: bench.now - 10)
    let forced = Freshness(seconds: 60, explicit: false, force: true)
    #expect(try bench.broker("work").freshTokens(forced).accessToken.value == "at-2")
    #expect(bench.tenant.tokenRequests.count == 1)
  }

  @Test func aDeadRefreshTokenIsDiscardedAndASignInAsked() throws {
    let bench = try bench { _ in FakeTenant.error("invalid_grant") }
    try held(bench, obtained: bench.now - 3590)
    let broker = try bench.broker("work")
    let failure = try #require(throws: BrokerError.self) { try broker.freshTokens(Self.fresh) }
    #expect(failure.status == .signInRequired)
    #expect(failure.message.contains("the tenant refused the refresh token for work (invalid_grant)"))
    let kept = try #require(try bench.store.load(broker.key))
    #expect(kept.refreshToken == nil)
    #expect(kept.accessToken.value == "at-1")
  }

  /// Each failing answer: its exit status, and the stored set untouched.
  @Test(arguments: [
    (FakeTenant.error("invalid_client", status: 401), StrivacityCore.ExitStatus.server),
    (FakeTenant.error("invalid_request"), .server),
    (FakeTenant.error("temporarily_unavailable", status: 503), .transient),
    (HTTPResponse(status: 500), .transient),
    (HTTPResponse(status: 429), .transient),
    (FakeTenant.json(["error": "server_error"]), .server),
  ])
  func aFailedRefreshLeavesTheStoredSet(_ answer: HTTPResponse, _ status: StrivacityCore.ExitStatus) throws {
    let bench = try bench { _ in answer }
    try held(bench, obtained: bench.now - 3590)
    let broker = try bench.broker("work")
    let failure = try #require(throws: BrokerError.self) { try broker.freshTokens(Self.fresh) }
    #expect(failure.status == status, "\(failure.message)")
    #expect(failure.message.contains("stored tokens are unchanged"))
    let kept = try #require(try bench.store.load(broker.key))
    #expect(kept.refreshToken?.value == "rt-1")
    #expect(kept.accessToken.value == "at-1")
  }

  @Test func anExpiredSetWithoutARefreshTokenAsksForASignIn() throws {
    let bench = try bench { _ in HTTPResponse(status: 500) }
    try held(bench, obtained: bench.now - 4000, refresh: nil)
    let failure = try #require(throws: BrokerError.self) { try bench.broker("work").freshTokens(Self.fresh) }
    #expect(failure.status == .signInRequired)
    #expect(
      failure.message == "the access token for work has expired and no refresh token is held: run strivacity login")
    #expect(bench.tenant.requests.isEmpty)
  }

  @Test func nothingStoredIsNotSignedIn() throws {
    let bench = try bench { _ in HTTPResponse(status: 500) }
    let failure = try #require(throws: BrokerError.self) { try bench.broker("work").freshTokens(Self.fresh) }
    #expect(failure.status == .signInRequired)
    #expect(failure.message == "not signed in to work: run strivacity login --profile work")
  }

  /// A kept token endpoint that is gone (404) is asked of discovery again, and the refresh sent
  /// there once more: nothing was rotated.
  @Test func aKeptEndpointThatIsGoneIsDiscoveredAgain() throws {
    let bench = try bench { _ in FakeTenant.tokens("at-2") }
    try heldDue(bench, keptTokenEndpoint: bench.tenant.base + "/old/token")
    #expect(try bench.broker("work").freshTokens(Self.fresh).accessToken.value == "at-2")
    let urls = bench.tenant.requests.map(\.url)
    #expect(
      urls == [
        bench.tenant.base + "/old/token", bench.tenant.base + "/.well-known/openid-configuration",
        bench.tenant.tokenEndpoint,
      ])
  }

  /// A token endpoint off the tenant's origin never gets the refresh token.
  @Test func aTokenEndpointElsewhereIsRefused() throws {
    let bench = try bench { _ in FakeTenant.tokens("at-2") }
    try heldDue(bench, keptTokenEndpoint: "https://elsewhere.example/token")
    let failure = try #require(throws: BrokerError.self) { try bench.broker("work").freshTokens(Self.fresh) }
    #expect(failure.status == .server)
    #expect(!bench.tenant.requests.contains { $0.url.hasPrefix("https://elsewhere.example") })
  }

  /// One refresh however many ask at once: threads of one process, each with its own broker, as
  /// processes are (the lock is the runtime directory's flock; the store is the truth).
  @Test func manyAskingAtOnceMakeOneRefresh() throws {
    let bench = try bench { _ in FakeTenant.tokens("at-2", refresh: "rt-2") }
    bench.tenant.delay = 0.2
    try held(bench, obtained: bench.now - 3590)
    nonisolated(unsafe) let brokers = try (0..<8).map { _ in try bench.broker("work") }
    let results = Mutex<[String]>([])
    // A thread each (not a pool as wide as the machine's cores): all eight ask at once.
    let done = DispatchGroup()
    for index in brokers.indices {
      done.enter()
      Thread {
        let token = (try? brokers[index].freshTokens(Self.fresh).accessToken.value) ?? "failed"
        results.withLock { $0.append(token) }
        done.leave()
      }.start()
    }
    done.wait()
    #expect(results.withLock { $0 } == Array(repeating: "at-2", count: 8))
    #expect(bench.tenant.tokenRequests.count == 1)
  }
}

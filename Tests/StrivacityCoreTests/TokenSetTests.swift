import Testing
@testable import StrivacityCore

@Suite struct TokenSetTests {
  static let tokens = TokenSet(
    accessToken: "at-SECRET-1", refreshToken: "rt-SECRET-2", idToken: "a.b.c", scope: "openid",
    expiresAt: 2_000_000_000, obtainedAt: 1_999_996_400)

  @Test func roundTripsThroughTheStoredForm() throws {
    let bytes = Self.tokens.encoded()
    #expect(try TokenSet.decode(bytes, source: "test") == Self.tokens)
    #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("{\"tokens\":{\"access_token\":"))
  }

  @Test func descriptionNeverShowsTokens() {
    let text = "\(Self.tokens)"
    #expect(!text.contains("SECRET"))
    #expect(text.contains("<redacted 11 bytes>"))
  }

  @Test func corruptAndNewerFormatsAreRejectedWithoutEcho() {
    #expect(throws: StoreError.corrupt(source: "s", detail: "not a strivacity token set")) {
      try TokenSet.decode(Array("{\"access_token\":\"SECRET\"}".utf8), source: "s")
    }
    do {
      _ = try TokenSet.decode(Array("{\"v\":2,\"tokens\":{\"access_token\":\"x\",\"token_type\":\"Bearer\",\"obtained_at\":1}}".utf8), source: "s")
      Issue.record("accepted a newer format")
    } catch {
      #expect("\(error)".contains("version 2"))
    }
  }

  @Test func refreshDecision() {
    #expect(!Self.tokens.needsRefresh(now: 1_999_990_000, .standard))
    #expect(Self.tokens.needsRefresh(now: 1_999_999_950, .standard))
    #expect(Self.tokens.needsRefresh(now: 2_000_000_100, Freshness(seconds: 0, explicit: true)))
    #expect(Self.tokens.needsRefresh(now: 1_000, Freshness(seconds: 0, explicit: true, force: true)), "--refresh: whatever the expiry")
  }

  /// An explicit margin is a promise, not capped: 2700 s asked of a 1-hour token with 31 minutes
  /// left refreshes it; more than the lifetime asked refreshes every time, and is said.
  @Test func anExplicitMarginIsAPromise() {
    let hour = TokenSet(accessToken: "at", expiresAt: 1_000 + 3_600, obtainedAt: 1_000)
    let asked = Freshness(seconds: 2_700, explicit: true)
    #expect(hour.refreshMargin(asked) == 2_700)
    #expect(hour.needsRefresh(now: 1_000 + 3_600 - 1_860, asked))
    #expect(!hour.needsRefresh(now: 1_000 + 3_600 - 1_860, Freshness(seconds: 2_700, explicit: false)), "the default margin is capped")
    #expect(hour.shortfall(now: 1_000, asked) == nil)
    #expect(hour.shortfall(now: 1_000, Freshness(seconds: 7_200, explicit: true))
      == "the access token has 3600 s left, less than the 7200 s asked (--min-ttl, min_ttl): the tenant issues 3600-s tokens")
    #expect(hour.shortfall(now: 1_000, Freshness(seconds: 7_200, explicit: false)) == nil, "only an explicit margin is a promise")
    var profile = Profile(name: "p")
    #expect(Freshness.asked(nil, profile: profile) == .standard)
    profile.minTTL = 600
    #expect(Freshness.asked(nil, profile: profile) == Freshness(seconds: 600, explicit: true))
    #expect(Freshness.asked(30, profile: profile) == Freshness(seconds: 30, explicit: true), "--min-ttl over min_ttl")
  }

  /// The default margin is 60 s, but at most half the token's lifetime: a 5-second token is not
  /// "about to expire" the moment it is issued.
  @Test(arguments: [(Int64(3600), Int64(60)), (120, 60), (100, 50), (5, 2), (3, 1), (1, 0)])
  func refreshMarginAdaptsToShortLifetimes(_ lifetime: Int64, _ margin: Int64) {
    let short = TokenSet(accessToken: "at", expiresAt: 1_000 + lifetime, obtainedAt: 1_000)
    #expect(short.refreshMargin(.standard) == margin)
    #expect(!short.needsRefresh(now: 1_000, .standard) || lifetime <= 1, "fresh from the tenant")
    #expect(short.needsRefresh(now: 1_000 + lifetime - margin, .standard))
    #expect(short.secondsLeft(now: 1_000 + lifetime + 5) == 0)
  }
}

import Agent
import Testing

@testable import StrivacityConfig
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
      _ = try TokenSet.decode(
        Array("{\"v\":2,\"tokens\":{\"access_token\":\"x\",\"token_type\":\"Bearer\",\"obtained_at\":1}}".utf8),
        source: "s")
      Issue.record("accepted a newer format")
    } catch {
      #expect("\(error)".contains("version 2"))
    }
  }

  /// One admission for every wire shape (TokenSet(admitting:)): the stored JSON, the cache
  /// record and the agent's answer take and refuse the same times, by the same number rule.
  @Test(arguments: [
    ("1999996400", true), ("0", true), ("253402300799", true),  // 1970 to the end of year 9999
    ("253402300800", false), ("999999999999", false), ("-1", false), ("1e9", false), ("0x10", false), ("", false),
  ])
  func oneNumberRuleForEveryWireShape(_ time: String, _ admitted: Bool) throws {
    let stored: JSONValue = ["v": 1, "tokens": ["access_token": "at", "obtained_at": 1, "expires_at": .string(time)]]
    #expect(((try? TokenSet.decode(stored.serialized(), source: "test")) != nil) == admitted, "stored as text")
    if let number = Double(time), time.allSatisfy(\.isNumber) {
      let tokens: JSONValue = ["access_token": "at", "obtained_at": 1, "expires_at": .number(number)]
      let numeric: JSONValue = ["v": 1, "tokens": tokens]
      let decoded = try? TokenSet.decode(numeric.serialized(), source: "test")
      #expect(decoded?.expiresAt == (admitted ? Int64(number) : nil), "stored as a number")
    }
    let record = "access_token=at\nexpires_at=\(time)\nobtained_at=1\n"
    #expect((CacheRecord.decode(Array(record.utf8)[...]) != nil) == admitted, "cache record")
    var answer = AgentMessage()
    for (name, value) in [("status", "0"), ("access_token", "at"), ("obtained_at", "1"), ("expires_at", time)] {
      answer.set(name, value)
    }
    #expect((answer.tokenSet != nil) == admitted, "agent answer")
  }

  /// A token response's lifetime becomes the same absolute expiry; fractions are dropped, and
  /// anything that is no time refuses the set with a sentence naming the field.
  @Test func lifetimesAndTimesAreAdmittedAlike() throws {
    let set = try TokenSet(admitting: "at", tokenType: "bearer", expiresIn: .number(59.9), obtainedAt: .number(1_000))
    #expect(set.expiresAt == 1_059 && set.obtainedAt == 1_000 && set.tokenType == "Bearer")
    let fraction = try TokenSet(admitting: "at", tokenType: nil, expiresAt: .number(2.5), obtainedAt: .string("1"))
    #expect(fraction.expiresAt == 2)
    #expect(throws: AdmissionError("expires_in is out of range (0 to 315360000)")) {
      try TokenSet(admitting: "at", tokenType: nil, expiresIn: .number(1e300), obtainedAt: .number(0))
    }
    #expect(throws: AdmissionError("obtained_at is missing")) {
      try TokenSet(admitting: "at", tokenType: nil, obtainedAt: nil)
    }
    #expect(throws: AdmissionError.self) {
      try TokenSet(admitting: "at", tokenType: nil, idToken: "a.b", obtainedAt: .number(0))
    }
  }

  @Test func refreshDecision() {
    #expect(!Self.tokens.needsRefresh(now: 1_999_990_000, .standard))
    #expect(Self.tokens.needsRefresh(now: 1_999_999_950, .standard))
    #expect(Self.tokens.needsRefresh(now: 2_000_000_100, Freshness(seconds: 0, explicit: true)))
    #expect(
      Self.tokens.needsRefresh(now: 1_000, Freshness(seconds: 0, explicit: true, force: true)),
      "--refresh: whatever the expiry")
  }

  /// An explicit margin is a promise, not capped: 2700 s asked of a 1-hour token with 31 minutes
  /// left refreshes it; more than the lifetime asked refreshes every time, and is said.
  @Test func anExplicitMarginIsAPromise() {
    let hour = TokenSet(accessToken: "at", expiresAt: 1_000 + 3_600, obtainedAt: 1_000)
    let asked = Freshness(seconds: 2_700, explicit: true)
    #expect(hour.refreshMargin(asked) == 2_700)
    #expect(hour.needsRefresh(now: 1_000 + 3_600 - 1_860, asked))
    #expect(
      !hour.needsRefresh(now: 1_000 + 3_600 - 1_860, Freshness(seconds: 2_700, explicit: false)),
      "the default margin is capped")
    #expect(hour.shortfall(now: 1_000, asked) == nil)
    #expect(
      hour.shortfall(now: 1_000, Freshness(seconds: 7_200, explicit: true))
        == "the access token has 3600 s left, less than the 7200 s asked (--min-ttl, min_ttl): the tenant issues "
        + "3600-s tokens"
    )
    #expect(
      hour.shortfall(now: 1_000, Freshness(seconds: 7_200, explicit: false)) == nil,
      "only an explicit margin is a promise")
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

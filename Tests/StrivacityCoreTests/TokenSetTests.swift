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
    #expect(!Self.tokens.needsRefresh(now: 1_999_990_000, minTTL: 60))
    #expect(Self.tokens.needsRefresh(now: 1_999_999_950, minTTL: 60))
    #expect(Self.tokens.needsRefresh(now: 2_000_000_100, minTTL: 0))
  }

  /// The margin is --min-ttl, but at most half the token's lifetime: a 5-second token is not
  /// "about to expire" the moment it is issued.
  @Test(arguments: [(Int64(3600), Int64(60)), (120, 60), (100, 50), (5, 2), (3, 1), (1, 0)])
  func refreshMarginAdaptsToShortLifetimes(_ lifetime: Int64, _ margin: Int64) {
    let short = TokenSet(accessToken: "at", expiresAt: 1_000 + lifetime, obtainedAt: 1_000)
    #expect(short.refreshMargin(minTTL: 60) == margin)
    #expect(!short.needsRefresh(now: 1_000, minTTL: 60) || lifetime <= 1, "fresh from the tenant")
    #expect(short.needsRefresh(now: 1_000 + lifetime - margin, minTTL: 60))
    #expect(short.secondsLeft(now: 1_000 + lifetime + 5) == 0)
  }
}

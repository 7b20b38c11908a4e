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
}

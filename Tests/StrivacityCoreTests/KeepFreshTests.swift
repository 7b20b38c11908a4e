// When a kept-fresh token file is renewed and emptied (issue 30): half-way through each token's
// life; after a failure backing off, never past the expiry; emptied at expiry, never stale.
import StrivacityCore
import Testing

@Suite struct KeepFreshTests {
  @Test func renewedHalfWayAskingForMoreLifeThanTheHeldTokenHas() throws {
    let keeper = KeepFresh(obtainedAt: 1000, expiresAt: 1004)
    let next = try #require(keeper.next(now: 1000))
    #expect(next.at == 1002)
    // At 1002 the held token has 2 s left: asking for 3 makes a new one (or another's newer).
    #expect(next.step == .renew(Freshness(seconds: 3, explicit: true)))
    #expect(KeepFresh(obtainedAt: 0, expiresAt: 3600).next(now: 10)?.at == 1800)
  }

  @Test func failuresBackOffButTheFileIsEmptiedAtExpiry() throws {
    var keeper = KeepFresh(obtainedAt: 1000, expiresAt: 1100)
    keeper.failed()
    #expect(keeper.next(now: 1050)?.at == 1052)
    keeper.failed()
    keeper.failed()
    #expect(keeper.next(now: 1060)?.at == 1068)
    for _ in 0..<10 { keeper.failed() }
    // 60 s at most between tries, and never past the expiry: then the file is emptied.
    #expect(keeper.next(now: 1030)?.at == 1090)
    // (a second before the expiry: a reader at 1100 must not find it)
    #expect(keeper.next(now: 1050)?.at == 1099 && keeper.next(now: 1050)?.step == .empty)
    keeper.expired()
    let after = try #require(keeper.next(now: 1099))
    #expect(after.at == 1159 && after.step == .renew(Freshness(seconds: 1, explicit: true)))
    keeper.renewed(obtainedAt: 1200, expiresAt: 1300)
    #expect(keeper.failures == 0 && !keeper.emptied && keeper.next(now: 1200)?.at == 1250)
  }

  @Test func aTokenWithoutAnExpiryIsNeverRenewed() {
    #expect(KeepFresh(obtainedAt: 1000, expiresAt: nil).next(now: 5000) == nil)
  }

  /// A token of a second's life: emptied at its end and renewed then, not asked for in a loop.
  @Test func aOneSecondTokenIsNotRenewedInALoop() throws {
    var keeper = KeepFresh(obtainedAt: 1000, expiresAt: 1001)
    let next = try #require(keeper.next(now: 1000))
    #expect(next.at == 1001 && next.step == .empty)
    keeper.expired()
    #expect(keeper.next(now: 1001)?.step == .renew(Freshness(seconds: 1, explicit: true)))
  }
}

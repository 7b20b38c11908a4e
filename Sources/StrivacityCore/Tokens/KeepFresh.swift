// When a token that a running program reads from a file (`strivacity exec --file-env`) is
// renewed, and what the file holds meanwhile (issue 30). Pure: times in, decisions out.
//
// A token is renewed half-way through its life. A renewal that fails is retried, backing off
// (2, 4, 8 … 60 s), but never later than the token's expiry; until then the file keeps the
// token it holds, which is still valid. At expiry without a new one (a second before it), the
// file is emptied: a stale token is never presented as a fresh one.

public struct KeepFresh: Sendable, Equatable {
  /// The token the file holds: when it was obtained and when it expires (nil: it does not say).
  public private(set) var obtainedAt: Int64
  public private(set) var expiresAt: Int64?
  /// Renewals failed in a row since the last success.
  public private(set) var failures = 0
  /// The file was emptied: the token it held expired.
  public private(set) var emptied = false

  public init(obtainedAt: Int64, expiresAt: Int64?) {
    self.obtainedAt = obtainedAt
    self.expiresAt = expiresAt
  }

  public enum Step: Sendable, Equatable {
    /// Ask for a token with at least this much life left (more than the one held has).
    case renew(Freshness)
    /// The held token expired without a new one: empty the file.
    case empty
  }

  /// When the next step is due (Unix seconds), and which; nil: nothing is ever due (a token that
  /// does not say when it expires).
  public func next(now: Int64) -> (at: Int64, step: Step)? {
    guard let expiresAt else { return nil }
    let lifetime = max(1, expiresAt - obtainedAt)
    let renewAt: Int64
    if failures == 0 {
      // At least a second after it was obtained: a token of a second's life is not renewed in a loop.
      renewAt = obtainedAt + max(1, lifetime / 2)
    } else {
      renewAt = now + Self.backoff(after: failures)
    }
    // Emptied a second before the expiry (tokens of 4 s and more): times here are whole seconds,
    // so a reader at the expiry's second never finds the token still there.
    let emptyAt = expiresAt - (lifetime >= 4 ? 1 : 0)
    if !emptied && renewAt >= emptyAt { return (emptyAt, .empty) }
    // More life than the held token has left at that moment: the store's token is reused only
    // when someone else has renewed it already.
    let wanted = max(1, expiresAt - max(renewAt, now) + 1)
    return (renewAt, .renew(Freshness(seconds: min(wanted, Freshness.maxSeconds), explicit: true)))
  }

  /// Seconds to wait after `failures` failures in a row: 2, 4, 8 … 60.
  public static func backoff(after failures: Int) -> Int64 { min(60, Int64(1) << min(max(failures, 1), 6)) }

  /// A renewal gave this token.
  public mutating func renewed(obtainedAt: Int64, expiresAt: Int64?) {
    self.obtainedAt = obtainedAt
    self.expiresAt = expiresAt
    failures = 0
    emptied = false
  }

  /// A renewal failed.
  public mutating func failed() { failures += 1 }

  /// The file was emptied at expiry.
  public mutating func expired() { emptied = true }
}

// The clocks: the monotonic one for deadlines and durations that a change of wall-clock time
// cannot move, and the wall clock for what is dated (a token's expiry, a file's age).
import Glibc

/// Seconds on CLOCK_MONOTONIC.
public func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Whole seconds since the Unix epoch by the wall clock (time(2)): what tokens' `obtainedAt` and
/// `expiresAt` count in.
public func wallClockSeconds() -> Int64 { Int64(time(nil)) }

// The one monotonic clock: deadlines and durations that a change of wall-clock time cannot move.
import Glibc

/// Seconds on CLOCK_MONOTONIC.
public func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

// Waiting for something another process does: one loop for every test that polls (a file
// appears, a port listens, a daemon logs a line), bounded by a time-out.
import Foundation
import Glibc

/// Asks `condition` until it holds or `timeout` seconds have passed, sleeping `interval` seconds
/// between two asks; whether it held. The condition is asked at least once, and once more after
/// the last sleep, so a slow machine never turns a success into a time-out. What `condition`
/// throws ends the wait at once.
///
/// A test states what a time-out means where it waits:
/// `try #require(waitUntil(timeout: 10) { exists(socket) }, "the socket never appeared")`.
@discardableResult
public func waitUntil(timeout: TimeInterval, every interval: TimeInterval = 0.02, _ condition: () throws -> Bool)
  rethrows -> Bool
{
  let started = Date()
  while true {
    if try condition() { return true }
    if Date().timeIntervalSince(started) >= timeout { return false }
    usleep(useconds_t(interval * 1_000_000))
  }
}

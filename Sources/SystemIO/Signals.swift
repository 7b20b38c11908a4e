// Signals held or ignored around a piece of work, for the targets that do not import Glibc.
import Glibc

/// Holds SIGINT, SIGTERM and SIGHUP for this thread while `body` runs: one that comes meanwhile
/// is delivered right after. For work that must not be cut in the middle: between the server
/// rotating a refresh token and the new set being stored, an interrupt would lose it.
public func withInterruptsHeld<T>(_ body: () throws -> T) rethrows -> T {
  var held = sigset_t()
  sigemptyset(&held)
  for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&held, signal) }
  var previous = sigset_t()
  pthread_sigmask(SIG_BLOCK, &held, &previous)
  defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
  return try body()
}

/// Runs `body` with SIGPIPE ignored, then puts back the disposition it had: a write to a pipe
/// whose reader is gone fails (EPIPE) instead of ending this process.
public func withBrokenPipesIgnored<T>(_ body: () throws -> T) rethrows -> T {
  let previous = signal(SIGPIPE, SIG_IGN)
  defer { signal(SIGPIPE, previous) }
  return try body()
}

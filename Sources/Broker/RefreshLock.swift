// One refresh per profile at a time, across processes: an flock(2) on a file in the runtime
// directory. The kernel drops the lock when its holder exits or is killed, so a crashed
// process never leaves it stuck.
import Glibc
import SecretStore
import StrivacityCore
import SystemIO

package final class RefreshLock {
  private let fd: Int32

  /// Waits up to `timeout` seconds for the profile's lock.
  package init(directory: String, profile: String, timeout: Double) throws {
    try Self.makePrivateDirectory(directory)
    let path = "\(directory)/\(profile).lock"
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else {
      throw CLIFailure("cannot open the lock file \(path): \(String(cString: strerror(errno)))", status: .failure)
    }
    let started = monotonicSeconds()
    let deadline = started + timeout
    var told = isatty(2) != 1  // on a terminal, a wait of more than a second is explained once
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else {
        close(fd)
        throw CLIFailure("cannot lock \(path): \(String(cString: strerror(errno)))", status: .failure)
      }
      guard monotonicSeconds() < deadline else {
        close(fd)
        throw CLIFailure(
          "another strivacity has been refreshing profile \(profile) for over \(Int(timeout)) s; try again",
          status: .transient)
      }
      if !told && monotonicSeconds() - started >= 1 {
        told = true
        Console.writeStderr("strivacity: waiting for another strivacity that is refreshing profile \(profile)…\n")
      }
      usleep(5_000)
    }
  }

  deinit {
    flock(fd, LOCK_UN)
    close(fd)
  }

  /// Creates the directory 0700, refusing one that is a symlink or belongs to someone else
  /// (it may live under /tmp when there is no $XDG_RUNTIME_DIR).
  package static func makePrivateDirectory(_ path: String) throws {
    do {
      try PrivateFiles.makeDirectories(path)
    } catch {
      throw CLIFailure("cannot create \(error)", status: .failure)
    }
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else {
      throw CLIFailure("refusing to use \(path): not a directory of this user", status: .failure)
    }
    if info.st_mode & 0o077 != 0 { chmod(path, 0o700) }
  }
}

/// Holds SIGINT, SIGTERM and SIGHUP while `body` runs (they are delivered right after): between
/// the server rotating a refresh token and the new set being stored, an interrupt would lose it.
package func withInterruptsHeld<T>(_ body: () throws -> T) rethrows -> T {
  var held = sigset_t()
  sigemptyset(&held)
  for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&held, signal) }
  var previous = sigset_t()
  pthread_sigmask(SIG_BLOCK, &held, &previous)
  defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
  return try body()
}

// An exclusive lock across processes: flock(2) on a file. The kernel drops it when its holder
// exits or is killed, so a crashed process never leaves it stuck.
import Glibc

public final class FileLock {
  private let fd: Int32

  public enum Failure: Error {
    /// The file could not be opened (or created); strerror's text.
    case cannotOpen(String)
    /// flock(2) failed otherwise than "held by another"; strerror's text.
    case cannotLock(String)
    /// Another holder kept it for the whole timeout.
    case timedOut
  }

  /// Opens `path` (created 0600 if missing, never through a symbolic link) and takes the lock,
  /// trying again every 5 ms for up to `timeout` seconds. `waiting` is called once, when the
  /// lock is still held by another after `noticeAfter` seconds.
  public init(path: String, timeout: Double, noticeAfter: Double = 1, waiting: (() -> Void)? = nil) throws(Failure) {
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw .cannotOpen(String(cString: strerror(errno))) }
    let started = monotonicSeconds()
    let deadline = started + timeout
    var told = waiting == nil
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else {
        let detail = String(cString: strerror(errno))
        close(fd)
        throw .cannotLock(detail)
      }
      guard monotonicSeconds() < deadline else {
        close(fd)
        throw .timedOut
      }
      if !told && monotonicSeconds() - started >= noticeAfter {
        told = true
        waiting?()
      }
      usleep(5_000)
    }
  }

  /// Releases the lock.
  deinit {
    flock(fd, LOCK_UN)
    close(fd)
  }
}

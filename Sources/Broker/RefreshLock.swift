// One refresh per profile at a time, across processes: a lock (SystemIO's `FileLock`, an
// flock(2)) on a file in the runtime directory. The kernel drops the lock when its holder exits
// or is killed, so a crashed process never leaves it stuck.
import SecretStore
import StrivacityCore
import SystemIO

package final class RefreshLock {
  private let lock: FileLock

  /// Waits up to `timeout` seconds for the profile's lock.
  package init(directory: String, profile: String, timeout: Double) throws {
    try Self.makePrivateDirectory(directory)
    let path = "\(directory)/\(profile).lock"
    // On a terminal, a wait of more than a second is explained once.
    let waiting: (() -> Void)? =
      isTerminal(2)
      ? { Console.writeStderr("strivacity: waiting for another strivacity that is refreshing profile \(profile)…\n") }
      : nil
    do {
      lock = try FileLock(path: path, timeout: timeout, noticeAfter: 1, waiting: waiting)
    } catch {
      switch error {
      case .cannotOpen(let detail):
        throw CLIFailure("cannot open the lock file \(path): \(detail)", status: .failure)
      case .cannotLock(let detail):
        throw CLIFailure("cannot lock \(path): \(detail)", status: .failure)
      case .timedOut:
        throw CLIFailure(
          "another strivacity has been refreshing profile \(profile) for over \(Int(timeout)) s; try again",
          status: .transient)
      }
    }
  }

  /// Creates the directory 0700, refusing one that is a symlink or belongs to someone else
  /// (it may live under /tmp when there is no $XDG_RUNTIME_DIR).
  package static func makePrivateDirectory(_ path: String) throws {
    do {
      try PrivateFiles.makeDirectories(path)
    } catch {
      throw CLIFailure("cannot create \(error)", status: .failure)
    }
    guard case .success(let info) = FileStatus.of(path, followingLinks: false), info.kind == .directory,
      info.owner == effectiveUserID()
    else {
      throw CLIFailure("refusing to use \(path): not a directory of this user", status: .failure)
    }
    if info.permissions & 0o077 != 0 { PrivateFiles.changeMode(path, to: 0o700) }
  }
}

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
        throw BrokerError.system("cannot open the lock file \(path): \(detail)")
      case .cannotLock(let detail):
        throw BrokerError.system("cannot lock \(path): \(detail)")
      case .timedOut:
        throw BrokerError.busy(profile: profile, seconds: Int(timeout))
      }
    }
  }

  /// Creates the directory 0700, refusing one that is a symlink or belongs to someone else, and
  /// one below a directory someone else could change (an XDG_STATE_HOME another user made first,
  /// or that others may write: they could put a directory of theirs in place of strivacity's).
  /// The chain is checked before anything is made in it, and again once made
  /// (`PrivateFiles.unsafeChain`).
  package static func makePrivateDirectory(_ path: String) throws {
    if let fault = PrivateFiles.unsafeAncestors(of: path) { throw refusal(path, fault) }
    do {
      try PrivateFiles.makeDirectories(path)
    } catch {
      throw BrokerError.system("cannot create \(error)")
    }
    guard case .success(let info) = FileStatus.of(path, followingLinks: false), info.kind == .directory,
      info.owner == effectiveUserID()
    else {
      throw BrokerError.system("refusing to use \(path): not a directory of this user")
    }
    if info.permissions & 0o077 != 0 { PrivateFiles.changeMode(path, to: 0o700) }
    if let fault = PrivateFiles.unsafeChain(path, privateMode: true) { throw refusal(path, fault) }
  }

  /// One line: the directory refused, the one at fault and why, and the fix.
  private static func refusal(_ path: String, _ fault: FileError) -> BrokerError {
    .configuration(
      "refusing \(path) for the refresh locks: \(fault); set XDG_RUNTIME_DIR or XDG_STATE_HOME to a directory "
        + "of yours (mkdir -m 700) below directories only you or root may write")
  }
}

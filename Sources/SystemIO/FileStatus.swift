// What the kernel says of a path (stat(2), lstat(2)), as plain values: what it is, whose it is,
// its mode, size and identity. For the checks made before a file is trusted or written (the
// agent's token files, the refresh lock's directory, a changed config file).
import Glibc

public struct FileStatus: Equatable, Sendable {
  public enum Kind: Equatable, Sendable {
    case regular, directory, symbolicLink, other
  }

  public var kind: Kind
  /// The owner's user id.
  public var owner: UInt32
  /// The permission bits (st_mode & 0o7777).
  public var permissions: UInt32
  public var size: Int64
  /// The file's identity: its device and inode.
  public var device: UInt64
  public var inode: UInt64
  /// Last modified: seconds since the Unix epoch and nanoseconds past them.
  public var modifiedSeconds: Int
  public var modifiedNanoseconds: Int

  /// stat(2) of `path` (`followingLinks`), else lstat(2): a symbolic link is then itself, of
  /// kind `.symbolicLink`. The errno when it fails.
  public static func of(_ path: String, followingLinks: Bool = true) -> Result<FileStatus, ErrorNumber> {
    var info = stat()
    guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else {
      return .failure(ErrorNumber(code: errno))
    }
    let kind: Kind =
      switch info.st_mode & S_IFMT {
      case S_IFREG: .regular
      case S_IFDIR: .directory
      case S_IFLNK: .symbolicLink
      default: .other
      }
    return .success(
      FileStatus(
        kind: kind, owner: info.st_uid, permissions: info.st_mode & 0o7777, size: Int64(info.st_size),
        device: UInt64(info.st_dev), inode: UInt64(info.st_ino), modifiedSeconds: info.st_mtim.tv_sec,
        modifiedNanoseconds: info.st_mtim.tv_nsec))
  }
}

extension PrivateFiles {
  /// Sets `path`'s permission bits to `mode` (chmod(2)); false when refused.
  @discardableResult
  public static func changeMode(_ path: String, to mode: UInt32) -> Bool { chmod(path, mode) == 0 }
}

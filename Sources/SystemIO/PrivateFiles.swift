// The file operations strivacity does in one place: directories created 0700 with their
// parents, and files replaced atomically (temporary file, fsync, rename, fsync of the directory),
// so a reader or a crash sees the old content or the new, never a mix; a private file read back
// only when it is this user's alone, and a directory checked before a private file goes in it.
import Glibc

public struct FileError: Error, Equatable, CustomStringConvertible {
  public var path: String
  public var detail: String
  public var description: String { "\(path): \(detail)" }

  public init(_ path: String) {
    self.path = path
    detail = String(cString: strerror(errno))
  }

  public init(path: String, detail: String) {
    self.path = path
    self.detail = detail
  }
}

public enum PrivateFiles {
  /// Creates `path` and any missing parents with mode 0700 (existing ones are left alone).
  public static func makeDirectories(_ path: String) throws(FileError) {
    var partial = ""
    for component in path.split(separator: "/") {
      partial += "/" + component
      if mkdir(partial, 0o700) != 0 && errno != EEXIST { throw FileError(partial) }
    }
  }

  /// Replaces `file` with `bytes` atomically, creating its directory (0700) if needed.
  public static func writeAtomically(_ bytes: [UInt8], to file: String, mode: mode_t) throws(FileError) {
    let directory = String(file[..<(file.lastIndex(of: "/") ?? file.startIndex)])
    try makeDirectories(directory)
    var template = Array("\(directory)/.tmp-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw FileError(directory) }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var done = false
    defer {
      if !done {
        close(fd)
        unlink(temporary)
      }
    }
    // mkstemp creates 0600; fchmod makes the mode explicit whatever the umask.
    guard fchmod(fd, mode) == 0, writeWhole(fd, bytes) else { throw FileError(temporary) }
    guard fsync(fd) == 0 else { throw FileError(temporary) }
    close(fd)
    guard rename(temporary, file) == 0 else {
      unlink(temporary)
      done = true
      throw FileError(file)
    }
    done = true
    syncDirectory(directory)
  }

  /// Writes all of `bytes` to `fd`, retrying short writes and EINTR; false when a write fails
  /// (errno says why).
  static func writeWhole(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var written = 0
    while written < bytes.count {
      let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return false }
      written += n
    }
    return true
  }

  /// Makes a rename or unlink in `directory` durable.
  public static func syncDirectory(_ directory: String) {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 {
      _ = fsync(fd)
      close(fd)
    }
  }

  /// Why `path` will not do in the chain above a private file, or nil: it must be a directory
  /// itself (not a symbolic link) owned by this user, and not writable by group or others
  /// (`privateMode`: no group or other bits at all, 0700 as strivacity makes it).
  public static func unsafeDirectory(_ path: String, privateMode: Bool) -> String? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return String(cString: strerror(errno)) }
    let mode = String(info.st_mode & 0o7777, radix: 8)
    switch info.st_mode & S_IFMT {
    case S_IFDIR: break
    case S_IFLNK: return "it is a symbolic link, not a directory of its own"
    default: return "it is not a directory"
    }
    if info.st_uid != getuid() { return "it is owned by uid \(info.st_uid), not by this user (uid \(getuid()))" }
    if privateMode && info.st_mode & 0o077 != 0 { return "its mode is \(mode), not private (700)" }
    if info.st_mode & 0o022 != 0 { return "its mode is \(mode): group or others can write to it" }
    return nil
  }

  /// Why `path` will not do as the directory of a private file, its whole chain considered: the
  /// directories above it (`unsafeAncestors`), then itself (`unsafeDirectory`); nil when all do.
  /// The fault names the directory at fault.
  public static func unsafeChain(_ path: String, privateMode: Bool) -> FileError? {
    if let fault = unsafeAncestors(of: path) { return fault }
    return unsafeDirectory(path, privateMode: privateMode).map { FileError(path: path, detail: $0) }
  }

  /// Why a directory above `path` (from `/` down to its parent) will not do, or nil. Whoever may
  /// rename an entry of the chain can put a directory of theirs in its place, so each one must be
  /// a directory owned by this user or root, and writable by nobody else unless it is sticky (as
  /// /tmp: others may not rename what they do not own, and the next one down is checked in turn).
  /// A symbolic link on the way (`/home` to `/var/home`, a dotfiles link) is followed when it is
  /// this user's or root's: the directory it is in has passed already, so nobody else can replace
  /// it, and where it leads is walked the same way. One of another user's is refused: they may
  /// point it elsewhere at any time. A missing entry ends the walk: it and all below it are this
  /// user's to make (and to check once made).
  public static func unsafeAncestors(of path: String) -> FileError? {
    guard path.hasPrefix("/") else { return FileError(path: path, detail: "it is not an absolute path") }
    var pending = path.split(separator: "/").dropLast().map(String.init)
    var current = ""  // the chain walked so far, links resolved ("" is /)
    var links = 0
    if let fault = unsafeAncestor("/") { return FileError(path: "/", detail: fault) }
    while !pending.isEmpty {
      let component = pending.removeFirst()
      if component == "." { continue }
      if component == ".." {
        current = String(current[..<(current.lastIndex(of: "/") ?? current.startIndex)])
        continue
      }
      let next = current + "/" + component
      var info = stat()
      guard lstat(next, &info) == 0 else { return errno == ENOENT ? nil : FileError(next) }
      guard info.st_mode & S_IFMT == S_IFLNK else {
        if let fault = unsafeAncestor(next) { return FileError(path: next, detail: fault) }
        current = next
        continue
      }
      guard info.st_uid == getuid() || info.st_uid == 0 else {
        return FileError(
          path: next, detail: "it is a symbolic link of uid \(info.st_uid)'s, who may point it elsewhere at any time")
      }
      links += 1
      var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let length = readlink(next, &target, Int(PATH_MAX))
      guard length > 0 else { return FileError(next) }
      guard links <= 40 else { return FileError(path: next, detail: "too many symbolic links on the way") }
      let text = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      pending = text.split(separator: "/").map(String.init) + pending
      if text.hasPrefix("/") { current = "" }
    }
    return nil
  }

  /// Why the directory `path` (no link) will not do in the chain above a private file, or nil.
  private static func unsafeAncestor(_ path: String) -> String? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return String(cString: strerror(errno)) }
    let mode = String(info.st_mode & 0o7777, radix: 8)
    guard info.st_mode & S_IFMT == S_IFDIR else { return "it is not a directory" }
    if info.st_uid != getuid() && info.st_uid != 0 {
      return "it is owned by uid \(info.st_uid), who may put a directory of theirs in place of what it holds"
    }
    if info.st_mode & 0o022 != 0 && info.st_mode & 0o1000 == 0 {
      return "its mode is \(mode), not sticky: group or others may put a directory of theirs in place of what it holds"
    }
    return nil
  }

  /// Why a private file was not read (never its content).
  public enum ReadRefusal: Error, Equatable {
    case symbolicLink
    case notRegularFile
    /// Another user's: their uid.
    case owner(UInt32)
    /// Open to group or others: its permission bits.
    case mode(UInt32)
    /// Larger than the limit: its size.
    case size(Int64)
    case failed(FileError)

    /// What is wrong, in a few words (the path is the caller's to name).
    public var detail: String {
      switch self {
      case .symbolicLink: return "is a symbolic link; refusing to follow it"
      case .notRegularFile: return "is not a regular file"
      case .owner(let uid): return "is owned by uid \(uid), not by this user"
      case .mode(let mode): return "has mode \(String(mode, radix: 8)): group or others may read it"
      case .size(let size): return "is too large (\(size) bytes)"
      case .failed(let error): return error.detail
      }
    }
  }

  /// The bytes of `file` (the caller zeroes them), or nil when there is none; refused when it is
  /// a symbolic link, not a regular file, another user's, open to group or others, or larger
  /// than `limit`.
  public static func readPrivate(_ file: String, limit: Int = .max) throws(ReadRefusal) -> [UInt8]? {
    let fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return nil }
      if errno == ELOOP { throw .symbolicLink }
      throw .failed(FileError(file))
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw .failed(FileError(file)) }
    guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }
    guard info.st_uid == geteuid() else { throw .owner(info.st_uid) }
    guard info.st_mode & 0o077 == 0 else { throw .mode(info.st_mode & 0o777) }
    guard info.st_size <= limit else { throw .size(Int64(info.st_size)) }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var filled = 0
    while filled < bytes.count {
      let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      filled += n
    }
    // (A file that shrank meanwhile: the rest was never written.)
    bytes.removeSubrange(filled...)
    return bytes
  }
}

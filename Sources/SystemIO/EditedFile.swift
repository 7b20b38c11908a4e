// A config file strivacity edits (a tool's, its own), opened once for reading and replacing: the
// path walked a component at a time from directory descriptors, a link followed only when it is
// this user's (or root's) in a directory nobody else can change (so another user can neither
// plant one nor swap it meanwhile); the file read through the descriptor it was checked on (a
// regular file of this user's, never a FIFO or a device, which are not even opened); and the
// replacement written beside it and renamed in that same directory, only while the name still
// holds what was read. Whatever is swapped meanwhile, what is written is where what was read was.
import Glibc

/// O_PATH (Linux's value on every architecture Swift builds for; Glibc's module hides it behind
/// _GNU_SOURCE): a descriptor that names a directory to walk from, even one this user may only
/// search, without reading it.
private let openPath: Int32 = 0o10000000

/// Why a config file was not edited (never its content).
public enum EditRefusal: Error, Equatable {
  /// A symbolic link on the way (`at`, as resolved so far) owned by another user: their uid.
  case othersLink(at: String, owner: UInt32)
  /// A symbolic link in a directory everyone may write (as /tmp), even the user's own link.
  case linkInSharedDirectory(at: String)
  /// A symbolic link in a directory of another user's: their uid.
  case linkInOthersDirectory(at: String, owner: UInt32)
  /// More links on the way than the kernel would follow.
  case tooManyLinks
  /// Not a regular file: what it is ("a FIFO", "a directory", …).
  case notRegularFile(at: String, kind: String)
  /// Another user's file: their uid.
  case othersFile(at: String, owner: UInt32)
  /// Larger than the limit: its size.
  case tooLarge(at: String, size: Int64)
  /// Something on the way changed between two looks at it (a link swapped, the file replaced).
  case changed(at: String)
  case failed(FileError)

  /// What is wrong, in a few words; `path` is the one the caller was given, named by the caller.
  public func detail(for path: String) -> String {
    func it(_ at: String) -> String { at == path ? "it" : at }
    switch self {
    case .othersLink(let at, let owner): return "\(it(at)) is a symbolic link of uid \(owner)'s, not this user's"
    case .linkInSharedDirectory(let at):
      return "\(it(at)) is a symbolic link in a directory others can write (anyone could swap it)"
    case .linkInOthersDirectory(let at, let owner):
      return "\(it(at)) is a symbolic link in a directory of uid \(owner)'s (they could swap it)"
    case .tooManyLinks: return "too many symbolic links on the way"
    case .notRegularFile(let at, let kind): return "\(it(at)) is \(kind), not a regular file"
    case .othersFile(let at, let owner): return "\(it(at)) is owned by uid \(owner), not by this user"
    case .tooLarge(let at, let size): return "\(it(at)) is too large (\(size) bytes)"
    case .changed(let at): return "\(it(at)) changed while strivacity was editing it"
    case .failed(let error): return error.description
    }
  }
}

/// A file opened to be edited: what it holds, and the directory it is in, held open until the
/// replacement is renamed there.
public final class EditedFile {
  /// The path as the caller gave it.
  public let path: String
  /// The file's bytes; nil when it is not there (it is then created where the path leads).
  public let bytes: [UInt8]?
  /// The file's permission bits (0o777); nil when it is not there.
  public let permissions: UInt32?
  /// The deepest directory of the path that exists (O_PATH), the file's own once `missing` is made.
  private var directory: Int32
  /// Where `directory` is, as resolved (for messages).
  private var shown: String
  /// Directories still to create below `directory` (0700) before the file is.
  private var missing: [String]
  private let name: String
  /// The file the name held when it was read (kept open, so that its inode is not reused by
  /// whatever is put there meanwhile), the one last written once replaced; -1 while there is none.
  private var held: Int32

  /// Links followed at most on one path (the kernel's MAXSYMLINKS).
  static let linkLimit = 40

  private init(
    path: String, directory: Int32, shown: String, missing: [String], name: String,
    read: (fd: Int32, status: stat, bytes: [UInt8])?
  ) {
    self.path = path
    self.directory = directory
    self.shown = shown
    self.missing = missing
    self.name = name
    bytes = read?.bytes
    permissions = read.map { $0.status.st_mode & 0o777 }
    held = read?.fd ?? -1
  }

  deinit {
    close(directory)
    if held >= 0 { close(held) }
  }

  /// Opens `path` for editing and reads it (at most `limit` bytes), or refuses it. The one way a
  /// config file strivacity edits is read.
  public static func open(_ path: String, limit: Int = 1_048_576) throws(EditRefusal) -> EditedFile {
    let absolute = path.hasPrefix("/")
    var directory = Glibc.open(absolute ? "/" : ".", openPath | O_DIRECTORY | O_CLOEXEC)
    guard directory >= 0 else { throw .failed(FileError(path)) }
    var handedOver = false
    defer { if !handedOver { close(directory) } }
    var shown = absolute ? "" : "."
    // Components still to walk, the next one last.
    var pending = Array(components(path).reversed())
    var links = 0
    while let component = pending.popLast() {
      let isLast = pending.isEmpty
      let at = shown + "/" + component
      if component == "." || component == ".." {
        if component == ".." {
          try descend(&directory, into: "..", at: at)
          shown = String(shown[..<(shown.lastIndex(of: "/") ?? shown.startIndex)])
        }
        if isLast { throw .notRegularFile(at: at, kind: "a directory") }
        continue
      }
      var info = stat()
      guard fstatat(directory, component, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
        guard errno == ENOENT else { throw .failed(FileError(at)) }
        let rest = [component] + pending.reversed().filter { $0 != "." }
        guard !rest.contains("..") else { throw .failed(FileError(path: at, detail: "No such file or directory")) }
        handedOver = true
        return EditedFile(
          path: path, directory: directory, shown: shown, missing: rest.dropLast(), name: rest.last!, read: nil)
      }
      switch info.st_mode & S_IFMT {
      case S_IFLNK:
        links += 1
        guard links <= linkLimit else { throw .tooManyLinks }
        let target = try followed(info, component, in: directory, at: at)
        if target.hasPrefix("/") {
          try descend(&directory, into: "/", at: target)
          shown = ""
        }
        pending += components(target).reversed()
        if pending.isEmpty { throw .notRegularFile(at: at, kind: "a directory") }
      case S_IFDIR where !isLast:
        try descend(&directory, into: component, at: at)
        shown = at
      case S_IFREG where isLast:
        let read = try read(info, component, in: directory, at: at, limit: limit)
        handedOver = true
        return EditedFile(path: path, directory: directory, shown: shown, missing: [], name: component, read: read)
      default:
        if isLast { throw .notRegularFile(at: at, kind: kind(info.st_mode)) }
        throw .failed(FileError(path: at, detail: "Not a directory"))
      }
    }
    throw .notRegularFile(at: shown.isEmpty ? "/" : shown, kind: "a directory")
  }

  /// Replaces the file with `bytes` in permission bits `mode`: the missing directories made
  /// (0700), a new file written beside it, synced, and renamed over the name in the same
  /// directory, only while the name still holds what was read (or still nothing).
  public func replace(with bytes: [UInt8], mode: UInt32) throws(EditRefusal) {
    while !missing.isEmpty {
      let component = missing.removeFirst()
      let at = shown + "/" + component
      if mkdirat(directory, component, 0o700) != 0 && errno != EEXIST { throw .failed(FileError(at)) }
      try Self.descend(&directory, into: component, at: at)
      shown = at
    }
    let at = shown + "/" + name
    var temporary = ""
    var fd: Int32 = -1
    for _ in 0..<16 where fd < 0 {
      temporary = ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
      fd = openat(directory, temporary, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
      if fd < 0 && errno != EEXIST { break }
    }
    guard fd >= 0 else { throw .failed(FileError(shown)) }
    var renamed = false
    defer { if !renamed { unlinkat(directory, temporary, 0) } }
    var kept = false
    defer { if !kept { close(fd) } }
    guard fchmod(fd, mode) == 0, PrivateFiles.writeWhole(fd, bytes), fsync(fd) == 0 else {
      throw .failed(FileError(shown + "/" + temporary))
    }
    var now = stat()
    let there = fstatat(directory, name, &now, AT_SYMLINK_NOFOLLOW) == 0
    guard there || errno == ENOENT else { throw .failed(FileError(at)) }
    if held >= 0 {
      var before = stat()
      guard there, fstat(held, &before) == 0, now.st_mode & S_IFMT == S_IFREG, now.st_dev == before.st_dev,
        now.st_ino == before.st_ino
      else { throw .changed(at: at) }
    } else if there {
      throw .changed(at: at)
    }
    guard renameat(directory, temporary, directory, name) == 0 else { throw .failed(FileError(at)) }
    renamed = true
    if held >= 0 { close(held) }
    held = fd
    kept = true
    let sync = openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if sync >= 0 {
      _ = fsync(sync)
      close(sync)
    }
  }

  /// Whether `other` names the same file (the same name in the same directory), however the
  /// two paths were spelled: two places a tool reads that lead to one file are edited once.
  public func isSame(as other: EditedFile) -> Bool {
    var mine = stat()
    var theirs = stat()
    guard fstat(directory, &mine) == 0, fstat(other.directory, &theirs) == 0 else { return false }
    return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino && missing == other.missing
      && name == other.name
  }

  private static func components(_ path: String) -> [String] {
    path.split(separator: "/").map(String.init)
  }

  /// Moves `directory` to its entry `name` (a directory, not a link: ELOOP or ENOTDIR when it
  /// is no longer one).
  private static func descend(_ directory: inout Int32, into name: String, at: String) throws(EditRefusal) {
    let next = openat(directory, name, openPath | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard next >= 0 else {
      if errno == ELOOP || errno == ENOTDIR { throw .changed(at: at) }
      throw .failed(FileError(at))
    }
    close(directory)
    directory = next
  }

  /// Where the link `name` (lstat'ed as `link`) leads, when it may be followed: the user's or
  /// root's, in a directory that is the user's or root's and that not everyone may write; and
  /// still the same link after it was read.
  private static func followed(_ link: stat, _ name: String, in directory: Int32, at: String) throws(EditRefusal)
    -> String
  {
    let me = geteuid()
    guard link.st_uid == me || link.st_uid == 0 else { throw .othersLink(at: at, owner: link.st_uid) }
    var parent = stat()
    guard fstat(directory, &parent) == 0 else { throw .failed(FileError(at)) }
    guard parent.st_mode & S_IWOTH == 0 else { throw .linkInSharedDirectory(at: at) }
    guard parent.st_uid == me || parent.st_uid == 0 else { throw .linkInOthersDirectory(at: at, owner: parent.st_uid) }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlinkat(directory, name, &buffer, buffer.count - 1)
    guard count > 0 else { throw .failed(FileError(at)) }
    var again = stat()
    guard fstatat(directory, name, &again, AT_SYMLINK_NOFOLLOW) == 0, again.st_mode & S_IFMT == S_IFLNK,
      again.st_dev == link.st_dev, again.st_ino == link.st_ino
    else { throw .changed(at: at) }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The regular file `name` (lstat'ed as `file`), when it is this user's, opened (the
  /// descriptor the caller's), checked to be that same file, and read through that descriptor.
  private static func read(_ file: stat, _ name: String, in directory: Int32, at: String, limit: Int)
    throws(EditRefusal) -> (fd: Int32, status: stat, bytes: [UInt8])
  {
    guard file.st_uid == geteuid() else { throw .othersFile(at: at, owner: file.st_uid) }
    guard file.st_size <= limit else { throw .tooLarge(at: at, size: Int64(file.st_size)) }
    // O_NONBLOCK: should a FIFO have been put there meanwhile, opening it does not wait.
    let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ELOOP || errno == ENOENT { throw .changed(at: at) }
      throw .failed(FileError(at))
    }
    var done = false
    defer { if !done { close(fd) } }
    var opened = stat()
    guard fstat(fd, &opened) == 0 else { throw .failed(FileError(at)) }
    guard opened.st_mode & S_IFMT == S_IFREG, opened.st_dev == file.st_dev, opened.st_ino == file.st_ino else {
      throw .changed(at: at)
    }
    switch readAll(fd, limit: limit, expected: Int(opened.st_size)) {
    case .success(let bytes) where bytes.count > limit: throw .tooLarge(at: at, size: Int64(bytes.count))
    case .success(let bytes):
      done = true
      return (fd, opened, bytes)
    case .failure(let error): throw .failed(FileError(path: at, detail: error.description))
    }
  }

  /// What a file that is not regular is, for a message.
  private static func kind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: "a directory"
    case S_IFIFO: "a FIFO"
    case S_IFSOCK: "a socket"
    case S_IFCHR, S_IFBLK: "a device"
    default: "of an unknown kind"
    }
  }
}

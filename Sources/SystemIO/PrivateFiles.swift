// The file operations strivacity does in one place: directories created 0700 with their
// parents, and files replaced atomically (temporary file, fsync, rename, fsync of the directory),
// so a reader or a crash sees the old content or the new, never a mix.
import Glibc

public struct FileError: Error, Equatable, CustomStringConvertible {
  public var path: String
  public var detail: String
  public var description: String { "\(path): \(detail)" }

  public init(_ path: String) {
    self.path = path
    detail = String(cString: strerror(errno))
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
    guard fchmod(fd, mode) == 0 else { throw FileError(temporary) }
    var written = 0
    while written < bytes.count {
      let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw FileError(temporary) }
      written += n
    }
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

  /// Makes a rename or unlink in `directory` durable.
  public static func syncDirectory(_ directory: String) {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 {
      _ = fsync(fd)
      close(fd)
    }
  }
}

// Two binaries, one command. `strivacity` is small: it answers the hot path (HotPath) and hands
// everything else to the full command line, `strivacity-cli`, by exec in the same process (same
// pid, argv, environment, terminal and signals), so that `strivacity token` in a shell prompt or
// on every git fetch does not load the code of every other command. The full binary is found
// next to the real path of this one (build trees), else in ../libexec/strivacity (Debian, RPM,
// `make install`) or ../lib/strivacity (Arch); never through PATH or the environment.
import Glibc
import SystemIO

public enum Launcher {
  /// The full command line's file name.
  public static let fullName = "strivacity-cli"
  /// Where it is, relative to the directory of `strivacity`, in the order tried.
  static let places = [fullName, "../libexec/strivacity/\(fullName)", "../lib/strivacity/\(fullName)"]

  /// Runs the full command line in this process with this process's argv. `stdin`, when given,
  /// is what was already read from stdin: the full command line reads it again from an
  /// anonymous memory file, and this copy is zeroed.
  public static func handOff(stdin: [UInt8]?) -> Never {
    guard let me = executablePath() else { fail("cannot read /proc/self/exe: \(String(cString: strerror(errno)))") }
    let directory = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)])
    if var bytes = stdin, !bytes.isEmpty {
      let replaced = replaceStdin(with: bytes)
      for i in bytes.indices { bytes[i] = 0 }
      if let replaced { fail("cannot hand git's request on: \(replaced)") }
    }
    var tried: [String] = []
    for place in places {
      let path = directory + "/" + place
      execv(path, CommandLine.unsafeArgv)
      if errno != ENOENT { fail("cannot run \(path): \(String(cString: strerror(errno)))") }
      tried.append(path)
    }
    fail("\(fullName) is missing (looked for \(tried.joined(separator: ", "))); reinstall strivacity")
  }

  /// The `strivacity` that hands off to the full command line at `fullPath` (this process's own
  /// path, when it is that binary): what git's config should name, so that git reaches the hot
  /// path. nil when there is none.
  public static func front(ofFull fullPath: String) -> String? {
    let directory = String(fullPath[..<(fullPath.lastIndex(of: "/") ?? fullPath.startIndex)])
    for candidate in [directory + "/strivacity", directory + "/../../bin/strivacity"] where access(candidate, X_OK) == 0 {
      guard let resolved = realpath(candidate, nil) else { continue }
      defer { free(resolved) }
      return String(cString: resolved)
    }
    return nil
  }

  /// The real path of this process's binary (links resolved: a link named
  /// git-credential-strivacity finds the directory of the binary it points to).
  public static func executablePath() -> String? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = buffer.withUnsafeMutableBytes { readlink("/proc/self/exe", $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count - 1) }
    return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
  }

  /// Makes fd 0 an anonymous memory file (memfd_create(2): never on a disk, readable through
  /// /proc only by this user) holding `bytes`, positioned at the start. nil, or what failed.
  static func replaceStdin(with bytes: [UInt8]) -> String? {
    let fd = memfd_create("strivacity-stdin", 0)
    guard fd >= 0 else { return "memfd_create: \(String(cString: strerror(errno)))" }
    defer { if fd != 0 { close(fd) } }
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return "write: \(String(cString: strerror(errno)))" }
      offset += n
    }
    guard lseek(fd, 0, SEEK_SET) == 0, dup2(fd, 0) == 0 else { return "\(String(cString: strerror(errno)))" }
    return nil
  }

  static func fail(_ message: String) -> Never {
    writeTerminal(2, "strivacity: error: \(message)\n")
    exit(1)
  }
}

/// memfd_create(2) (glibc 2.27; Glibc's module does not show it).
@_silgen_name("memfd_create") private func memfd_create(_ name: UnsafePointer<CChar>, _ flags: UInt32) -> Int32

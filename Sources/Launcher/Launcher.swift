// Two binaries, one command. `strivacity` is small: it answers the hot path (HotPath) and hands
// everything else to the full command line, `strivacity-cli`, by exec in the same process (same
// pid, argv, environment, terminal and signals), so that `strivacity token` in a shell prompt or
// on every helper's `get` does not load the code of every other command. The full binary is found
// next to the real path of this one (build trees), else in ../libexec/strivacity (Debian, RPM,
// `make install`) or ../lib/strivacity (Arch); never through PATH or the environment.
import Glibc
import StrivacityCore
import SystemIO

public enum Launcher {
  /// The full command line's file name.
  public static let fullName = "strivacity-cli"
  /// Where it is, relative to the directory of `strivacity`, in the order tried.
  static let places = [fullName, "../libexec/strivacity/\(fullName)", "../lib/strivacity/\(fullName)"]

  /// The full command line's path, found as `handOff` finds it; nil if it is not there.
  public static func fullCommandPath() -> String? {
    guard let me = Executable.path() else { return nil }
    let directory = String(decoding: me[..<(me.lastIndex(of: UInt8(ascii: "/")) ?? me.startIndex)], as: UTF8.self)
    return places.map { "\(directory)/\($0)" }.first { access($0, X_OK) == 0 }
  }

  /// The variable holding the client secret of the machine profile this call resolved to, when
  /// it is in the environment (HotPath notes it): handed on by `handOff` on a socket.
  nonisolated(unsafe) static var secretVariable: String?

  /// Runs the full command line in this process with this process's argv. `stdin`, when given,
  /// is what was already read from stdin: the full command line reads it again as its stdin.
  /// A machine's secret noted in `secretVariable` leaves the environment for a socket
  /// (SecretHandover): the new program is readable by the user's other processes until it has
  /// made itself undumpable. (No copy needs zeroing: exec replaces this process's memory.)
  public static func handOff(stdin: [UInt8]?) -> Never {
    guard let me = Executable.path() else { fail("cannot read /proc/self/exe: \(String(cString: strerror(errno)))") }
    if let bytes = stdin, !bytes.isEmpty, let failed = replaceStdin(with: bytes) {
      fail("cannot hand the request on: \(failed)")
    }
    if let name = secretVariable, let raw = getenv(name),
      let fd = SecretHandover.socket(name: name, value: String(cString: raw))
    {
      setenv(SecretHandover.variable, "\(fd)", 1)
      takeFromEnvironment(name)
    }
    let directory = me[..<(me.lastIndex(of: UInt8(ascii: "/")) ?? me.startIndex)]
    var tried: [String] = []
    var refused: String?
    for place in places {
      let path = Array(directory) + Array("/\(place)".utf8)
      let shown = String(decoding: path, as: UTF8.self)
      execv(path.map { CChar(bitPattern: $0) } + [0], CommandLine.unsafeArgv)
      // Not there: look further. There but not runnable: say so if no other place has it.
      if errno != ENOENT && errno != ENOTDIR && refused == nil {
        refused = "cannot run \(shown): \(String(cString: strerror(errno)))"
      }
      tried.append(shown)
    }
    fail(refused ?? "\(fullName) is missing (looked for \(tried.joined(separator: ", "))); reinstall strivacity")
  }

  /// Makes fd 0 hold `bytes` from the start: an anonymous memory file (memfd_create(2): never on
  /// a disk, reachable through /proc only by this user), or where that is refused (some
  /// sandboxes), a pipe, for what fits in its buffer. nil, or what failed.
  static func replaceStdin(with bytes: [UInt8]) -> String? {
    var fd = memfd_create("strivacity-stdin", 0)
    var pipeEnds: [Int32] = [-1, -1]
    if fd < 0 {
      let refused = "memfd_create: \(String(cString: strerror(errno)))"
      guard bytes.count <= 65_536, pipe(&pipeEnds) == 0 else { return refused }
      fd = pipeEnds[1]
    }
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return n == 0 ? "write: nothing written" : "write: \(String(cString: strerror(errno)))" }
      offset += n
    }
    let source: Int32
    if pipeEnds[0] >= 0 {
      close(pipeEnds[1])
      source = pipeEnds[0]
    } else {
      guard lseek(fd, 0, SEEK_SET) == 0 else { return "lseek: \(String(cString: strerror(errno)))" }
      source = fd
    }
    if source != 0 {
      guard dup2(source, 0) == 0 else { return "dup2: \(String(cString: strerror(errno)))" }
      close(source)
    }
    return nil
  }

  static func fail(_ message: String) -> Never {
    writeTerminal(2, "strivacity: error: \(message)\n")
    exit(ExitStatus.failure.rawValue)
  }
}

/// memfd_create(2) (glibc 2.27; Glibc's module does not show it).
@_silgen_name("memfd_create") private func memfd_create(_ name: UnsafePointer<CChar>, _ flags: UInt32) -> Int32

// A machine profile's secret handed from one of our processes to the full command line it starts
// (a renewal of `exec`'s token file, a hand-off by exec), never in an environment: until the new
// process has made itself undumpable, the user's other processes — COMMAND among them — can read
// its /proc/PID/environ. The secret goes as "NAME=VALUE" into one end of a socket pair, that end
// is closed, and the other end's number alone is in STRIVACITY_SECRET_FD. A socket, not a pipe
// or a memfd: /proc/PID/fd/N of a socket cannot be opened, so no other process can take the bytes
// out of it. The receiver makes itself undumpable first, reads once, closes it.
import Glibc
import StrivacityConfig
import StrivacityCore

public enum SecretHandover {
  /// The variable naming the descriptor.
  public static let variable = "STRIVACITY_SECRET_FD"
  /// The most a handed secret may be (a client secret is far less).
  static let maxBytes = 65_536

  /// A socket holding `name=value`, its writing end closed: the reading end (not closed on
  /// exec), or nil when no socket could be made (the caller then hands nothing).
  public static func socket(name: String, value: String) -> Int32? {
    var ends: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { return nil }
    var payload = Array("\(name)=\(value)".utf8)
    defer { payload.wipe() }
    var offset = 0
    while offset < payload.count {
      let n = payload[offset...].withUnsafeBytes { send(ends[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        close(ends[0])
        close(ends[1])
        return nil
      }
      offset += n
    }
    close(ends[1])
    // The reading end goes to the new program: not closed on exec.
    _ = fcntl(ends[0], F_SETFD, 0)
    return ends[0]
  }

  /// What was handed to this process, if anything: the variable is taken out of the
  /// environment, `beforeReading` runs (it makes the process undumpable), the descriptor is read
  /// to its end and closed. Only a socket whose other end is closed is read (never waited on);
  /// the name must be a variable's. nil when nothing usable was handed.
  public static func receive(beforeReading: () -> Void) -> (name: String, value: String)? {
    guard let raw = getenv(variable) else { return nil }
    let text = String(cString: raw)
    unsetenv(variable)
    guard (1...4).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
      let fd = Int32(text), fd > 2
    else { return nil }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
    defer { close(fd) }
    beforeReading()
    var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
    defer { bytes.wipe() }
    var count = 0
    while count <= maxBytes {
      let n = bytes[count...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if n < 0 && errno == EINTR { continue }
      if n == 0 { break }
      guard n > 0 else { return nil }  // its writer still open (EAGAIN), or another failure
      count += n
    }
    guard count <= maxBytes, let equals = bytes[..<count].firstIndex(of: 0x3D), !bytes[..<count].contains(0) else {
      return nil
    }
    let name = String(decoding: bytes[..<equals], as: UTF8.self)
    guard (try? SecretSource.admitVariable(name)) != nil,
      let value = String(validating: bytes[(equals + 1)..<count], as: UTF8.self)
    else { return nil }
    return (name, value)
  }
}

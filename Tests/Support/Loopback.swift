// TCP on 127.0.0.1 for the tests: a listening socket on a port the kernel picks, a port nobody
// listens on, and whether a port takes connections.
import Foundation
import Glibc

public enum Loopback {
  /// A socket listening on 127.0.0.1 (close-on-exec) on a port the kernel picks, and that port.
  /// The caller closes it.
  public static func listen() throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = address(port: 0)
    let size = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
    }
    guard fd >= 0, bound == 0, Glibc.listen(fd, 64) == 0 else {
      if fd >= 0 { close(fd) }
      throw TestFailure("cannot listen on 127.0.0.1")
    }
    var length = size
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, UInt16(bigEndian: address.sin_port))
  }

  /// A port nobody listens on: bound, then closed at once (free for whoever binds it next).
  public static func unusedPort() throws -> Int {
    let (fd, port) = try listen()
    close(fd)
    return Int(port)
  }

  /// Whether something takes connections on 127.0.0.1:`port` (a connection is made and closed).
  public static func accepts(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    defer { close(fd) }
    var address = address(port: UInt16(port))
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  private static func address(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(port.bigEndian)
    return address
  }
}

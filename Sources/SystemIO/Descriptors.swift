// File descriptors for the targets that do not import Glibc: pipes to and from the programs
// we start, waiting for one of several to be readable, and reads and writes that go on after
// EINTR.
import Glibc

/// Closes `fd` (close(2); its result is not looked at).
public func closeDescriptor(_ fd: Int32) { close(fd) }

/// A pipe's two descriptors.
public struct PipeEnds: Sendable {
  public let read: Int32
  public let write: Int32

  public enum End: Sendable { case read, write }

  /// pipe(2), each end close-on-exec but those `inherited` (what a program started next is
  /// given by number, e.g. as /dev/fd/N); the errno when the kernel refuses.
  public static func make(inherited: Set<End> = []) throws(ErrorNumber) -> PipeEnds {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw ErrorNumber(code: errno) }
    if !inherited.contains(.read) { _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC) }
    if !inherited.contains(.write) { _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC) }
    return PipeEnds(read: ends[0], write: ends[1])
  }
}

/// Waits, without a time limit, until one of `fds` is readable or at its end (poll(2), EINTR
/// waited through): those that are, in the order given; nil when poll fails.
public func waitUntilReadable(_ fds: [Int32]) -> [Int32]? {
  var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
  while true {
    let ready = poll(&entries, nfds_t(entries.count), -1)
    if ready < 0 && errno == EINTR { continue }
    if ready < 0 { return nil }
    return entries.filter { $0.revents != 0 }.map(\.fd)
  }
}

/// One read(2) of `fd` into `buffer` (EINTR: read again): the count read, 0 at the end, -1 on
/// an error.
public func readSome(_ fd: Int32, into buffer: inout [UInt8]) -> Int {
  while true {
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    return n
  }
}

/// Writes all of `bytes` to `fd`, as they are, retrying short writes and EINTR; false when `fd`
/// takes no more (its reader is gone, an error).
public func writeBytes(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
  var offset = 0
  while offset < bytes.count {
    let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    if n <= 0 { return false }
    offset += n
  }
  return true
}

// The agent's socket, both ends: where it lives, what a client checks before it connects, one
// request and response with a deadline, and what the agent checks of each peer. Plain POSIX,
// no Foundation: the small `strivacity` binary is a client.
//
// The socket is $XDG_RUNTIME_DIR/strivacity/agent.sock, in a directory of this user's with mode
// 0700, the socket itself 0600. A client talks only to a socket in such a directory (another
// user's, or one anybody could have put there, is not the agent); the agent answers only peers
// of its own uid (SO_PEERCRED), whatever the file modes are.
internal import CPeerCred
import Glibc
import StrivacityCore
import SystemIO

public enum AgentSocket {
  /// The socket's directory, or nil without an absolute $XDG_RUNTIME_DIR.
  public static func directory(_ environment: [String: String]) -> String? {
    guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
    return (runtime.hasSuffix("/") ? runtime : runtime + "/") + "strivacity"
  }

  public static func path(_ environment: [String: String]) -> String? {
    directory(environment).map { $0 + "/agent.sock" }
  }

  /// Whether `directory` is this user's own and private (mode 0700, not a link): a socket in
  /// it was put there by this user.
  public static func isPrivateDirectory(_ directory: String) -> Bool {
    var info = stat()
    guard lstat(directory, &info) == 0 else { return false }
    return info.st_mode & S_IFMT == S_IFDIR && info.st_uid == getuid() && info.st_mode & 0o077 == 0
  }

  public enum Outcome {
    case answered(AgentMessage)
    /// No agent to ask (no socket, not ours, refused): the caller does the work itself.
    case unreachable(String)
    /// Connected, but no usable answer (closed mid-way, malformed, too slow): the caller does
    /// the work itself.
    case failed(String)
  }

  /// Sends `request` and reads the answer, within `timeout` seconds in all. `notice`: said on a
  /// terminal (stderr) when the answer takes more than a second.
  public static func ask(_ request: AgentMessage, environment: [String: String], timeout: Double, notice: String? = nil)
    -> Outcome
  {
    guard let directory = directory(environment) else { return .unreachable("XDG_RUNTIME_DIR is not set") }
    guard isPrivateDirectory(directory) else {
      return .unreachable("\(directory) is missing or not private to this user")
    }
    // Non-blocking: an agent whose backlog is full refuses at once (EAGAIN) instead of holding
    // connect(); the reads and writes below wait with poll, under the deadline.
    let fd = socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { return .unreachable("socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    guard connectUnix(fd, directory + "/agent.sock") else {
      return .unreachable("no agent (\(String(cString: strerror(errno))))")
    }
    // Whoever could swap the directory between the check and the connect is still not us.
    guard let agent = peer(fd), agent.uid == getuid() else {
      return .unreachable("the socket's other end is not this user's")
    }
    let deadline = monotonicSeconds() + timeout
    var frame = AgentProtocol.frame(request)
    defer { frame.wipe() }
    guard writeAll(fd, frame, deadline: deadline) else { return .failed("the agent did not take the request") }
    if let notice, isatty(2) == 1, !wait(fd, for: Int16(POLLIN), deadline: min(deadline, monotonicSeconds() + 1)) {
      _ = notice.withCString { write(2, $0, strlen($0)) }
    }
    switch readFrame(fd, deadline: deadline) {
    case .success(var payload):
      defer { payload.wipe() }
      do {
        return .answered(try AgentMessage(decoding: payload[...]))
      } catch {
        return .failed("the agent's answer is malformed: \(error)")
      }
    case .failure(let problem): return .failed(problem.description)
    }
  }

  static func connectUnix(_ fd: Int32, _ path: String) -> Bool {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      errno = ENAMETOOLONG
      return false
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
      raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    } == 0
  }

  // MARK: frames

  public struct Problem: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
  }

  /// Waits until `fd` is readable (or writable), at most until `deadline`.
  static func wait(_ fd: Int32, for events: Int16, deadline: Double) -> Bool {
    while true {
      let left = deadline - monotonicSeconds()
      if left <= 0 { return false }
      var entry = pollfd(fd: fd, events: events, revents: 0)
      let ready = poll(&entry, 1, Int32(min(left * 1000 + 1, 2_000_000_000)))
      if ready > 0 { return true }
      if ready < 0 && errno != EINTR { return false }
    }
  }

  public static func writeAll(_ fd: Int32, _ bytes: [UInt8], deadline: Double) -> Bool {
    var offset = 0
    while offset < bytes.count {
      guard wait(fd, for: Int16(POLLOUT), deadline: deadline) else { return false }
      let n = bytes[offset...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
      }
      if n < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return false
      }
      offset += n
    }
    return true
  }

  /// One frame's payload, read by `deadline`: a header announcing more than `maxFrame` is
  /// refused before anything more is read.
  public static func readFrame(_ fd: Int32, deadline: Double) -> Result<[UInt8], Problem> {
    var header = [UInt8](repeating: 0, count: 4)
    guard readExactly(fd, &header, deadline: deadline) else {
      return .failure(Problem("the connection ended or stalled before a message"))
    }
    guard let length = AgentProtocol.payloadLength(header) else {
      return .failure(Problem("the message is over \(AgentProtocol.maxFrame) bytes"))
    }
    var payload = [UInt8](repeating: 0, count: length)
    guard readExactly(fd, &payload, deadline: deadline) else {
      payload.wipe()
      return .failure(Problem("the connection ended or stalled mid-message"))
    }
    return .success(payload)
  }

  static func readExactly(_ fd: Int32, _ buffer: inout [UInt8], deadline: Double) -> Bool {
    var offset = 0
    while offset < buffer.count {
      guard wait(fd, for: Int16(POLLIN), deadline: deadline) else { return false }
      let n = buffer[offset...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if n == 0 { return false }
      if n < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return false
      }
      offset += n
    }
    return true
  }

  // MARK: the agent's end

  /// No core file, and no ptrace by the user's other processes (PR_SET_DUMPABLE 0).
  public static func makeUndumpable() -> Bool { pc_not_dumpable() == 0 }

  /// All memory locked into RAM, where RLIMIT_MEMLOCK allows it: nil when done, else why not.
  public static func lockMemory() -> String? {
    switch pc_lock_memory() {
    case 0: return nil
    case 1: return "RLIMIT_MEMLOCK is limited"
    default: return String(cString: strerror(errno))
    }
  }

  /// A connection on `listener`, close-on-exec; -1 on error.
  public static func accept(_ listener: Int32) -> Int32 { pc_accept(listener) }

  /// Starts `arguments` (the program first) in a new session, stdin, stdout and stderr on /dev/null.
  public static func spawnDetached(_ arguments: [String]) -> Result<pid_t, Problem> {
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: Int32 = 0
    let result = pc_spawn_detached(arguments[0], argv, environ, &pid)
    return result == 0
      ? .success(pid) : .failure(Problem("cannot start \(arguments[0]): \(String(cString: strerror(result)))"))
  }

  /// The uid and pid the kernel recorded for the peer of `fd` when it connected.
  public static func peer(_ fd: Int32) -> (uid: uid_t, pid: pid_t)? {
    var uid: UInt32 = 0
    var pid: Int32 = 0
    guard pc_peer(fd, &uid, &pid) == 0 else { return nil }
    return (uid, pid)
  }

  public enum ListenError: Error, CustomStringConvertible {
    case noRuntimeDirectory
    case unsafeDirectory(String)
    case inUse(String)
    case system(String)

    public var description: String {
      switch self {
      case .noRuntimeDirectory:
        return "XDG_RUNTIME_DIR is not set (an agent lives in a login session's runtime directory)"
      case .unsafeDirectory(let path):
        return "\(path) is not a directory of this user's with mode 0700; remove it and try again"
      case .inUse(let path): return "an agent already answers on \(path)"
      case .system(let detail): return detail
      }
    }
  }

  /// Creates the directory (0700) and a listening socket (0600) in it. A socket left by an agent
  /// that is gone is replaced; one that answers is not.
  public static func listen(_ environment: [String: String]) throws(ListenError) -> Int32 {
    guard let directory = directory(environment), let path = path(environment) else { throw .noRuntimeDirectory }
    if mkdir(directory, 0o700) != 0 && errno != EEXIST {
      throw .system("\(directory): \(String(cString: strerror(errno)))")
    }
    guard isPrivateDirectory(directory) else { throw .unsafeDirectory(directory) }
    let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    if probe >= 0 {
      defer { close(probe) }
      if connectUnix(probe, path) { throw .inUse(path) }
    }
    unlink(path)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .system("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      close(fd)
      throw .system("\(path): the path is too long for a socket")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
      raw[bytes.count] = 0
    }
    let previous = umask(0o177)  // the socket is born 0600
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    umask(previous)
    guard bound == 0, Glibc.listen(fd, 128) == 0 else {
      let detail = String(cString: strerror(errno))
      close(fd)
      throw .system("\(path): \(detail)")
    }
    return fd
  }
}

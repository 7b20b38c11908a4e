// What `strivacity agent`'s server needs of the kernel, beside its socket (AgentSocket): the
// signals that stop it, taken by its loop rather than by a handler; a connection waited for;
// the socket file watched; the socket systemd passed. The loop, its requests and its answers
// are the broker's (Broker/AgentServer.swift).
import Glibc
import SystemIO

public enum AgentServing {
  /// The signals that stop the agent: SIGINT, SIGTERM (systemd at logout) and SIGHUP.
  private static let stopSignals: sigset_t = {
    var set = sigset_t()
    sigemptyset(&set)
    for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, number) }
    return set
  }()

  /// SIGPIPE ignored (a write to a client that went away must not kill the agent), and the stop
  /// signals blocked in this thread, so that every thread started after inherits the block and
  /// they are only ever taken by `takeStopSignal`, never in the middle of a request. Called
  /// before any thread exists.
  public static func holdStopSignals() {
    signal(SIGPIPE, SIG_IGN)
    var held = stopSignals
    pthread_sigmask(SIG_BLOCK, &held, nil)
  }

  /// A stop signal that came (held by `holdStopSignals`), taken: its number; nil at once when
  /// none is pending.
  public static func takeStopSignal() -> Int32? {
    var held = stopSignals
    var zero = timespec()
    let taken = sigtimedwait(&held, nil, &zero)
    return taken > 0 ? taken : nil
  }

  /// A connection on `listener` (close-on-exec), when one comes within `milliseconds`; else nil.
  public static func accept(_ listener: Int32, waitingMilliseconds milliseconds: Int32) -> Int32? {
    var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, milliseconds) > 0 else { return nil }
    let client = AgentSocket.accept(listener)
    return client >= 0 ? client : nil
  }

  /// The listening socket systemd passed (LISTEN_FDS=1 for this pid), if any, made
  /// close-on-exec.
  public static func socketActivated(_ environment: [String: String]) -> Int32? {
    guard environment["LISTEN_PID"] == String(getpid()), environment["LISTEN_FDS"] == "1" else { return nil }
    let fd: Int32 = 3
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    return fd
  }

  /// The socket file the agent answers on, as it was when the agent started: whether it is gone
  /// since (removed: logout removes the runtime directory; or replaced by another).
  public struct SocketFile: Sendable {
    public let path: String
    /// Its inode at the start; 0 when it could not be seen then.
    private let inode: ino_t

    public init(_ path: String) {
      self.path = path
      var info = stat()
      inode = stat(path, &info) == 0 ? info.st_ino : 0
    }

    /// Not there any more, or another file in its place.
    public var isGone: Bool {
      var now = stat()
      return stat(path, &now) != 0 || (inode != 0 && now.st_ino != inode)
    }
  }
}

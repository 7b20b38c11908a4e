// POSIX threads, for the targets that do not import Glibc: one started and left to end on its
// own, or one waited for. A thread inherits the signal mask of the thread that starts it.
import Glibc

/// Starts a detached thread running `body` (with a stack of `stackSize` bytes; nil: the
/// system's default). False when none could be started (`body` is then not run).
@discardableResult
public func startDetachedThread(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
  let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
  var attributes = pthread_attr_t()
  pthread_attr_init(&attributes)
  defer { pthread_attr_destroy(&attributes) }
  pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
  if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
  var thread = pthread_t()
  guard pthread_create(&thread, &attributes, ThreadBody.run, context) == 0 else {
    Unmanaged<ThreadBody>.fromOpaque(context).release()
    return false
  }
  return true
}

/// A thread that is waited for (`join`) once its work is done.
public final class JoinableThread {
  private let thread: pthread_t

  /// Starts `body` on a new thread; nil when none could be started (`body` is then not run).
  public init?(_ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    guard pthread_create(&thread, nil, ThreadBody.run, context) == 0 else {
      Unmanaged<ThreadBody>.fromOpaque(context).release()
      return nil
    }
    self.thread = thread
  }

  /// Waits for the thread to end (at most once).
  public func join() { pthread_join(thread, nil) }
}

private final class ThreadBody {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }

  static let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
    Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
    return nil
  }
}

// A bound on one keyring operation. libsecret's calls wait for D-Bus replies with GLib's default
// timeout (25 s each, about 50 s for a lookup): a stopped or hung Secret Service would freeze git,
// kubectl and shell prompts that much, silently. A watchdog thread says "waiting for the
// keyring…" on a terminal after a second, and at the deadline cancels the operation's
// GCancellable, which every libsecret call of the operation is given.
internal import CSecretShim
import Glibc
import StrivacityCore
import SystemIO

final class KeyringDeadline: @unchecked Sendable {
  let cancellable: OpaquePointer
  private var limit: Double
  private let noticeAfter: Double
  private let noticeFD: Int32?
  private var mutex = pthread_mutex_t()
  private var condition = pthread_cond_t()
  private var finished = false
  private var thread = pthread_t()
  private var expiredFlag = false
  private let started = monotonicSeconds()
  /// The operation's own bound (a prompt's replaces it while the prompt lasts).
  private let operationBound: Double
  /// A line for stderr and when it is due (monotonic seconds), from `prompt(for:announcing:after:)`.
  private var announcement: (text: String, due: Double)?
  /// A prompt was announced: "waiting for the keyring…" would say less.
  private var announced = false

  /// Starts the watchdog: after `noticeAfter` seconds a line on `noticeFD` (when given), after
  /// `limit` seconds the cancellable is cancelled.
  init(limit: Double, noticeAfter: Double = 1, noticeFD: Int32?) {
    cancellable = ss_cancellable_new()
    self.limit = limit
    operationBound = limit
    self.noticeAfter = noticeAfter
    self.noticeFD = noticeFD
    pthread_mutex_init(&mutex, nil)
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(&condition, &attributes)
    pthread_condattr_destroy(&attributes)
    let context = Unmanaged.passRetained(self).toOpaque()
    let started = pthread_create(
      &thread, nil,
      { raw in
        let deadline = Unmanaged<KeyringDeadline>.fromOpaque(raw!).takeRetainedValue()
        deadline.watch()
        return nil
      }, context)
    if started != 0 {
      // No watchdog: the operation runs unbounded rather than not at all.
      Unmanaged<KeyringDeadline>.fromOpaque(context).release()
      finished = true
    }
  }

  /// Whether the deadline passed (and the operation was cancelled).
  var expired: Bool {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    return expiredFlag
  }

  /// For a prompt the Secret Service returned, which a person answers: the deadline moves to
  /// `seconds` from now, and `line` goes to stderr whether or not it is a terminal (a script's
  /// log should say why it waited) `after` seconds from now, unless the prompt is over by then
  /// (a provider may return prompts that ask nobody, or that end at once). False when the
  /// operation's deadline has passed already: the prompt is not to be shown.
  func prompt(for seconds: Double, announcing line: String, after delay: Double) -> Bool {
    let text = "strivacity: \(TerminalSafe.text(line, multiline: false)) (waiting up to \(formatSeconds(seconds)))…\n"
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    if expiredFlag { return false }
    let now = monotonicSeconds()
    limit = now - started + seconds
    announcement = (text, now + delay)
    pthread_cond_signal(&condition)
    return true
  }

  /// A prompt is over: an announcement not yet made is dropped, and the operation's own bound
  /// applies again, from now.
  func promptEnded() {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    announcement = nil
    if !expiredFlag { limit = monotonicSeconds() - started + operationBound }
    pthread_cond_signal(&condition)
  }

  private func writeNotice(_ fd: Int32, _ line: String) { _ = line.withCString { write(fd, $0, strlen($0)) } }

  /// Stops the watchdog; call once the operation returned.
  func finish() {
    pthread_mutex_lock(&mutex)
    let wasRunning = !finished
    finished = true
    pthread_cond_signal(&condition)
    pthread_mutex_unlock(&mutex)
    if wasRunning { pthread_join(thread, nil) }
  }

  deinit {
    ss_object_unref(UnsafeMutableRawPointer(cancellable))
    pthread_cond_destroy(&condition)
    pthread_mutex_destroy(&mutex)
  }

  private func watch() {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    var noticed = noticeFD == nil || noticeAfter >= limit
    while !finished {
      let now = monotonicSeconds()
      let elapsed = now - started
      if elapsed >= limit {
        expiredFlag = true
        ss_cancellable_cancel(cancellable)
        return
      }
      // Written without the lock: stderr may be a pipe that blocks, and finish() must not wait on it.
      var line: (fd: Int32, text: String)?
      if let due = announcement, now >= due.due {
        announcement = nil
        announced = true
        line = (2, due.text)
      }
      if announced { noticed = true }  // an announcement says more than "waiting for the keyring"
      if !noticed && elapsed >= noticeAfter, let fd = noticeFD {
        noticed = true
        line = (fd, "strivacity: waiting for the keyring…\n")
      }
      if let line {
        pthread_mutex_unlock(&mutex)
        writeNotice(line.fd, line.text)
        pthread_mutex_lock(&mutex)
        continue
      }
      var wake = limit - elapsed
      if !noticed { wake = min(wake, noticeAfter - elapsed) }
      if let due = announcement { wake = min(wake, due.due - now) }
      var until = timespec()
      clock_gettime(CLOCK_MONOTONIC, &until)
      let nanos = Int(until.tv_nsec) + Int(max(0.001, wake).truncatingRemainder(dividingBy: 1) * 1e9)
      until.tv_sec += Int(max(0.001, wake)) + nanos / 1_000_000_000
      until.tv_nsec = nanos % 1_000_000_000
      pthread_cond_timedwait(&condition, &mutex, &until)
    }
  }
}

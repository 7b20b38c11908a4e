// Driving a real binary through a pseudo-terminal, as a person at a keyboard would: the PTY is
// the child's controlling terminal (so /dev/tty works) and carries its stderr; stdout goes to a
// separate pipe, so tests can check that it carries data only.
import Foundation
import Glibc
import Synchronization

public final class PTYSession: @unchecked Sendable {
  public let pid: pid_t
  private let master: Int32
  private let stdoutRead: Int32
  private let output = Mutex<[UInt8]>([])
  private let stdoutBytes = Mutex<[UInt8]>([])
  private var cursor = 0
  private let readers = DispatchGroup()

  public init(_ arguments: [String], environment: [String: String], columns: UInt16 = 100) throws {
    // posix_openpt/unlockpt/ptsname by hand (Glibc hides them behind _XOPEN_SOURCE).
    master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
    guard master >= 0, ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
      throw TestFailure("cannot open a pseudo-terminal")
    }
    let slavePath = "/dev/pts/\(number)"
    var size = winsize(ws_row: 40, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    var out: [Int32] = [0, 0]
    guard closeOnExecPipe(&out) == 0 else { throw TestFailure("pipe failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // After setsid(), opening the slave makes it the controlling terminal.
    posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
    posix_spawn_file_actions_adddup2(&actions, out[1], 1)
    posix_spawn_file_actions_adddup2(&actions, 0, 2)
    posix_spawn_file_actions_addclose(&actions, out[0])
    posix_spawn_file_actions_addclose(&actions, out[1])
    posix_spawn_file_actions_addclose(&actions, master)
    let child = Result { try spawnProcess(arguments, environment: environment, actions: &actions) }
    close(out[1])
    pid = try child.get()
    stdoutRead = out[0]
    pump(master, into: output)
    pump(stdoutRead, into: stdoutBytes)
  }

  deinit {
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, WNOHANG)
    close(master)
    close(stdoutRead)
  }

  private func pump(_ fd: Int32, into sink: borrowing Mutex<[UInt8]>) {
    let box = SinkBox(self, isOutput: fd == master)
    readers.enter()
    DispatchQueue.global().async { [readers] in
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        box.append(buffer[0..<n])
      }
      readers.leave()
    }
  }

  fileprivate func append(_ bytes: ArraySlice<UInt8>, output isOutput: Bool) {
    if isOutput { output.withLock { $0 += bytes } } else { stdoutBytes.withLock { $0 += bytes } }
  }

  /// Everything the terminal showed so far (prompts, echoes, stderr), CR removed.
  public var transcript: String {
    String(decoding: output.withLock { $0 }, as: UTF8.self).replacingOccurrences(of: "\r", with: "")
  }

  public var stdout: String { String(decoding: stdoutBytes.withLock { $0 }, as: UTF8.self) }

  /// Waits until `text` appears after the previous match; returns what came before it.
  @discardableResult
  public func expect(_ text: String, timeout: Double = 15, sourceLocation: String = #fileID + ":" + "\(#line)") throws
    -> String
  {
    var before: String?
    waitUntil(timeout: timeout, every: 0.01) {
      let all = transcript
      let start = all.index(all.startIndex, offsetBy: min(cursor, all.count))
      guard let range = all[start...].range(of: text) else { return false }
      cursor = all.distance(from: all.startIndex, to: range.upperBound)
      before = String(all[start..<range.lowerBound])
      return true
    }
    guard let before else {
      throw TestFailure("timed out waiting for \(text.debugDescription); the terminal shows:\n\(transcript)")
    }
    return before
  }

  /// Plays a conversation in order: for each step, waits for `prompt` (as `expect` does), then
  /// types `answer` and Enter when the step has one (nil: only waits).
  public func converse(_ steps: [(prompt: String, answer: String?)], timeout: Double = 15) throws {
    for step in steps {
      try expect(step.prompt, timeout: timeout)
      if let answer = step.answer { send(answer) }
    }
  }

  /// Types a line and Enter.
  public func send(_ line: String) { type(line + "\r") }

  /// Types raw characters (e.g. "\u{3}" for Ctrl-C, "\u{4}" for Ctrl-D).
  public func type(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress, $0.count) }
  }

  /// The terminal's current settings, as the child left them.
  public func localFlags() -> tcflag_t {
    var settings = termios()
    tcgetattr(master, &settings)
    return settings.c_lflag
  }

  /// Waits for the child to exit; returns its exit code (128+N for signal N).
  public func wait(timeout: Double = 20) throws -> Int32 {
    var status: Int32 = 0
    guard waitUntil(timeout: timeout, every: 0.01, { waitpid(pid, &status, WNOHANG) == pid }) else {
      throw TestFailure("still running after \(timeout) s; the terminal shows:\n\(transcript)")
    }
    _ = readers.wait(timeout: .now() + 2)
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  }
}

private final class SinkBox: @unchecked Sendable {
  weak var session: PTYSession?
  let isOutput: Bool
  init(_ session: PTYSession, isOutput: Bool) {
    self.session = session
    self.isOutput = isOutput
  }
  func append(_ bytes: ArraySlice<UInt8>) { session?.append(bytes, output: isOutput) }
}

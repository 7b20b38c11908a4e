// The terminal edge: prompts and answers go through /dev/tty, so stdin and stdout stay free
// for data; messages and the spinner go to stderr.
//
// Ctrl-C anywhere (at a prompt, during hidden input, while waiting on the network) restores the
// terminal's settings and exits 130; nothing is half-written, because tokens are stored only
// once, atomically, at the very end of a sign-in.
import Glibc
import StrivacityCore
import Synchronization
import SystemIO

public enum TerminalError: Error, Equatable {
  /// Ctrl-D at a prompt.
  case endOfInput
  case unavailable
}

/// Line-oriented access to the user's terminal.
public protocol Terminal: AnyObject {
  func write(_ text: String)
  /// Reads one line (without its newline); `hidden` turns echo off.
  func readLine(prompt: String, hidden: Bool) throws(TerminalError) -> String
}

extension Terminal {
  /// A yes/no question whose answer Enter gives as yes ("[Y/n]"): true for Enter or a "y…"
  /// answer; false for anything else, and when the terminal cannot be read.
  public func confirm(_ question: String) -> Bool {
    let answer = (try? readLine(prompt: question + " [Y/n]: ", hidden: false)) ?? "n"
    return answer.isEmpty || answer.lowercased().hasPrefix("y")
  }
}

public final class TTY: Terminal {
  public let fd: Int32

  /// Opens /dev/tty; nil when the process has no controlling terminal.
  public init?() {
    let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { return nil }
    self.fd = fd
    TerminalGuard.install(fd: fd)
  }

  deinit {
    TerminalGuard.restore()
    close(fd)
  }

  public func write(_ text: String) { writeTerminal(fd, text) }

  public func readLine(prompt: String, hidden: Bool) throws(TerminalError) -> String {
    // Echo goes off before the prompt appears, so nothing typed after seeing it is echoed
    // (and type-ahead is kept: the mode change never flushes input).
    if hidden { TerminalGuard.setEcho(false) }
    write(prompt)
    defer {
      if hidden {
        TerminalGuard.setEcho(true)
        write("\n")
      }
    }
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let n = read(fd, &byte, 1)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 {
        if line.isEmpty {
          if !hidden { write("\n") }  // Ctrl-D: what follows starts on a line of its own
          throw .endOfInput
        }
        break
      }
      if byte == 10 { break }
      line.append(byte)
    }
    defer { line.wipe() }
    if line.last == 13 { line.removeLast() }
    return String(decoding: line, as: UTF8.self)
  }
}

extension TTY {
  /// What `readByte` found.
  public enum PolledByte: Equatable {
    case byte(UInt8)
    /// Nothing came in time.
    case nothingYet
    /// End of input, or the read failed.
    case ended
  }

  /// One byte from the terminal `fd` when one comes within `milliseconds`: for a reader that
  /// looks again and again whether its wait is over, and so never outlives it.
  public static func readByte(_ fd: Int32, waitingMilliseconds milliseconds: Int32) -> PolledByte {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, milliseconds) > 0 else { return .nothingYet }
    var byte: UInt8 = 0
    return read(fd, &byte, 1) == 1 ? .byte(byte) : .ended
  }
}

/// Remembers the terminal's settings and puts them back on exit, Ctrl-C or SIGTERM.
public enum TerminalGuard {
  nonisolated(unsafe) private static var saved = termios()
  nonisolated(unsafe) private static var savedFD: Int32 = -1

  static func install(fd: Int32) {
    var settings = termios()
    guard tcgetattr(fd, &settings) == 0 else { return }
    saved = settings
    savedFD = fd
    for signal in [SIGINT, SIGTERM, SIGHUP] {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { signal in
        TerminalGuard.restore()
        // async-signal-safe: write(2) of static text and _exit(2) only
        let text: StaticString = signal == SIGINT ? "\nstrivacity: sign-in cancelled\n" : "\n"
        _ = Glibc.write(2, text.utf8Start, text.utf8CodeUnitCount)
        _exit(signal == SIGINT ? 130 : 128 + signal)
      }
      sigemptyset(&action.sa_mask)
      sigaction(signal, &action, nil)
    }
  }

  public static func restore() {
    guard savedFD >= 0 else { return }
    var settings = saved
    tcsetattr(savedFD, TCSANOW, &settings)
  }

  static func setEcho(_ on: Bool) {
    guard savedFD >= 0 else { return }
    var settings = termios()
    guard tcgetattr(savedFD, &settings) == 0 else { return }
    if on { settings.c_lflag |= tcflag_t(ECHO) } else { settings.c_lflag &= ~tcflag_t(ECHO) }
    tcsetattr(savedFD, TCSANOW, &settings)
  }
}

/// A spinner on stderr while waiting on the network; only when stderr is a terminal.
public final class Spinner: @unchecked Sendable {
  private let state = Mutex<(running: Bool, text: String, generation: Int, drawn: Bool)>((false, "", 0, false))
  private let enabled: Bool

  public init(enabled: Bool = isatty(2) == 1) { self.enabled = enabled }

  /// Shows `text` with a spinner until `stop()`.
  public func start(_ text: String) {
    guard enabled else { return }
    let generation = state.withLock { state -> Int in
      state.running = true
      state.drawn = false
      state.text = text
      state.generation += 1
      return state.generation
    }
    let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    var thread = pthread_t()
    let box = Unmanaged.passRetained(SpinnerRun(spinner: self, generation: generation, frames: frames)).toOpaque()
    if pthread_create(
      &thread, nil,
      { raw in
        let run = Unmanaged<SpinnerRun>.fromOpaque(raw!).takeRetainedValue()
        run.loop()
        return nil
      }, box) == 0
    {
      pthread_detach(thread)
    } else {
      Unmanaged<SpinnerRun>.fromOpaque(box).release()
    }
  }

  public func stop() {
    guard enabled else { return }
    let drawn = state.withLock { state -> Bool in
      defer {
        state.running = false
        state.drawn = false
        state.generation += 1
      }
      return state.drawn
    }
    if drawn { writeAll(2, "\r\u{1B}[K") }
  }

  /// The text to draw for `generation`, or nil when that spinner has stopped. Draws happen
  /// under the lock, so a stop never races with a half-written frame.
  fileprivate func draw(_ generation: Int, frame: String) -> Bool {
    state.withLock { state in
      guard state.running && state.generation == generation else { return false }
      state.drawn = true
      writeAll(2, "\r\(frame) \(TerminalSafe.text(state.text, multiline: false))\u{1B}[K")
      return true
    }
  }
}

private final class SpinnerRun {
  let spinner: Spinner
  let generation: Int
  let frames: [String]
  init(spinner: Spinner, generation: Int, frames: [String]) {
    self.spinner = spinner
    self.generation = generation
    self.frames = frames
  }

  func loop() {
    usleep(150_000)  // quick answers never show a spinner
    var index = 0
    while spinner.draw(generation, frame: frames[index % frames.count]) {
      index += 1
      usleep(80_000)
    }
  }
}

/// Colour only on a terminal, and never with NO_COLOR set (https://no-color.org).
public func colourWanted(fd: Int32, environment: [String: String]) -> Bool {
  if let value = environment["NO_COLOR"], !value.isEmpty { return false }
  if environment["TERM"] == "dumb" { return false }
  return isatty(fd) == 1
}

/// The terminal's width in columns when `fd` is one (TIOCGWINSZ); nil otherwise.
public func terminalColumns(fd: Int32) -> Int? {
  var size = winsize()
  guard isatty(fd) == 1, ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
  return Int(size.ws_col)
}

// The command `strivacity exec` runs: spawned with this process's environment (what strivacity
// took out of it stays out) plus the token's variables, default signal handling and an empty
// mask; the signals sent to strivacity passed on to it; its end reported as a shell reports it.
import ArgumentParser
import Glibc
import StrivacityCore

final class ChildProcess {
  let pid: pid_t

  /// The signals passed on. A terminal's Ctrl-C (or hang-up) reaches the command by itself, as
  /// it is in the terminal's foreground group with us: only signals a process sent are passed on,
  /// so that the command does not get each twice (a second Ctrl-C means "now" to some programs).
  static let forwarded = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

  /// Spawns `command` (looked up in PATH as a shell does). Not found: exit 127; found but not
  /// runnable: 126, as shells say.
  init(command: [String], environment extra: [String: String]) throws {
    ChildSignals.install(Self.forwarded + [SIGCHLD])
    var entries: [String] = []
    var index = 0
    while let entry = environ[index] {
      let text = String(cString: entry)
      let name = String(text.prefix { $0 != "=" })
      if extra[name] == nil { entries.append(text) }
      index += 1
    }
    entries += extra.map { "\($0.key)=\($0.value)" }
    let argv = command.map { strdup($0) } + [nil]
    let envp = entries.map { strdup($0) } + [nil]
    defer {
      argv.forEach { free($0) }
      // The token's entries are in this copy: wiped before it is freed.
      envp.forEach {
        if let entry = $0 {
          memset(entry, 0, strlen(entry))
          free(entry)
        }
      }
      entries = []
    }
    var spawned: pid_t = 0
    let rc = withSpawnAttributes { posix_spawnp(&spawned, command[0], nil, &$0, argv, envp) }
    guard rc == 0 else {
      ChildSignals.restore()
      let name = TerminalSafe.text(String(command[0].prefix(200)), multiline: false)
      if rc == ENOENT {
        Console.error("\(name): command not found")
        throw ExitCode(127)
      }
      Console.error("\(name): cannot be run: \(String(cString: strerror(rc)))")
      throw ExitCode(126)
    }
    pid = spawned
  }

  /// Waits up to `milliseconds` (-1: until it ends) for the command to end, passing signals on
  /// meanwhile. Its exit status (128+N when signal N ended it), or nil if it still runs.
  func wait(milliseconds: Int32) -> Int32? {
    let deadline = milliseconds < 0 ? nil : monotonicMilliseconds() + Int64(milliseconds)
    while true {
      var status: Int32 = 0
      let ended = waitpid(pid, &status, WNOHANG)
      if ended == pid {
        ChildSignals.restore()
        // WIFEXITED/WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
      }
      let left = deadline.map { max(0, $0 - monotonicMilliseconds()) }
      if left == 0 { return nil }
      for (number, sentByProcess) in ChildSignals.take(waitingMilliseconds: Int32(clamping: left ?? 1000))
      where number != SIGCHLD && sentByProcess {
        kill(pid, number)
      }
    }
  }

  func signal(_ number: Int32) { kill(pid, number) }

  private func monotonicMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
  }
}

/// Signals noted by a handler into a pipe (write(2) alone: async-signal-safe), read in the loop.
/// Each is two bytes: the number, and 1 when a process sent it (si_code ≤ 0: kill, sigqueue)
/// rather than the kernel (a terminal's Ctrl-C, a child's end).
enum ChildSignals {
  nonisolated(unsafe) private static var pipeFDs: [Int32] = [-1, -1]
  nonisolated(unsafe) private static var writeFD: Int32 = -1
  nonisolated(unsafe) private static var saved: [Int32: sigaction] = [:]

  static func install(_ signals: [Int32]) {
    guard writeFD < 0, pipe2(&pipeFDs, O_CLOEXEC | O_NONBLOCK) == 0 else { return }
    writeFD = pipeFDs[1]
    for number in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_sigaction = { number, info, _ in
        let byProcess: UInt8 = (info.map { $0.pointee.si_code <= 0 } ?? false) ? 1 : 0
        var note: (UInt8, UInt8) = (UInt8(truncatingIfNeeded: number), byProcess)
        _ = withUnsafeBytes(of: &note) { Glibc.write(ChildSignals.writeFD, $0.baseAddress, 2) }
      }
      action.sa_flags = SA_SIGINFO | SA_RESTART
      sigemptyset(&action.sa_mask)
      var old = sigaction()
      sigaction(number, &action, &old)
      saved[number] = old
    }
  }

  /// Puts the handlers back as they were.
  static func restore() {
    for (number, old) in saved {
      var action = old
      sigaction(number, &action, nil)
    }
    saved = [:]
  }

  /// The signals noted, waiting up to `waitingMilliseconds` for the first.
  static func take(waitingMilliseconds: Int32) -> [(Int32, Bool)] {
    var entry = pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, waitingMilliseconds) > 0 else { return [] }
    var bytes = [UInt8](repeating: 0, count: 64)
    let n = read(pipeFDs[0], &bytes, bytes.count)
    guard n >= 2 else { return [] }
    return stride(from: 0, to: n - 1, by: 2).map { (Int32(bytes[$0]), bytes[$0 + 1] == 1) }
  }
}

@_silgen_name("pipe2") private func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

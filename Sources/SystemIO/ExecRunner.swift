// `strivacity exec`'s run, shared by both binaries (the small one runs it with a token from the
// cache, the full command line with any): COMMAND spawned with the token's variables, a token
// file kept fresh on KeepFresh's schedule and removed at the end, signals passed on, COMMAND's
// status returned. The token is never in an argument.
import Glibc
import StrivacityConfig
import StrivacityCore

/// What `exec` was asked: COMMAND, and where it finds the token.
public struct ExecPlan: Sendable {
  public var command: [String]
  /// The variable holding the token; nil with `fileEnv` nil: STRIVACITY_ACCESS_TOKEN.
  public var envName: String?
  /// The variable holding the token file's path.
  public var fileEnv: String?
  public var failOnExpiry: Bool
  /// Variables of this process COMMAND does not get (a machine's secret the small binary keeps
  /// for its renewals).
  public var withheld: Set<String> = []

  public init(command: [String], envName: String?, fileEnv: String?, failOnExpiry: Bool) {
    self.command = command
    self.envName = envName
    self.fileEnv = fileEnv
    self.failOnExpiry = failOnExpiry
  }

  /// A variable name: letters, digits and _, not starting with a digit, at most 128 bytes.
  public static func isVariableName(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(0x30...0x39).contains(first), name.utf8.count <= 128 else { return false }
    return name.utf8.allSatisfy {
      ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F
    }
  }
}

/// A failure of exec's own, with the status it exits with (126/127 as shells say, 2 for a
/// runtime directory that will not do).
public struct ExecFailure: Error, Sendable {
  public var message: String
  public var status: Int32
  public init(_ message: String, status: Int32) {
    self.message = message
    self.status = status
  }
}

/// What a renewal gave.
public enum ExecRenewal {
  case tokens(TokenSet)
  /// The failure's exit status and its line.
  case failed(ExitStatus, String)
}

public enum ExecRunner {
  /// Runs `plan` with `initial`, renewing through `renew` when a file is kept; `say` writes a
  /// line to stderr (warning or note). Returns COMMAND's exit status (128+N for signal N).
  public static func run(
    _ plan: ExecPlan, initial: TokenSet, file: TokenFile?, now: () -> Int64,
    renew: (Freshness) -> ExecRenewal, say: (String) -> Void
  ) throws(ExecFailure) -> Int32 {
    defer { file?.remove() }
    var extra: [String: String] = [:]
    if let file, let fileEnv = plan.fileEnv {
      try file.write(initial)
      extra[fileEnv] = file.path
    }
    let variable = TokenRenderer.text(initial.accessToken, of: initial, to: .variable)
    if let envName = plan.envName {
      extra[envName] = variable
    } else if plan.fileEnv == nil {
      extra["STRIVACITY_ACCESS_TOKEN"] = variable
    }
    let child = try ChildProcess(command: plan.command, environment: extra, withheld: plan.withheld)
    extra = [:]
    var keeper = KeepFresh(obtainedAt: initial.obtainedAt, expiresAt: initial.expiresAt)
    var lastFailure = ExitStatus.transient
    while true {
      let due = file == nil ? nil : keeper.next(now: now())
      // To the millisecond: a step due at second S runs as S begins.
      let wait = due.map { max(0, $0.at * 1000 - Self.wallMilliseconds()) } ?? -1
      if let status = child.wait(milliseconds: Int32(clamping: wait)) { return status }
      guard let due, let file, now() >= due.at else { continue }
      switch due.step {
      case .empty:
        keeper.expired()
        try? file.write(nil)
        say("warning: the token in \(file.path) expired unrenewed: the file is empty until a renewal succeeds")
        if plan.failOnExpiry {
          child.signal(SIGTERM)
          _ = child.wait(milliseconds: -1)
          return lastFailure.rawValue
        }
      case .renew(let freshness):
        switch renew(freshness) {
        case .tokens(let tokens):
          do {
            try file.write(tokens)
          } catch {
            say("warning: \(error.message)")
          }
          if keeper.failures > 0 || keeper.emptied { say("the token in \(file.path) is renewed") }
          keeper.renewed(obtainedAt: tokens.obtainedAt, expiresAt: tokens.expiresAt)
        case .failed(let status, let message):
          lastFailure = status
          keeper.failed()
          let until = keeper.emptied ? "" : ": the file keeps the current token until it expires"
          say("warning: could not renew the token (\(TerminalSafe.text(message, multiline: false)))\(until); retrying")
        }
      }
    }
  }
}

extension ExecRunner {
  static func wallMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
  }
}

/// The private file a running command reads its token from: in $XDG_RUNTIME_DIR/strivacity/exec,
/// or in the directory `--dir` names (a CI runner's, a container's: a 0700 directory of the
/// user's), never elsewhere; named after this process so that a file whose process is gone is
/// known for stale and removed.
public struct TokenFile: Sendable {
  public let path: String

  /// A new file's place: in `chosen` (`--dir`), which must be a directory of this user's with
  /// mode 0700 below directories nobody else may change (`PrivateFiles.unsafeChain`); else each
  /// directory from $XDG_RUNTIME_DIR down is made (0700) if missing and checked before the next
  /// is used. Stale files removed.
  public static func create(environment: [String: String], directory chosen: String? = nil) throws(ExecFailure)
    -> TokenFile
  {
    let directory: String
    if var chosen {
      // COMMAND may change directory: its variable names the file from the root.
      if !chosen.hasPrefix("/"), let here = currentDirectory() { chosen = here + "/" + chosen }
      if let fault = PrivateFiles.unsafeChain(chosen, privateMode: true) {
        let what = fault.path == chosen ? fault.detail : fault.description
        throw ExecFailure(
          "--dir \(chosen) cannot hold a token file: \(what) (give a directory of yours made with mkdir -m 700, "
            + "below directories only you or root may write)", status: ExitStatus.usage.rawValue)
      }
      directory = chosen
    } else {
      directory = try runtimeDirectory(environment)
    }
    removeStale(in: directory)
    var random = [UInt8](repeating: 0, count: 6)
    var generator = SystemRandomNumberGenerator()
    for index in random.indices { random[index] = UInt8.random(in: .min ... .max, using: &generator) }
    let name = random.map { String($0, radix: 16) }.joined()
    return TokenFile(path: "\(directory)/\(getpid())-\(name).token")
  }

  /// $XDG_RUNTIME_DIR/strivacity/exec, made and checked.
  private static func runtimeDirectory(_ environment: [String: String]) throws(ExecFailure) -> String {
    guard let runtime = Paths(environment: environment).userRuntimeDir else {
      throw ExecFailure(
        "--file-env needs a private directory for the token file: XDG_RUNTIME_DIR is not set (systemd-logind sets "
          + "it); in a CI runner or a container, name one with --dir DIR (a directory of yours, mkdir -m 700 DIR)",
        status: ExitStatus.usage.rawValue)
    }
    let base = String(runtime.dropLast("/strivacity".count))
    let directory = runtime + "/exec"
    for (path, isBase) in [(base, true), (runtime, false), (directory, false)] {
      do throws(FileError) {
        if isBase {
          try PrivateFiles.makeDirectories(path)
        } else if mkdir(path, 0o700) != 0 && errno != EEXIST {
          throw FileError(path)
        }
      } catch {
        throw ExecFailure(
          "cannot make \(path) for the token file: \(error.detail)", status: ExitStatus.usage.rawValue)
      }
      if let fault = PrivateFiles.unsafeDirectory(path, privateMode: !isBase) {
        throw ExecFailure("\(path) cannot hold a token file: \(fault)", status: ExitStatus.usage.rawValue)
      }
    }
    return directory
  }

  /// Files of an exec that is gone (killed with SIGKILL, the machine's power cut).
  static func removeStale(in directory: String) {
    guard let stream = opendir(directory) else { return }
    defer { closedir(stream) }
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      guard name.hasSuffix(".token"), let pid = Int32(name.prefix { $0 != "-" }), pid > 0 else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + "/" + name) }
    }
  }

  /// The format the file holds: the access token alone, as COMMAND reads it whole.
  public static let format = SinkFormat.raw

  /// Replaces the file's content atomically (0600) with the access token of `tokens` (nil:
  /// empties it, the token it held expired unrenewed).
  public func write(_ tokens: TokenSet?) throws(ExecFailure) {
    do {
      try PrivateFiles.writeAtomically(TokenRenderer.keptFile(tokens, as: Self.format), to: path, mode: 0o600)
    } catch {
      throw ExecFailure("cannot write the token file \(path): \(error.detail)", status: ExitStatus.failure.rawValue)
    }
  }

  public func remove() { unlink(path) }
}

/// The command: spawned with this process's environment (what strivacity took out of it stays
/// out) plus the token's variables, default signal handling and an empty mask; the signals sent
/// to strivacity passed on to it; its end reported as a shell reports it.
final class ChildProcess {
  let pid: pid_t

  /// The signals passed on. A terminal's Ctrl-C (or hang-up) reaches the command by itself, as
  /// it is in the terminal's foreground group with us: only signals a process sent are passed on,
  /// so that the command does not get each twice (a second Ctrl-C means "now" to some programs).
  static let forwarded = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

  /// Spawns `command` (looked up in PATH as a shell does). Not found: 127; found but not
  /// runnable: 126, as shells say.
  init(command: [String], environment extra: [String: String], withheld: Set<String>) throws(ExecFailure) {
    ChildSignals.install(Self.forwarded + [SIGCHLD])
    let argv = command.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var spawned: pid_t = 0
    // The token's entries are in this copy: wiped before it is freed.
    let rc = withSpawnEnvironment(adding: extra, withholding: withheld) { envp in
      withSpawnAttributes(defaults: [SIGPIPE, SIGINT, SIGQUIT]) {
        posix_spawnp(&spawned, command[0], nil, &$0, argv, envp)
      }
    }
    guard rc == 0 else {
      ChildSignals.restore()
      let name = TerminalSafe.text(String(command[0].prefix(200)), multiline: false)
      if rc == ENOENT { throw ExecFailure("\(name): command not found", status: 127) }
      throw ExecFailure("\(name): cannot be run: \(String(cString: strerror(rc)))", status: 126)
    }
    pid = spawned
  }

  /// Waits up to `milliseconds` (-1: until it ends) for the command to end, passing signals on
  /// meanwhile. Its exit status (128+N when signal N ended it), or nil if it still runs.
  func wait(milliseconds: Int32) -> Int32? {
    let deadline = milliseconds < 0 ? nil : Self.monotonicMilliseconds() + Int64(milliseconds)
    while true {
      var status: Int32 = 0
      if waitpid(pid, &status, WNOHANG) == pid {
        ChildSignals.restore()
        return exitCode(fromWaitStatus: status)
      }
      let left = deadline.map { max(0, $0 - Self.monotonicMilliseconds()) }
      if left == 0 { return nil }
      for (number, sentByProcess) in ChildSignals.take(waitingMilliseconds: Int32(clamping: left ?? 1000))
      where number != SIGCHLD && sentByProcess {
        kill(pid, number)
      }
    }
  }

  func signal(_ number: Int32) { kill(pid, number) }

  private static func monotonicMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
  }
}

/// Signals noted by a handler into a pipe, read in the loop. The handler may interrupt anything,
/// malloc included, so it only stores into memory allocated before it was installed and calls
/// write(2): no allocation, no generic code, no conversion. Each note is two Int32s: the number,
/// and 1 when a process sent it (si_code ≤ 0: kill, sigqueue) rather than the kernel (a
/// terminal's Ctrl-C, a child's end). Every signal is blocked while the handler runs, so notes
/// never interleave.
enum ChildSignals {
  nonisolated(unsafe) private static var pipeFDs: [Int32] = [-1, -1]
  nonisolated(unsafe) private static var writeFD: Int32 = -1
  nonisolated(unsafe) private static var note: UnsafeMutablePointer<Int32> = .allocate(capacity: 2)
  nonisolated(unsafe) private static var saved: [(Int32, sigaction)] = []

  static func install(_ signals: [Int32]) {
    guard writeFD < 0, systemPipe2(&pipeFDs, O_CLOEXEC | O_NONBLOCK) == 0 else { return }
    note.initialize(repeating: 0, count: 2)  // (made here, before any handler can run)
    writeFD = pipeFDs[1]
    for number in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_sigaction = { number, info, _ in
        let note = ChildSignals.note
        note[0] = number
        note[1] = 0
        if let info, info.pointee.si_code <= 0 { note[1] = 1 }
        _ = Glibc.write(ChildSignals.writeFD, note, 8)
      }
      action.sa_flags = SA_SIGINFO | SA_RESTART
      sigfillset(&action.sa_mask)
      var old = sigaction()
      sigaction(number, &action, &old)
      saved.append((number, old))
    }
  }

  /// Puts the handlers back as they were.
  static func restore() {
    for (number, old) in saved {
      var action = old
      sigaction(number, &action, nil)
    }
    saved = []
  }

  /// The signals noted, waiting up to `waitingMilliseconds` for the first.
  static func take(waitingMilliseconds: Int32) -> [(Int32, Bool)] {
    var entry = pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, waitingMilliseconds) > 0 else { return [] }
    var notes = [Int32](repeating: 0, count: 32)
    let n = notes.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
    guard n >= 8 else { return [] }
    return stride(from: 0, to: n / 4 - 1, by: 2).map { (notes[$0], notes[$0 + 1] == 1) }
  }
}

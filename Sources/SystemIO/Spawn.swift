// What every program strivacity starts gets (curl, git, kubectl, a browser, exec's command,
// the full command line for a renewal), and how its end is read.
import Glibc

/// posix_spawn attributes for the programs we start: an empty signal mask and `defaults` at
/// their default disposition (SIGPIPE: we may ignore it ourselves while feeding a pipe), plus
/// `flags`.
public func withSpawnAttributes<T>(
  flags: Int32 = 0, defaults: [Int32] = [SIGPIPE], _ body: (inout posix_spawnattr_t) -> T
) -> T {
  var attributes = posix_spawnattr_t()
  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var empty = sigset_t()
  sigemptyset(&empty)
  posix_spawnattr_setsigmask(&attributes, &empty)
  var defaultSet = sigset_t()
  sigemptyset(&defaultSet)
  for number in defaults { sigaddset(&defaultSet, number) }
  posix_spawnattr_setsigdefault(&attributes, &defaultSet)
  posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | flags))
  return body(&attributes)
}

/// A waitpid(2) status as a shell says it: the exit code, or 128+N when signal N ended it
/// (WIFEXITED and WTERMSIG are macros Swift cannot import).
public func exitCode(fromWaitStatus status: Int32) -> Int32 {
  let signal = status & 0x7F
  return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
}

/// The environment for a program we start: this process's, less `withheld`, plus `extra`, as
/// the NULL-ended block posix_spawn takes; handed to `body`, then each entry is zeroed and freed
/// (an entry may hold a token).
public func withSpawnEnvironment<T>(
  adding extra: [String: String] = [:], withholding withheld: Set<String> = [],
  _ body: ([UnsafeMutablePointer<CChar>?]) -> T
) -> T {
  var entries: [String] = []
  var index = 0
  while let entry = environ[index] {
    let text = String(cString: entry)
    let name = String(text.prefix { $0 != "=" })
    if extra[name] == nil && !withheld.contains(name) { entries.append(text) }
    index += 1
  }
  entries += extra.map { "\($0.key)=\($0.value)" }
  let block = entries.map { strdup($0) } + [nil]
  entries = []
  defer {
    for entry in block {
      guard let entry else { continue }
      explicit_bzero(entry, strlen(entry))
      free(entry)
    }
  }
  return body(block)
}

/// A program that could not be started (runProgram).
public struct ProgramFailure: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}

/// pipe2(2), so that the pipe is close-on-exec from the start (Glibc's module hides it).
@_silgen_name("pipe2") func systemPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// Runs a program found on PATH (no shell) and waits for it, returning its exit status and
/// stdout. `whileRunning` runs once it has started, before the wait (to feed it a pipe). The
/// child gets an empty signal mask and SIGPIPE at its default. `quiet`: its stderr goes to
/// /dev/null (for a question whose "no" the program would print as an error). `bound`: stdin is
/// /dev/null, at most `limit` bytes of output are kept, and a program still running after
/// `seconds` is killed and reported (doctor's questions to git and kubectl: never a wait
/// without end).
public func runProgram(
  _ arguments: [String], captureOutput: Bool = true, quiet: Bool = false,
  bound: (seconds: Int, limit: Int)? = nil, whileRunning: (() -> Void)? = nil
) throws -> (status: Int32, output: String) {
  var out: [Int32] = [-1, -1]
  if captureOutput { guard systemPipe2(&out, O_CLOEXEC) == 0 else { throw ProgramFailure("pipe failed") } }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
  if bound != nil { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
  if captureOutput {
    posix_spawn_file_actions_adddup2(&actions, out[1], 1)
    posix_spawn_file_actions_addclose(&actions, out[0])
    posix_spawn_file_actions_addclose(&actions, out[1])
  }
  let argv = arguments.map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var pid: pid_t = 0
  let rc = withSpawnAttributes { posix_spawnp(&pid, arguments[0], &actions, &$0, argv, environ) }
  if captureOutput { close(out[1]) }
  guard rc == 0 else {
    if captureOutput { close(out[0]) }
    throw ProgramFailure("cannot run \(arguments[0]): \(String(cString: strerror(rc)))")
  }
  whileRunning?()
  var output: [UInt8] = []
  if captureOutput {
    var chunk = [UInt8](repeating: 0, count: 4096)
    let deadline = bound.map { monotonicSeconds() + Double($0.seconds) }
    while true {
      if let deadline, let bound {
        var ready = pollfd(fd: out[0], events: Int16(POLLIN), revents: 0)
        let left = Int32(max(0, (deadline - monotonicSeconds()) * 1000))
        let polled = poll(&ready, 1, left)
        if polled < 0 && errno == EINTR { continue }
        if polled <= 0 || output.count > bound.limit {
          kill(pid, SIGKILL)
          close(out[0])
          var status: Int32 = 0
          while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
          throw ProgramFailure(
            polled <= 0
              ? "\(arguments[0]) did not answer in \(bound.seconds) s"
              : "\(arguments[0]) wrote more than \(bound.limit / 1024) KiB")
        }
      }
      let n = chunk.withUnsafeMutableBytes { read(out[0], $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      output += chunk[0..<n]
    }
    close(out[0])
  }
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  return (exitCode(fromWaitStatus: status), String(decoding: output, as: UTF8.self))
}

/// What a program we start finds at one of its descriptors (spawnProgram).
public enum ChildDescriptor: Sendable {
  /// Our descriptor `source` as the child's `target` (dup2(2)).
  case duplicate(_ source: Int32, as: Int32)
  /// /dev/null as the child's `fd`: read-only for 0, write-only otherwise.
  case devNull(_ fd: Int32)
  /// The child's `fd` closed.
  case close(_ fd: Int32)
}

/// Starts `arguments` (no shell; the program found on PATH when `searchingPath`, else the path
/// it is) with the attributes every program we start gets (`withSpawnAttributes`) and
/// `descriptors` set up in order. `environment`: the NULL-ended block `withSpawnEnvironment`
/// hands over (nil: this process's). `newSession`: in a session of its own
/// (POSIX_SPAWN_SETSID, glibc 2.26+), so that it outlives us quietly. Its pid, or posix_spawn's
/// error. Its end is the caller's to wait for (waitForExit).
public func spawnProgram(
  _ arguments: [String], descriptors: [ChildDescriptor] = [], newSession: Bool = false, searchingPath: Bool = true,
  environment: [UnsafeMutablePointer<CChar>?]? = nil
) -> Result<Int32, ErrorNumber> {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  for descriptor in descriptors {
    switch descriptor {
    case .duplicate(let source, let target): posix_spawn_file_actions_adddup2(&actions, source, target)
    case .devNull(let fd): posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    case .close(let fd): posix_spawn_file_actions_addclose(&actions, fd)
    }
  }
  let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc 2.26+; the module does not show it)
  let argv = arguments.map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var pid: pid_t = 0
  let spawn = searchingPath ? posix_spawnp : posix_spawn
  let rc = withSpawnAttributes(flags: newSession ? setsid : 0) { attributes in
    if let environment { return spawn(&pid, arguments[0], &actions, &attributes, argv, environment) }
    return spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
  }
  return rc == 0 ? .success(pid) : .failure(ErrorNumber(code: rc))
}

/// Waits for the child `pid` to end (EINTR waited through) and reaps it: its exit code as a
/// shell says it (exitCode(fromWaitStatus:)).
public func waitForExit(_ pid: Int32) -> Int32 {
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  return exitCode(fromWaitStatus: status)
}

/// The raw wait status of the child `pid` if it has ended (it is reaped then), else nil at once
/// (waitpid(2) with WNOHANG).
public func waitStatusIfEnded(_ pid: Int32) -> Int32? {
  var status: Int32 = 0
  return waitpid(pid, &status, WNOHANG) == pid ? status : nil
}

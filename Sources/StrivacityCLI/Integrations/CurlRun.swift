// One run of the real curl for `strivacity curl`: its config (the token among it) on a pipe,
// and, when the answer may be a challenge strivacity will answer, its response headers on a
// second pipe (`--dump-header /dev/fd/N`) with its standard output held until the final
// response's head is read. A challenged response that will be asked again is dropped whole;
// anything else passes unchanged, byte for byte, as curl wrote it.
import Broker
import Glibc
import StrivacityCore
import SystemIO

struct CurlRun {
  /// curl's exit status.
  var status: Int32
  /// The final response's head, when headers were watched and curl got one.
  var head: ResponseHead?
  /// Whether its output was dropped (`drop` said so).
  var dropped: Bool

  /// Held output beyond this passes through (the answer is then never dropped).
  static let maxHeld = 16 * 1_048_576

  /// Runs `curl -q -K /dev/fd/N ARGUMENTS` with `config` written to that pipe. With `drop`,
  /// headers are watched: `drop(head)` is asked once, when the final response's head is known,
  /// and true drops that response's output.
  /// `redactsStderr` (curl's -v): curl's stderr is relayed line by line with the credentials in
  /// its request headers redacted (CurlArguments.redactingCredentials).
  static func run(
    config: String, arguments: [String], followsRedirects: Bool = false, redactsStderr: Bool = false,
    drop: ((ResponseHead) -> Bool)? = nil
  ) throws -> CurlRun {
    let redacted = redactsStderr ? try RedactedStderr() : nil
    defer { redacted?.finish() }
    var configPipe: [Int32] = [0, 0]
    var headerPipe: [Int32] = [-1, -1]
    var outputPipe: [Int32] = [-1, -1]
    guard pipe(&configPipe) == 0 else { throw CLIFailure("pipe failed", status: .failure) }
    _ = fcntl(configPipe[1], F_SETFD, FD_CLOEXEC)  // curl inherits the read ends only
    var curlArguments = ["curl", "-q", "-K", "/dev/fd/\(configPipe[0])"]
    if drop != nil {
      guard pipe(&headerPipe) == 0, pipe(&outputPipe) == 0 else { throw CLIFailure("pipe failed", status: .failure) }
      _ = fcntl(headerPipe[0], F_SETFD, FD_CLOEXEC)
      _ = fcntl(outputPipe[0], F_SETFD, FD_CLOEXEC)
      _ = fcntl(outputPipe[1], F_SETFD, FD_CLOEXEC)  // dup2'd onto 1, which stays open
      // Before the user's arguments: a -D of theirs would win, and then headers are not watched.
      curlArguments += ["-D", "/dev/fd/\(headerPipe[1])"]
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if drop != nil { posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1) }
    if let redacted { posix_spawn_file_actions_adddup2(&actions, redacted.writeEnd, 2) }
    let argv = (curlArguments + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let rc = withSpawnAttributes { posix_spawnp(&pid, "curl", &actions, &$0, argv, environ) }
    close(configPipe[0])
    if drop != nil {
      close(headerPipe[1])
      close(outputPipe[1])
    }
    guard rc == 0 else {
      close(configPipe[1])
      if drop != nil {
        close(headerPipe[0])
        close(outputPipe[0])
      }
      throw CLIFailure("cannot run curl: \(String(cString: strerror(rc)))", status: .failure)
    }
    // Written while curl runs: a config larger than the pipe's buffer would otherwise block.
    let previous = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, previous) }
    writeData(configPipe[1], config)
    close(configPipe[1])
    var run = CurlRun(status: 0, head: nil, dropped: false)
    if let drop {
      run.head = relay(
        headers: headerPipe[0], output: outputPipe[0], followsRedirects: followsRedirects, drop: drop,
        dropped: &run.dropped)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    run.status = exitCode(fromWaitStatus: status)
    return run
  }

  /// Reads curl's headers and output until both end, and closes them: output is held until the
  /// final head is known, then passed to our standard output or, when `drop` says so, dropped.
  /// When our standard output goes away, curl's is closed too, so curl stops as it would have.
  private static func relay(
    headers: Int32, output: Int32, followsRedirects: Bool, drop: (ResponseHead) -> Bool, dropped: inout Bool
  ) -> ResponseHead? {
    var dump = HeaderDump(followsRedirects: followsRedirects)
    var head: ResponseHead?
    var decided = false
    var held: [UInt8] = []
    var open = [headers, output]
    var stdoutBroken = false
    var outputClosed = false
    func emit(_ bytes: some Collection<UInt8>) {
      guard !stdoutBroken, !bytes.isEmpty else { return }
      let data = Array(bytes)
      var offset = 0
      while offset < data.count {
        let n = data[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 {
          stdoutBroken = true  // our reader went away; keep draining curl so it can finish
          return
        }
        offset += n
      }
    }
    func decide(_ final: ResponseHead?) {
      decided = true
      head = final
      if let final, drop(final) {
        dropped = true
        held = []
      } else {
        emit(held)
        held = []
      }
    }
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !open.isEmpty {
      var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      let ready = poll(&fds, nfds_t(fds.count), -1)
      if ready < 0 {
        if errno == EINTR { continue }
        break
      }
      for entry in fds where entry.revents != 0 {
        let n = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 {
          open.removeAll { $0 == entry.fd }
          continue
        }
        if entry.fd == headers {
          if !decided, dump.append(chunk[..<n]) { decide(dump.finish()) }
        } else if decided {
          if !dropped { emit(chunk[..<n]) }
        } else {
          held += chunk[..<n]
          if held.count > maxHeld { decide(nil) }
        }
        if stdoutBroken, !outputClosed {
          open.removeAll { $0 == output }
          close(output)
          outputClosed = true
        }
      }
    }
    if !decided { decide(dump.finish()) }
    close(headers)
    if !outputClosed { close(output) }
    return head
  }
}

/// curl's stderr under -v, copied to ours line by line by a thread of its own, each line through
/// CurlArguments.redactingCredentials: the token and the proxy's credentials in its request
/// headers never reach the terminal.
final class RedactedStderr {
  private var ends: [Int32] = [-1, -1]
  private var thread: pthread_t?
  var writeEnd: Int32 { ends[1] }

  init() throws {
    guard pipe(&ends) == 0 else { throw CLIFailure("pipe failed", status: .failure) }
    _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)  // dup2'd onto curl's 2
    var started = pthread_t()
    // The read end travels in the pointer's bits (+1: never a null pointer).
    let rc = pthread_create(
      &started, nil,
      { raw in
        RedactedStderr.copy(Int32(Int(bitPattern: raw) - 1))
        return nil
      }, UnsafeMutableRawPointer(bitPattern: Int(ends[0]) + 1))
    if rc == 0 { thread = started }
  }

  /// After curl is spawned: our write end closed, the copy waited for to its end.
  func finish() {
    close(ends[1])
    if let thread { pthread_join(thread, nil) }
    close(ends[0])
  }

  private static func copy(_ fd: Int32) {
    var pending: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 8192)
    func flush(_ line: ArraySlice<UInt8>) {
      writeData(2, CurlArguments.redactingCredentials(String(decoding: line, as: UTF8.self)))
    }
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      pending += chunk[..<n]
      while let newline = pending.firstIndex(of: 0x0A) {
        flush(pending[..<newline])
        writeData(2, "\n")
        pending.removeSubrange(...newline)
      }
    }
    if !pending.isEmpty { flush(pending[...]) }
  }
}

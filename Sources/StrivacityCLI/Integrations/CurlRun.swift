// One run of the real curl for `strivacity curl`: its config (the token among it) on a pipe,
// and, when the answer may be a challenge strivacity will answer, its response headers on a
// second pipe (`--dump-header /dev/fd/N`) with its standard output held until the final
// response's head is read. A challenged response that will be asked again is dropped whole;
// anything else passes unchanged, byte for byte, as curl wrote it.
import Broker
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
    // curl inherits the read end of its config's pipe and the write end of the headers' only
    // (the output's write end is dup2'd onto its 1, which stays open).
    guard let configPipe = try? PipeEnds.make(inherited: [.read]) else {
      throw CLIFailure("pipe failed", status: .failure)
    }
    var curlArguments = ["curl", "-q", "-K", "/dev/fd/\(configPipe.read)"]
    var watched: (headers: PipeEnds, output: PipeEnds)?
    if drop != nil {
      guard let headerPipe = try? PipeEnds.make(inherited: [.write]), let outputPipe = try? PipeEnds.make() else {
        throw CLIFailure("pipe failed", status: .failure)
      }
      watched = (headerPipe, outputPipe)
      // Before the user's arguments: a -D of theirs would win, and then headers are not watched.
      curlArguments += ["-D", "/dev/fd/\(headerPipe.write)"]
    }
    var descriptors: [ChildDescriptor] = []
    if let watched { descriptors.append(.duplicate(watched.output.write, as: 1)) }
    if let redacted { descriptors.append(.duplicate(redacted.writeEnd, as: 2)) }
    let spawned = spawnProgram(curlArguments + arguments, descriptors: descriptors)
    closeDescriptor(configPipe.read)
    if let watched {
      closeDescriptor(watched.headers.write)
      closeDescriptor(watched.output.write)
    }
    let pid: Int32
    switch spawned {
    case .success(let started): pid = started
    case .failure(let error):
      closeDescriptor(configPipe.write)
      if let watched {
        closeDescriptor(watched.headers.read)
        closeDescriptor(watched.output.read)
      }
      throw CLIFailure("cannot run curl: \(error)", status: .failure)
    }
    // Written while curl runs: a config larger than the pipe's buffer would otherwise block.
    return withBrokenPipesIgnored {
      writeData(configPipe.write, config)
      closeDescriptor(configPipe.write)
      var run = CurlRun(status: 0, head: nil, dropped: false)
      if let drop, let watched {
        run.head = relay(
          headers: watched.headers.read, output: watched.output.read, followsRedirects: followsRedirects, drop: drop,
          dropped: &run.dropped)
      }
      run.status = waitForExit(pid)
      return run
    }
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
      // When our reader went away, curl is drained on so it can finish.
      if !writeBytes(1, Array(bytes)) { stdoutBroken = true }
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
      guard let ready = waitUntilReadable(open) else { break }
      for fd in ready {
        let n = readSome(fd, into: &chunk)
        if n <= 0 {
          open.removeAll { $0 == fd }
          continue
        }
        if fd == headers {
          if !decided, dump.append(chunk[..<n]) { decide(dump.finish()) }
        } else if decided {
          if !dropped { emit(chunk[..<n]) }
        } else {
          held += chunk[..<n]
          if held.count > maxHeld { decide(nil) }
        }
        if stdoutBroken, !outputClosed {
          open.removeAll { $0 == output }
          closeDescriptor(output)
          outputClosed = true
        }
      }
    }
    if !decided { decide(dump.finish()) }
    closeDescriptor(headers)
    if !outputClosed { closeDescriptor(output) }
    return head
  }
}

/// curl's stderr under -v, copied to ours line by line by a thread of its own, each line through
/// CurlArguments.redactingCredentials: the token and the proxy's credentials in its request
/// headers never reach the terminal.
final class RedactedStderr {
  private let ends: PipeEnds
  private let thread: JoinableThread?
  var writeEnd: Int32 { ends.write }

  init() throws {
    // Both ends close-on-exec: the write end is dup2'd onto curl's 2.
    guard let ends = try? PipeEnds.make() else { throw CLIFailure("pipe failed", status: .failure) }
    self.ends = ends
    let source = ends.read
    thread = JoinableThread { RedactedStderr.copy(source) }
  }

  /// After curl is spawned: our write end closed, the copy waited for to its end.
  func finish() {
    closeDescriptor(ends.write)
    thread?.join()
    closeDescriptor(ends.read)
  }

  private static func copy(_ fd: Int32) {
    var pending: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 8192)
    func flush(_ line: ArraySlice<UInt8>) {
      writeData(2, CurlArguments.redactingCredentials(String(decoding: line, as: UTF8.self)))
    }
    while true {
      let n = readSome(fd, into: &chunk)
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

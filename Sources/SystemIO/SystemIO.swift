// The few POSIX calls that both binaries make — the small `strivacity` that answers the hot path
// (Launcher) and the full command line behind it: the environment, whole small files, stdin,
// and writes to stdout, stderr and the terminal. Nothing here parses or decides.
import Glibc
import StrivacityConfig
import StrivacityCore

/// Takes the variable `name` out of this process's environment: its value's bytes are zeroed
/// where they are (the block the kernel shows in /proc/PID/environ, or setenv's copy), then it is
/// unset, so that no program started from here inherits it. A machine profile's secret.
public func takeFromEnvironment(_ name: String) {
  guard let value = getenv(name) else { return }
  memset(value, 0, strlen(value))
  unsetenv(name)
}

/// The process environment as a dictionary (an entry without "=" is skipped).
public func processEnvironment() -> [String: String] {
  // Bytes, not Characters: this runs on every hot-path call, and splitting each entry at "="
  // by grapheme cost more than the rest of answering from the cache.
  var count = 0
  while environ[count] != nil { count += 1 }
  var result: [String: String] = Dictionary(minimumCapacity: count)
  for index in 0..<count {
    guard let entry = environ[index], let eq = strchr(entry, 0x3D) else { continue }
    let name = String(decoding: UnsafeRawBufferPointer(start: entry, count: eq - entry), as: UTF8.self)
    result[name] = String(cString: eq + 1)
  }
  return result
}

/// Reads a whole (small) file. `regularOnly`: a file that is not a regular one (a FIFO, a
/// device) is refused without waiting for a writer — what a config or a repository's files,
/// which nobody is meant to feed, are read with.
public func readFile(_ path: String, limit: Int = 1_048_576, regularOnly: Bool = false) -> FileRead {
  let fd = open(path, O_RDONLY | O_CLOEXEC | (regularOnly ? O_NONBLOCK : 0))
  if fd < 0 { return errno == ENOENT ? .missing : .failed(String(cString: strerror(errno))) }
  defer { close(fd) }
  // Sized from the start (a config among thousands of profiles is hundreds of KiB: no regrowth).
  var status = stat()
  let regular = fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
  if regularOnly && !regular { return .failed("not a regular file") }
  let size = regular ? Int(status.st_size) : 0
  switch readAll(fd, limit: limit, expected: size) {
  case .success(let bytes) where bytes.count > limit: return .failed("larger than \(limit / 1024) KiB")
  case .success(let bytes): return .contents(bytes)
  case .failure(let errorNumber): return .failed(String(cString: strerror(errorNumber.code)))
  }
}

public struct ErrorNumber: Error { public var code: Int32 }

/// Everything `fd` gives until end of file, or the first read past `limit` bytes (so a result
/// longer than `limit` means "too long"). Read straight into one buffer, sized by `expected` (a
/// regular file's size, if known) and grown only when full; every buffer left behind is zeroed,
/// since stdin may hold secrets.
public func readAll(_ fd: Int32, limit: Int, expected: Int = 0) -> Result<[UInt8], ErrorNumber> {
  var buffer = [UInt8](repeating: 0, count: min(max(expected, 4096), limit) + 1)
  var count = 0
  while count <= limit {
    if count == buffer.count {
      var grown = [UInt8](repeating: 0, count: min(buffer.count * 2, limit + 1))
      grown.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: buffer) }
      buffer.wipe()
      buffer = grown
    }
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
    if n < 0 && errno == EINTR { continue }
    if n < 0 { return .failure(ErrorNumber(code: errno)) }
    if n == 0 { break }
    count += n
  }
  let result = Array(buffer[0..<count])
  buffer.wipe()
  return .success(result)
}

/// The terminal sink: every write of text meant for people (stderr, /dev/tty) goes through here,
/// and only strivacity's own styling survives as escape sequences (`TerminalSafe.sink`); any
/// other control character, escape sequence or bidi override is written as a visible stand-in.
public func writeTerminal(_ fd: Int32, _ text: String) { writeAll(fd, TerminalSafe.sink(text)) }

/// Writes data (stdout, pipes) exactly as given: tokens (admitted `BearerToken`s), JSON,
/// protocol lines. Never for text a person reads on a terminal: that is `writeTerminal`.
public func writeData(_ fd: Int32, _ text: String) { writeAll(fd, text) }

/// Data for programs on stdout; when stdout is a terminal a person reads it, so it goes through
/// the terminal sink like everything else on a screen.
public func writeStdout(_ text: String) {
  if isatty(1) == 1 { writeTerminal(1, text) } else { writeData(1, text) }
}

/// Writes all of `text` to `fd`, retrying short writes and EINTR. Raw: for the spinner's own
/// escape sequences (TerminalUI); everything else goes through writeTerminal or writeData.
package func writeAll(_ fd: Int32, _ text: String) {
  var text = text
  text.withUTF8 { buffer in
    var offset = 0
    while offset < buffer.count {
      let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      offset += n
    }
  }
}

/// What stdin holds, up to a little over `limit` bytes (a longer result means "too long"); empty
/// when it cannot be read.
public func readStdin(limit: Int) -> [UInt8] { (try? readAll(0, limit: limit).get()) ?? [] }

/// Lines from a descriptor, one at a time, for a protocol whose peer writes a line and waits
/// for the answer (a package manager's credential provider): each `next` reads until a newline, end of file,
/// or `limit` bytes without one. What a read brings past the newline is kept for the next line;
/// every buffer left behind is zeroed, since a line may hold a secret.
public struct LineReader {
  public let fd: Int32
  /// Read and not yet returned.
  public private(set) var pending: [UInt8] = []
  public private(set) var ended = false

  public init(fd: Int32, pending: [UInt8] = []) {
    self.fd = fd
    self.pending = pending
  }

  /// The next line with its newline, or what came before end of file; a result of more than
  /// `limit` bytes without a newline means "too long" (the rest of it is not read). nil at end
  /// of file with nothing pending.
  public mutating func next(limit: Int) -> [UInt8]? {
    var chunk = [UInt8](repeating: 0, count: 4096)
    defer { chunk.wipe() }
    // Room for the longest line up front: growing would leave unzeroed copies behind.
    pending.reserveCapacity(limit + chunk.count)
    var scanned = 0  // bytes of `pending` known to hold no newline: each is looked at once
    while !pending[scanned...].contains(10) && pending.count <= limit && !ended {
      scanned = pending.count
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 {
        ended = true
        break
      }
      pending.append(contentsOf: chunk[0..<n])
    }
    guard !pending.isEmpty else { return nil }
    let end = pending.firstIndex(of: 10).map { $0 + 1 } ?? pending.count
    let line = Array(pending[..<end])
    var rest: [UInt8] = []
    rest.reserveCapacity(limit + chunk.count)  // so the next line's reserve moves nothing
    rest.append(contentsOf: pending[end...])
    pending.wipe()
    pending = rest
    return line
  }
}

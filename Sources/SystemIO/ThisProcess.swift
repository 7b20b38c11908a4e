// This process and the kernel's plain answers about it, for the targets that do not import
// Glibc (the broker, the command line): who it is, whether a descriptor is a terminal, a pause,
// its end, and a few questions about paths. Each is the one C call it names, nothing more.
import Glibc
import StrivacityConfig

/// This process's id (getpid(2)).
public func processID() -> Int32 { getpid() }

/// This process's real user id (getuid(2)): whose files and sockets are "ours".
public func userID() -> UInt32 { getuid() }

/// This process's effective user id (geteuid(2)): who owns what it creates.
public func effectiveUserID() -> UInt32 { geteuid() }

/// Whether `fd` is a terminal (isatty(3)): a person reads what is written there.
public func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

/// Suspends the calling thread for `microseconds` (usleep(3)).
public func sleep(microseconds: UInt32) { usleep(microseconds) }

/// Ends this process with `status` (exit(3): exit handlers run, stdio is flushed).
public func exitProcess(_ status: Int32) -> Never { exit(status) }

/// No core file of this process, whatever kills it (RLIMIT_CORE 0): its memory holds tokens and
/// passwords.
public func forbidCoreDumps() {
  var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
  setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore)
}

/// This process's working directory (getcwd(3)); nil when it cannot be named.
public func currentDirectory() -> String? {
  guard let raw = getcwd(nil, 0) else { return nil }
  defer { free(raw) }
  return String(cString: raw)
}

/// Where this process works, for `[[contexts]]` rules: its directory and `environment`.
public func workplace(_ environment: [String: String]) -> Workplace {
  Workplace(directory: currentDirectory(), environment: environment)
}

/// `path` made absolute against the current directory (as given when it is already).
public func absolutePath(_ path: String) -> String {
  guard !path.hasPrefix("/"), let directory = currentDirectory() else { return path }
  return directory + (directory.hasSuffix("/") ? "" : "/") + path
}

/// Removes the file `path` (unlink(2); its result is not looked at).
public func removeFile(_ path: String) { unlink(path) }

/// The variable `name` of this process's environment as it is now (getenv(3)).
public func environmentVariable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

/// Sets the variable `name` of this process's environment to `value`, replacing it (setenv(3)):
/// what a program exec'd or started from here next inherits.
public func setEnvironmentVariable(_ name: String, _ value: String) { setenv(name, value, 1) }

/// Whether `path` is there and this process may run it (access(2), X_OK).
public func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

/// Whether a program named `name` is on this process's PATH (what a tool that runs it by name,
/// a tool whose helper strivacity is, would find).
public func isOnPath(_ name: String) -> Bool {
  (environmentVariable("PATH") ?? "").split(separator: ":").contains { isExecutable("\($0)/\(name)") }
}

/// `path` absolute, with every link and `.`/`..` resolved (realpath(3)); nil when it cannot be
/// (a component missing, no permission).
public func realPath(_ path: String) -> String? {
  guard let resolved = realpath(path, nil) else { return nil }
  defer { free(resolved) }
  return String(cString: resolved)
}

/// The errno value the last failed call of this thread left.
public func lastSystemError() -> ErrorNumber { ErrorNumber(code: errno) }

extension ErrorNumber: CustomStringConvertible {
  /// The errno value as strerror(3) says it ("No such file or directory").
  public var description: String { String(cString: strerror(code)) }
  /// ENOENT: the path, or a directory on it, does not exist.
  public var isNoSuchFile: Bool { code == ENOENT }
}

/// Makes `path` a symbolic link to `target` (symlink(2)); the errno when refused.
public func makeSymbolicLink(_ path: String, to target: String) -> ErrorNumber? {
  symlink(target, path) == 0 ? nil : ErrorNumber(code: errno)
}

/// What the symbolic link `path` points to, as written in it (readlink(2)); nil when `path` is
/// not a link (or not there).
public func linkTarget(_ path: String) -> String? {
  var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
  let n = readlink(path, &buffer, buffer.count - 1)
  guard n > 0, n < buffer.count - 1 else { return nil }
  return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

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
      memset(entry, 0, strlen(entry))
      free(entry)
    }
  }
  return body(block)
}

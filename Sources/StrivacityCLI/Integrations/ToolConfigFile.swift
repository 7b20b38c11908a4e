// A tool's own config file that a setup command edits (cargo's, Terraform's, Docker's and
// containers'): read and written where a link leads (a dotfiles checkout keeps pointing where it
// did), written atomically; and whether a word in it names strivacity.
import Broker
import Glibc
import SystemIO

enum ToolConfigFile {
  /// The home directory: $HOME, else "/" (as Paths reads it).
  static func home(_ environment: [String: String]) -> String {
    environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
  }

  /// A path the environment names for a tool (DOCKER_CONFIG, CARGO_HOME, TF_CLI_CONFIG_FILE, …):
  /// nil when unset or empty; refused unless absolute, since where the tool finds a relative one
  /// depends on the directory it runs in: the one way a setup command admits such a variable.
  static func environmentPath(_ name: String, _ environment: [String: String]) throws -> String? {
    guard let value = environment[name], !value.isEmpty else { return nil }
    guard value.hasPrefix("/") else {
      throw CLIFailure(
        "\(name) is not an absolute path: set it to one (or unset it), then run this again", status: .usage)
    }
    return value
  }

  /// The bytes of the file `path` leads to; nil when it is not there.
  static func bytes(_ path: String) throws -> [UInt8]? {
    switch readFile(realPath(path) ?? path) {
    case .contents(let bytes): return bytes
    case .missing: return nil
    case .failed(let why): throw CLIFailure("cannot read \(path): \(why)", status: .usage)
    }
  }

  /// The file's text; nil when it is not there. A file that is not UTF-8 is refused, naming it.
  static func text(_ path: String) throws -> String? {
    guard let bytes = try bytes(path) else { return nil }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw CLIFailure("\(path) is not UTF-8 text: not changed", status: .usage)
    }
    return text
  }

  /// Writes `bytes`, atomically, to the file `path` leads to: in its own mode, `newMode` for a
  /// new file; `mode`, when given, whatever the file had.
  static func write(_ bytes: [UInt8], to path: String, newMode: mode_t = 0o600, mode: mode_t? = nil) throws {
    let target = realPath(path) ?? path
    let kept = (try? FileStatus.of(target).get()).map { $0.permissions & 0o777 }
    do {
      try PrivateFiles.writeAtomically(bytes, to: target, mode: mode ?? kept ?? newMode)
    } catch {
      throw CLIFailure("cannot write \(path): \(error)", status: .failure)
    }
  }

  /// Whether `path` (a config's command, a link's target) names a strivacity binary: ours to
  /// replace or remove.
  static func namesStrivacity(_ path: String) -> Bool {
    let name = path.split(separator: "/").last
    return name == "strivacity" || name == "strivacity-cli"
  }
}

// A tool's own config file that a setup command edits (cargo's, Terraform's, Docker's and
// containers'), or one it writes (setup-gcloud's): opened once, through EditedFile, so that it is
// read and replaced where a link of the user's leads (a dotfiles checkout keeps pointing where it
// did), atomically, and never where another user could send it; and whether a word in it names
// strivacity.
import Broker
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

  /// The file `path` leads to, opened once to be read and then replaced (EditedFile: a link of
  /// another user's, or in a directory others can write, a FIFO, another user's file refused,
  /// naming `path`).
  static func open(_ path: String) throws -> EditedFile {
    do {
      return try EditedFile.open(path)
    } catch {
      throw CLIFailure(editing: path, error)
    }
  }

  /// The files `paths` lead to, each opened once (`open`); a file two of them lead to (a link
  /// to the other, a variable naming the default place) comes once, as the first.
  static func open(_ paths: [String]) throws -> [EditedFile] {
    var files: [EditedFile] = []
    for path in paths {
      let file = try open(path)
      if !files.contains(where: file.isSame) { files.append(file) }
    }
    return files
  }

  /// The file's text; nil when it is not there. A file that is not UTF-8 is refused, naming it.
  static func text(_ file: EditedFile) throws -> String? {
    guard let bytes = file.bytes else { return nil }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw CLIFailure("\(file.path) is not UTF-8 text: not changed", status: .usage)
    }
    return text
  }

  /// Replaces the file with `bytes`, atomically, where it was read: in its own mode, `newMode`
  /// for a new file; `mode`, when given, whatever the file had.
  static func write(_ bytes: [UInt8], to file: EditedFile, newMode: UInt32 = 0o600, mode: UInt32? = nil) throws {
    do {
      try file.replace(with: bytes, mode: mode ?? file.permissions ?? newMode)
    } catch {
      throw CLIFailure(editing: file.path, error)
    }
  }

  /// Whether `path` (a config's command, a link's target) names a strivacity binary: ours to
  /// replace or remove.
  static func namesStrivacity(_ path: String) -> Bool {
    let name = path.split(separator: "/").last
    return name == "strivacity" || name == "strivacity-cli"
  }
}

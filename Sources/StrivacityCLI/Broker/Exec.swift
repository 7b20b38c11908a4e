// `strivacity exec -- COMMAND`: COMMAND runs with the access token in its environment and/or in
// a file it can re-read, which is kept fresh while COMMAND runs (KeepFresh decides when) and
// removed when it ends, however it ends. The token is never in an argument.
import ArgumentParser
import Glibc
import OAuthCore
import SecretStore
import StrivacityCore
import SystemIO

struct Exec: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run a command with a fresh token in its environment or in a file kept fresh.",
    discussion: """
      COMMAND gets the profile's access token (an API's with --api) in the environment \
      variable --env names (STRIVACITY_ACCESS_TOKEN when neither --env nor --file-env is \
      given), and/or the path of a file holding it in the variable --file-env names (e.g. \
      AWS_WEB_IDENTITY_TOKEN_FILE). The file is private (0600, in $XDG_RUNTIME_DIR/strivacity, \
      never elsewhere), replaced atomically with a new token half-way through each token's \
      life, and removed when COMMAND ends (a file left by an exec that was killed is removed \
      by the next one). A token in the environment cannot be renewed: long jobs want \
      --file-env. When a renewal fails the file keeps the token it holds, which is still \
      valid, a line goes to stderr and the renewal is retried, backing off; at expiry the \
      file is emptied (never a stale token) until a renewal succeeds, and with \
      --fail-on-expiry COMMAND gets SIGTERM and exec exits with the renewal's failure status.

      SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to strivacity go to COMMAND (a terminal's \
      Ctrl-C reaches COMMAND by itself). The exit status is COMMAND's (128+N when signal N \
      ended it); 127 when COMMAND is not found, 126 when it cannot be run.

      EXAMPLES:
        strivacity exec -- terraform apply
        strivacity exec --api orders --file-env AWS_WEB_IDENTITY_TOKEN_FILE -- ./pipeline.sh
        strivacity exec --env API_TOKEN -- sh -c 'curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com/'
      """)

  @OptionGroup var global: GlobalOptions

  @Option(
    help: ArgumentHelp("A token for this API of the profile ([profiles.P.apis.NAME]).", valueName: "name"),
    completion: .custom { words, _, prefix in Context().apiNames(words).filter { $0.hasPrefix(prefix) } })
  var api: String?

  @Option(
    name: .customLong("env"),
    help: ArgumentHelp("The variable COMMAND finds the token in (default STRIVACITY_ACCESS_TOKEN).", valueName: "name"))
  var envName: String?

  @Option(
    name: .customLong("file-env"),
    help: ArgumentHelp("The variable COMMAND finds the kept-fresh token file's path in.", valueName: "name"))
  var fileEnv: String?

  @Flag(name: .customLong("fail-on-expiry"), help: "Stop COMMAND (SIGTERM) when its token expires unrenewed.")
  var failOnExpiry = false

  @Argument(
    parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
  var command: [String] = []

  func validate() throws {
    guard !command.isEmpty else {
      throw ValidationError("give the command after --: strivacity exec [OPTIONS] -- COMMAND")
    }
    for (flag, name) in [("--env", envName), ("--file-env", fileEnv)] {
      guard let name else { continue }
      guard Self.isVariableName(name) else {
        throw ValidationError("\(flag) must be a variable name: letters, digits and _, not starting with a digit")
      }
    }
    if let envName, envName == fileEnv { throw ValidationError("--env and --file-env name the same variable") }
    if failOnExpiry && fileEnv == nil {
      throw ValidationError("--fail-on-expiry is for --file-env: a variable is never renewed")
    }
  }

  static func isVariableName(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(0x30...0x39).contains(first), name.utf8.count <= 128 else { return false }
    return name.utf8.allSatisfy {
      ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F
    }
  }

  func run() throws {
    let context = global.context()
    let session = try ProfileSession(context: context, options: global, apis: api.map { .named($0) } ?? .none)
    let chosen: API?
    if let api {
      guard let found = session.resolved.profile.apis.first(where: { $0.name == api }) else {
        throw CLIFailure(
          "profile \(session.name) has no API \(api) ([profiles.\(session.name).apis.\(api)])", status: .usage)
      }
      chosen = found
    } else {
      chosen = nil
    }
    func fresh(_ freshness: Freshness) throws -> TokenSet {
      try chosen.map { try session.apiTokens($0, freshness) } ?? session.freshTokens(freshness)
    }
    // The file's place first: a runtime directory that will not do is said before anything is asked.
    var file: ExecTokenFile?
    if fileEnv != nil { file = try ExecTokenFile.create(environment: context.environment) }
    defer { file?.remove() }
    var tokens = try fresh(Freshness.asked(nil, profile: session.resolved.profile))
    var extra: [String: String] = [:]
    if let file, let fileEnv {
      try file.write(tokens.accessToken.value)
      extra[fileEnv] = file.path
    }
    if let envName {
      extra[envName] = tokens.accessToken.value
    } else if fileEnv == nil {
      extra["STRIVACITY_ACCESS_TOKEN"] = tokens.accessToken.value
    }
    let child = try ChildProcess(command: command, environment: extra)
    extra = [:]
    var keeper = KeepFresh(obtainedAt: tokens.obtainedAt, expiresAt: tokens.expiresAt)
    var lastFailure = ExitStatus.transient
    while true {
      let due = file == nil ? nil : keeper.next(now: ProfileSession.now())
      let wait = due.map { max(0, $0.at - ProfileSession.now()) * 1000 } ?? -1
      if let status = child.wait(milliseconds: Int32(clamping: wait)) { throw ExitCode(status) }
      guard let due, let file, ProfileSession.now() >= due.at else { continue }
      switch due.step {
      case .empty:
        keeper.expired()
        try? file.write("")
        Console.warning("the token in \(file.path) expired unrenewed: the file is empty until a renewal succeeds")
        if failOnExpiry {
          child.signal(SIGTERM)
          _ = child.wait(milliseconds: -1)
          throw ExitCode(lastFailure.rawValue)
        }
      case .renew(let freshness):
        do {
          tokens = try fresh(freshness)
          try file.write(tokens.accessToken.value)
          if keeper.failures > 0 || keeper.emptied { Console.note("the token in \(file.path) is renewed") }
          keeper.renewed(obtainedAt: tokens.obtainedAt, expiresAt: tokens.expiresAt)
        } catch {
          let failure = CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .failure)
          lastFailure = failure.status
          keeper.failed()
          let until = keeper.emptied ? "" : ": the file keeps the current token until it expires"
          Console.warning("could not renew the token for \(session.name) (\(failure.message))\(until); retrying")
        }
      }
    }
  }
}

/// The private file a running command reads its token from: in $XDG_RUNTIME_DIR/strivacity/exec
/// (never elsewhere), named after this process so that a file whose process is gone is known
/// for stale and removed.
struct ExecTokenFile {
  let path: String

  static func create(environment: [String: String]) throws -> ExecTokenFile {
    guard let runtime = environment["XDG_RUNTIME_DIR"], (try? CATrust.admitPath(runtime)) != nil else {
      throw CLIFailure(
        "--file-env needs XDG_RUNTIME_DIR, a private directory for this user (systemd-logind makes one): it is not "
          + "set, and a token file goes nowhere else", status: .usage)
    }
    let directory = runtime + "/strivacity/exec"
    do {
      try PrivateFiles.makeDirectories(directory)
    } catch {
      throw CLIFailure("cannot make \(directory) for the token file: \(error.detail)", status: .usage)
    }
    var info = stat()
    guard stat(directory, &info) == 0, info.st_uid == getuid(), info.st_mode & 0o077 == 0 else {
      throw CLIFailure("\(directory) must be this user's and private (mode 700) to hold a token file", status: .usage)
    }
    guard access(directory, W_OK) == 0 else {
      throw CLIFailure("cannot write to \(directory): \(String(cString: strerror(errno)))", status: .usage)
    }
    removeStale(in: directory)
    return ExecTokenFile(path: "\(directory)/\(getpid())-\(SecureRandom.token(bytes: 6)).token")
  }

  /// Files of an exec that is gone (killed with SIGKILL, the machine's power cut).
  static func removeStale(in directory: String) {
    guard let stream = opendir(directory) else { return }
    defer { closedir(stream) }
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      guard name.hasSuffix(".token") else { continue }
      guard let pid = Int32(name.prefix { $0 != "-" }), pid > 0 else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + "/" + name) }
    }
  }

  func write(_ token: String) throws {
    do {
      try PrivateFiles.writeAtomically(Array(token.utf8), to: path, mode: 0o600)
    } catch {
      throw CLIFailure("cannot write the token file \(path): \(error.detail)", status: .failure)
    }
  }

  func remove() { unlink(path) }
}

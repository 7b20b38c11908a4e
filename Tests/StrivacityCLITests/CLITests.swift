// The built `strivacity` binary, run as a user would: exit codes, stdout/stderr discipline,
// one-line errors, nothing written on failure, and the keyring's error paths for real.
import Foundation
import StrivacityTestSupport
import Testing

/// A private HOME with an optional config file, and a way to run the binary in it.
final class Sandbox: @unchecked Sendable {
  let dir: ScratchDirectory
  var home: String { dir.path }

  init(config: String? = nil) throws {
    dir = try ScratchDirectory("cli")
    if let config { try dir.writeConfig(config) }
  }

  /// An environment with nothing inherited but PATH; `bus` adds this process's session bus.
  func environment(bus: Bool = false, extra: [String: String] = [:]) -> [String: String] {
    var env = ["HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
    if bus, let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] {
      env["DBUS_SESSION_BUS_ADDRESS"] = address
    }
    return env.merging(extra) { _, new in new }
  }

  func strivacity(_ arguments: [String], bus: Bool = false, extra: [String: String] = [:]) throws -> ProcessResult {
    try run([TestEnvironment.binary("strivacity")] + arguments, environment: environment(bus: bus, extra: extra))
  }
}

let profileConfig = """
  [profiles.default]
  tenant = "https://tenant.example/"
  client_id = "cli-client"

  [profiles.filed]
  tenant = "https://tenant.example/"
  client_id = "cli-client"
  store = "file"
  """

/// The one line a failing command prints, checked for shape.
func expectOneLineError(
  _ result: ProcessResult, status: Int32, containing fragment: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(result.status == status, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
  #expect(result.stdout.isEmpty, "stdout: \(result.stdout)", sourceLocation: sourceLocation)
  let lines = result.ownStderr.split(separator: "\n")
  #expect(lines.count == 1, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
  #expect(
    lines.first?.hasPrefix("strivacity: error: ") == true, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
  #expect(result.stderr.contains(fragment), "stderr: \(result.stderr)", sourceLocation: sourceLocation)
}

@Suite struct CLIBasicsTests {
  @Test func versionAndHelp() throws {
    let sandbox = try Sandbox()
    let version = try sandbox.strivacity(["--version"])
    #expect(version.status == 0)
    #expect(version.stdout.range(of: #"^strivacity \d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil)
    let help = try sandbox.strivacity(["--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("USAGE: strivacity"))
    #expect(help.stdout.contains("EXIT STATUS:"))
    #expect(help.stdout.contains("status"))
    #expect(sandbox.dir.listing().isEmpty, "help wrote files: \(sandbox.dir.listing())")
  }

  /// libsecret (with GLib, GIO, GObject) and libcurl are loaded when a keyring or the network is
  /// used, never to print the version or the help, nor for a profile on the file store.
  @Test func librariesAreLoadedOnlyWhenUsed() throws {
    let sandbox = try Sandbox(config: profileConfig)
    func loaded(_ arguments: [String], bus: Bool = false) throws -> [String] {
      let result = try sandbox.strivacity(arguments, bus: bus, extra: ["LD_DEBUG": "files"])
      return ["libsecret", "libglib", "libgio", "libcurl"].filter { result.stderr.contains("file=\($0)") }
    }
    #expect(try loaded(["--version"]) == [])
    #expect(try loaded(["--help"]) == [])
    #expect(try loaded(["token", "--help"]) == [])
    #expect(try loaded(["token", "--profile", "filed"]) == [], "the file store needs no keyring")
    #expect(
      try loaded(["token", "--profile", "default"], bus: true).contains("libsecret"), "the keyring store loads it")
  }

  /// `--version --verbose`: what a bug report needs, on stdout: the build's commit and compiler,
  /// and the libcurl and libsecret this machine loads (by path, with their Debian packages).
  @Test func versionVerboseNamesTheBuildAndTheLibraries() throws {
    let sandbox = try Sandbox()
    let plain = try sandbox.strivacity(["--version"]).stdout
    #expect(plain.hasPrefix("strivacity ") && plain.split(separator: "\n").count == 1, "plain --version stays one line")
    for arguments in [["--version", "--verbose"], ["--verbose", "--version"], ["-v", "--version"]] {
      let result = try sandbox.strivacity(arguments)
      #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
      let lines = result.stdout.split(separator: "\n").map(String.init)
      #expect(lines.first.map { $0 + "\n" } == plain)
      #expect(lines.contains { $0.hasPrefix("commit:    ") && $0.count > 12 }, "\(result.stdout)")
      #expect(
        lines.contains { $0.hasPrefix("compiler:  Swift version ") }
          || lines.contains("compiler:  unknown (the Swift runtime is the compiler's)"), "\(result.stdout)")
      #expect(
        lines.contains { $0.hasPrefix("libcurl:   libcurl/") && $0.contains("/libcurl.so.4") }, "\(result.stdout)")
      #expect(lines.contains { $0.hasPrefix("libsecret: ") && $0.contains("/libsecret-1.so.0") }, "\(result.stdout)")
    }
  }

  /// Parse errors too are one line in the documented form, with the help to read, and exit 2.
  @Test(arguments: [
    (["no-such-command"], "unknown command 'no-such-command' (see 'strivacity --help')"),
    (["tokne"], "unknown command 'tokne'; did you mean 'token'? (see 'strivacity --help')"),
    // The command is judged first: its options are not blamed for it.
    (["tokne", "--profile", "x"], "unknown command 'tokne'; did you mean 'token'? (see 'strivacity --help')"),
    (["setup-gti", "--host", "x"], "unknown command 'setup-gti'; did you mean 'setup git'? (see 'strivacity --help')"),
    (["help", "tokne"], "unknown command 'tokne'; did you mean 'token'? (see 'strivacity --help')"),
    (["help", "nothing-like-it"], "unknown command 'nothing-like-it' (see 'strivacity --help')"),
    (
      ["token", "--profle", "x"], "unknown option '--profle'; did you mean '--profile'? (see 'strivacity token --help')"
    ),
    (
      ["status", "--store", "plaintext"],
      "the value 'plaintext' is invalid for '--store <store>'; use one of 'secret-service' and 'file' (see "
        + "'strivacity status --help')"
    ),
    (
      ["token", "--format", "bogus"],
      "; use one of: raw, header, json, env, curl, exec-credential, google-executable (see 'strivacity token --help')"
    ),
    (["token", "--min-ttl"], "missing value for '--min-ttl <seconds>' (see 'strivacity token --help')"),
    (["credential"], "missing expected argument '<action>' (see 'strivacity credential --help')"),
    (
      ["login", "--sdk-mode", "x"],
      "--sdk-mode must be one of web, web-minimal, ios, ios-minimal, android, android-minimal (see 'strivacity "
        + "login --help')"
    ),
  ])
  func usageErrorsAreOneLineAndExitTwo(arguments: [String], message: String) throws {
    let result = try Sandbox().strivacity(arguments)
    expectOneLineError(result, status: 2, containing: message)
  }

  /// `strivacity` alone lists the commands on stderr and exits 2, as git does.
  @Test func aloneItSaysWhatThereIsToRun() throws {
    let result = try Sandbox().strivacity([])
    #expect(result.status == 2 && result.stdout.isEmpty)
    #expect(result.stderr.hasPrefix("usage: strivacity <command> [options]\n"))
    #expect(
      result.stderr.split(separator: "\n").contains {
        $0.hasPrefix("  token ") && $0.hasSuffix("Print a fresh access token (refreshing it when needed).")
      })
    #expect(!result.stderr.contains("  help "), "no 'help' entry")
    #expect(result.stderr.hasSuffix("See 'strivacity --help' or 'strivacity <command> --help'.\n"))
  }

  @Test func malformedConfigIsOneLineWithPosition() throws {
    let sandbox = try Sandbox(config: "[profiles.default]\ntenant = \"https://t.example/\nclient_id = \"x\"\n")
    let before = sandbox.dir.listing()
    let result = try sandbox.strivacity(["status"])
    expectOneLineError(result, status: 2, containing: "config.toml:2:29: unterminated string")
    #expect(sandbox.dir.listing() == before)
  }

  @Test func unknownConfigKeysWarnButWork() throws {
    let sandbox = try Sandbox(config: "colour = \"always\"\n" + profileConfig)
    let result = try sandbox.strivacity(["status", "--profile", "filed"])
    #expect(
      result.stderr.contains(
        "strivacity: warning: \(sandbox.home)/.config/strivacity/config.toml:1: unknown key 'colour' ignored"))
  }

  @Test func missingProfileSaysHowToSignIn() throws {
    let sandbox = try Sandbox(config: profileConfig)
    let result = try sandbox.strivacity(["status", "--profile", "nosuch"])
    expectOneLineError(result, status: 2, containing: "profile 'nosuch' is not configured")
    #expect(result.stderr.contains("strivacity login --profile nosuch"))
    let typo = try sandbox.strivacity(["token", "--profile", "defualt"])
    expectOneLineError(typo, status: 2, containing: "; did you mean 'default'? (it has default")
    let noConfig = try Sandbox()
    expectOneLineError(
      try noConfig.strivacity(["status"]), status: 2, containing: "profile 'default' is not configured")
    for command in [["logout"], ["revoke"], ["token"], ["userinfo"]] {
      expectOneLineError(
        try sandbox.strivacity(command + ["--profile", "nosuch"]), status: 2,
        containing: "profile 'nosuch' is not configured")
    }
    let json = try sandbox.strivacity(["status", "--profile", "nosuch", "--json"])
    #expect(json.status == 2 && json.stderr.isEmpty)
    #expect(
      json.stdout.contains("\"configured\" : false") && json.stdout.contains("\"profile\" : \"nosuch\""),
      "\(json.stdout)")
    #expect(noConfig.dir.listing().isEmpty)
  }

  @Test func invalidProfileNamesAreRefused() throws {
    let sandbox = try Sandbox(config: profileConfig)
    expectOneLineError(
      try sandbox.strivacity(["status", "--profile", "../../etc"]), status: 2, containing: "invalid profile name")
  }

  @Test func environmentOverridesWork() throws {
    let sandbox = try Sandbox(config: profileConfig)
    let result = try sandbox.strivacity(
      ["status"], extra: ["STRIVACITY_PROFILE": "filed", "STRIVACITY_TENANT": "https://env.example/"])
    #expect(result.stdout.contains("profile        filed"))
    #expect(result.stdout.contains("tenant         https://env.example/"))
    let explicit = try Sandbox()
    try explicit.dir.write("elsewhere.toml", profileConfig)
    let viaConfig = try explicit.strivacity(
      ["status", "--profile", "filed"], extra: ["STRIVACITY_CONFIG": explicit.dir.file("elsewhere.toml")])
    #expect(viaConfig.stdout.contains("client         cli-client"), "\(viaConfig.stderr)")
  }
}

@Suite struct CLIFileStoreTests {
  static let tokenFile = """
    {"client_id":"cli-client","issuer":"https://tenant.example/","profile":"filed","tokens":{
    "access_token":"AT-SECRET","expires_at":4102444800,"id_token":"eyJ.ID-SECRET.sig","obtained_at":4102441200,
    "refresh_token":"RT-SECRET","scope":"openid profile","token_type":"Bearer"},"v":1}
    """

  @Test func statusReadsTheFileStoreAndNeverPrintsSecrets() throws {
    let sandbox = try Sandbox(config: profileConfig)
    try sandbox.dir.write(".local/state/strivacity/tokens/filed.json", Self.tokenFile, mode: 0o600)
    let result = try sandbox.strivacity(["status", "--profile", "filed"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("signed in      yes"))
    #expect(result.stdout.contains("refresh token  held"))
    #expect(result.stdout.contains("store          file"))
    #expect(result.stderr.isEmpty, "the file store was chosen at sign-in, where it was warned about; status shows it")
    #expect(!(result.stdout + result.stderr).contains("SECRET"))
  }

  @Test func worldReadableTokenFilesAreRefused() throws {
    let sandbox = try Sandbox(config: profileConfig)
    let path = try sandbox.dir.write(".local/state/strivacity/tokens/filed.json", Self.tokenFile, mode: 0o644)
    let result = try sandbox.strivacity(["status", "--profile", "filed"])
    #expect(result.status == 6)
    #expect(result.stderr.contains("strivacity: error: refusing to read \(path): its mode is 0644"))
    #expect(!result.stderr.contains("SECRET"))
  }

  @Test func notSignedInExitsThree() throws {
    let sandbox = try Sandbox(config: profileConfig)
    let result = try sandbox.strivacity(["status", "--store", "file"])
    #expect(result.status == 3)
    #expect(result.stdout.contains("signed in      no"))
    #expect(sandbox.dir.listing() == [".config", ".config/strivacity", ".config/strivacity/config.toml"])
  }
}

@Suite struct CLIKeyringTests {
  @Test func noSessionBusIsOneActionableLine() throws {
    let sandbox = try Sandbox(config: profileConfig)
    let result = try sandbox.strivacity(["status"])  // no DBUS_SESSION_BUS_ADDRESS, no DISPLAY
    expectOneLineError(result, status: 6, containing: "no D-Bus session bus")
    #expect(result.stderr.contains("--store file"))
    #expect(sandbox.dir.listing() == [".config", ".config/strivacity", ".config/strivacity/config.toml"])
  }

  @Test func aBusWithoutSecretServiceIsNamed() throws {
    let sandbox = try Sandbox(config: profileConfig)
    // A session bus that can activate nothing: no service directories at all.
    let busConfig = try sandbox.dir.write(
      "bus.conf",
      """
      <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
       "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
      <busconfig>
        <type>session</type>
        <listen>unix:tmpdir=/tmp</listen>
        <auth>EXTERNAL</auth>
        <policy context="default">
          <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
        </policy>
      </busconfig>
      """)
    let result = try run(
      [
        "/usr/bin/dbus-run-session", "--config-file=\(busConfig)", "--", TestEnvironment.binary("strivacity"), "status",
      ],
      environment: sandbox.environment())
    #expect(result.status == 6, "\(result.stderr)")
    #expect(result.ownStderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains("strivacity: error: no Secret Service on the session bus"))
  }

  @Test func aLockedCollectionIsReportedNotMistakenForSignedOut() throws {
    let sandbox = try Sandbox(config: profileConfig)
    // A keyring of its own (nested harness), locked before strivacity runs.
    let script = """
      gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
        --method org.freedesktop.Secret.Service.Lock "['/org/freedesktop/secrets/aliases/default']" >/dev/null
      exec "$@"
      """
    let result = try run(
      [
        TestEnvironment.repositoryRoot.appendingPathComponent("Scripts/with-keyring").path, "bash", "-c", script,
        "lock",
        TestEnvironment.binary("strivacity"), "status",
      ],
      environment: sandbox.environment())
    #expect(result.status == 7, "\(result.stderr)")
    #expect(result.ownStderr.split(separator: "\n").count == 1, "\(result.ownStderr)")
    // No desktop here: the way out without one, besides the file store (README "Servers and containers").
    #expect(
      result.stderr.contains(
        "strivacity: error: the keyring 'Login' is locked, and no desktop is here to unlock it: run with --store "
          + "file, or unlock it with its password: printf"
      ))
  }

  @Test func statusReadsTheRealKeyring() throws {
    try #require(TestEnvironment.hasRealKeyring, "run through `make test` for a real keyring")
    let sandbox = try Sandbox(
      config: profileConfig.replacingOccurrences(of: "[profiles.default]", with: "[profiles.keyring-status]"))
    let payload =
      #"{"tokens":{"access_token":"AT-SECRET","expires_at":4102444800,"obtained_at":4102441200,"#
      + #""token_type":"Bearer"},"v":1}"#
    let stored = try run(
      [
        "/usr/bin/secret-tool", "store", "--label", "t", "xdg:schema", "com.strivacity.cli.TokenSet",
        "profile", "keyring-status", "issuer", "https://tenant.example/", "client_id", "cli-client",
      ],
      environment: ProcessInfo.processInfo.environment, stdin: payload)
    #expect(stored.status == 0)
    let result = try sandbox.strivacity(["status", "--profile", "keyring-status"], bus: true)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("signed in      yes"))
    #expect(result.stdout.contains("refresh token  none"))
    #expect(!result.stdout.contains("SECRET"))
    _ = try run(
      ["/usr/bin/secret-tool", "clear", "profile", "keyring-status"], environment: ProcessInfo.processInfo.environment)
  }
}

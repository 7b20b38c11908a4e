// Terraform's and OpenTofu's credentials helper (terraform-credentials-strivacity, issue 40)
// through the real binaries against the emulator and the real keyring: the host's API token
// from the small binary, `{}` for any other host, the protocol's error shape for hostile input,
// `store` refused after its stdin is read, `forget`, no sign-in ever started, and
// setup-terraform's edit of the CLI config. No terraform needed, but for the last test, which
// runs only where `terraform` is on PATH.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

extension Harness {
  /// A profile whose API `tfe` covers all of tfe.example.com (the emulator's orders API as far
  /// as the tenant is concerned), signed in with it configured.
  func terraformProfile(host: String = "tfe.example.com", signIn: Bool = true) throws {
    try writeProfile(
      """

      [profiles.\(profile).apis.tfe]
      url = "\(host)"
      audience = "https://api.example.com/orders"
      resource = ["https://api.example.com/orders/"]
      scopes = ["orders:read"]
      """)
    if signIn { try self.signIn() }
  }

  /// `terraform-credentials-strivacity`, a link to `binary`, where Terraform looks for it.
  func terraformHelper(_ binary: String = TestEnvironment.binary("strivacity")) throws -> String {
    let plugins = home.file(".terraform.d/plugins")
    try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
    let link = plugins + "/terraform-credentials-strivacity"
    if !FileManager.default.fileExists(atPath: link) {
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: binary)
    }
    return link
  }

  func terraformHelper(_ arguments: [String], _ input: String? = nil, environment more: [String: String] = [:])
    throws -> ProcessResult
  {
    try run(
      [try terraformHelper()] + arguments, environment: environment.merging(more) { _, new in new }, stdin: input)
  }
}

@Suite struct TerraformCredentialTests {
  @Test func getAnswersTheHostsAPITokenAndEmptyForOtherHostsAndForgetRefreshes() throws {
    let h = try Harness(journey: "password")
    try h.terraformProfile()
    let token = try h.strivacity(["token", "--profile", h.profile, "--api", "tfe"])
    #expect(token.status == 0, "\(token.stderr)")
    let expected = "{\"token\":\"\(token.stdout.trimmingCharacters(in: .newlines))\"}\n"
    // A cached token is the small binary's alone: no full command line beside it.
    let alone = try h.smallBinaryAlone(links: ["terraform-credentials-strivacity"])
    for host in ["tfe.example.com", "TFE.example.com"] {
      let get = try run([alone + "/terraform-credentials-strivacity", "get", host], environment: h.environment)
      #expect(get.status == 0 && get.stdout == expected && get.stderr.isEmpty, "\(get.stdout) \(get.stderr)")
    }
    // The sign-in's own token never goes to a Terraform host: the tenant's, another host or port.
    for host in ["app.terraform.io", "tfe.example.com:8443", URL(string: h.emulator.issuer)!.host!] {
      let other = try run([alone + "/terraform-credentials-strivacity", "get", host], environment: h.environment)
      #expect(other.status == 0 && other.stdout == "{}\n" && other.stderr.isEmpty, "\(host): \(other.stderr)")
    }
    // `terraform logout`: nothing said, and the next get refreshes.
    let forget = try h.terraformHelper(["forget", "tfe.example.com"])
    #expect(forget.status == 0 && forget.stdout.isEmpty && forget.stderr.isEmpty, "\(forget.stderr)")
    let next = try h.terraformHelper(["get", "tfe.example.com"])
    #expect(next.status == 0, "\(next.stderr)")
    let refreshed = try #require(JSONValue.parse(next.stdout)?["token"]?.string)
    #expect(next.stdout != expected && !refreshed.isEmpty, "forget makes the next get refresh")
    let unknown = try h.terraformHelper(["forget", "app.terraform.io"])
    #expect(unknown.status == 0 && unknown.stdout.isEmpty && unknown.stderr.isEmpty)
  }

  /// A machine profile (client credentials, its secret in the environment): the host gets its
  /// API's token, no sign-in involved, the second `get` from the cache.
  @Test func aMachineProfilesHostTokenComesFromItsClientCredentials() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(
      client: "ci-basic",
      """

      [profiles.\(h.profile).apis.tfe]
      url = "tfe.example.com"
      audience = "https://api.example.com/orders"
      scopes = ["orders:read"]
      """)
    let secret = ["STRIVACITY_CLIENT_SECRET": "ci-basic-secret-1"]
    for _ in 0..<2 {
      let get = try h.terraformHelper(["get", "tfe.example.com"], environment: secret)
      #expect(get.status == 0 && get.stderr.isEmpty, "\(get.stderr)")
      #expect((JSONValue.parse(get.stdout)?["token"]?.string?.count ?? 0) > 0, "\(get.stdout)")
    }
    #expect(try h.stats()["client_credentials_requests"]?.int == 1, "the second get came from the cache")
  }

  /// Malformed input, unknown verbs, user info, path tricks, escapes, 1 MiB on stdin: non-zero,
  /// one line of ours on stderr, nothing on stdout, nothing raw on the terminal, no token.
  @Test func hostileInputGetsTheProtocolsErrorAndNoToken() throws {
    let h = try Harness(journey: "password")
    try h.terraformProfile()
    let token = try h.strivacity(["token", "--profile", h.profile, "--api", "tfe"]).stdout
      .trimmingCharacters(in: .newlines)
    let mebibyte = "{\"token\":\"" + String(repeating: "x", count: 1 << 20) + "\"}"
    let cases: [([String], String?)] = [
      (["store", "tfe.example.com"], "{\"token\":\"from-terraform-login\"}"),
      (["store", "tfe.example.com"], "{\"token\": "), (["store", "tfe.example.com"], mebibyte),
      (["get", "tfe.example.com"], mebibyte), (["list", "tfe.example.com"], nil), (["get"], nil), ([], nil),
      (["get", "tfe.example.com", "extra"], nil), (["--help\u{1b}]0;x\u{7}", "tfe.example.com"], nil),
      (["get", "user@tfe.example.com"], nil), (["get", "https://user:pw@tfe.example.com/"], nil),
      (["get", "tfe.example.com/%2e%2e/x"], nil), (["get", "tfe.example.com/..;/x"], nil),
      (["get", "tfe.example.com\u{1b}[2J"], nil), (["get", "\u{1b}]52;c;aGk=\u{7}tfe.example.com"], nil),
      (["forget", "user@tfe.example.com"], nil),
    ]
    for (arguments, input) in cases {
      let result = try h.terraformHelper(arguments, input)
      let isGetOf1MiB = arguments == ["get", "tfe.example.com"]
      if isGetOf1MiB {
        // `get` reads nothing: what is on stdin changes nothing.
        #expect(result.status == 0 && result.stdout == "{\"token\":\"\(token)\"}\n", "\(result.stderr)")
        continue
      }
      #expect(result.status != 0, "\(arguments) \(result.stdout)")
      #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains(token) && !result.stderr.contains("from-terraform-login"))
      #expect(!result.stderr.contains("\u{1b}") && !result.stderr.contains("\u{7}"), "\(result.stderr)")
      #expect(!result.stderr.contains("user@") && !result.stderr.contains("pw@") && !result.stderr.contains("aGk="))
      #expect(!result.stderr.contains("xxxxxxxx"))
    }
    let store = try h.terraformHelper(["store", "tfe.example.com"], "{\"token\":\"t\"}")
    #expect(store.status == 2 && store.stderr.contains("strivacity setup terraform"), "\(store.stderr)")
  }

  /// Never a sign-in: a profile not signed in fails at once (exit 3), one stderr line naming
  /// `strivacity login`, nothing on stdout.
  /// `store` typed by a person waits for the object Terraform would write: it says so, and
  /// Ctrl-D ends it (refused, as every store is).
  @Test func storeOnATerminalSaysWhatItWaitsFor() throws {
    let h = try Harness(journey: "password")
    try h.terraformProfile(signIn: false)
    let tty = try PTYSession([try h.terraformHelper(), "store", "tfe.example.com"], environment: h.environment)
    try tty.expect("end it with Ctrl-D")
    tty.type("\u{4}")
    #expect(try tty.wait() == 2)
  }

  @Test func theHelperNeverSignsIn() throws {
    let h = try Harness(journey: "password")
    try h.terraformProfile(signIn: false)
    let get = try h.terraformHelper(["get", "tfe.example.com"])
    #expect(get.status == 3 && get.stdout.isEmpty, "\(get.stdout)")
    let lines = get.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("strivacity login --profile \(h.profile)"), "\(get.stderr)")
    #expect((try h.stats()["grants"]?.object ?? [:]).isEmpty, "no token was asked for")
  }

  @Test func setupTerraformWritesTheBlockAndTheLinkKeepingEverythingElse() throws {
    let h = try Harness(journey: "password")
    try h.terraformProfile(signIn: false)
    // The CLI config a link into a dotfiles checkout: it stays a link.
    try FileManager.default.createDirectory(atPath: h.home.file("dotfiles"), withIntermediateDirectories: true)
    let dotfiles = h.home.file("dotfiles/terraformrc")
    let mine = "plugin_cache_dir = \"/tmp/cache\" # mine\ncredentials \"tfe.example.com\" {\n  token = \"old\"\n}\n"
    try mine.write(toFile: dotfiles, atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(atPath: h.home.file(".terraformrc"), withDestinationPath: dotfiles)
    let setup = try h.strivacity(["setup-terraform", "--profile", h.profile, "tfe.example.com"])
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(setup.stderr.contains("credentials \"tfe.example.com\" block"), "said: \(setup.stderr)")
    #expect(
      try String(contentsOfFile: dotfiles, encoding: .utf8)
        == mine + "\ncredentials_helper \"strivacity\" {\n  args = []\n}\n")
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: h.home.file(".terraformrc"))) == dotfiles)
    let link = h.home.file(".terraform.d/plugins/terraform-credentials-strivacity")
    let target = try FileManager.default.destinationOfSymbolicLink(atPath: link)
    #expect(target.hasSuffix("/strivacity"), "\(target)")
    // A host no API covers whole, and bad hosts: usage errors, nothing written.
    for bad in ["other.example.com", "https://tfe.example.com/", "user@tfe.example.com", "tfe.example.com/x"] {
      let refused = try h.strivacity(["setup-terraform", "--profile", h.profile, bad])
      #expect(refused.status == 2, "\(bad): \(refused.stderr)")
    }
    let uncovered = try h.strivacity(["setup-terraform", "--profile", h.profile, "other.example.com"])
    #expect(uncovered.stderr.contains("--api NAME"), "\(uncovered.stderr)")
    // --api NAME adds the API such a host needs (it serves no metadata); --dry-run only says so.
    let config = try String(contentsOfFile: h.home.configPath, encoding: .utf8)
    let api = [
      "setup", "terraform", "--profile", h.profile, "other.example.com", "--api", "other", "--audience",
      "https://other.example.com", "--scope", "modules:read",
    ]
    let dry = try h.strivacity(api + ["--dry-run"])
    #expect(dry.status == 0, "\(dry.stderr)")
    #expect(
      dry.stdout.contains("  [profiles.\(h.profile).apis.other]\n  url = \"other.example.com\"\n"), "\(dry.stdout)")
    #expect(try String(contentsOfFile: h.home.configPath, encoding: .utf8) == config)
    let added = try h.strivacity(api)
    #expect(added.status == 0, "\(added.stderr)")
    let written = try String(contentsOfFile: h.home.configPath, encoding: .utf8)
    #expect(
      written.hasSuffix(
        "\n[profiles.\(h.profile).apis.other]\nurl = \"other.example.com\"\naudience = \"https://other.example.com\"\n"
          + "scopes = [\"modules:read\"]\n"), "\(written)")
    // --undo: the file as it was, the link gone.
    let undo = try h.strivacity(["setup-terraform", "--profile", h.profile, "tfe.example.com", "--undo"])
    #expect(undo.status == 0, "\(undo.stderr)")
    #expect(try String(contentsOfFile: dotfiles, encoding: .utf8) == mine)
    #expect(!FileManager.default.fileExists(atPath: link))
    // Another helper is never replaced.
    let other = "credentials_helper \"credstore\" {\n  args = []\n}\n"
    try other.write(toFile: dotfiles, atomically: true, encoding: .utf8)
    let refused = try h.strivacity(["setup-terraform", "--profile", h.profile, "tfe.example.com"])
    #expect(refused.status == 2 && refused.stderr.contains("credstore"), "\(refused.stderr)")
    #expect(try String(contentsOfFile: dotfiles, encoding: .utf8) == other)
    #expect(!FileManager.default.fileExists(atPath: link), "nothing written")
  }

  /// `terraform` on PATH, if it is there.
  static var terraform: String? {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/terraform" }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }

  /// The real terraform finds the helper that setup-terraform installs and runs it: `terraform
  /// logout` runs `forget`, and a module from the host runs `get` before the host's discovery
  /// document is fetched; its failure (no sign-in) terraform logs with our line, and goes on
  /// without credentials. Loopback only: nothing listens on the host's port.
  @Test(.enabled(if: terraform != nil)) func theRealTerraformRunsTheHelper() throws {
    let terraform = try #require(Self.terraform)
    let h = try Harness(journey: "password")
    let host = "127.0.0.1:9"
    try h.terraformProfile(host: host, signIn: false)
    var env = h.environment
    env["PATH"] = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/bin:/bin"
    env["TF_IN_AUTOMATION"] = "1"
    env["TF_LOG"] = "warn"
    env["CHECKPOINT_DISABLE"] = "1"
    let setup = try run(
      [TestEnvironment.binary("strivacity"), "setup-terraform", "--profile", h.profile, host], environment: env)
    #expect(setup.status == 0, "\(setup.stderr)")
    let logout = try run([terraform, "logout", host], environment: env, timeout: 30)
    #expect(logout.status == 0, "\(logout.stdout) \(logout.stderr)")
    let work = h.home.file("tf")
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    try "module \"m\" {\n  source = \"\(host)/team/m/null\"\n  version = \"1.0.0\"\n}\n"
      .write(toFile: work + "/main.tf", atomically: true, encoding: .utf8)
    let initRun = try run(
      [terraform, "init", "-backend=false", "-input=false", "-no-color"], environment: env, currentDirectory: work,
      timeout: 60)
    #expect(initRun.status != 0)
    let said = (initRun.stdout + initRun.stderr).split(separator: "\n").filter { $0.contains("terraform-credentials") }
    #expect(said.contains { $0.contains("strivacity login --profile \(h.profile)") }, "\(initRun.stderr)")
  }
}

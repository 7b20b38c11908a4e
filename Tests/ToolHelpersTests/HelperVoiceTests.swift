// The registry of helpers and the one voice they fail in: for each helper, not signed in and a
// host under no API are one stderr line naming the fix, and the protocol's failure shape.
import StrivacityConfig
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct HelperVoiceTests {
  static let config = """
    [profiles.work]
    tenant = "https://work.example.com"
    client_id = "cli"
    hosts = ["tf.example.com", "git.example.com"]
    git_hosts = ["git.example.com"]

    [profiles.work.apis.registry]
    url = "registry.example.com"
    """

  func config() throws -> Config { try Config.parse(Self.config, path: "config.toml") }

  func route(_ helper: any HelperGet.Type, _ words: [String], _ input: String) throws -> HelperRoute? {
    helper.route(words, Array(input.utf8), config: try config(), environment: [:])
  }

  func replied(_ route: HelperRoute?) -> HelperReply? {
    if case .reply(let reply)? = route { return reply }
    return nil
  }

  func cargoLine(_ url: String, kind: String = "get") -> String {
    #"{"v":1,"kind":"\#(kind)","operation":"read","registry":{"index-url":"\#(url)","name":"team"},"#
      + #""args":["--profile","work"]}"#
  }

  @Test func theRegistryNamesEveryHelperOnce() {
    let tools = ToolHelpers.all.map { $0.names.tool }
    let subcommands = ToolHelpers.all.map { $0.names.subcommand }
    let links = ToolHelpers.all.compactMap { $0.names.link }
    #expect(tools == ["git", "docker", "cargo", "terraform", "aws"])
    #expect(Set(subcommands).count == subcommands.count)
    #expect(links == ["git-credential-strivacity", "docker-credential-strivacity", "terraform-credentials-strivacity"])
    let docker = ToolHelpers.named("docker-credential").map { ObjectIdentifier($0) }
    let cargo = ToolHelpers.named("cargo-credential").map { ObjectIdentifier($0) }
    #expect(docker == ObjectIdentifier(DockerHelper.self))
    #expect(cargo == ObjectIdentifier(CargoHelper.self))
    #expect(ToolHelpers.named("token") == nil)
  }

  @Test func argvZeroAndFlagsMapToTheSubcommand() {
    #expect(ToolHelpers.arguments(["/usr/bin/git-credential-strivacity", "get"]) == ["credential", "get"])
    #expect(ToolHelpers.arguments(["docker-credential-strivacity", "list"]) == ["docker-credential", "list"])
    #expect(
      ToolHelpers.arguments(["/p/terraform-credentials-strivacity", "get", "h"]) == [
        "terraform-credential", "get", "h",
      ])
    #expect(ToolHelpers.arguments(["strivacity", "--cargo-plugin"]) == ["cargo-credential"])
    #expect(ToolHelpers.arguments(["strivacity", "--cargo-plugin", "x"]) == ["--cargo-plugin", "x"])
    #expect(ToolHelpers.arguments(["strivacity", "token"]) == ["token"])
    #expect(ToolHelpers.arguments([]) == [])
  }

  @Test func onlyTheGetsAskForTokens() {
    #expect(GitHelper.asksForToken(["get"]) && !GitHelper.asksForToken(["erase"]))
    #expect(DockerHelper.asksForToken(["get"]) && !DockerHelper.asksForToken(["list"]))
    #expect(CargoHelper.asksForToken([]) && !CargoHelper.asksForToken(["--help"]))
    #expect(TerraformHelper.asksForToken(["get", "h"]) && !TerraformHelper.asksForToken(["forget", "h"]))
  }

  /// Signed out: one line naming the `login` to run, for every helper, in its protocol's shape.
  @Test func notSignedInIsOneLineNamingLogin() {
    let failure = HelperFailure.notSignedIn(profile: "work", why: nil)
    for helper in ToolHelpers.all {
      let reply = helper.reply(failure)
      let line = try! #require(reply.stderr)
      #expect(line.hasPrefix("strivacity: error: " + helper.names.messagePrefix), "\(helper)")
      #expect(line.hasSuffix("profile work is not signed in: run `strivacity login --profile work`\n"), "\(line)")
      #expect(line.filter { $0 == "\n" }.count == 1)
    }
    #expect(GitHelper.reply(failure).stdout == "" && GitHelper.reply(failure).status == .ok)
    #expect(DockerHelper.reply(failure).stdout.hasPrefix("profile work is not signed in"))
    #expect(DockerHelper.reply(failure).status == .failure)
    #expect(TerraformHelper.reply(failure).stdout == "" && TerraformHelper.reply(failure).status == .signInRequired)
    #expect(CargoHelper.reply(failure).stdout.hasPrefix(#"{"Err":{"#))
    // The broker's words, when they name the login already, are kept as they are.
    let said = HelperFailure.notSignedIn(
      profile: "work", why: "the sign-in expired: run strivacity login --profile work")
    #expect(said.sentence(GitHelper.self) == "the sign-in expired: run strivacity login --profile work")
  }

  @Test func dockerSaysARegistryUnderNoAPIOnStderr() throws {
    let reply = try #require(replied(try route(DockerHelper.self, ["get"], "other.example.com\n")))
    #expect(reply.stdout == "credentials not found in native keychain\n")
    #expect(reply.status == .failure)
    #expect(
      reply.stderr
        == "strivacity: error: docker credential: no API covers other.example.com (the APIs are registry.example.com): "
        + "run `strivacity setup docker --registry other.example.com --api NAME`\n")
    guard case .token(let ask)? = try route(DockerHelper.self, ["get"], "registry.example.com") else {
      Issue.record("registry.example.com is the registry API's")
      return
    }
    #expect(ask.api?.name == "registry" && ask.resolved.name == "work")
    #expect(ask.answer(TokenSet(accessToken: "t", expiresAt: nil, obtainedAt: 0)).contains(#""Secret":"t""#))
  }

  @Test func terraformSaysAHostOfTheProfilesUnderNoAPI() throws {
    let meant = try #require(replied(try route(TerraformHelper.self, ["get", "tf.example.com"], "")))
    #expect(meant.stdout == "{}\n" && meant.status == .ok)
    #expect(meant.stderr?.contains("no API covers tf.example.com") == true)
    #expect(meant.stderr?.contains("`strivacity setup terraform tf.example.com --api NAME`") == true)
    // A host the profiles know nothing of (Terraform asks about every host it meets): `{}` alone.
    let stranger = try #require(replied(try route(TerraformHelper.self, ["get", "registry.terraform.io"], "")))
    #expect(stranger == HelperReply(stdout: "{}\n", stderr: nil, status: .ok))
  }

  @Test func cargoSaysARegistryUnderNoneOfTheProfilesPlaces() throws {
    let reply = try #require(
      replied(try route(CargoHelper.self, [], cargoLine("sparse+https://crates.other.example/"))))
    #expect(reply.stdout == #"{"Err":{"kind":"url-not-supported"}}"# + "\n")
    #expect(
      reply.stderr?.hasPrefix("strivacity: error: cargo credential: no API covers https://crates.other.example/")
        == true)
    #expect(reply.stderr?.contains("strivacity setup cargo") == true)
    // A git index over ssh is never ours, and nobody's business to hear about.
    let ssh = try #require(replied(try route(CargoHelper.self, [], cargoLine("ssh://git@x.example/index"))))
    #expect(ssh.stderr == nil)
    // login is not supported, and says so in cargo's shape only.
    let login = try #require(replied(try route(CargoHelper.self, [], cargoLine("sparse+https://x/", kind: "login"))))
    #expect(login.stdout.contains("operation-not-supported") && login.stderr == nil)
  }

  @Test func gitIsSilentForAHostOfNoProfile() throws {
    // What is not git's protocol is the full command line's to say (it reads it again, whole).
    #expect(try route(GitHelper.self, ["get"], "x=" + String(repeating: "a", count: 1 << 20) + "\n\u{1B}\n") == nil)
    let reply = try #require(replied(try route(GitHelper.self, ["get"], "protocol=https\nhost=elsewhere.example\n\n")))
    #expect(reply == HelperReply(stdout: "", stderr: nil, status: .ok))
    guard case .token(let ask)? = try route(GitHelper.self, ["get"], "protocol=https\nhost=git.example.com\n") else {
      Issue.record("git.example.com is work's")
      return
    }
    #expect(ask.resolved.name == "work" && ask.api == nil)
  }

  /// A mebibyte or more on stdin, or bytes that are no text, never reach an answer, and the line
  /// says none of them.
  @Test func hostileAndOversizedRequestsAreRefusedInOneLine() throws {
    let big = String(repeating: "a", count: 1 << 20) + "\n"
    let inputs: [(any HelperGet.Type, [String], [UInt8])] = [
      (DockerHelper.self, ["get"], Array(big.utf8)),
      (DockerHelper.self, ["get"], [0xFF, 0x0A, 0x1B]),
      (CargoHelper.self, [], Array(cargoLine("sparse+https://\u{1B}[2J.example/").utf8)),
      (TerraformHelper.self, ["get", "user@host.example"], []),
      (TerraformHelper.self, ["get", "\u{1B}[2J"], []),
    ]
    for (helper, words, input) in inputs {
      let route = helper.route(words, input, config: try config(), environment: [:])
      guard case .reply(let reply)? = route else {
        #expect(route == nil, "\(helper) asked for a token for \(words)")
        continue
      }
      let line = try #require(reply.stderr, "\(helper)")
      #expect(line.filter { $0 == "\n" }.count == 1 && !line.contains("\u{1B}") && !line.contains("aaaa"), "\(line)")
    }
  }
  /// What the full command line does besides `get`, decided in the registry: docker's version,
  /// list and refusals, Terraform's `store`, git's request of no profile's and its `erase`.
  @Test func theOtherVerbsAreSteps() throws {
    func step(_ helper: any HelperGet.Type, _ words: [String], _ input: String = "") throws -> HelperStep {
      try helper.step(words, Array(input.utf8), config: { try self.config() })
    }
    guard case .reply(let version) = try step(DockerHelper.self, ["version"]) else {
      Issue.record("version")
      return
    }
    #expect(version.stdout.hasPrefix("docker-credential-strivacity (strivacity) ") && version.status == .ok)
    guard case .reply(let list) = try step(DockerHelper.self, ["list"]) else {
      Issue.record("list")
      return
    }
    #expect(list.stdout.contains("registry.example.com") && list.stderr == nil)
    guard case .reply(let store) = try step(DockerHelper.self, ["store"], "{}") else {
      Issue.record("store")
      return
    }
    #expect(store.status == .failure && store.stdout.hasPrefix("strivacity does not store"))
    guard case .forget(nil, let notFound?) = try step(DockerHelper.self, ["erase"], "other.example.com") else {
      Issue.record("erase")
      return
    }
    #expect(notFound.stdout == "credentials not found in native keychain\n" && notFound.stderr == nil)
    guard case .help = try step(TerraformHelper.self, ["--help"]) else {
      Issue.record("help")
      return
    }
    guard case .reply(let tfStore) = try step(TerraformHelper.self, ["store", "tf.example.com"], "[]") else {
      Issue.record("terraform store")
      return
    }
    #expect(tfStore.stdout.isEmpty && tfStore.status == .usage)
    #expect(TerraformHelper.input(["store", "h"]) == .drained(TerraformCredentialProtocol.maxInput))
    #expect(TerraformHelper.input(["get", "h"]) == .none && DockerHelper.input(["list"]) == .none)
    let request = "protocol=https\nhost=git.example.com\npassword=old\n\n"
    guard case .forget(let rejected, nil) = try step(GitHelper.self, ["erase"], request) else {
      Issue.record("git erase")
      return
    }
    #expect(rejected == "old")
    guard case .reply(let silent) = try step(GitHelper.self, ["get"], "protocol=https\nhost=other.example\n\n")
    else {
      Issue.record("not ours")
      return
    }
    #expect(silent == HelperReply(stdout: "", stderr: nil, status: .ok))
    guard case .reply(let cargo) = try step(CargoHelper.self, [], "not json") else {
      Issue.record("cargo")
      return
    }
    #expect(cargo.status == .usage && cargo.stdout.hasPrefix(#"{"Err":{"#))
  }
}

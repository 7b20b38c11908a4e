// Docker's credential helper (docker-credential-strivacity, issue 40) through the real binaries
// against the emulator and the real keyring: the registry's API token from the small binary, the
// protocol's "not found" for any other registry, its error shape for hostile input, no sign-in
// ever started, erase and list, and setup-docker's edits of Docker's and containers' configs.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

extension Harness {
  /// A profile whose API `registry` covers registry.example.com (the emulator's orders API as
  /// far as the tenant is concerned), signed in with it configured (so consent covers it).
  /// `profileLines`: settings of the profile's own table; `url`: the API's.
  func registryProfile(
    _ extra: String = "", profileLines: String = "", url: String = "registry.example.com", signIn: Bool = true
  ) throws {
    try writeProfile(
      """
      \(profileLines)

      [profiles.\(profile).apis.registry]
      url = "\(url)"
      audience = "https://api.example.com/orders"
      resource = ["https://api.example.com/orders/"]
      scopes = ["orders:read"]
      \(extra)
      """)
    if signIn { try self.signIn() }
  }

  /// A directory holding `docker-credential-strivacity`, a link to `binary` (this build's
  /// `strivacity`, as packages link it), for PATH.
  func dockerHelperDirectory(_ binary: String = TestEnvironment.binary("strivacity")) throws -> String {
    let bin = home.file("docker-bin")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    let link = bin + "/docker-credential-strivacity"
    if !FileManager.default.fileExists(atPath: link) {
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: binary)
    }
    return bin
  }

  func dockerHelper(_ arguments: [String], _ input: String?, environment more: [String: String] = [:]) throws
    -> ProcessResult
  {
    let bin = try dockerHelperDirectory()
    return try run(
      [bin + "/docker-credential-strivacity"] + arguments, environment: environment.merging(more) { _, new in new },
      stdin: input)
  }
}

@Suite struct DockerCredentialTests {
  static let notFound = "credentials not found in native keychain\n"

  @Test func getAnswersTheRegistrysAPITokenAndNothingForOtherRegistries() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile("username = \"robot\"")
    let token = try h.strivacity(["token", "--profile", h.profile, "--api", "registry"])
    #expect(token.status == 0, "\(token.stderr)")
    for address in ["registry.example.com", "registry.example.com\n", "https://registry.example.com/v2/"] {
      let get = try h.dockerHelper(["get"], address)
      #expect(get.status == 0, "\(get.stderr)")
      #expect(get.stderr.isEmpty, "\(get.stderr)")
      let answer = try #require(JSONValue.parse(get.stdout), "\(get.stdout)")
      #expect(answer["Secret"]?.string == token.stdout.trimmingCharacters(in: .newlines))
      #expect(answer["Username"]?.string == "robot")
      #expect(answer["ServerURL"]?.string == address.trimmingCharacters(in: .newlines))
    }
    // The sign-in's own token never goes to a registry: the tenant's host, another registry, a
    // port of its own are not the API's.
    for address in ["registry.example.org", "registry.example.com:5000", URL(string: h.emulator.issuer)!.host!] {
      let other = try h.dockerHelper(["get"], address)
      #expect(other.status == 1)
      #expect(other.stdout == Self.notFound)
      // One line says why, and what fixes it (skopeo would only say "invalid username/password").
      #expect(
        other.stderr == "strivacity: error: docker credential: no API covers \(address) (the APIs are "
          + "registry.example.com): run `strivacity setup docker --registry "
          + "\(address) --api NAME`\n", "\(other.stderr)")
    }
  }

  /// A machine profile (client credentials, its secret in the environment): the registry gets its
  /// API's token as for a person, no sign-in involved, and the next `get` is answered from the
  /// kernel's keyring without another token request.
  @Test func aMachineProfilesRegistryTokenComesFromItsClientCredentials() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(
      client: "ci-basic",
      """

      [profiles.\(h.profile).apis.registry]
      url = "registry.example.com"
      audience = "https://api.example.com/orders"
      scopes = ["orders:read"]
      """)
    let secret = ["STRIVACITY_CLIENT_SECRET": "ci-basic-secret-1"]
    for _ in 0..<2 {
      let get = try h.dockerHelper(["get"], "registry.example.com", environment: secret)
      #expect(get.status == 0 && get.stderr.isEmpty, "\(get.stderr)")
      let answer = try #require(JSONValue.parse(get.stdout), "\(get.stdout)")
      #expect(answer["Username"]?.string == "oauth2accesstoken")
      #expect((answer["Secret"]?.string?.count ?? 0) > 0)
    }
    #expect(try h.stats()["client_credentials_requests"]?.int == 1, "the second get came from the cache")
  }

  /// With the agent on and the kernel's cache off, the small binary alone (no full command line
  /// beside it to hand over to) answers Docker's `get`, cargo's and Terraform's from the agent,
  /// which keeps the API's token as it keeps the sign-in's.
  @Test func theAgentAnswersDockerCargoAndTerraformWithoutTheFullCommandLine() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile(profileLines: "hosts = [\"crates.example.com\"]")
    try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let token = try h.strivacity(["token", "--profile", h.profile, "--api", "registry"])
    #expect(token.status == 0, "\(token.stderr)")
    let alone = try h.smallBinaryAlone(links: ["docker-credential-strivacity", "terraform-credentials-strivacity"])
    let get = try run(
      [alone + "/docker-credential-strivacity", "get"], environment: h.environment, stdin: "registry.example.com")
    #expect(get.status == 0, "\(get.stderr)")
    #expect(JSONValue.parse(get.stdout)?["Secret"]?.string == token.stdout.trimmingCharacters(in: .newlines))
    let request =
      #"{"v":1,"registry":{"index-url":"sparse+https://crates.example.com/index/"},"kind":"get","operation":"read","#
      + #""args":["--profile",""# + h.profile + #""]}"# + "\n"
    let cargo = try run([alone + "/strivacity", "--cargo-plugin"], environment: h.environment, stdin: request)
    #expect(cargo.status == 0, "\(cargo.stderr)")
    let answer = cargo.stdout.split(separator: "\n").last.flatMap { JSONValue.parse(String($0)) }
    #expect(answer?["Ok"]?["token"]?.string?.hasPrefix("Bearer ") == true, "\(cargo.stdout)")
    let terraform = try run(
      [alone + "/terraform-credentials-strivacity", "get", "registry.example.com"], environment: h.environment)
    #expect(terraform.status == 0, "\(terraform.stderr)")
    #expect(JSONValue.parse(terraform.stdout)?["token"]?.string == token.stdout.trimmingCharacters(in: .newlines))
    let status = try h.strivacity(["agent", "status"])
    let answered = Int(status.stdout.split(separator: "answered  ").last?.prefix { $0.isNumber } ?? "") ?? 0
    #expect(answered >= 4, "\(status.stdout)")
  }

  /// A cached token is the small binary's to answer: with no full command line beside it, the
  /// registry still gets its token (and a registry of no API its "not found").
  @Test func aCachedGetIsAnsweredByTheSmallBinaryAlone() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile()
    let token = try h.strivacity(["token", "--profile", h.profile, "--api", "registry"])
    #expect(token.status == 0, "\(token.stderr)")
    let alone = try h.smallBinaryAlone()
    let get = try run(
      [alone + "/docker-credential-strivacity", "get"], environment: h.environment, stdin: "registry.example.com")
    #expect(get.status == 0, "\(get.stderr)")
    #expect(JSONValue.parse(get.stdout)?["Secret"]?.string == token.stdout.trimmingCharacters(in: .newlines))
    let other = try run(
      [alone + "/docker-credential-strivacity", "get"], environment: h.environment, stdin: "x.example")
    #expect(other.status == 1 && other.stdout == Self.notFound, "\(other.stderr)")
  }

  /// Malformed JSON, an unknown verb, user info, path tricks, escapes and 1 MiB: the protocol's
  /// error (a line on stdout, exit 1), nothing raw on the terminal, no token anywhere.
  @Test func hostileInputGetsTheProtocolsErrorAndNoToken() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile()
    let token = try h.strivacity(["token", "--profile", h.profile, "--api", "registry"]).stdout
      .trimmingCharacters(in: .newlines)
    let cases: [([String], String?)] = [
      (["store"], "{\"ServerURL\": \"registry.example.com\", \"Username\": "),
      (["store"], "{\"ServerURL\":\"registry.example.com\",\"Username\":\"u\",\"Secret\":\"s\"}"),
      (["bogus"], "registry.example.com"), (["get", "extra"], "registry.example.com"), ([], nil),
      (["--help\u{1b}]0;x\u{7}"], nil),
      (["get"], "user@registry.example.com"), (["get"], "https://user:pw@registry.example.com/"),
      (["get"], "registry.example.com/%2e%2e/x"), (["get"], "registry.example.com/..;/x"),
      (["get"], "registry.example.com\u{1b}[2J"), (["get"], "\u{1b}]52;c;aGk=\u{7}registry.example.com"),
      (["get"], String(repeating: "registry.example.com/", count: 50_000)), (["erase"], "user@registry.example.com"),
      (["get"], ""),
    ]
    for (arguments, input) in cases {
      let result = try h.dockerHelper(arguments, input)
      #expect(result.status == 1, "\(arguments) \(result.stdout) \(result.stderr)")
      #expect(
        result.stdout.hasSuffix("\n") && result.stdout.dropLast().split(separator: "\n").count == 1, "\(result.stdout)")
      #expect(!result.stdout.contains(token) && !result.stderr.contains(token))
      for text in [result.stdout, result.stderr] {
        #expect(!text.contains("\u{1b}") && !text.contains("\u{7}"), "\(text)")
        #expect(!text.contains("user@") && !text.contains("pw@") && !text.contains("aGk="), "\(text)")
      }
      #expect(result.stdout != Self.notFound, "a refusal is not 'not found': \(arguments)")
    }
  }

  /// Never a sign-in: a profile not signed in gets the protocol's error and one stderr line
  /// naming `strivacity login`, at once, even on a terminal's environment.
  @Test func theHelperNeverSignsIn() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile(signIn: false)
    let get = try h.dockerHelper(["get"], "registry.example.com")
    #expect(get.status == 1)
    #expect(get.stdout.contains("strivacity login"), "\(get.stdout)")
    let lines = get.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("strivacity login --profile \(h.profile)"), "\(get.stderr)")
    #expect((try h.stats()["grants"]?.object ?? [:]).isEmpty, "no token was asked for")
  }

  /// Docker hands one registry credential to every path of a host, so an API on only a path of
  /// it (its token cached) answers no address on the host, neither from the small binary alone
  /// nor from the full command line: the protocol's "not found" (Terraform's rule).
  @Test func anAPIOnOnlyAPathOfARegistrysHostAnswersNoAddressOnIt() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile(url: "https://registry.example.com/team/")
    let token = try h.strivacity(["token", "--profile", h.profile, "--api", "registry"])
    #expect(token.status == 0, "\(token.stderr)")
    let alone = try h.smallBinaryAlone()
    for address in ["registry.example.com/team/app", "https://registry.example.com/team/", "registry.example.com"] {
      let small = try run(
        [alone + "/docker-credential-strivacity", "get"], environment: h.environment, stdin: address)
      #expect(small.status == 1 && small.stdout == Self.notFound, "small, \(address): \(small.stdout)")
      let full = try run(
        [TestEnvironment.binary("strivacity-cli"), "docker-credential", "get"], environment: h.environment,
        stdin: address)
      #expect(full.status == 1 && full.stdout == Self.notFound, "full, \(address): \(full.stdout)")
    }
    let list = try h.dockerHelper(["list"], nil)
    #expect(list.status == 0 && list.stdout == "{}\n", "\(list.stdout)")
    // setup-docker refuses the registry by the same rule, naming the API and why; nothing written.
    for extra in [[], ["--api", "registry"]] {
      let setup = try h.strivacity(
        ["setup-docker", "--profile", h.profile, "--registry", "registry.example.com"] + extra)
      #expect(setup.status == 2, "\(setup.stderr)")
      #expect(setup.stderr.contains("API registry of profile \(h.profile) covers only"), "\(setup.stderr)")
      #expect(!FileManager.default.fileExists(atPath: h.home.file(".docker/config.json")))
    }
  }

  @Test func eraseMakesTheNextGetRefreshAndListNamesTheRegistries() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile()
    let first = try h.dockerHelper(["get"], "registry.example.com")
    #expect(first.status == 0, "\(first.stderr)")
    let erase = try h.dockerHelper(["erase"], "registry.example.com")
    #expect(erase.status == 0 && erase.stdout.isEmpty, "\(erase.stdout) \(erase.stderr)")
    let second = try h.dockerHelper(["get"], "registry.example.com")
    #expect(second.status == 0, "\(second.stderr)")
    let secrets = [first, second].map { JSONValue.parse($0.stdout)?["Secret"]?.string }
    #expect(secrets[0] != nil && secrets[1] != nil && secrets[0] != secrets[1], "erase makes the next get refresh")
    let unknown = try h.dockerHelper(["erase"], "registry.example.org")
    #expect(unknown.status == 1 && unknown.stdout == Self.notFound)
    let list = try h.dockerHelper(["list"], nil)
    #expect(list.status == 0)
    #expect(list.stdout == "{\"registry.example.com\":\"oauth2accesstoken\"}\n")
  }

  @Test func setupDockerWritesCredHelpersKeepingEverythingElse() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile(signIn: false)
    let dockerConfig = h.home.file(".docker/config.json")
    try FileManager.default.createDirectory(atPath: h.home.file(".docker"), withIntermediateDirectories: true)
    try #"{"auths":{"other.example":{"auth":"dTpw"}},"credHelpers":{"gcr.io":"gcloud"},"psFormat":"{{.ID}}"}"#
      .write(toFile: dockerConfig, atomically: true, encoding: .utf8)
    // Containers' auth file a link into a dotfiles checkout: it stays a link.
    let dotfiles = h.home.file("dotfiles/auth.json")
    try FileManager.default.createDirectory(atPath: h.home.file("dotfiles"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: h.home.file(".config/containers"), withIntermediateDirectories: true)
    try "{}".write(toFile: dotfiles, atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: h.home.file(".config/containers/auth.json"), withDestinationPath: dotfiles)
    var env = h.environment
    env["PATH"] = try h.dockerHelperDirectory() + ":/usr/bin:/bin"
    let setup = try run(
      [
        TestEnvironment.binary("strivacity"), "setup-docker", "--profile", h.profile, "--registry",
        "registry.example.com",
      ],
      environment: env)
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(!setup.stderr.contains("warning"), "the helper is on PATH: \(setup.stderr)")
    let docker = try #require(JSONValue.parse(try String(contentsOfFile: dockerConfig, encoding: .utf8)))
    #expect(docker["credHelpers"]?["registry.example.com"]?.string == "strivacity")
    #expect(docker["credHelpers"]?["gcr.io"]?.string == "gcloud")
    #expect(docker["auths"]?["other.example"]?["auth"]?.string == "dTpw")
    #expect(docker["psFormat"]?.string == "{{.ID}}")
    let containers = try #require(
      JSONValue.parse(try String(contentsOfFile: h.home.file(".config/containers/auth.json"), encoding: .utf8)))
    #expect(containers["credHelpers"]?["registry.example.com"]?.string == "strivacity")
    #expect(
      (try? FileManager.default.destinationOfSymbolicLink(atPath: h.home.file(".config/containers/auth.json")))
        == dotfiles)
    #expect(try String(contentsOfFile: dotfiles, encoding: .utf8).contains("registry.example.com"))
    // No API covers another registry: refused, nothing written; --api NAME adds one.
    let uncovered = try h.strivacity(["setup-docker", "--profile", h.profile, "--registry", "localhost:5000"])
    #expect(uncovered.status == 2 && uncovered.stderr.contains("--api NAME"), "\(uncovered.stderr)")
    let added = try h.strivacity([
      "setup-docker", "--profile", h.profile, "--registry", "localhost:5000", "--api", "local",
    ])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stderr.contains("not on PATH"), "a PATH without the helper is said: \(added.stderr)")
    let config = try String(contentsOfFile: h.home.file(".config/strivacity/config.toml"), encoding: .utf8)
    #expect(config.contains("[profiles.\(h.profile).apis.local]\nurl = \"localhost:5000\""), "\(config)")
    // Another profile's API that comes first in the file would get the token: refused before
    // anything is written, --api's new entry included.
    let own = try h.home.readConfig()
    try h.home.writeConfig(
      StrivacityConfig.profile(
        "first", tenant: h.emulator.issuer, clientID: "strivacity-cli",
        "\n[profiles.first.apis.theirs]\nurl = \"other.example.com\"\n\n") + own)
    let before = try h.home.readConfig()
    let taken = try h.strivacity([
      "setup-docker", "--profile", h.profile, "--registry", "other.example.com", "--api", "mine",
    ])
    #expect(taken.status == 2 && taken.stderr.contains("comes first"), "\(taken.stderr)")
    #expect(try h.home.readConfig() == before, "nothing written")
    // A tool's place named by a relative path is refused: the tool would find it elsewhere.
    var relative = h.environment
    relative["DOCKER_CONFIG"] = "dot-docker"
    let refusedPlace = try run(
      [
        TestEnvironment.binary("strivacity"), "setup-docker", "--profile", h.profile, "--registry", "other.example.com",
      ],
      environment: relative)
    #expect(refusedPlace.status == 2 && refusedPlace.stderr.contains("DOCKER_CONFIG is not an absolute path"))
    // https://HOST is HOST (the way setup api names it); --dry-run says what it would write, and
    // writes nothing.
    let written = try String(contentsOfFile: dockerConfig, encoding: .utf8)
    let dry = try h.strivacity([
      "setup", "docker", "--profile", h.profile, "--registry", "https://registry.example.com/", "--undo", "--dry-run",
    ])
    #expect(dry.status == 0, "\(dry.stderr)")
    #expect(
      dry.stdout.contains("would write \(dockerConfig):\n  remove credHelpers.registry.example.com\n"), "\(dry.stdout)")
    #expect(try String(contentsOfFile: dockerConfig, encoding: .utf8) == written, "nothing written")
    // Bad registries are usage errors.
    for bad in ["https://registry.example.com/v2/", "user@registry.example.com", "registry.example.com/team"] {
      let refused = try h.strivacity(["setup-docker", "--profile", h.profile, "--registry", bad])
      #expect(refused.status == 2, "\(bad): \(refused.stderr)")
    }
    // --undo removes only strivacity's entries.
    let undo = try h.strivacity([
      "setup-docker", "--profile", h.profile, "--registry", "registry.example.com", "--undo",
    ])
    #expect(undo.status == 0, "\(undo.stderr)")
    let after = try #require(JSONValue.parse(try String(contentsOfFile: dockerConfig, encoding: .utf8)))
    #expect(after["credHelpers"]?["registry.example.com"] == nil)
    #expect(after["credHelpers"]?["gcr.io"]?.string == "gcloud" && after["credHelpers"]?["localhost:5000"] != nil)
    #expect(after["auths"]?["other.example"]?["auth"]?.string == "dTpw")
    // A file that held only strivacity's entries is left as it was before them.
    let last = try h.strivacity(["setup-docker", "--profile", h.profile, "--registry", "localhost:5000", "--undo"])
    #expect(last.status == 0, "\(last.stderr)")
    #expect(try String(contentsOfFile: dotfiles, encoding: .utf8) == "{}\n")
    // A config that is not JSON is left alone.
    try "not json".write(toFile: dockerConfig, atomically: true, encoding: .utf8)
    let broken = try h.strivacity(["setup-docker", "--profile", h.profile, "--registry", "registry.example.com"])
    #expect(broken.status != 0 && broken.stderr.contains("not a JSON object"), "\(broken.stderr)")
    #expect(try String(contentsOfFile: dockerConfig, encoding: .utf8) == "not json")
  }
}

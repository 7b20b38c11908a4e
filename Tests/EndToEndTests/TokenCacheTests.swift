// The access-token cache in the kernel's user keyring (KernelTokenCache, HotPath): what `token`
// answers without the Secret Service, and every event that must change or end it — refresh,
// sign-in, logout, revoke, git rejecting the token — for this profile only, this user only.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing
import TokenCache

@Suite struct TokenCacheTests {
  /// `strivacity token` with LD_DEBUG=files: its output, and whether it loaded libsecret.
  func token(_ h: Harness, _ extra: [String] = [], environment: [String: String] = [:]) throws -> (
    result: ProcessResult, keyring: Bool
  ) {
    var env = h.environment.merging(environment) { _, new in new }
    env["LD_DEBUG"] = "files"
    let result = try run(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile] + extra, environment: env)
    return (result, result.stderr.contains("file=libsecret"))
  }

  func stored(_ h: Harness) throws -> String { try h.storedSecret()?["tokens"]?["access_token"]?.string ?? "" }

  @Test func aCachedTokenIsAnsweredWithoutTheKeyring() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    #expect(h.cachedToken() == (try stored(h)), "the sign-in filled the cache")
    for format in ["raw", "header", "json", "env", "curl", "exec-credential", "google-executable"] {
      let (result, keyring) = try token(h, ["--format", format])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(!keyring, "--format \(format): answered from the cache")
      let slow = try h.strivacity(["token", "--profile", h.profile, "--format", format, "--id-token"])  // never cached
      #expect(slow.status == 0)
    }
    #expect(try token(h).result.stdout == (try stored(h)) + "\n")
    // What the cache does not answer goes the ordinary way: an ID token, --verbose, the cache
    // switched off.
    #expect(try token(h, ["--id-token"]).keyring)
    #expect(try token(h, ["--verbose"]).keyring)
    #expect(try token(h, environment: ["STRIVACITY_TOKEN_CACHE": "off"]).keyring)
  }

  @Test func refreshAndSignInReplaceIt() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let first = try stored(h)
    try h.expireStoredAccessToken(in: 5)  // drops the entry, as time passing would make it due
    let (refreshed, keyring) = try token(h)
    #expect(refreshed.status == 0 && keyring)
    #expect(try h.grants("refresh_token") == 1)
    #expect(refreshed.stdout != first + "\n")
    #expect(h.cachedToken() == (try stored(h)), "the refreshed token is cached")
    #expect(try !token(h).keyring)
    try h.signIn()
    #expect(h.cachedToken() == (try stored(h)), "a new sign-in replaces it")
    #expect(try token(h).result.stdout == (try stored(h)) + "\n")
  }

  @Test(arguments: [["logout"], ["logout", "--local"], ["revoke"]])
  func logoutAndRevokeEndIt(_ command: [String]) throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    #expect(h.cachedToken() != nil)
    #expect(try h.strivacity(command + ["--profile", h.profile]).status == 0)
    #expect(h.cachedToken() == nil)
    let after = try token(h)
    #expect(after.result.status == 3, "signed out, whatever was cached: \(after.result.stderr)")
  }

  /// git's `get` is answered from the cache too; without a cached token the request read for it
  /// reaches the ordinary path intact.
  @Test func gitsGetIsAnsweredFromItToo() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("git_hosts = [\"git.example.com\"]")
    try h.signIn()
    func get() throws -> (result: ProcessResult, keyring: Bool) {
      var env = h.environment
      env["LD_DEBUG"] = "files"
      let result = try run(
        [TestEnvironment.binary("strivacity"), "credential", "get"], environment: env,
        stdin: "protocol=https\nhost=git.example.com\n\n")
      return (result, result.stderr.contains("file=libsecret"))
    }
    let cached = try get()
    #expect(cached.result.status == 0 && !cached.keyring)
    #expect(cached.result.stdout.contains("password=\(try stored(h))\n"), "\(cached.result.stdout)")
    h.dropCachedToken()
    let ordinary = try get()
    #expect(ordinary.result.status == 0 && ordinary.keyring)
    #expect(ordinary.result.stdout == cached.result.stdout, "the same answer, from the keyring")
    #expect(try !get().keyring, "and cached again")
  }

  /// The hot path is the small binary's own: a copy of it with no strivacity-cli anywhere
  /// answers `token` and git's `get` from the cache; once the entry is gone, it has to hand over
  /// (and says that the full command line is missing).
  @Test func theSmallBinaryAnswersByItself() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("git_hosts = [\"git.example.com\"]")
    try h.signIn()
    let alone = try ScratchDirectory("alone")
    let bin = alone.file("strivacity")
    try copyExecutable(TestEnvironment.binary("strivacity"), to: bin)
    let current = try stored(h)
    let token = try run([bin, "token", "--profile", h.profile], environment: h.environment)
    #expect(token.status == 0 && token.stdout == current + "\n", "\(token.stderr)")
    let get = try run(
      [bin, "credential", "get"], environment: h.environment, stdin: "protocol=https\nhost=git.example.com\n\n")
    #expect(get.status == 0 && get.stdout.contains("password=\(current)\n"), "\(get.stderr)")
    h.dropCachedToken()
    let handedOver = try run([bin, "token", "--profile", h.profile], environment: h.environment)
    #expect(handedOver.status == 1 && handedOver.stderr.contains("strivacity-cli is missing"), "\(handedOver.stderr)")
  }

  /// A profile whose tokens are in the file store (servers, containers, machines without a
  /// desktop: issue 48, point 4) is answered by the small binary too, from the cache the full
  /// command line fills: alone, it answers `token` and git's `get`; a refresh replaces the entry
  /// and logout ends it.
  @Test func aFileStoreProfileIsAnsweredByTheSmallBinary() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("store = \"file\"\ngit_hosts = [\"git.example.com\"]")
    try h.signIn()
    #expect(FileManager.default.fileExists(atPath: h.home.file(".local/state/strivacity/tokens/\(h.profile).json")))
    // What the file holds, read by the full command line with the cache off.
    let fromFile = try run(
      [TestEnvironment.binary("strivacity-cli"), "token", "--profile", h.profile],
      environment: h.environment.merging(["STRIVACITY_TOKEN_CACHE": "off"]) { _, new in new })
    let current = String(fromFile.stdout.dropLast())
    #expect(fromFile.status == 0 && !current.isEmpty, "\(fromFile.stderr)")
    #expect(h.cachedToken() == current, "the sign-in filled the cache")
    let alone = try ScratchDirectory("alone")
    let bin = alone.file("strivacity")
    try copyExecutable(TestEnvironment.binary("strivacity"), to: bin)
    let token = try run([bin, "token", "--profile", h.profile], environment: h.environment)
    #expect(token.status == 0 && token.stdout == current + "\n", "\(token.stderr)")
    let get = try run(
      [bin, "credential", "get"], environment: h.environment, stdin: "protocol=https\nhost=git.example.com\n\n")
    #expect(get.status == 0 && get.stdout.contains("password=\(current)\n"), "\(get.stderr)")
    let refreshed = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(refreshed.status == 0 && refreshed.stdout != current + "\n", "\(refreshed.stderr)")
    #expect(h.cachedToken().map { $0 + "\n" } == refreshed.stdout, "the refreshed token is cached")
    #expect(try h.strivacity(["logout", "--profile", h.profile]).status == 0)
    #expect(h.cachedToken() == nil)
    let after = try run([bin, "token", "--profile", h.profile], environment: h.environment)
    #expect(after.status == 1 && after.stderr.contains("strivacity-cli is missing"), "\(after.stderr)")
  }

  @Test func gitRejectingTheTokenEndsIt() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("git_hosts = [\"git.example.com\"]")
    try h.signIn()
    let rejected = try stored(h)
    let erase = try run(
      [TestEnvironment.binary("strivacity"), "credential", "erase"], environment: h.environment,
      stdin: "protocol=https\nhost=git.example.com\nusername=x\npassword=\(rejected)\n\n")
    #expect(erase.status == 0, "\(erase.stderr)")
    #expect(h.cachedToken() == nil)
    let next = try token(h)
    #expect(next.result.status == 0 && next.result.stdout != rejected + "\n", "refreshed, not the rejected one")
  }

  @Test func eachProfileHasItsOwn() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let other = "other-" + h.profile
    let login = try run(
      h.loginArguments(sdk: "web", ["--field", "identifier=demo@example.com", "--field-env", "password=PW"])
        .map { $0 == h.profile ? other : $0 },
      environment: h.environment.merging(["PW": "Demo-pass-1"]) { $1 })
    #expect(login.status == 0, "\(login.stderr)")
    let mine = try stored(h)
    let theirs = try h.storedSecret(profile: other)?["tokens"]?["access_token"]?.string
    #expect(mine != theirs)
    #expect(try token(h).result.stdout == mine + "\n")
    #expect(h.cachedToken(profile: other) == theirs)
    #expect(try h.strivacity(["logout", "--local", "--profile", other]).status == 0)
    #expect(h.cachedToken() == mine, "logging out of another profile leaves this one's")
  }

  /// The entry is this user's: mode possessor+user only, and another user cannot read it.
  @Test func anotherUserCannotReadIt() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let description = KernelTokenCache.description(
      StoreKey(profile: h.profile, issuer: h.emulator.issuer, clientID: "strivacity-cli"))
    let search = try run(["/usr/bin/keyctl", "search", "@u", "user", description], environment: [:])
    let serial = search.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(search.status == 0 && !serial.isEmpty, "\(search.stderr)")
    let keys = try run(["/bin/cat", "/proc/keys"], environment: [:]).stdout  // procfs: sizes read as 0
    let line = keys.split(separator: "\n").first { $0.contains(" " + description + ":") }
    #expect(
      line?.split(separator: " ", omittingEmptySubsequences: true)[4] == "3f3f0000",
      "possessor and user only: \(line ?? "")")
    let stranger = try run(
      [
        "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/keyctl", "print",
        serial,
      ], environment: [:])
    #expect(stranger.status != 0, "another user read it: \(stranger.stdout)")
    #expect(!stranger.stdout.contains("sat_"))
  }
}

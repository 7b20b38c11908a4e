// Issue 46, point 5, through the real binaries against the emulator and the real keyring: an
// API's audience, resource or scopes changed in the config between two calls, the token minted
// for the old settings is handed out by nobody — not the small binary from the kernel's cache
// (nor Docker's helper), not the full command line from the keyring, not the agent from its
// memory, not a machine profile's kernel store — and the next ask gets a token for the new ones.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite(.serialized) struct APISettingsChangeTests {
  /// The `registry` API's settings before and after one change (the emulator's orders API), and
  /// what the new token shows of it.
  struct Change: Sendable, CustomTestStringConvertible {
    var name: String
    var before: String
    var after: String
    /// A claim of the new token and a value it must hold (nil: only that it is another token).
    var claim: (name: String, value: String)?
    var testDescription: String { name }
  }

  static let resource = "resource = [\"https://api.example.com/orders/\"]"
  static let read = "scopes = [\"orders:read\"]"
  static let audience = "audience = \"https://api.example.com/orders\""

  static let changes: [Change] = [
    Change(name: "audience", before: [resource, read].lines, after: [resource, read, audience].lines),
    Change(
      name: "resource", before: [audience, resource, read].lines,
      after: [audience, "resource = [\"ISSUERresources/orders/\"]", read].lines,
      claim: ("aud", "ISSUERresources/orders/")
    ),
    Change(
      name: "scopes", before: [audience, resource, read].lines,
      after: [audience, resource, "scopes = [\"orders:read\", \"orders:write\"]"].lines,
      claim: ("scope", "orders:read orders:write")),
  ]

  /// The profile's `registry` API (Docker's registry.example.com) with `settings`.
  func configure(_ h: Harness, _ settings: String, machine: Bool = false) throws {
    let table = """

      [profiles.\(h.profile).apis.registry]
      url = "registry.example.com"
      \(settings.replacingOccurrences(of: "ISSUER", with: h.emulator.issuer))
      """
    if machine { try h.writeMachineProfile(client: "ci-bot", table) } else { try h.writeProfile(table) }
  }

  /// Signed in with every setting the changes use in the config, so consent covers them all.
  func signedIn() throws -> Harness {
    let h = try Harness(journey: "password")
    try configure(h, [Self.audience, Self.resource, "scopes = [\"orders:read\", \"orders:write\"]"].lines)
    try h.signIn()
    return h
  }

  func token(_ h: Harness, _ binary: String = TestEnvironment.binary("strivacity"), environment: [String: String] = [:])
    throws -> ProcessResult
  {
    try run(
      [binary, "token", "--profile", h.profile, "--api", "registry"],
      environment: h.environment.merging(environment) { _, new in new })
  }

  func dockerGet(_ h: Harness, _ binary: String) throws -> String? {
    let get = try run([binary, "get"], environment: h.environment, stdin: "registry.example.com")
    return get.status == 0 ? JSONValue.parse(get.stdout)?["Secret"]?.string : nil
  }

  func apiRequests(_ h: Harness) throws -> Int { try h.stats()["api_token_requests"]?["orders"]?.int ?? 0 }

  func expectClaim(_ token: String, _ change: Change, _ h: Harness) throws {
    guard let (name, value) = change.claim else { return }
    let wanted = value.replacingOccurrences(of: "ISSUER", with: h.emulator.issuer)
    let claim = try jwtClaims(token)[name]
    #expect(
      claim?.string == wanted || claim?.array?.contains(.string(wanted)) == true,
      "\(name): \(String(describing: claim))")
  }

  /// The small binary alone (no full command line beside it) has nothing to give for the new
  /// settings, neither for `token --api` nor Docker's `get`; the full command line with the
  /// kernel's cache off (the keyring's item) asks for a new token; then the small binary answers
  /// that one from the cache.
  @Test(arguments: changes) func neitherBinaryHandsOutTheOldSettingsToken(_ change: Change) throws {
    let h = try signedIn()
    try configure(h, change.before)
    let first = try token(h)
    #expect(first.status == 0, "\(first.stderr)")
    let alone = try h.smallBinaryAlone()
    #expect(try token(h, alone + "/strivacity").stdout == first.stdout, "cached for the settings it was minted for")
    try configure(h, change.after)
    let small = try token(h, alone + "/strivacity")
    #expect(small.stdout != first.stdout, "the small binary handed out the old settings' token")
    #expect(try dockerGet(h, alone + "/docker-credential-strivacity") == nil)
    let full = try token(h, environment: ["STRIVACITY_TOKEN_CACHE": "off"])
    #expect(full.status == 0 && full.stdout != first.stdout, "from the keyring: \(full.stderr)")
    #expect(try apiRequests(h) == 2)
    try expectClaim(full.stdout.trimmingCharacters(in: .newlines), change, h)
    // Kept for the new settings: asked again, no request; the small binary alone answers it.
    #expect(try token(h).stdout == full.stdout)
    #expect(try token(h, alone + "/strivacity").stdout == full.stdout)
    let secret = try dockerGet(h, alone + "/docker-credential-strivacity")
    #expect(secret == full.stdout.trimmingCharacters(in: .newlines))
    #expect(try apiRequests(h) == 2)
    // Each settings' token is an item of its own, named by the API; logout deletes them all.
    func search() throws -> String {
      let found = try run(
        ["/usr/bin/secret-tool", "search", "--all", "profile", h.profile], environment: h.environment)
      return found.stdout + found.stderr
    }
    let items = try search()
    #expect(items.components(separatedBy: "attribute.slot = registry.").count == 3, "\(items)")
    #expect(try h.strivacity(["logout", "--profile", h.profile]).status == 0)
    let left = try search()
    #expect(!left.contains("slot"), "\(left)")
  }

  /// The agent (the kernel's cache off) holds the API's token in memory: the config changed, it
  /// asks for one for the new settings, whether `token --api` or Docker's `get` asks it.
  @Test func theAgentHandsOutNoTokenForTheOldSettings() throws {
    let h = try signedIn()
    let change = Self.changes[2]
    try configure(h, change.before)
    try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let first = try token(h)
    #expect(first.status == 0, "\(first.stderr)")
    try configure(h, change.after)
    let alone = try h.smallBinaryAlone()
    let second = try token(h, alone + "/strivacity")
    #expect(second.status == 0 && second.stdout != first.stdout, "from the agent: \(second.stderr)")
    try expectClaim(second.stdout.trimmingCharacters(in: .newlines), change, h)
    #expect(
      try dockerGet(h, alone + "/docker-credential-strivacity") == second.stdout.trimmingCharacters(in: .newlines))
    #expect(try apiRequests(h) == 2)
  }

  /// A machine profile's API token, kept in the kernel's keyring (where the small binary reads
  /// it): a scope added, a new client-credentials request for it.
  @Test func aMachineProfilesChangedAPIGetsANewToken() throws {
    let h = try Harness(journey: "machine")
    h.extraEnvironment["STRIVACITY_CLIENT_SECRET"] = MachineProfileTests.botSecret
    let change = Self.changes[2]
    try configure(h, change.before, machine: true)
    let first = try token(h)
    #expect(first.status == 0, "\(first.stderr)")
    let alone = try h.smallBinaryAlone()
    #expect(try token(h, alone + "/strivacity").stdout == first.stdout)
    try configure(h, change.after, machine: true)
    #expect(try token(h, alone + "/strivacity").stdout != first.stdout, "the old settings' token")
    let second = try token(h)
    #expect(second.status == 0 && second.stdout != first.stdout, "\(second.stderr)")
    try expectClaim(second.stdout.trimmingCharacters(in: .newlines), change, h)
    #expect(h.clientCredentialsRequests == 2)
    #expect(try token(h, alone + "/strivacity").stdout == second.stdout)
  }
}

extension [String] {
  /// TOML lines.
  fileprivate var lines: String { joined(separator: "\n") }
}

// `doctor` tries the credentials (issue 39, point 2; TokenBroker's CredentialTry.swift), in-process
// against the fake tenant: a machine profile's secret by one client-credentials request whose
// token is not kept, a person's refresh token by one refresh through the broker's own path;
// refused credentials are a failure quoting the tenant's error with the fix; what was not tried
// says why.
import Broker
import Foundation
import OAuthCore
import StrivacityConfig
import StrivacityCore
import Testing

/// A machine profile that names no secret source: its secret is STRIVACITY_CLIENT_SECRET's, or
/// the one `login --client-secret-stdin` kept.
private let unconfiguredMachineProfile = """
  [profiles.ci]
  tenant = "https://tenant.example"
  client_id = "ci-bot"
  grant = "client_credentials"
  token_endpoint_auth = "client_secret_post"

  """

@Suite struct DoctorCredentialsTests {
  static func discovery(_ bench: Bench) throws -> Discovery {
    let document = try bench.tenant.send(
      HTTPRequest(url: bench.tenant.base + "/.well-known/openid-configuration", headers: []))
    return try Discovery(json: JSONValue.parse(document.body) ?? .null)
  }

  /// The credentials row of the machine profile `ci`, the tenant reached or not.
  static func machineRow(_ bench: Bench, reached: Bool = true) throws -> DoctorCheck {
    try bench.broker("ci").triedMachineCredentials(
      discovery: reached ? try discovery(bench) : nil, untried: "the tenant cannot be reached", progress: nil)
  }

  /// The credentials row of the person's profile `work` holding `held`, the tenant reached or not.
  static func personRow(_ bench: Bench, _ held: TokenSet?, reached: Bool = true) throws -> DoctorCheck {
    try bench.broker("work").triedRefreshToken(
      .success(held), discovery: reached ? try discovery(bench) : nil, untried: "the tenant cannot be reached",
      progress: nil)
  }

  // MARK: a machine profile

  @Test func aTakenSecretPassesAndItsTokenIsNotKept() throws {
    let bench = try Bench(
      profile: machineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("at-machine") },
      environment: ["CI_SECRET": "right"])
    let check = try Self.machineRow(bench)
    #expect(check.outcome == .pass, "\(check.detail)")
    #expect(
      check.detail.hasPrefix("client secret from CI_SECRET (read, not shown): the tenant gave client ci-bot a token"),
      "\(check.detail)")
    #expect(bench.tenant.tokenRequests.count == 1)
    #expect(bench.tenant.tokenRequests.first?["grant_type"] == "client_credentials")
    // Only the discovery this test fetched and the one token request: the document was used.
    #expect(bench.tenant.requests.count == 2)
    #expect(try bench.store.keys().isEmpty, "the token was kept")
    #expect(!check.detail.contains("right") && !check.detail.contains("at-machine"))
  }

  /// The acceptance: a wrong secret fails the row with the tenant's error and the fix, and the
  /// report's exit status is the refused client's (9).
  @Test func aRefusedSecretFailsWithTheTenantsErrorAndTheFix() throws {
    let tenant = FakeTenant { _ in
      FakeTenant.json(
        ["error": "invalid_client", "error_description": "Client authentication failed \u{1B}[2J(bad secret)"],
        status: 401)
    }
    let bench = try Bench(profile: machineProfile, tenant: tenant, environment: ["CI_SECRET": "wrong"])
    let check = try Self.machineRow(bench)
    #expect(check.outcome == .fail && check.status == .clientRefused)
    #expect(
      check.detail.contains(
        "the tenant refused the client secret for ci-bot (invalid_client: Client authentication failed ^[[2J(bad "
          + "secret))"), "\(check.detail)")
    #expect(check.detail.contains("CI_SECRET") && !check.detail.contains("wrong"), "\(check.detail)")
    #expect(check.fix == "set CI_SECRET to client ci-bot's current secret")
    #expect(bench.tenant.tokenRequests.count == 1)
    #expect(try bench.store.keys().isEmpty)
  }

  @Test func aGrantTheClientMayNotUseNamesTheTenantsSetting() throws {
    let bench = try Bench(
      profile: machineProfile, tenant: FakeTenant { _ in FakeTenant.error("unauthorized_client") },
      environment: ["CI_SECRET": "right"])
    let check = try Self.machineRow(bench)
    #expect(check.outcome == .fail && check.status == .clientRefused)
    #expect(check.detail.contains("unauthorized_client"), "\(check.detail)")
    #expect(check.fix == "allow the client-credentials grant for client ci-bot at the tenant")
  }

  @Test func aTenantNotReachedIsNotTried() throws {
    let bench = try Bench(
      profile: machineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("x") }, environment: ["CI_SECRET": "s"])
    let check = try Self.machineRow(bench, reached: false)
    #expect(check.outcome == .skipped)
    #expect(
      check.detail == "client secret from CI_SECRET (read, not shown); not tried: the tenant cannot be reached")
    #expect(bench.tenant.requests.isEmpty)
  }

  /// The configured variable unset: the row names it and how to set it; nothing is sent.
  @Test func aMissingSecretNamesItsVariable() throws {
    let bench = try Bench(profile: machineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("x") })
    let check = try Self.machineRow(bench)
    #expect(check.outcome == .fail && check.status == .usage)
    #expect(check.detail.contains("the environment variable CI_SECRET, which is not set"), "\(check.detail)")
    #expect(check.fix == "set CI_SECRET to client ci-bot's current secret")
    #expect(bench.tenant.tokenRequests.isEmpty)
  }

  /// No source at all: the row says what was looked for (the variable, the config's keys, the
  /// kept secret) and how to give one; with a kept secret, it is tried.
  @Test func noSecretAnywhereSaysWhatWasLookedFor() throws {
    let bench = try Bench(profile: unconfiguredMachineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("x") })
    let missing = try Self.machineRow(bench)
    #expect(missing.outcome == .fail && missing.status == .usage)
    #expect(
      missing.detail
        == "no client secret: STRIVACITY_CLIENT_SECRET is not set and [profiles.ci] names no client_secret_env or "
        + "client_secret_file, and the keyring holds none kept by strivacity login", "\(missing.detail)")
    #expect(
      missing.fix.hasPrefix("strivacity login --profile ci --client-secret-stdin, or set STRIVACITY_CLIENT_SECRET"))
    #expect(bench.tenant.tokenRequests.isEmpty)

    try bench.secrets.save(Array("kept".utf8), for: try bench.broker("ci").secretKey)
    let kept = try Self.machineRow(bench)
    #expect(kept.outcome == .pass, "\(kept.detail)")
    #expect(kept.detail.hasPrefix("client secret kept in the keyring (read, not shown): the tenant gave"))
    #expect(bench.tenant.tokenRequests.first?["client_secret"] == "kept")
  }

  // MARK: a person's profile

  @Test func aLiveRefreshTokenIsRefreshedOnceAndTheNewSetKept() throws {
    let bench = try Bench(
      profile: personProfile, tenant: FakeTenant { _ in FakeTenant.tokens("at-2", refresh: "rt-2") })
    try bench.signedIn(
      TokenSet(accessToken: "at-1", refreshToken: "rt-1", expiresAt: bench.now + 3600, obtainedAt: bench.now), "work")
    let key = try bench.broker("work").key
    let check = try Self.personRow(bench, try bench.store.load(key))
    #expect(check.outcome == .pass, "\(check.detail)")
    #expect(
      check.detail
        == "the tenant took the refresh token (one refresh; the new tokens are kept; access token valid for 3600 s)")
    #expect(bench.tenant.tokenRequests.map { $0["refresh_token"] } == ["rt-1"])
    let stored = try #require(try bench.store.load(key))
    #expect(stored.refreshToken?.value == "rt-2" && stored.accessToken.value == "at-2")
  }

  @Test func aDeadRefreshTokenFailsWithSignInAgain() throws {
    let bench = try Bench(
      profile: personProfile,
      tenant: FakeTenant { _ in
        FakeTenant.json(["error": "invalid_grant", "error_description": "Token is not active"], status: 400)
      })
    try bench.signedIn(
      TokenSet(accessToken: "at-1", refreshToken: "rt-1", expiresAt: bench.now + 3600, obtainedAt: bench.now), "work")
    let check = try Self.personRow(bench, try bench.store.load(try bench.broker("work").key))
    #expect(check.outcome == .fail && check.status == .signInRequired)
    #expect(check.detail.contains("invalid_grant: Token is not active"), "\(check.detail)")
    #expect(check.fix == "sign in again: strivacity login --profile work")
  }

  /// Not signed in, no refresh token, the tenant not reached: not tried, and why; nothing sent.
  @Test(arguments: ["not signed in", "no refresh token is held", "the tenant cannot be reached"])
  func whatIsNotTriedSaysWhy(why: String) throws {
    let bench = try Bench(profile: personProfile, tenant: FakeTenant { _ in FakeTenant.tokens("x") })
    let held: TokenSet? =
      why == "not signed in"
      ? nil
      : TokenSet(
        accessToken: "at-1", refreshToken: why == "no refresh token is held" ? nil : "rt-1",
        expiresAt: bench.now + 60, obtainedAt: bench.now)
    let check = try Self.personRow(bench, held, reached: why != "the tenant cannot be reached")
    #expect(check.outcome == .skipped)
    #expect(check.detail == "refresh token not tried: \(why)")
    #expect(bench.tenant.tokenRequests.isEmpty)
  }
}

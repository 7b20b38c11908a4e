// Kept secrets in-process (issue 38, point 3): a machine's client secret read from its kept item,
// never from a token set, and logout deleting tokens and kept secrets each from its own store
// while revoke keeps the secrets.
import Broker
import Foundation
import SecretStore
import StrivacityCore
import Testing

/// A machine profile whose secret `login --client-secret-stdin` kept (no variable, no file).
private let keptMachineProfile = """
  [profiles.ci]
  tenant = "https://tenant.example"
  client_id = "ci-bot"
  grant = "client_credentials"
  token_endpoint_auth = "client_secret_post"

  """

@Suite struct KeptSecretBrokerTests {
  static let fresh = Freshness(seconds: 60, explicit: false)

  @Test func theClientSecretIsReadFromItsKeptItem() throws {
    let bench = try Bench(profile: keptMachineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("at-machine") })
    let broker = try bench.broker("ci")
    #expect(broker.secretKey == SecretKey(broker.key, .clientSecret))
    try bench.secrets.save(Array("kept:s3crét".utf8), for: broker.secretKey)

    #expect(try broker.freshTokens(Self.fresh).accessToken.value == "at-machine")
    #expect(bench.tenant.tokenRequests.first?["client_secret"] == "kept:s3crét")
    // The store of tokens holds the token and nothing else: no slot of a secret.
    #expect(try bench.store.keys() == [broker.key])
  }

  @Test func aSecretStoredByLoginIsAKeptItemNeverATokenSet() throws {
    let bench = try Bench(profile: keptMachineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("at-machine") })
    let broker = try bench.broker("ci")
    try broker.storeSecret(try ClientSecret(admitting: "given"))
    #expect(try bench.secrets.load(broker.secretKey) == Array("given".utf8))
    #expect(try bench.store.keys().isEmpty)
    #expect(try broker.storedSecret()?.value == "given")
  }

  @Test func noKeptSecretNamesTheWayToKeepOne() throws {
    let bench = try Bench(profile: keptMachineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("x") })
    let failure = try #require(throws: BrokerError.self) { try bench.broker("ci").freshTokens(Self.fresh) }
    #expect(failure.message.contains("strivacity login --profile ci --client-secret-stdin"), "\(failure.message)")
    #expect(bench.tenant.tokenRequests.isEmpty)
  }

  /// revoke deletes the tokens and keeps the proxy password; logout deletes both, each from its
  /// own store, and says so.
  @Test func logoutDeletesTokensAndKeptSecretsRevokeKeepsTheSecrets() throws {
    let bench = try Bench(profile: personProfile, tenant: FakeTenant { _ in FakeTenant.tokens("x") })
    let tokens = TokenSet(accessToken: "at-1", refreshToken: "rt-1", expiresAt: bench.now + 3600, obtainedAt: bench.now)
    try bench.signedIn(tokens, "work")
    let broker = try bench.broker("work")
    let password = SecretKey(broker.key, .proxyPassword)
    try bench.secrets.save(Array("pw".utf8), for: password)

    let revoked = try #require(try broker.signOut(local: true, endSession: false))
    #expect(revoked.deleted == ["deleted the stored tokens"])
    #expect(try bench.store.keys().isEmpty)
    #expect(try bench.secrets.load(password) == Array("pw".utf8))

    try bench.signedIn(tokens, "work")
    let loggedOut = try #require(try bench.broker("work").signOut(local: true, endSession: true))
    #expect(loggedOut.deleted == ["deleted the stored tokens", "the kept proxy password"])
    #expect(loggedOut.secretsKept == nil)
    #expect(try bench.store.keys().isEmpty)
    #expect(bench.secrets.keys.isEmpty)
  }

  @Test func logoutForgetsAMachinesKeptSecret() throws {
    let bench = try Bench(profile: keptMachineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("at-machine") })
    let broker = try bench.broker("ci")
    try bench.secrets.save(Array("kept".utf8), for: broker.secretKey)
    _ = try broker.freshTokens(Self.fresh)
    #expect(try bench.broker("ci").signOut(local: true, endSession: false) != nil)
    #expect(try bench.secrets.contains(broker.secretKey), "revoke forgot the secret")
    let loggedOut = try #require(try bench.broker("ci").signOut(local: true, endSession: true))
    #expect(loggedOut.deleted == ["deleted the stored tokens", "the stored client secret"])
    #expect(try bench.secrets.keys.isEmpty && bench.store.keys().isEmpty)
    // Nothing left to sign out of.
    #expect(try bench.broker("ci").signOut(local: true, endSession: true) == nil)
  }

  /// A machine whose secret is gone cannot revoke: the report says why in words, not as a
  /// Swift value.
  @Test func aRevocationWithoutTheSecretSaysWhyInWords() throws {
    let bench = try Bench(profile: machineProfile, tenant: FakeTenant { _ in FakeTenant.tokens("at-machine") })
    bench.environment["CI_SECRET"] = "s3cret"
    _ = try bench.broker("ci").freshTokens(Self.fresh)
    bench.environment["CI_SECRET"] = nil
    let report = try #require(try bench.broker("ci").signOut(local: false, endSession: true))
    #expect(report.failed.count == 1)
    #expect(
      report.failed.allSatisfy { $0.hasPrefix("the access token (") && !$0.contains("CLIFailure") }, "\(report.failed)")
  }
}

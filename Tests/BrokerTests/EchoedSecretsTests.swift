// The broker's token paths against a tenant that quotes back what it got: the refusal quotes the
// tenant, never the refresh token, the client secret or the proxy's password (issue 46, point 3).
import Broker
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@Suite struct EchoedSecretsTests {
  static let proxyPassword = "pr0xy-pa55"

  /// A tenant (or a gateway before it) answering 400 with every field it got, and the proxy's
  /// password, in its error_description.
  static func echoingTenant() -> FakeTenant {
    let tenant = FakeTenant { fields in
      let quoted = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
      return FakeTenant.json(
        ["error": "invalid_request", "error_description": .string(quoted + " via " + Self.proxyPassword)], status: 400)
    }
    tenant.sentSecrets = [Self.proxyPassword]
    return tenant
  }

  static func expectQuotedWithout(_ message: String, _ secrets: [String]) {
    #expect(message.contains("invalid_request: ") && message.contains(Redaction.mark), "\(message)")
    for secret in secrets + [Self.proxyPassword] { #expect(!message.contains(secret), "\(message)") }
  }

  @Test func aRefreshQuotesTheTenantWithoutTheRefreshToken() throws {
    let bench = try Bench(profile: personProfile, tenant: Self.echoingTenant())
    try bench.signedIn(
      TokenSet(
        accessToken: "at-1", refreshToken: "rt-secret-1", expiresAt: bench.now + 10, obtainedAt: bench.now - 3590),
      "work")
    let failure = try #require(throws: BrokerError.self) {
      try bench.broker("work").freshTokens(Freshness(seconds: 60, explicit: false))
    }
    Self.expectQuotedWithout(failure.message, ["rt-secret-1"])
  }

  @Test func aMachinesTokenQuotesTheTenantWithoutTheClientSecret() throws {
    let secret = "ci-s3cret-value"
    let bench = try Bench(
      profile: machineProfile + "token_endpoint_auth = \"client_secret_post\"\n", tenant: Self.echoingTenant(),
      environment: ["CI_SECRET": secret])
    let failure = try #require(throws: BrokerError.self) {
      try bench.broker("ci").freshTokens(Freshness(seconds: 60, explicit: false))
    }
    Self.expectQuotedWithout(failure.message, [secret])
  }
}

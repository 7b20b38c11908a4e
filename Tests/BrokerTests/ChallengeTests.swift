// curl's challenge decisions in-process (TokenBroker.answer): what an API's WWW-Authenticate
// makes strivacity do, decided from the response head alone, without curl or a socket.
import Broker
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@Suite struct ChallengeTests {
  func broker() throws -> (Bench, TokenBroker) {
    let bench = try Bench(profile: personProfile, tenant: FakeTenant { _ in HTTPResponse(status: 500) })
    return (bench, try bench.broker("work"))
  }

  static let url = "https://api.example.com/orders/list"

  func head(_ challenge: String, status: Int = 401, redirects: [String] = []) -> ResponseHead {
    ResponseHead(status: status, wwwAuthenticate: [challenge], redirects: redirects)
  }

  @Test func anInvalidTokenIsRenewedAndSentAgain() throws {
    let (_, broker) = try broker()
    let orders = broker.resolved.profile.api(named: "orders")
    let answer = broker.answer(
      head("Bearer error=\"invalid_token\""), url: Self.url, api: orders, replayable: true, terminal: false)
    #expect(
      answer
        == .retry(.newToken, reason: "API orders refused the token (invalid_token): getting a new one", api: orders))
  }

  @Test func aBodyFromStandardInputIsNotSentAgain() throws {
    let (_, broker) = try broker()
    let orders = broker.resolved.profile.api(named: "orders")
    let answer = broker.answer(
      head("Bearer error=\"invalid_token\""), url: Self.url, api: orders, replayable: false, terminal: true)
    guard case .hint(let line) = answer else { Issue.record("\(String(describing: answer))"); return }
    #expect(line.contains("its body came from standard input"))
    #expect(line.hasSuffix("run strivacity token --refresh --profile work --api orders"))
  }

  @Test func aMissingScopeIsAskedForTheAPI() throws {
    let (_, broker) = try broker()
    let orders = broker.resolved.profile.api(named: "orders")
    let answer = broker.answer(
      head("Bearer error=\"insufficient_scope\", scope=\"orders:write\"", status: 403), url: Self.url, api: orders,
      replayable: true, terminal: false)
    #expect(
      answer
        == .retry(
          .scopes([try Scope(admitting: "orders:write")]),
          reason: "API orders needs scope orders:write: getting a token with it", api: orders))
  }

  @Test func aStepUpWithoutATerminalNamesTheLogin() throws {
    let (_, broker) = try broker()
    let answer = broker.answer(
      head("Bearer error=\"insufficient_user_authentication\", acr_values=\"mfa\""), url: Self.url, api: nil,
      replayable: true, terminal: false)
    guard case .hint(let line) = answer else { Issue.record("\(String(describing: answer))"); return }
    #expect(line.hasSuffix("(no terminal to sign in on): run strivacity login --profile work --acr-values 'mfa'"))
  }

  @Test func aChallengeFromWhereARedirectLedIsNotAnswered() throws {
    let (bench, broker) = try broker()
    let answer = broker.answer(
      head("Bearer error=\"invalid_token\"", redirects: ["https://elsewhere.example/x"]), url: Self.url, api: nil,
      replayable: true, terminal: true)
    guard case .hint(let line) = answer else { Issue.record("\(String(describing: answer))"); return }
    #expect(line.contains("off https://api.example.com"))
    #expect(bench.tenant.requests.isEmpty)
  }

  /// A URL under no API entry, refused with the API's metadata named: the profile's own token is
  /// not renewed (that would not make it the API's); the line names setup-api, and curl fails.
  @Test func aURLUnderNoAPIWhoseRefusalNamesItsMetadataNeedsAnEntry() throws {
    let (bench, broker) = try broker()
    let resource = "https://api.example.com/orders/"
    let metadataURL = try #require(ResourceMetadata.wellKnownURL(for: resource))
    bench.tenant.pages[metadataURL] = FakeTenant.json([
      "resource": .string(resource), "authorization_servers": ["https://tenant.example"],
      "scopes_supported": ["orders:read"],
    ])
    for challenge in ["Bearer error=\"invalid_token\", ", "Bearer "] {
      let answer = broker.answer(
        head(challenge + "resource_metadata=\"\(metadataURL)\""), url: Self.url, api: nil, replayable: true,
        terminal: true)
      guard case .configure(let line) = answer else { Issue.record("\(String(describing: answer))"); return }
      #expect(
        line
          == "the API at https://api.example.com refused the profile's token (HTTP 401); its metadata names resource "
          + "\(resource) with scopes orders:read: run strivacity setup api --profile work \(resource), then sign in "
          + "again if it says so")
    }
    #expect(bench.tenant.tokenRequests.isEmpty)
  }

  @Test func noChallengeNoAnswer() throws {
    let (_, broker) = try broker()
    let ok = ResponseHead(status: 200, wwwAuthenticate: [])
    #expect(broker.answer(ok, url: Self.url, api: nil, replayable: true, terminal: true) == nil)
    let basic = head("Basic realm=\"x\"")
    #expect(broker.answer(basic, url: Self.url, api: nil, replayable: true, terminal: true) == nil)
  }
}

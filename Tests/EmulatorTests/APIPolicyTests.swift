// API security policies (issue 27.6): APIs in the journey file, RFC 8707 resource indicators and
// audiences at the authorization endpoint, the refresh grant narrowing to one API, JWT access
// tokens for APIs, and the per-API counter in /_emulator/stats.
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@testable import Emulator

let ordersAudience = "https://api.example.com/orders"
let ordersResource = "https://api.example.com/orders/"
let billingAudience = "https://api.example.com/billing"
let billingResource = "https://api.example.com/billing/"

/// Signs in with the password journey, asking at the authorization endpoint for `scope` and `extra`;
/// `acr_values` naming `mfa` gets the step-up passcode screen after the password.
func signedIn(_ emulator: Emulator, scope: String, extra: [(String, String)]) throws -> (Driver, JSONValue) {
  let driver = Driver(emulator)
  driver.scope = scope
  driver.extra = extra
  try driver.start()
  try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
  let code: String
  if extra.contains(where: { $0.0 == "acr_values" && $0.1.split(separator: " ").contains("mfa") }) {
    try driver.expectScreen("password", ["password": "Demo-pass-1"], Emulator.stepUpScreenID)
    code = try driver.finish("mfaPasscode", ["passcode": .string(Emulator.stepUpPasscode)])
  } else {
    code = try driver.finish("password", ["password": "Demo-pass-1"])
  }
  return (driver, try driver.exchange(code))
}

extension Driver {
  func refresh(_ token: String, _ extra: [(String, String)] = []) throws -> HTTPResponse {
    try post(
      issuer + "oauth2/token",
      form: [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", clientID)] + extra)
  }

  func stats() throws -> JSONValue { try parse(try get(issuer + "_emulator/stats")) }
}

@Suite struct APIPolicyTests {
  static let wide = "openid profile offline_access orders:read orders:write billing:read"

  // MARK: authorization endpoint

  @Test func unknownTargetsAreRefusedAtAuthorization() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let driver = Driver(emulator)
    let cases: [([(String, String)], String)] = [
      ([("resource", "https://api.example.com/other/")], "unknown resource 'https://api.example.com/other/'"),
      ([("resource", ordersResource), ("resource", "https://x/")], "unknown resource 'https://x/'"),
      ([("audience", "https://api.example.com/other")], "unknown audience 'https://api.example.com/other'"),
      ([("resource", ordersResource + "#frag")], "is not an absolute URI without a fragment"),
      ([("resource", "relative/path")], "is not an absolute URI without a fragment"),
      ([("audience", "")], "unknown audience ''"),
    ]
    for (extra, description) in cases {
      let answer = try driver.get(driver.authorizationURL(extra: extra))
      #expect(answer.status == 200)
      let redirect = answer.bodyText
      #expect(redirect.hasPrefix(driver.redirectURI))
      let params = driver.query(redirect)
      #expect(params["error"] == "invalid_target", "\(extra)")
      #expect(params["error_description"]?.contains(description) == true, "\(params)")
      #expect(params["state"] == driver.state)
      #expect(params["session_id"] == nil)
    }
    // A journey without APIs knows no resource.
    let sso = try Emulator(journey: try loadJourney("sso"))
    defer { sso.stop() }
    let other = Driver(sso)
    let refused = other.query(try other.get(other.authorizationURL(extra: [("resource", ordersResource)])).bodyText)
    #expect(refused["error"] == "invalid_target")
  }

  @Test func knownTargetsStartTheJourney() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let driver = Driver(emulator, sdk: "ios")
    driver.extra = [("resource", ordersResource), ("resource", billingResource), ("audience", ordersAudience)]
    #expect(try driver.start()["screen"]?.string == "identification")
  }

  // MARK: token endpoint

  @Test func refreshNarrowsToAnAPIWithAJWT() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(
      emulator, scope: Self.wide, extra: [("resource", ordersResource), ("audience", billingAudience)])
    // The sign-in's own token is as without APIs: opaque.
    #expect(tokens["access_token"]?.string?.hasPrefix("sat_") == true)
    let idToken = try JWT(compact: tokens["id_token"]!.string!)

    let answer = try driver.refresh(tokens["refresh_token"]!.string!, [("resource", ordersResource)])
    #expect(answer.status == 200, "\(answer.bodyText)")
    let body = try driver.parse(answer)
    #expect(body["scope"]?.string == "orders:read orders:write")
    #expect(body["token_type"]?.string == "bearer")
    #expect(body["expires_in"]?.int == 3600)
    let jwt = try JWT(compact: try #require(body["access_token"]?.string))
    let keys = try JWKS(json: try driver.parse(try driver.get(emulator.issuer + ".well-known/jwks.json")))
    try jwt.verify(with: keys)
    #expect(jwt.algorithm == "RS256")
    #expect(jwt.keyID == idToken.keyID)
    #expect(jwt.claims["iss"]?.string == emulator.issuer)
    #expect(jwt.claims["sub"] == idToken.claims["sub"])
    #expect(jwt.claims["aud"] == [.string(ordersAudience), .string(ordersResource)])
    #expect(jwt.claims["scope"]?.string == "orders:read orders:write")
    #expect(jwt.claims["client_id"]?.string == "strivacity-cli")
    #expect(jwt.claims["acr"]?.string == Consent.defaultACR)
    #expect(jwt.claims["auth_time"] == idToken.claims["auth_time"])
    let iat = try #require(jwt.claims["iat"]?.int)
    #expect(jwt.claims["exp"]?.int == iat + 3600)

    // Introspection names the API's audience.
    let introspected = try driver.parse(
      try driver.post(emulator.issuer + "oauth2/introspect", form: [("token", body["access_token"]!.string!)]))
    #expect(introspected["active"] == true)
    #expect(introspected["aud"] == [.string(ordersAudience), .string(ordersResource)])

    // The rotated refresh token keeps the whole consent: another API, a narrower scope...
    let billing = try driver.refresh(
      body["refresh_token"]!.string!, [("audience", billingAudience), ("scope", "billing:read")])
    #expect(billing.status == 200, "\(billing.bodyText)")
    let billingBody = try driver.parse(billing)
    #expect(billingBody["scope"]?.string == "billing:read")
    let billingJWT = try JWT(compact: billingBody["access_token"]!.string!)
    #expect(billingJWT.claims["aud"] == [.string(billingAudience), .string(billingResource)])
    // ... and the default token, exactly as before.
    let plain = try driver.refresh(billingBody["refresh_token"]!.string!)
    #expect(plain.status == 200)
    let plainBody = try driver.parse(plain)
    #expect(plainBody["scope"]?.string == Self.wide)
    #expect(plainBody["access_token"]?.string?.hasPrefix("sat_") == true)
  }

  @Test func audienceAndScopeNarrowTogether() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(
      emulator, scope: Self.wide, extra: [("audience", ordersAudience), ("acr_values", "mfa phr")])
    let answer = try driver.refresh(
      tokens["refresh_token"]!.string!,
      [("audience", ordersAudience), ("resource", ordersResource), ("scope", "orders:read orders:read")])
    #expect(answer.status == 200, "\(answer.bodyText)")
    let jwt = try JWT(compact: try driver.parse(answer)["access_token"]!.string!)
    #expect(jwt.claims["scope"]?.string == "orders:read")
    #expect(jwt.claims["acr"]?.string == "mfa")
  }

  @Test func refusalsAnswer400AndKeepTheRefreshToken() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(
      emulator, scope: "openid offline_access orders:read billing:read",
      extra: [("resource", ordersResource), ("resource", billingResource)])
    let refresh = tokens["refresh_token"]!.string!
    let cases: [([(String, String)], String, String)] = [
      ([("audience", "https://api.example.com/other")], "invalid_target", "unknown audience"),
      ([("resource", "https://api.example.com/other/")], "invalid_target", "unknown resource"),
      ([("resource", "not a uri")], "invalid_target", "not an absolute URI"),
      ([("resource", ordersResource), ("audience", billingAudience)], "invalid_target", "name 2 APIs"),
      (
        [("resource", ordersResource), ("scope", "billing:read")], "invalid_scope",
        "does not allow scope 'billing:read'"
      ),
      (
        [("resource", ordersResource), ("scope", "orders:read openid")], "invalid_scope",
        "does not allow scope 'openid'"
      ),
      ([("resource", ordersResource), ("scope", "orders:write")], "invalid_scope", "'orders:write' was not consented"),
    ]
    for (extra, error, description) in cases {
      let answer = try driver.refresh(refresh, extra)
      #expect(answer.status == 400, "\(extra)")
      #expect(answer.header("Content-Type") == "application/json")
      let body = try driver.parse(answer)
      #expect(body["error"]?.string == error, "\(extra): \(body.text)")
      #expect(body["error_description"]?.string?.contains(description) == true, "\(body.text)")
    }
    // None of them used up the refresh token.
    #expect(try driver.refresh(refresh, [("resource", ordersResource)]).status == 200)
  }

  @Test func anAPINotNamedAtSignInIsRefused() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    // Scopes consented, but no resource or audience: the API was never part of the consent.
    let (driver, tokens) = try signedIn(emulator, scope: Self.wide, extra: [])
    let refresh = tokens["refresh_token"]!.string!
    let answer = try driver.refresh(refresh, [("audience", ordersAudience)])
    #expect(answer.status == 400)
    let body = try driver.parse(answer)
    #expect(body["error"]?.string == "invalid_target")
    #expect(body["error_description"]?.string?.contains("API orders was not named at sign-in") == true)
    // Named, but none of its scopes consented.
    let (other, otherTokens) = try signedIn(
      emulator, scope: "openid offline_access", extra: [("resource", ordersResource)])
    let none = try other.refresh(otherTokens["refresh_token"]!.string!, [("resource", ordersResource)])
    #expect(none.status == 400)
    let noneBody = try other.parse(none)
    #expect(noneBody["error"]?.string == "invalid_scope")
    #expect(noneBody["error_description"]?.string?.contains("none of the scopes API orders allows") == true)
    #expect(try driver.refresh(refresh).status == 200)
  }

  @Test func withoutTargetsTheAnswerIsAsBefore() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(emulator)
    let access = tokens["access_token"]!.string!
    #expect(access.hasPrefix("sat_") && !access.contains("."))
    #expect(
      Set(tokens.object!.keys) == ["access_token", "token_type", "expires_in", "scope", "refresh_token", "id_token"])
    let answer = try driver.refresh(tokens["refresh_token"]!.string!, [("scope", "openid offline_access")])
    let body = try driver.parse(answer)
    #expect(body["scope"]?.string == "openid offline_access")
    #expect(body["access_token"]?.string?.hasPrefix("sat_") == true)
    let introspected = try driver.parse(
      try driver.post(emulator.issuer + "oauth2/introspect", form: [("token", access)]))
    #expect(introspected["aud"] == ["strivacity-cli"])
    #expect(try driver.stats()["api_token_requests"] == .object([:]))
  }

  // MARK: stats

  @Test func statsCountTokenRequestsPerAPI() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(
      emulator, scope: Self.wide, extra: [("resource", ordersResource), ("resource", billingResource)])
    var refresh = tokens["refresh_token"]!.string!
    for extra in [
      [("resource", ordersResource)], [("audience", ordersAudience)], [("audience", billingAudience)],
    ] {
      let answer = try driver.refresh(refresh, extra)
      #expect(answer.status == 200)
      refresh = try driver.parse(answer)["refresh_token"]!.string!
    }
    // A refused request for a known API counts; one for an unknown API does not.
    #expect(try driver.refresh(refresh, [("resource", ordersResource), ("scope", "billing:read")]).status == 400)
    #expect(try driver.refresh(refresh, [("audience", "urn:nobody")]).status == 400)
    #expect(try driver.refresh(refresh).status == 200)
    let stats = try driver.stats()
    #expect(stats["api_token_requests"] == ["orders": 3, "billing": 1])
    #expect(stats["grants"]?["refresh_token"]?.int == 6)
    #expect(stats["grants"]?["authorization_code"]?.int == 1)
  }
}

// Token lifecycle per RFC: rotation (RFC 6749 §10.4 / OAuth 2.1), revocation (RFC 7009),
// introspection (RFC 7662), userinfo, logout, discovery.
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@testable import Emulator

/// Signs in with the password journey and returns the driver and tokens.
func signedIn(_ emulator: Emulator) throws -> (Driver, JSONValue) {
  let driver = try Driver.started(emulator)
  try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
  let tokens = try driver.exchange(try driver.finish("password", ["password": "Demo-pass-1"]))
  return (driver, tokens)
}

@Suite struct OAuthTests {
  @Test func discoveryMatchesTheIDTokenIssuer() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(emulator)
    let discovery = try driver.parse(try driver.get(emulator.issuer + ".well-known/openid-configuration"))
    #expect(discovery["issuer"]?.string == emulator.issuer)
    #expect(emulator.issuer.hasSuffix("/"))
    for key in [
      "authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint", "revocation_endpoint",
      "end_session_endpoint", "introspection_endpoint",
    ] {
      #expect(discovery[key]?.string?.hasPrefix(emulator.issuer) == true, "\(key)")
    }
    let jwt = try JWT(compact: tokens["id_token"]!.string!)
    #expect(jwt.claims["iss"] == discovery["issuer"])
    #expect(jwt.algorithm == "RS256")
    #expect(jwt.keyID != nil)
  }

  @Test func refreshRotatesAndReuseKillsTheFamily() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(emulator)
    let first = tokens["refresh_token"]!.string!
    func refresh(_ token: String) throws -> HTTPResponse {
      try driver.post(
        emulator.issuer + "oauth2/token",
        form: [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "strivacity-cli")])
    }
    let rotated = try refresh(first)
    #expect(rotated.status == 200)
    let second = try driver.parse(rotated)
    let secondRefresh = try #require(second["refresh_token"]?.string)
    #expect(secondRefresh != first)
    #expect(second["access_token"]?.string != tokens["access_token"]?.string)
    #expect(try JWT(compact: second["id_token"]!.string!).claims["nonce"] == nil)

    let reuse = try refresh(first)
    #expect(reuse.status == 400)
    #expect(try driver.parse(reuse)["error"]?.string == "invalid_grant")
    // Reuse of a rotated token revokes everything descended from the sign-in.
    #expect(try refresh(secondRefresh).status == 400)
    let introspected = try driver.post(
      emulator.issuer + "oauth2/introspect", form: [("token", second["access_token"]!.string!)])
    #expect(try driver.parse(introspected)["active"] == false)

    let wrongClient = try driver.post(
      emulator.issuer + "oauth2/token",
      form: [("grant_type", "refresh_token"), ("refresh_token", "srt_nope"), ("client_id", "other")])
    #expect(wrongClient.status == 401)
  }

  @Test func revocationAndIntrospection() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(emulator)
    let access = tokens["access_token"]!.string!
    let refresh = tokens["refresh_token"]!.string!
    let active = try driver.parse(try driver.post(emulator.issuer + "oauth2/introspect", form: [("token", access)]))
    #expect(active["active"] == true)
    #expect(active["client_id"]?.string == "strivacity-cli")
    #expect(active["username"]?.string == "demo@example.com")
    #expect(active["scope"]?.string == "openid profile offline_access")
    #expect(active["token_type"]?.string == "Bearer")

    // Revoking the access token only.
    #expect(
      try driver.post(
        emulator.issuer + "oauth2/revoke",
        form: [("token", access), ("token_type_hint", "access_token"), ("client_id", "strivacity-cli")]
      ).status == 200)
    #expect(
      try driver.parse(try driver.post(emulator.issuer + "oauth2/introspect", form: [("token", access)]))["active"]
        == false)
    #expect(
      try driver.parse(try driver.post(emulator.issuer + "oauth2/introspect", form: [("token", refresh)]))["active"]
        == true)
    // Unknown tokens are answered 200 too (RFC 7009 §2.2).
    #expect(try driver.post(emulator.issuer + "oauth2/revoke", form: [("token", "nonsense")]).status == 200)
    // Revoking the refresh token ends it and every token of its family.
    #expect(
      try driver.post(
        emulator.issuer + "oauth2/revoke", form: [("token", refresh), ("token_type_hint", "refresh_token")]
      ).status == 200)
    let after = try driver.post(
      emulator.issuer + "oauth2/token",
      form: [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "strivacity-cli")])
    #expect(after.status == 400)
    #expect(try driver.parse(after)["error_description"]?.string == "refresh token has been revoked")
  }

  @Test func userinfoNeedsALiveBearer() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(emulator)
    let access = tokens["access_token"]!.string!
    let info = try driver.get(emulator.issuer + "userinfo", headers: [HTTPHeader("Authorization", "Bearer \(access)")])
    #expect(info.status == 200)
    let claims = try driver.parse(info)
    #expect(claims["email"]?.string == "demo@example.com")
    #expect(claims["name"]?.string == "Demo User")
    #expect(claims["sub"]?.string == (try JWT(compact: tokens["id_token"]!.string!)).claims["sub"]?.string)
    let denied = try driver.get(emulator.issuer + "userinfo", headers: [HTTPHeader("Authorization", "Bearer wrong")])
    #expect(denied.status == 401)
    #expect(denied.header("WWW-Authenticate") == "Bearer error=\"invalid_token\"")
    #expect(try driver.post(emulator.issuer + "_emulator/expire", form: []).status == 400)
    _ = try driver.http.send(
      HTTPRequest(
        method: "POST", url: emulator.issuer + "_emulator/expire", body: Array(#"{"what":"access_tokens"}"#.utf8)))
    #expect(
      try driver.get(emulator.issuer + "userinfo", headers: [HTTPHeader("Authorization", "Bearer \(access)")]).status
        == 401)
  }

  @Test func logoutRedirectsOnlyToRegisteredURIs() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, tokens) = try signedIn(emulator)
    let idToken = tokens["id_token"]!.string!
    let good = try driver.get(
      emulator.issuer + "oauth2/sessions/logout?"
        + FormEncoding.encode([
          ("id_token_hint", idToken), ("post_logout_redirect_uri", "http://127.0.0.1/signed-out"), ("state", "s1"),
        ]))
    #expect(good.status == 302)
    #expect(good.header("Location") == "http://127.0.0.1/signed-out?state=s1")
    let evil = try driver.get(
      emulator.issuer + "oauth2/sessions/logout?"
        + FormEncoding.encode([
          ("id_token_hint", idToken), ("post_logout_redirect_uri", "https://evil.example/"),
        ]))
    #expect(evil.status == 400)
    let forged = try driver.get(emulator.issuer + "oauth2/sessions/logout?id_token_hint=a.b.c")
    #expect(forged.status == 400)
    let plain = try driver.get(emulator.issuer + "oauth2/sessions/logout")
    #expect(plain.status == 200)
    #expect(try driver.parse(try driver.get(emulator.issuer + "_emulator/stats"))["logouts"]?.int == 2)
  }

  @Test func loopbackRedirectsMatchOnAnyPort() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    for port in [1024, 49152, 65535] {
      let driver = Driver(emulator, redirectPort: port)
      #expect(try driver.start()["screen"]?.string == "identification")
    }
    let client = emulator.journey.clients[0]
    #expect(emulator.redirectAllowed("http://[::1]:5000/callback", for: client))
    #expect(emulator.redirectAllowed("http://localhost:5000/callback", for: client))
    #expect(!emulator.redirectAllowed("http://127.0.0.1:5000/other", for: client))
    #expect(!emulator.redirectAllowed("https://127.0.0.1:5000/callback", for: client))
    #expect(!emulator.redirectAllowed("http://127.0.0.2:5000/callback", for: client))
  }
}

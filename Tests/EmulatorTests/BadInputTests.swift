// What the emulator answers to bad clients: the error shapes a tenant uses, never a crash.
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@testable import Emulator

@Suite struct BadInputTests {
  /// The password journey's emulator and a driver that has identified the demo user (at the
  /// password screen).
  static func atThePasswordScreen() throws -> (Emulator, Driver) {
    let (emulator, driver) = try startedDriver("password")
    do {
      try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    } catch {
      emulator.stop()
      throw error
    }
    return (emulator, driver)
  }

  @Test func authorizationRequestsAreChecked() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let driver = Driver(emulator)
    let unknownClient = try driver.get(
      emulator.issuer + "oauth2/auth?client_id=nope&redirect_uri=http://127.0.0.1/callback")
    // Never to an unverified redirect URI: to the tenant's own error page, its words in the URL.
    #expect(unknownClient.status == 302)
    let location = try #require(unknownClient.header("Location"))
    #expect(location.hasPrefix(emulator.issuer + "oauth2/error?error=invalid_client&error_description="))
    let page = try driver.get(location)
    #expect(page.status == 200 && page.bodyText.contains("invalid_client: The client_id nope is not registered"))
    let badRedirect = try driver.get(
      emulator.issuer + "oauth2/auth?"
        + FormEncoding.encode([("client_id", "strivacity-cli"), ("redirect_uri", "https://evil.example/cb")]))
    #expect(badRedirect.status == 400)
    // Missing PKCE: an error in the native URL, with error_description and state.
    let noPKCE = try driver.get(
      emulator.issuer + "oauth2/auth?"
        + FormEncoding.encode([
          ("client_id", "strivacity-cli"), ("redirect_uri", driver.redirectURI), ("response_type", "code"),
          ("state", "s"), ("sdk", "web"),
        ]))
    #expect(noPKCE.status == 200)
    let params = driver.query(noPKCE.bodyText)
    #expect(params["error"] == "invalid_request")
    #expect(params["error_description"] == "PKCE with code_challenge_method=S256 is required")
    #expect(params["state"] == "s")
    // Bare parameter names (an SDK quirk) count as absent.
    let bare = try driver.get(driver.authorizationURL() + "&acr_values&login_hint&prompt")
    #expect(bare.status == 200)
    #expect(driver.query(bare.bodyText)["session_id"] != nil)
  }

  @Test func journeyRequestsAreChecked() throws {
    let (emulator, driver) = try startedDriver("password")
    defer { emulator.stop() }
    // Unknown session, wrong bearer: 403.
    #expect(try driver.postJSON("flow/api/v1/init", [:], bearer: "not-a-session").status == 403)
    let expired = try driver.postJSON("flow/api/v1/form/identifier", ["identifier": "x"], bearer: "nope")
    #expect(expired.status == 403)
    #expect(try driver.parse(expired)["error"]?.string == "session_expired")
    // Init accepts no body, {} and null.
    for body: JSONValue? in [nil, [:], .null] { #expect(try driver.postJSON("flow/api/v1/init", body).status == 200) }
    // Malformed JSON, wrong content type, a JSON array: 400 with a global message, never a crash.
    let malformed = try driver.http.send(
      HTTPRequest(
        method: "POST", url: emulator.issuer + "flow/api/v1/form/identifier",
        headers: [
          HTTPHeader("Content-Type", "application/json"), HTTPHeader("Authorization", "Bearer \(driver.sessionID)"),
        ],
        body: Array("{\"identifier\": ".utf8)))
    #expect(malformed.status == 400)
    #expect(
      try driver.parse(malformed)["messages"]?["global"]?["text"]?.string
        == "Malformed request body: expected a JSON object")
    #expect(
      try driver.postJSON("flow/api/v1/form/identifier", ["identifier": "demo@example.com"], contentType: "text/plain")
        .status == 400)
    #expect(try driver.postJSON("flow/api/v1/form/identifier", [1, 2]).status == 400)
    // A form that is not on the screen, and wrong value types.
    let other = try driver.submit("password", ["password": "x"])
    #expect(other.status == 400)
    #expect(other.body["messages"]?["global"]?["text"]?.string == "This action is not available on this screen")
    // Wrong value types break the API description before any widget rule is looked at.
    let wrongType = try driver.submit("identifier", ["identifier": 42])
    #expect(wrongType.status == 400)
    #expect(
      wrongType.body["messages"]?["global"]?["text"]?.string
        == "The request does not match the API (IdentificationRequest): $.identifier: expected a string, got a number")
    // Extra keys are tolerated (protocol §8.3).
    try driver.expectScreen("identifier", ["identifier": "demo@example.com", "method": "passcode"], "password")
    // Expired sessions answer 403.
    _ = try driver.http.send(
      HTTPRequest(method: "POST", url: emulator.issuer + "_emulator/expire", body: Array(#"{"what":"sessions"}"#.utf8)))
    #expect(try driver.submit("password", ["password": "Demo-pass-1"]).status == 403)
  }

  @Test func tokenRequestsAreChecked() throws {
    let (emulator, driver) = try Self.atThePasswordScreen()
    defer { emulator.stop() }
    let code = try driver.finish("password", ["password": "Demo-pass-1"])
    func exchange(_ pairs: [(String, String)]) throws -> (Int, String?) {
      let response = try driver.post(emulator.issuer + "oauth2/token", form: pairs)
      return (response.status, try driver.parse(response)["error"]?.string)
    }
    let base = [
      ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", driver.redirectURI),
      ("client_id", "strivacity-cli"),
    ]
    // PKCE mismatch consumes nothing useful: the code is now spent.
    #expect(try exchange(base + [("code_verifier", PKCE().verifier)]) == (400, "invalid_grant"))
    #expect(
      try exchange(base + [("code_verifier", driver.pkce.verifier)]) == (400, "invalid_grant"), "codes are single-use")
    #expect(try exchange([("grant_type", "password")]) == (400, "unsupported_grant_type"))
    #expect(try exchange([("grant_type", "authorization_code")]) == (400, "invalid_request"))
    let json = try driver.http.send(
      HTTPRequest(
        method: "POST", url: emulator.issuer + "oauth2/token",
        headers: [HTTPHeader("Content-Type", "application/json")],
        body: Array("{}".utf8)))
    #expect(json.status == 400)
    #expect(try driver.parse(json)["error"]?.string == "invalid_request")
    #expect(try driver.get(emulator.issuer + "oauth2/token").status == 405)
    #expect(try driver.get(emulator.issuer + "nothing/here").status == 404)
  }

  @Test func replayedCodesRevokeWhatTheyIssued() throws {
    let (emulator, driver) = try Self.atThePasswordScreen()
    defer { emulator.stop() }
    let code = try driver.finish("password", ["password": "Demo-pass-1"])
    let tokens = try driver.exchange(code)
    let replay = try driver.post(
      emulator.issuer + "oauth2/token",
      form: [
        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", driver.redirectURI),
        ("client_id", "strivacity-cli"), ("code_verifier", driver.pkce.verifier),
      ])
    #expect(replay.status == 400)
    #expect(
      try driver.parse(
        try driver.post(emulator.issuer + "oauth2/introspect", form: [("token", tokens["access_token"]!.string!)]))[
          "active"] == false)
  }

  @Test func finalizeURLsAreSingleUse() throws {
    let (emulator, driver) = try Self.atThePasswordScreen()
    defer { emulator.stop() }
    let (_, body) = try driver.submit("password", ["password": "Demo-pass-1"])
    let finalize = try #require(body["finalizeUrl"]?.string)
    _ = try driver.code(fromFinalize: finalize)
    #expect(try driver.get(finalize).status == 400)
    #expect(try driver.postJSON("flow/api/v1/init", [:]).status == 403, "a finished session is gone")
  }
}

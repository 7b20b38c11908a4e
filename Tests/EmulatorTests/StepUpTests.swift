// Step-up at the authorization endpoint (issue 27.6, RFC 9470 §6): the sign-in's acr is what the
// journey did; acr_values asking for mfa adds a passcode step to a journey without one; max_age
// ends a tenant session that is too old.
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@testable import Emulator

@Suite struct StepUpTests {
  /// The acr of the ID token and of an orders token from the refresh grant.
  func acrs(_ driver: Driver, _ tokens: JSONValue) throws -> (idToken: JSONValue?, api: JSONValue?) {
    let idToken = try JWT(compact: tokens["id_token"]!.string!)
    let answer = try driver.refresh(tokens["refresh_token"]!.string!, [("audience", ordersAudience)])
    #expect(answer.status == 200, "\(answer.bodyText)")
    let api = try JWT(compact: try driver.parse(answer)["access_token"]!.string!)
    #expect(api.claims["auth_time"] == idToken.claims["auth_time"])
    return (idToken.claims["acr"], api.claims["acr"])
  }

  @Test(arguments: ["web", "ios"]) func thePasswordJourneyAddsAPasscodeStep(_ sdk: String) throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let driver = Driver(emulator, sdk: sdk)
    driver.scope = "openid offline_access orders:read"
    driver.extra = [("audience", ordersAudience), ("acr_values", "phr mfa")]
    try driver.start()
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    let screen = try driver.expectScreen("password", ["password": "Demo-pass-1"], Emulator.stepUpScreenID)
    let widgets = screen["forms"]?[0]?["widgets"]?.array ?? []
    #expect(screen["forms"]?[0]?["id"] == "mfaPasscode")
    #expect(widgets.map { $0["type"]?.string } == ["static", "static", "passcode", "submit"])
    #expect(widgets[1]["value"]?.string == "This needs a second step. We sent a code by email to demo@example.com")
    let (status, wrong) = try driver.submit("mfaPasscode", ["passcode": "000000"])
    #expect(status == 400)
    #expect(wrong["messages"]?["mfaPasscode"]?["passcode"]?["text"] == "Incorrect code")
    try driver.expectScreen("additionalActions/resend", [:], Emulator.stepUpScreenID)
    let tokens = try driver.exchange(try driver.finish("mfaPasscode", ["passcode": "123456"]))
    let (idACR, apiACR) = try acrs(driver, tokens)
    #expect(idACR == "mfa")
    #expect(apiACR == "mfa")
    // The step-up screen is a Screen of the API description, and its body a request of it.
    #expect(try driver.stats()["non_conforming"] == [])
  }

  @Test func withoutMFAInACRValuesNothingIsAdded() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    for acrValues: String? in [nil, "pwd", "urn:mace:incommon:iap:silver"] {
      let extra = [("audience", ordersAudience)] + (acrValues.map { [("acr_values", $0)] } ?? [])
      let (driver, tokens) = try signedIn(emulator, scope: "openid offline_access orders:read", extra: extra)
      let (idACR, apiACR) = try acrs(driver, tokens)
      // The ID token names acr only when acr_values asked (OIDC Core §3.1.2.1).
      #expect(idACR == (acrValues == nil ? nil : "pwd"))
      #expect(apiACR == "pwd")
    }
  }

  @Test func aJourneyWithASecondFactorIsNotAskedAgain() throws {
    let emulator = try Emulator(journey: try loadJourney("mfa"))
    defer { emulator.stop() }
    for acrValues: String? in ["mfa", nil] {
      let driver = Driver(emulator)
      driver.scope = "openid offline_access orders:read"
      driver.extra = [("audience", ordersAudience)] + (acrValues.map { [("acr_values", $0)] } ?? [])
      try driver.start()
      try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
      try driver.expectScreen("password", ["password": "Demo-pass-1"], "mfaMethod")
      try driver.expectScreen("mfaMethod", ["id": "5f0c2a8e-3b1d-4c7e-9a2f-6d8b1e4c7a10/passcode"], "mfaPasscode")
      let tokens = try driver.exchange(try driver.finish("mfaPasscode", ["passcode": "123456"]))
      let (idACR, apiACR) = try acrs(driver, tokens)
      #expect(idACR == (acrValues == nil ? nil : "mfa"))
      #expect(apiACR == "mfa", "the journey did a second factor")
    }
  }

  @Test func theHostedPagesStepUpToo() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let driver = Driver(emulator)
    driver.extra = [("acr_values", "mfa")]
    try driver.start()
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    try driver.expectScreen("password", ["password": "Demo-pass-1"], Emulator.stepUpScreenID)
    let page = try driver.get(
      emulator.issuer + "provider/flow?" + FormEncoding.encode([("challenge", driver.sessionID)]),
      headers: [HTTPHeader("Accept", "text/html")])
    #expect(page.status == 200)
    #expect(page.bodyText.contains("Enter the code"))
  }

  @Test func maxAgeEndsAnOlderTenantSession() throws {
    let emulator = try Emulator(journey: try loadJourney("sso"))
    defer { emulator.stop() }
    // The sso journey's session is a password sign-in 300 seconds old.
    for (extra, sso) in [
      ([("max_age", "600")], true), ([("max_age", "300")], true), ([("max_age", "299")], false),
      ([("max_age", "0")], false), ([("acr_values", "mfa")], false), ([("acr_values", "pwd")], true),
    ] {
      let driver = Driver(emulator)
      let (native, _) = try driver.nativeURL(driver.authorizationURL(extra: extra))
      let params = driver.query(native)
      #expect((params["code"] != nil) == sso, "\(extra)")
      #expect((params["session_id"] != nil) == !sso, "\(extra)")
      if let code = params["code"] {
        let jwt = try JWT(compact: try driver.exchange(code)["id_token"]!.string!)
        let authTime = try #require(jwt.claims["auth_time"]?.int)
        #expect(abs(Int(Date().timeIntervalSince1970) - 300 - authTime) <= 5)
      }
    }
    // Signing in again: auth_time is now, and acr_values=mfa gets the step-up screen.
    let driver = Driver(emulator)
    driver.extra = [("max_age", "0"), ("acr_values", "mfa")]
    try driver.start()
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    try driver.expectScreen("password", ["password": "Demo-pass-1"], Emulator.stepUpScreenID)
    let tokens = try driver.exchange(try driver.finish("mfaPasscode", ["passcode": "123456"]))
    let jwt = try JWT(compact: tokens["id_token"]!.string!)
    #expect(abs(Int(Date().timeIntervalSince1970) - (jwt.claims["auth_time"]?.int ?? 0)) <= 5)
    #expect(jwt.claims["acr"] == "mfa")
  }

  @Test func aBadMaxAgeIsRefused() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let driver = Driver(emulator)
    for value in ["-1", "soon", "1e3"] {
      let params = driver.query(try driver.get(driver.authorizationURL(extra: [("max_age", value)])).bodyText)
      #expect(params["error"] == "invalid_request", "\(value)")
      #expect(params["error_description"] == "max_age must be a whole number of seconds, 0 or more")
    }
  }

  @Test func theStepUpScreenIdIsReserved() {
    let text = JourneyFileTests.valid.replacingOccurrences(of: "\"a\": {", with: "\"stepUpPasscode\": {}, \"a\": {")
    #expect(text != JourneyFileTests.valid)
    expectJourneyRefused(text, naming: "$.screens.stepUpPasscode: the id is reserved for the emulator's step-up screen")
  }
}

// Every example journey driven over real HTTP, from /oauth2/auth to tokens, in a 302 mode and
// a 200 mode, asserting the bodies the emulator received.
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@testable import Emulator

let modes = ["web", "android-minimal"]

@Suite struct JourneyTests {
  @Test(arguments: modes) func password(_ sdk: String) throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let driver = Driver(emulator, sdk: sdk)
    let first = try driver.start()
    #expect(first["screen"]?.string == "identification")
    #expect((first["layout"] == nil) == sdk.hasSuffix("-minimal"))
    #expect((first["branding"] == nil) == sdk.hasSuffix("-minimal"))
    let hasRender = first["forms"]?[0]?["widgets"]?.array?.contains { $0["render"] != nil } ?? false
    #expect(hasRender == !sdk.hasSuffix("-minimal"))
    let password = try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    #expect(password["forms"]?[1]?["widgets"]?[0]?["value"]?.string == "demo@example.com", "placeholders are filled")
    let tokens = try driver.exchange(
      try driver.finish("password", ["password": "Demo-pass-1", "keepMeLoggedIn": false]))
    #expect(tokens["expires_in"]?.int == 3600)
    let stats = try driver.parse(try driver.get(emulator.issuer + "_emulator/stats"))
    #expect(stats["last_bodies"]?["form/password"] == ["password": "Demo-pass-1", "keepMeLoggedIn": false])
    #expect(stats["submissions"]?.array?.map { $0["form"]?.string } == ["identifier", "password"])
  }

  @Test(arguments: modes) func wrongPasswordThenRight(_ sdk: String) throws {
    let (emulator, driver) = try startedDriver("password", sdk: sdk)
    defer { emulator.stop() }
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    let (status, body) = try driver.submit("password", ["password": "nope"])
    #expect(status == 400)
    #expect(body["messages"]?["global"] == ["type": "error", "text": "Incorrect password"])
    #expect(body["forms"] == nil, "messages-only answer")
    #expect(body["hostedUrl"]?.string?.hasPrefix(emulator.issuer + "provider/flow?") == true)
    _ = try driver.exchange(try driver.finish("password", ["password": "Demo-pass-1"]))
  }

  @Test func errorsCanRepeatTheWholeScreen() throws {
    let (emulator, driver) = try startedDriver("password-full-errors")
    defer { emulator.stop() }
    let (status, body) = try driver.submit("identifier", ["identifier": ""])
    #expect(status == 400)
    #expect(body["screen"]?.string == "identification")
    #expect(body["messages"]?["identifier"]?["identifier"]?["text"]?.string == "This field is required")
  }

  @Test func unknownIdentifierIsAPerWidgetMessage() throws {
    let (emulator, driver) = try startedDriver("password")
    defer { emulator.stop() }
    let (status, body) = try driver.submit("identifier", ["identifier": "nobody@example.com"])
    #expect(status == 400)
    #expect(
      body["messages"]?["identifier"]?["identifier"]?["text"]?.string == "No account found for nobody@example.com")
    // reset goes back to the start and forgets the user
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    try driver.expectScreen("reset", [:], "identification")
  }

  @Test(arguments: modes) func mfa(_ sdk: String) throws {
    let (emulator, driver) = try startedDriver("mfa", sdk: sdk)
    defer { emulator.stop() }
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    let method = try driver.expectScreen("password", ["password": "Demo-pass-1"], "mfaMethod")
    let select = method["forms"]?[0]?["widgets"]?[1]
    #expect(select?["options"]?[0]?["type"]?.string == "group")
    // What the API description refuses never reaches the journey: a strict server answers 400.
    let (status, bad) = try driver.submit("mfaMethod", ["id": "carrier-pigeon"])
    #expect(status == 400)
    #expect(
      bad["messages"]?["global"]?["text"]?.string
        == "The request does not match the API (MfaMethodSelectionRequest): $.id: does not match the pattern "
        + "[0-9a-fA-F-]{36}/(passcode|magicLink|voice|publicKey)"
    )
    let stranger = "00000000-0000-0000-0000-000000000000/passcode"
    let (otherStatus, other) = try driver.submit("mfaMethod", ["id": .string(stranger)])
    #expect(otherStatus == 400)
    #expect(other["messages"]?["mfaMethod"]?["id"]?["text"]?.string == "\"\(stranger)\" is not one of the choices")
    let passcode = try driver.expectScreen(
      "mfaMethod", ["id": "9b3e7d21-6a4f-4e8c-b5d2-1f7a9c3e5b84/passcode"], "mfaPasscode")
    #expect(
      passcode["forms"]?[0]?["widgets"]?[1]?["value"]?.string == "We sent a code: Text message to +36 ** *** 4567")
    try driver.expectScreen("additionalActions/resend", [:], "mfaPasscode")
    // The email code, not the sms one.
    let (wrongStatus, wrong) = try driver.submit("mfaPasscode", ["passcode": "123456"])
    #expect(wrongStatus == 400)
    #expect(wrong["messages"]?["mfaPasscode"]?["passcode"]?["text"]?.string == "Incorrect code")
    let (shortStatus, short) = try driver.submit("mfaPasscode", ["passcode": "12"])
    #expect(shortStatus == 400)
    #expect(short["messages"]?["mfaPasscode"]?["passcode"]?["text"]?.string == "Enter the 6-digit code")
    _ = try driver.exchange(try driver.finish("mfaPasscode", ["passcode": "654321"]))
  }

  static let goodRegistration: JSONValue = [
    "email": "new@example.com", "attributes": ["displayName": "New Person"], "password": "Str0ng-Pass",
    "passwordConfirmation": "Str0ng-Pass", "inviteCode": "123456", "country": "HU", "contactMethod": "sms",
    "interests": ["security", "events"], "birthDate": "1990-04-23", "phone": "+36 30 123 4567",
    "consents": ["terms": true, "newsletter": false],
  ]

  @Test(arguments: modes) func registrationWithEveryWidget(_ sdk: String) throws {
    let (emulator, driver) = try startedDriver("registration", sdk: sdk)
    defer { emulator.stop() }
    let screen = try driver.expectScreen("additionalActions/registration", [:], "registration")
    let types = Set(
      screen["forms"]?.array?.flatMap { $0["widgets"]?.array ?? [] }.compactMap { $0["type"]?.string } ?? [])
    #expect(
      types == [
        "static", "input", "password", "passcode", "select", "multiSelect", "checkbox", "date", "phone", "submit",
        "close",
      ])

    var bad = Self.goodRegistration.object!
    bad["email"] = "not-an-email"
    bad["password"] = "weakpass1"
    bad["passwordConfirmation"] = "weakpass1"
    bad["inviteCode"] = "12a456"
    bad["country"] = "XX"
    bad["interests"] = ["security", "product", "events"]
    bad["birthDate"] = "2020-01-01"
    bad["phone"] = "call me"
    bad["consents"] = ["terms": false, "newsletter": false]
    bad["attributes"] = ["displayName": "X"]
    let (status, body) = try driver.submit("registration", .object(bad))
    #expect(status == 400)
    let messages = body["messages"]?["registration"]
    #expect(messages?["email"]?["text"]?.string == "Invalid format")
    #expect(messages?["password"]?["text"]?.string == "Password must contain an uppercase letter")
    #expect(messages?["inviteCode"]?["text"]?.string == "Use digits only")
    #expect(messages?["country"]?["text"]?.string == "\"XX\" is not one of the choices")
    #expect(messages?["interests"]?["text"]?.string == "Select at most 2")
    #expect(messages?["birthDate"]?["text"]?.string == "Must not be after 2012-12-31")
    #expect(messages?["phone"]?["text"]?.string == "Enter a valid phone number")
    #expect(messages?["consents.terms"]?["text"]?.string == "This must be accepted")
    #expect(messages?["attributes.displayName"]?["text"]?.string == "Must be at least 2 characters")
    #expect(messages?["contactMethod"] == nil)

    var mismatch = Self.goodRegistration.object!
    mismatch["passwordConfirmation"] = "Other-Pass1"
    let (mismatchStatus, mismatchBody) = try driver.submit("registration", .object(mismatch))
    #expect(mismatchStatus == 400)
    #expect(
      mismatchBody["messages"]?["registration"]?["passwordConfirmation"]?["text"]?.string == "Passwords do not match")

    _ = try driver.exchange(try driver.finish("registration", Self.goodRegistration))
    let stats = try driver.parse(try driver.get(emulator.issuer + "_emulator/stats"))
    #expect(stats["last_bodies"]?["form/registration"] == Self.goodRegistration)
  }

  @Test(arguments: modes) func activation(_ sdk: String) throws {
    let (emulator, driver) = try startedDriver("activation", sdk: sdk)
    defer { emulator.stop() }
    try driver.expectScreen("additionalActions/registration", [:], "registration")
    let activation = try driver.expectScreen(
      "registration", ["email": "fresh@example.com", "password": "Fresh-pass1", "passwordConfirmation": "Fresh-pass1"],
      "activation")
    #expect(
      activation["forms"]?[0]?["widgets"]?[1]?["value"]?.string == "We sent an activation code to fresh@example.com.")
    let (status, _) = try driver.submit("sendAccountActivation", ["passcode": "999999"])
    #expect(status == 400)
    _ = try driver.exchange(try driver.finish("sendAccountActivation", ["passcode": "111111"]))
    // The new account can sign in again with its password.
    let again = Driver(emulator, sdk: sdk)
    try again.start()
    try again.expectScreen("identifier", ["identifier": "fresh@example.com"], "password")
    _ = try again.exchange(try again.finish("password", ["password": "Fresh-pass1"]))
  }

  @Test(arguments: modes) func passkeyCompletesOnTheHostedPage(_ sdk: String) throws {
    let (emulator, driver) = try startedDriver("passkey", sdk: sdk)
    defer { emulator.stop() }
    let screen = try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "passkey")
    #expect(screen["forms"]?[0]?["widgets"]?[1]?["type"]?.string == "passkeyLogin")
    // A browser stand-in: GET the hosted page, press the passkey button (POST its form).
    let hostedURL = try #require(screen["hostedUrl"]?.string)
    let page = try driver.get(hostedURL)
    #expect(page.status == 200)
    #expect(page.bodyText.contains("Sign in with a passkey"))
    let action = try #require(page.bodyText.firstMatch(of: /action="([^"]+)"/)?.1).replacingOccurrences(
      of: "&amp;", with: "&")
    let posted = try driver.post(
      String(emulator.issuer.dropLast()) + action, form: [("passkey.credential", "emulated")])
    #expect(posted.status == 302)
    let location = try #require(posted.header("Location"))
    #expect(location.hasPrefix(driver.redirectURI))
    #expect(driver.query(location)["state"] == driver.state)
    _ = try driver.exchange(try #require(driver.query(location)["code"]))
    let stats = try driver.parse(try driver.get(emulator.issuer + "_emulator/stats"))
    #expect(stats["requests"]?["hosted"]?.int == 2)
  }

  @Test(arguments: modes) func hostedOnly(_ sdk: String) throws {
    let emulator = try Emulator(journey: try loadJourney("hosted-only"))
    defer { emulator.stop() }
    let driver = Driver(emulator, sdk: sdk)
    let initial = try driver.start()
    #expect(initial.object?.keys.sorted() == ["hostedUrl"])
    // Complete it in "the browser": two forms, following the 303s.
    var url = try #require(initial["hostedUrl"]?.string)
    for (form, values) in [
      ("identifier", [("identifier", "demo@example.com")]), ("password", [("password", "Demo-pass-1")]),
    ] {
      let page = try driver.get(url)
      #expect(page.bodyText.contains("data-form=\"\(form)\""))
      let action = "provider/flow?" + FormEncoding.encode([("challenge", driver.sessionID), ("form", form)])
      let posted = try driver.post(emulator.issuer + action, form: values)
      url = try #require(posted.header("Location"))
    }
    #expect(url.hasPrefix(driver.redirectURI))
    _ = try driver.exchange(try #require(driver.query(url)["code"]))
  }

  @Test(arguments: modes) func sso(_ sdk: String) throws {
    let emulator = try Emulator(journey: try loadJourney("sso"))
    defer { emulator.stop() }
    let driver = Driver(emulator, sdk: sdk)
    let (native, _) = try driver.nativeURL(driver.authorizationURL())
    let params = driver.query(native)
    #expect(params["session_id"] == nil)
    #expect(params["state"] == driver.state)
    let tokens = try driver.exchange(try #require(params["code"]))
    let jwt = try JWT(compact: tokens["id_token"]!.string!)
    #expect(jwt.claims["email"]?.string == "demo@example.com")
    // prompt=login runs the journey instead.
    let fresh = Driver(emulator, sdk: sdk)
    #expect(try fresh.start(prompt: "login")["screen"]?.string == "identification")
  }
}

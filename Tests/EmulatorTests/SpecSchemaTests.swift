// The emulator against Strivacity's own OpenAPI description: bodies it would refuse, screens it
// could never serve, and how the description's Java-generated gaps are read.
import Foundation
import StrivacityCore
import Testing

@testable import Emulator

@Suite struct SpecSchemaTests {
  let spec = JourneySpec.bundled

  @Test(arguments: [
    ("identifier", #"{"identifier": "a@example.com", "rememberAccount": true}"#),
    ("password", #"{"password": "x", "keepMeLoggedIn": false}"#),
    ("mfaMethod", #"{"id": "5f0c2a8e-3b1d-4c7e-9a2f-6d8b1e4c7a10/passcode", "rememberDevice": null}"#),
    ("mfaPasscode", #"{"passcode": "123456"}"#),
    ("mfaEnrollStart", #"{"mandatory": [], "optional": ["email", "phone"]}"#),
    ("mfaEnrollTargetSelect", #"{"target": "demo@example.com", "method": "passcode"}"#),
    ("mfaEnrollChallenge", #"{"passcode": "246810"}"#),
    (
      "registration",
      #"{"email": "a@example.com", "password": "P", "attributes": {"given_name": "A", "age": 3, "tags": ["x"]}, "#
        + #""consents": {"terms": true}}"#
    ),
    ("progressiveProfiling", #"{"attributes": {"jobTitle": "Engineer"}, "consents": {"marketing": false}}"#),
    ("customerInput", #"{"attributes": {"x": "y"}, "local": {"note": "z"}}"#),
    ("proofingData", #"{"attributes": {"document": "passport"}}"#),
    ("passwordReset", #"{"password": "New-pass-1", "passwordConfirmation": "New-pass-1"}"#),
    ("passwordEnroll", #"{"password": "New-pass-1", "passwordConfirmation": "New-pass-1", "keepMeLoggedIn": true}"#),
    ("forgottenPasswordEmail", "{}"),
    ("forgottenPasswordPhone", #"{"voice": true}"#),
    ("forgottenUsername", #"{"recipient": "a@example.com"}"#),
    ("genericResult", "{}"),
    ("reset", "{}"),
    ("sendAccountActivation", "{}"),
    ("additionalActions/forgottenPassword", "{}"),
    ("externalLoginProvider/google", "{}"),
    ("genericAction/continue", "{}"),
    ("passkey", #"{"passkey": {"credential": {"id": "x"}}}"#),
  ])
  func conformingBodies(_ form: String, _ body: String) throws {
    #expect(spec.problems(formID: form, body: try #require(JSONValue.parse(body))) == [])
  }

  @Test(arguments: [
    ("identifier", "{}", "$.identifier: required"),
    ("identifier", #"{"identifier": null}"#, "$.identifier: required"),
    ("identifier", #"{"identifier": 42}"#, "$.identifier: expected a string, got a number"),
    ("password", #"{"password": ""}"#, "$.password: shorter than 1 characters"),
    ("password", #"{"password": "p", "keepMeLoggedIn": "yes"}"#, "$.keepMeLoggedIn: expected a boolean, got a string"),
    (
      "mfaMethod", #"{"id": "sms"}"#,
      "$.id: does not match the pattern [0-9a-fA-F-]{36}/(passcode|magicLink|voice|publicKey)"
    ),
    (
      "mfaEnrollStart", #"{"optional": ["fax"]}"#,
      #"$.optional[0]: "fax" is not one of "password", "phone", "email", "softToken", "webAuthnSecurityKey", "#
        + #""webAuthnDeviceBiometrics", "passkey", "custom""#
    ),
    ("mfaEnrollTargetSelect", #"{"target": "a@example.com"}"#, "$.method: required"),
    (
      "mfaEnrollTargetSelect", #"{"target": "a@example.com", "method": "pigeon"}"#,
      "$.method: does not match the pattern ^(passcode|voice|magicLink)$"
    ),
    ("registration", #"{"consents": {"terms": "yes"}}"#, "$.consents.terms: expected a boolean, got a string"),
    ("passwordReset", #"{"passwordConfirmation": "x"}"#, "$.password: required"),
    ("forgottenUsername", "{}", "$.recipient: required"),
    ("forgottenPasswordPhone", #"{"voice": 1}"#, "$.voice: expected a boolean, got a number"),
    ("genericResult", "[]", "$: the body must be a JSON object, not an array"),
    ("madeUp", "{}", #"the API has no form "madeUp""#),
    ("additionalActions", "{}", #"the API has no form "additionalActions""#),
    ("additionalActions/", "{}", #"the API has no form "additionalActions/""#),
  ])
  func refusedBodies(_ form: String, _ body: String, _ problem: String) throws {
    #expect(spec.problems(formID: form, body: try #require(JSONValue.parse(body))) == [problem])
  }

  func screen(_ widgets: String, layout: String = #"{"type": "vertical", "items": []}"#) throws -> JSONValue {
    try #require(
      JSONValue.parse(
        #"{"screen": "s", "hostedUrl": "https://t/h", "forms": [{"type": "form", "id": "f", "widgets": ["# + widgets
          + "]}], \"layout\": " + layout + "}"))
  }

  @Test func servedScreens() throws {
    // nulls where a property is optional, unknown keys, SDK-only widget types
    #expect(
      spec.problems(
        screen: try screen(
          #"{"type": "input", "id": "i", "label": "L", "value": null, "readonly": false, "validator": null, "#
            + #""placeholder": "p"}, {"type": "passcode", "id": "c", "label": "Code"}"#
        )) == [])
    #expect(
      spec.problems(screen: try screen(#"{"type": "checkbox", "id": "c", "label": "L", "value": "yes"}"#)) == [
        "$.forms[0].widgets[0].value: expected a boolean, got a string"
      ])
    #expect(
      spec.problems(screen: try screen(#"{"type": "hologram", "id": "h"}"#)) == [
        #"$.forms[0].widgets[0].type: "hologram" is none of form, submit, static, input, checkbox, password, "#
          + #"date, phone, select, multiSelect"#
      ])
    #expect(
      spec.problems(screen: try screen(#"{"id": "h"}"#)) == [
        "$.forms[0].widgets[0].type: required (it says which kind this is)"
      ])
    #expect(
      spec.problems(screen: try screen(#"{"type": "submit", "id": "s", "label": "Go", "render": {"type": "banner"}}"#))
        == [#"$.forms[0].widgets[0].render.type: "banner" is not one of "button", "link""#])
    #expect(
      spec.problems(
        screen: try screen(#"{"type": "select", "id": "s", "options": [{"type": "item", "label": "A", "value": 1}]}"#))
        == ["$.forms[0].widgets[0].options[0].value: expected a string, got a number"])
  }

  @Test func layoutsOfEveryTypeNestedInAnyOrder() throws {
    let widget = #"{"type": "widget", "formId": "f", "widgetId": "i"}"#
    let nested =
      #"{"type": "grid", "rows": [[{"type": "vertical", "items": [{"type": "horizontal", "items": [W]}]}, W]]}"#
      .replacingOccurrences(of: "W", with: widget)
    #expect(spec.problems(screen: try screen(#"{"type": "static", "id": "i", "value": "t"}"#, layout: nested)) == [])
    let bad =
      #"{"type": "vertical", "items": [{"type": "grid", "items": [{"type": "diagonal"}, {"type": "widget", "#
      + #""formId": 3}]}]}"#
    #expect(
      spec.problems(screen: try screen(#"{"type": "static", "id": "i", "value": "t"}"#, layout: bad)) == [
        #"$.layout.items[0].items[0].type: "diagonal" is none of widget, horizontal, vertical, grid"#,
        "$.layout.items[0].items[1].formId: expected a string, got a number",
      ])
  }

  @Test func deepNestingIsBounded() throws {
    var layout = #"{"type": "widget", "formId": "f", "widgetId": "i"}"#
    for _ in 0..<200 { layout = #"{"type": "vertical", "items": ["# + layout + "]}" }
    let problems = spec.problems(screen: try screen(#"{"type": "static", "id": "i", "value": "t"}"#, layout: layout))
    #expect(problems.count == 1)
    #expect(problems.first?.hasSuffix("nested more than 64 levels deep") == true)
  }

  @Test func everyFormIDOfTheDescriptionIsKnown() {
    let listed = [
      "identifier", "password", "mfaMethod", "mfaPasscode", "mfaEnrollStart", "mfaEnrollTargetSelect",
      "mfaEnrollChallenge",
      "registration", "progressiveProfiling", "customerInput", "proofingData", "passwordReset", "passwordEnroll",
      "forgottenPasswordEmail",
      "forgottenPasswordPhone", "forgottenUsername", "genericResult", "reset", "sendAccountActivation",
      "additionalActions/x",
      "externalLoginProvider/x", "genericAction/x",
    ]
    for form in listed { #expect(spec.lists(formID: form), "\(form)") }
    #expect(spec.forms.count == listed.count, "the description lists exactly these")
  }

  /// A strict server: the emulator answers a body its description refuses with 400 and a
  /// message, records it, and never lets it reach the journey.
  @Test func theEmulatorRefusesAndRecordsNonConformingBodies() throws {
    let (emulator, driver) = try startedDriver("password")
    defer { emulator.stop() }
    let (status, body) = try driver.submit("identifier", ["identifier": 7])
    #expect(status == 400)
    #expect(
      body["messages"]?["global"]?["text"]?.string
        == "The request does not match the API (IdentificationRequest): $.identifier: expected a string, got a number")
    #expect(body["hostedUrl"]?.string != nil)
    let stats = try driver.parse(try driver.get(emulator.issuer + "_emulator/stats"))
    #expect(
      stats["non_conforming"] == [
        [
          "direction": "request", "form": "identifier", "body": ["identifier": 7],
          "problems": ["$.identifier: expected a string, got a number"],
        ]
      ])
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
  }

  @Test func aJourneyFileCannotServeWhatTheDescriptionForbids() {
    let text = JourneyFileTests.valid.replacingOccurrences(of: #""readonly": false"#, with: #""readonly": "no""#)
    expectJourneyRefused(
      text,
      naming: "$.screens.a.forms[0].widgets[0].readonly: breaks the API description: expected a boolean, got a string")
  }
}

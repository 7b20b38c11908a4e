// Step-up at the authorization endpoint (RFC 9470 §6): `acr_values` asking for `mfa` on a journey
// that does no second factor (password, sso) gets one more screen before it finishes, a one-time
// passcode "sent by email", so the sign-in's acr is what its user really did. The screen is
// checked by the same rules as a journey file's (widgets, layout, the API description).
import Foundation
import StrivacityCore

extension Emulator {
  /// The step-up screen's id; reserved (a journey file may not name a screen so).
  static let stepUpScreenID = "stepUpPasscode"
  /// The passcode the step-up screen accepts.
  static let stepUpPasscode = "123456"

  /// A screen of the journey, or the step-up screen.
  func journeyScreen(_ id: String) -> Screen? {
    id == Self.stepUpScreenID ? Self.stepUpScreen : journey.screens[id]
  }

  static let stepUpScreen: Screen = {
    let text = """
      {
        "forms": [
          {"type": "form", "id": "mfaPasscode", "widgets": [
            {"type": "static", "id": "section-title", "value": "Enter the code", "render": {"type": "text"}},
            {"type": "static", "id": "we-sent-a-passcode-to",
             "value": "This needs a second step. We sent a code by email to {{identifier}}",
             "render": {"type": "text"}},
            {"type": "passcode", "id": "passcode", "label": "Passcode", "validator": {"length": 6}},
            {"type": "submit", "id": "submit", "label": "Verify",
             "render": {"type": "button", "textColor": null, "bgColor": null,
                        "hint": {"icon": null, "variant": "primary"}}}
          ]},
          {"type": "form", "id": "additionalActions/resend", "widgets": [
            {"type": "submit", "id": "submit", "label": "Resend code",
             "render": {"type": "link", "textColor": null, "bgColor": null, "hint": null}}
          ]}
        ],
        "layout": {"type": "vertical", "items": [
          {"type": "widget", "formId": "mfaPasscode", "widgetId": "section-title"},
          {"type": "widget", "formId": "mfaPasscode", "widgetId": "we-sent-a-passcode-to"},
          {"type": "widget", "formId": "mfaPasscode", "widgetId": "passcode"},
          {"type": "widget", "formId": "mfaPasscode", "widgetId": "submit"},
          {"type": "widget", "formId": "additionalActions/resend", "widgetId": "submit"}
        ]},
        "transitions": [
          {"form": "mfaPasscode", "check": "code", "expect": "\(stepUpPasscode)", "next": "finish"},
          {"form": "additionalActions/resend", "next": "\(stepUpScreenID)"}
        ]
      }
      """
    var checker = JourneyChecker()
    guard let json = JSONValue.parse(Array(text.utf8)),
      let screen = checker.screen(stepUpScreenID, json, "$.stepUp"), checker.issues.isEmpty
    else {
      preconditionFailure("the step-up screen is invalid: \(checker.issues)")
    }
    return screen
  }()
}

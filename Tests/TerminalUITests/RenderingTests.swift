// Golden files: how each widget type looks in the terminal. Re-record with
// RECORD_SNAPSHOTS=1 swift test --filter RenderingTests, then review the diff.
import Foundation
import JourneyCore
import StrivacityCore
import Testing

@testable import TerminalUI

func assertGolden(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
  let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
  let file = directory.appendingPathComponent(name + ".txt")
  if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
    try text.write(to: file, atomically: true, encoding: .utf8)
    return
  }
  let expected = try String(contentsOf: file, encoding: .utf8)
  #expect(
    text == expected, "golden \(name).txt differs; re-record with RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
}

func screen(_ widgets: String, messages: String = "null", layout: String? = nil) throws -> Screen {
  let text = """
    {"screen": "s", "hostedUrl": "https://t/h", "messages": \(messages),
     "forms": [{"type": "form", "id": "f", "widgets": [\(widgets), {"type": "submit", "id": "go",
     "label": "Continue"}]}]
     \(layout.map { ", \"layout\": \($0)" } ?? "")}
    """
  return try parsedScreen(text)
}

/// The screen in `text` (the journey API's JSON), which must parse.
func parsedScreen(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Screen {
  try Screen(json: #require(JSONValue.parse(text), sourceLocation: sourceLocation))
}

@Suite struct RenderingTests {
  static let cases: [(String, String)] = [
    ("static-text", #"{"type": "static", "id": "t", "value": "Sign in to Example", "render": {"type": "text"}}"#),
    (
      "static-html",
      #"{"type": "static", "id": "h", "value": "<p>By continuing you accept the <a "#
        + #"href=\"https://example.com/terms\">terms</a> &amp; rules.</p>", "render": {"type": "html"}}"#
    ),
    (
      "input",
      #"{"type": "input", "id": "identifier", "label": "Email address", "value": null, "placeholder": "#
        + #""you@example.com", "readonly": false, "validator": {"required": true}}"#
    ),
    (
      "input-prefilled",
      #"{"type": "input", "id": "email", "label": "Email", "value": "jane@example.com", "readonly": false, "#
        + #""validator": null}"#
    ),
    (
      "input-readonly",
      #"{"type": "input", "id": "target", "label": "Send to", "value": "+36 30 *** 4567", "readonly": true, "#
        + #""validator": null}"#
    ),
    (
      "password",
      #"{"type": "password", "id": "password", "label": "Password", "qualityIndicator": true, "validator": "#
        + #"{"minLength": 8}}"#
    ),
    ("passcode", #"{"type": "passcode", "id": "passcode", "label": "Passcode", "validator": {"length": 6}}"#),
    (
      "checkbox",
      #"{"type": "checkbox", "id": "keep", "label": "Keep me signed in", "value": true, "readonly": false, "#
        + #""render": {"type": "checkboxShown", "labelType": "text"}}"#
    ),
    (
      "checkbox-html",
      #"{"type": "checkbox", "id": "terms", "label": "I accept the <a "#
        + #"href=\"https://example.com/terms\">terms</a>", "value": false, "readonly": false, "render": {"type": "#
        + #""checkboxShown", "labelType": "html"}, "validator": {"required": true}}"#
    ),
    (
      "select-dropdown-groups",
      #"{"type": "select", "id": "country", "label": "Country", "value": "DE", "readonly": false, "render": "#
        + #"{"type": "dropdown"}, "options": [{"type": "group", "label": "Europe", "options": [{"type": "item", "#
        + #""label": "Hungary", "value": "HU"}, {"type": "item", "label": "Germany", "value": "DE"}]}, {"type": "#
        + #""group", "label": "Americas", "options": [{"type": "item", "label": "United States", "value": "#
        + #""US"}]}], "validator": {"required": true}}"#
    ),
    (
      "select-radio",
      #"{"type": "select", "id": "id", "label": "Verification method", "value": null, "readonly": false, "#
        + #""render": {"type": "radio"}, "options": [{"type": "item", "label": "Email to d***@example.com", "#
        + #""value": "email"}, {"type": "item", "label": "Text message", "value": "sms"}], "validator": "#
        + #"{"required": true}}"#
    ),
    (
      "multiselect",
      #"{"type": "multiSelect", "id": "interests", "label": "Interests", "value": ["events"], "readonly": false, "#
        + #""options": [{"type": "item", "label": "Security news", "value": "security"}, {"type": "item", "#
        + #""label": "Events", "value": "events"}], "validator": {"minSelectable": 1, "maxSelectable": 2}}"#
    ),
    (
      "date",
      #"{"type": "date", "id": "birthDate", "label": "Date of birth", "readonly": false, "value": null, "render": "#
        + #"{"type": "native"}, "validator": {"notBefore": "1900-01-01", "notAfter": "2012-12-31"}}"#
    ),
    ("phone", #"{"type": "phone", "id": "phone", "label": "Mobile number", "readonly": false, "value": null}"#),
    ("passkey", #"{"type": "passkeyLogin", "id": "pk", "label": "Use a passkey", "assertionOptions": {}}"#),
    ("unknown", #"{"type": "hologram", "id": "x"}"#),
  ]

  @Test(arguments: cases.map(\.0))
  func widget(_ name: String) throws {
    let json = try #require(Self.cases.first { $0.0 == name }?.1)
    try assertGolden(ScreenRenderer.transcript(try screen(json)), "widget-" + name)
  }

  @Test func messagesAndSeveralActions() throws {
    let s = try parsedScreen(
      """
      {"screen": "password", "messages": {"global": {"type": "error", "text": "Incorrect password"},
      "password": {"password": {"type": "error", "text": "Try again"}}},
       "forms": [
         {"id": "password", "widgets": [{"type": "password", "id": "password", "label": "Password",
         "qualityIndicator": false}, {"type": "submit", "id": "s", "label": "Sign in"}]},
         {"id": "reset", "widgets": [{"type": "static", "id": "identifier", "value": "demo@example.com"},
         {"type": "submit", "id": "s", "label": "Not you?", "render": {"type": "link"}}]},
         {"id": "cancel", "widgets": [{"type": "close", "id": "c", "label": "Cancel"}]}]}
      """)
    try assertGolden(ScreenRenderer.transcript(s), "screen-messages-actions")
  }

  /// A screen as `secondary-first` sends it: "Not you?" first, in a grid. Texts and fields
  /// appear where the layout puts them; the password form is the main one.
  @Test func gridWithASecondaryActionFirst() throws {
    let s = try parsedScreen(
      """
      {"screen": "password",
       "forms": [
         {"id": "reset", "widgets": [{"type": "static", "id": "identifier", "value": "demo@example.com"},
         {"type": "submit", "id": "submit", "label": "Not you?", "render": {"type": "link"}}]},
         {"id": "password", "widgets": [{"type": "static", "id": "section-title",
         "value": "Enter your password"}, {"type": "password", "id": "password", "label": "Password",
         "qualityIndicator": false}, {"type": "checkbox", "id": "keepMeLoggedIn", "label": "Keep me signed in",
         "value": false, "render": {"type": "checkboxShown", "labelType": "text"}}, {"type": "submit",
         "id": "submit", "label": "Sign in"}]}],
       "layout": {"type": "grid", "rows": [
         [{"type": "widget", "formId": "reset", "widgetId": "identifier"}, {"type": "widget", "formId": "reset",
         "widgetId": "submit"}],
         [{"type": "widget", "formId": "password", "widgetId": "section-title"}],
         [{"type": "vertical", "items": [{"type": "widget", "formId": "password", "widgetId": "password"},
         {"type": "widget", "formId": "password", "widgetId": "keepMeLoggedIn"}]}],
         [{"type": "widget", "formId": "password", "widgetId": "submit"}]]}}
      """)
    try assertGolden(ScreenRenderer.transcript(s), "screen-grid-secondary-first")
  }

  /// Texts stand where the layout puts them: a note after the field it is about comes after it.
  /// Without a layout (the minimal modes) every text comes first.
  @Test(arguments: [true, false])
  func textsWhereTheLayoutPutsThem(_ withLayout: Bool) throws {
    let layout = #"""
      , "layout": {"type": "vertical", "items": [
        {"type": "widget", "formId": "registration", "widgetId": "title"},
        {"type": "widget", "formId": "registration", "widgetId": "email"},
        {"type": "widget", "formId": "registration", "widgetId": "note"},
        {"type": "widget", "formId": "registration", "widgetId": "name"},
        {"type": "widget", "formId": "registration", "widgetId": "submit"}]}
      """#
    let s = try parsedScreen(
      #"""
      {"screen": "registration", "forms": [{"id": "registration", "widgets": [
        {"type": "static", "id": "title", "value": "Create your account"},
        {"type": "input", "id": "email", "label": "Email address"},
        {"type": "static", "id": "note", "value": "We will send a confirmation e-mail to the address above."},
        {"type": "input", "id": "name", "label": "Display name"},
        {"type": "submit", "id": "submit", "label": "Create account"}]}]
      """# + (withLayout ? layout : "") + "}")
    try assertGolden(ScreenRenderer.transcript(s), withLayout ? "screen-texts-in-place" : "screen-texts-without-layout")
  }

  /// A screen that asks nothing: the only place a "What next?" menu appears.
  @Test func aScreenOfActionsOnly() throws {
    let s = try parsedScreen(
      """
      {"screen": "genericResult",
       "forms": [
         {"id": "genericResult", "widgets": [{"type": "static", "id": "generic-result-text",
         "value": "Your password was changed."}, {"type": "submit", "id": "submit", "label": "Continue"}]},
         {"id": "reset", "widgets": [{"type": "submit", "id": "submit", "label": "Back to login",
         "render": {"type": "link"}}]}]}
      """)
    try assertGolden(ScreenRenderer.transcript(s), "screen-actions-only")
  }

  /// Every screen of the example journeys written from the API description, as the emulator
  /// serves it in the layout modes (placeholders filled in as for the demo user).
  static let journeyScreens: [(String, String)] = [
    ("mfa-enroll", "mfaEnrollStart"), ("mfa-enroll", "mfaEnrollTargetSelect"), ("mfa-enroll", "mfaEnrollChallenge"),
    ("password-reset", "forgottenUsername"), ("password-reset", "usernameSent"),
    ("password-reset", "forgottenPassword"),
    ("password-reset", "forgottenPasswordPhone"), ("password-reset", "passwordReset"),
    ("password-reset", "passwordChanged"),
    ("profile", "progressiveProfiling"), ("profile", "customerInput"), ("profile", "proofingData"),
    ("profile", "genericAction"),
    ("profile", "passwordEnroll"), ("secondary-first", "identification"),
  ]

  @Test(arguments: journeyScreens)
  func exampleJourneyScreen(_ journey: String, _ id: String) throws {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources/Emulator/Journeys/\(journey).json").standardizedFileURL
    var text = try String(contentsOf: file, encoding: .utf8)
    for placeholder in ["{{identifier}}", "{{answer.target}}", "{{answer.recipient}}"] {
      text = text.replacingOccurrences(of: placeholder, with: "demo@example.com")
    }
    let raw = try #require(JSONValue.parse(text)?["screens"]?[id])
    let served: JSONValue = [
      "screen": .string(id), "hostedUrl": "https://t/h", "forms": raw["forms"] ?? [], "layout": raw["layout"] ?? .null,
    ]
    try assertGolden(ScreenRenderer.transcript(try Screen(json: served)), "journey-\(journey)-\(id)")
  }

  @Test func colourIsOnlyWhereAsked() throws {
    let s = try screen(
      #"{"type": "static", "id": "t", "value": "Title"}"#, messages: #"{"global": {"type": "error", "text": "Bad"}}"#)
    #expect(!ScreenRenderer.transcript(s).contains("\u{1B}["))
    #expect(ScreenRenderer.transcript(s, style: Style(colour: true)).contains("\u{1B}[31m! Bad\u{1B}[0m"))
    #expect(!colourWanted(fd: 1, environment: ["NO_COLOR": "1"]))
  }
}

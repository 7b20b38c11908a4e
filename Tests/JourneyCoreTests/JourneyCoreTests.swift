import StrivacityCore
import Testing

@testable import JourneyCore

func screen(_ text: String) throws -> Screen { try Screen(json: #require(JSONValue.parse(text))) }

let identification = """
  {"screen": "identification", "hostedUrl": "https://t/hosted",
   "forms": [
     {"type": "form", "id": "identifier", "widgets": [
       {"type": "static", "id": "section-title", "value": "Sign in", "render": {"type": "text"}},
       {"type": "input", "id": "identifier", "label": "Email", "value": null, "readonly": false,
       "validator": {"required": true, "regexp": "[^@]+@[^@]+"}},
       {"type": "submit", "id": "submit", "label": "Continue", "render": {"type": "button"}}]},
     {"type": "form", "id": "additionalActions/registration", "widgets": [
       {"type": "submit", "id": "submit", "label": "Create account", "render": {"type": "link"}}]},
     {"type": "form", "id": "passkey", "widgets": [
       {"type": "passkeyLogin", "id": "passkey", "label": "Use a passkey", "assertionOptions": {}}]}],
   "layout": {"type": "vertical", "items": [
     {"type": "widget", "formId": "identifier", "widgetId": "section-title"},
     {"type": "widget", "formId": "identifier", "widgetId": "identifier"},
     {"type": "widget", "formId": "identifier", "widgetId": "submit"},
     {"type": "widget", "formId": "passkey", "widgetId": "passkey"},
     {"type": "widget", "formId": "additionalActions/registration", "widgetId": "submit"}]}}
  """

@Suite struct ScreenModelTests {
  @Test func decodesFormsWidgetsAndLayout() throws {
    let s = try screen(identification)
    #expect(s.id == "identification")
    #expect(s.forms?.map(\.id) == ["identifier", "additionalActions/registration", "passkey"])
    let input = try #require(s.widget(form: "identifier", id: "identifier"))
    #expect(input.kind == .input)
    #expect(input.validator.required)
    #expect(input.validator.regex == "[^@]+@[^@]+", "the iOS spelling regexp is read too")
    #expect(s.widget(form: "passkey", id: "passkey")?.kind == .passkey("passkeyLogin"))
    #expect(s.layout?.references.count == 5)
  }

  @Test func messagesInBothShapes() throws {
    let global = try screen(#"{"messages": {"global": {"type": "error", "text": "Incorrect password"}}}"#)
    #expect(global.messages == Messages(global: "Incorrect password"))
    let perWidget = try screen(#"{"messages": {"registration": {"password": {"type": "error", "text": "Too short"}}}}"#)
    #expect(perWidget.messages?.text(form: "registration", widget: "password") == "Too short")
    let both = try screen(
      #"{"messages": {"global": {"type": "error", "text": "G"}, "f": {"w": {"type": "error", "text": "W"}}}}"#)
    #expect(both.messages == Messages(global: "G", widgets: ["f": ["w": "W"]]))
  }

  @Test func lenientDecoding() throws {
    let s = try screen(
      #"""
      {"forms": [{"id": "f", "widgets": [
        {"type": "hologram", "id": "h"},
        {"type": "select", "id": "s", "label": "S"},
        {"type": "static", "id": "x"},
        {"type": "multiSelect", "id": "m", "label": "M", "values": ["a"], "options": [{"type": "item", "label": "A",
        "value": "a"}]}]}],
       "unknownTopLevel": {"ignored": true}}
      """#)
    let widgets = try #require(s.forms?.first?.widgets)
    #expect(widgets[0].kind == .unknown("hologram"))
    #expect(widgets[1].kind == .unknown("select"), "a select without options cannot be shown")
    #expect(widgets[2].kind == .unknown("static"), "a static without value")
    #expect(widgets[3].value == ["a"], "JS's `values` spelling")
    #expect(throws: JourneyError.self) { try Screen(json: [1, 2]) }
  }
}

@Suite struct PlanTests {
  @Test func layoutOrderPrimaryFormAndActions() throws {
    let plan = ScreenPlan(try screen(identification))
    #expect(plan.fallbackReason == nil, "a passkey form next to other actions is simply not offered")
    #expect(plan.primaryFormID == "identifier")
    #expect(plan.actions.map(\.formID) == ["identifier", "additionalActions/registration"])
    #expect(plan.actions.map(\.link) == [false, true])
    #expect(plan.primaryFields.map(\.id) == ["identifier"])
    #expect(plan.blocks.first == .text("Sign in", html: false))
  }

  /// The main form by content: a layout (or, in minimal modes, the forms array) that starts with
  /// "Not you?" or "Create account" does not make that the primary action.
  @Test(arguments: [true, false])
  func secondaryActionsFirstAreNeverPrimary(_ withLayout: Bool) throws {
    let layout = #"""
      , "layout": {"type": "grid", "rows": [
        [{"type": "widget", "formId": "reset", "widgetId": "identifier"}, {"type": "widget", "formId": "reset",
        "widgetId": "submit"}],
        [{"type": "widget", "formId": "additionalActions/forgottenPassword", "widgetId": "submit"}],
        [{"type": "vertical", "items": [{"type": "widget", "formId": "password", "widgetId": "password"}]}],
        [{"type": "widget", "formId": "password", "widgetId": "submit"}]]}
      """#
    let s = try screen(
      #"""
      {"screen": "password", "forms": [
        {"id": "reset", "widgets": [
          {"type": "static", "id": "identifier", "value": "demo@example.com"},
          {"type": "submit", "id": "submit", "label": "Not you?"}]},
        {"id": "additionalActions/forgottenPassword", "widgets": [
          {"type": "submit", "id": "submit", "label": "Forgot your password?"}]},
        {"id": "password", "widgets": [
          {"type": "password", "id": "password", "label": "Password"},
          {"type": "submit", "id": "submit", "label": "Sign in"}]}]
      """# + (withLayout ? layout : "") + "}")
    let plan = ScreenPlan(s)
    #expect(plan.fallbackReason == nil)
    #expect(plan.primaryFormID == "password")
    #expect(plan.actions.first?.formID == "password", "the primary action comes first, whatever the layout")
    #expect(Set(plan.actions.map(\.formID)) == ["password", "reset", "additionalActions/forgottenPassword"])
  }

  @Test func screensOfActionsOnlyPickByNameThenOrder() throws {
    let result = try screen(
      #"""
      {"screen": "genericResult", "forms": [
        {"id": "reset", "widgets": [{"type": "submit", "id": "submit", "label": "Back"}]},
        {"id": "genericResult", "widgets": [{"type": "submit", "id": "submit", "label": "Continue"}]}]}
      """#)
    #expect(ScreenPlan(result).primaryFormID == "genericResult")
    let onlySecondary = try screen(
      #"{"forms": [{"id": "reset", "widgets": [{"type": "submit", "id": "submit", "label": "Start over"}]}]}"#)
    #expect(ScreenPlan(onlySecondary).primaryFormID == "reset", "a screen of secondary actions alone still has one")
  }

  /// Two generic actions as a minimal mode sends them (no layout, no render types to tell a link):
  /// the form that carries the screen's texts is the main one, not the first.
  @Test func withNothingElseToGoByTheFormWithTheTextsIsTheMainOne() throws {
    let s = try screen(
      #"""
      {"screen": "genericAction", "forms": [
        {"id": "genericAction/later", "widgets": [{"type": "submit", "id": "submit", "label": "Remind me later"}]},
        {"id": "genericAction/continue", "widgets": [
          {"type": "static", "id": "section-title", "value": "Almost done"},
          {"type": "submit", "id": "submit", "label": "Continue"}]}]}
      """#)
    #expect(ScreenPlan(s).primaryFormID == "genericAction/continue")
  }

  @Test(arguments: [
    #"{"type": "grid", "items": [W1, W2]}"#,
    #"{"type": "grid", "rows": [[W1], [W2]]}"#,
    #"{"type": "grid", "columns": [[W1, W2]]}"#,
    #"{"type": "grid", "rows": [W1, {"type": "horizontal", "items": [W2]}]}"#,
    #"{"type": "vertical", "items": [{"type": "grid", "items": [{"type": "horizontal", "items": [W1]}]}, W2]}"#,
  ])
  func gridLayoutsInEveryShape(_ layout: String) throws {
    let widget = { (id: String) in #"{"type": "widget", "formId": "f", "widgetId": "\#(id)"}"# }
    let json = layout.replacing("W1", with: widget("a")).replacing("W2", with: widget("b"))
    let s = try screen(
      #"{"forms": [{"id": "f", "widgets": [{"type": "input", "id": "a", "label": "A"}, {"type": "input", "id": "#
        + #""b", "label": "B"}, {"type": "submit", "id": "s", "label": "Go"}]}], "layout": "#
        + json + "}")
    let plan = ScreenPlan(s)
    #expect(plan.fallbackReason == nil, "grid is a layout this client shows")
    #expect(plan.primaryFields.map(\.id) == ["a", "b"])
  }

  @Test func passkeyOnlyScreensFallBack() throws {
    let s = try screen(
      #"""
      {"hostedUrl": "https://t/h", "forms": [{"id": "passkey", "widgets": [
        {"type": "static", "id": "t", "value": "Use your passkey"},
        {"type": "passkeyLogin", "id": "p", "label": "Passkey", "assertionOptions": {}}]}]}
      """#)
    #expect(ScreenPlan(s).fallbackReason == "this step needs a passkey, which a terminal cannot use")
  }

  @Test func unknownWidgetsAndLayoutsFallBack() throws {
    let widget = try screen(
      #"{"forms": [{"id": "f", "widgets": [{"type": "hologram", "id": "h"}, {"type": "submit", "id": "s", "#
        + #""label": "Go"}]}]}"#
    )
    #expect(ScreenPlan(widget).fallbackReason == "the screen has a widget this client cannot show (hologram)")
    let layout = try screen(
      #"{"forms": [{"id": "f", "widgets": [{"type": "submit", "id": "s", "label": "Go"}]}], "layout": {"type": "#
        + #""carousel", "items": []}}"#
    )
    #expect(ScreenPlan(layout).fallbackReason == "the screen has a layout this client cannot show (carousel)")
    let broken = try screen(
      #"{"forms": [{"id": "f", "widgets": [{"type": "submit", "id": "s", "label": "Go"}]}], "layout": {"type": "#
        + #""vertical", "items": [{"type": "widget", "formId": "f", "widgetId": "zzz"}]}}"#
    )
    #expect(ScreenPlan(broken).fallbackReason?.hasPrefix("the layout names a widget") == true)
  }

  @Test func formsWithoutSubmitGetAContinueAndCloseIsLast() throws {
    let s = try screen(
      #"""
      {"forms": [
        {"id": "cancel", "widgets": [{"type": "close", "id": "c", "label": "Cancel"}]},
        {"id": "f", "widgets": [{"type": "passcode", "id": "code", "label": "Code"}]}]}
      """#)
    let plan = ScreenPlan(s)
    #expect(plan.primaryFormID == "f")
    #expect(plan.actions.map(\.label) == ["Continue", "Cancel"])
    #expect(plan.actions.map(\.cancels) == [false, true])
  }
}

@Suite struct MachineTests {
  @Test func theLoop() throws {
    var machine = JourneyMachine()
    guard case .render(let plan, let ask) = machine.receive(status: 200, body: Array(identification.utf8)) else {
      Issue.record("no render")
      return
    }
    #expect(plan.primaryFormID == "identifier")
    #expect(ask == ["identifier"])
    machine.setAnswer("me@example.com", form: "identifier", widget: "identifier")
    #expect(machine.body(for: "identifier") == ["identifier": "me@example.com"])

    // Messages only: same screen, answers kept, re-ask the named field.
    let step = machine.receive(
      status: 400,
      body: Array(#"{"messages": {"identifier": {"identifier": {"type": "error", "text": "No such account"}}}}"#.utf8))
    guard case .render(_, let reask) = step else {
      Issue.record("\(step)")
      return
    }
    #expect(reask == ["identifier"])
    #expect(machine.screen?.messages?.text(form: "identifier", widget: "identifier") == "No such account")
    #expect(machine.answers["identifier"]?["identifier"] == "me@example.com")

    // A global message re-asks the editable fields of the form just submitted.
    guard
      case .render(_, let all) = machine.receive(
        status: 400, body: Array(#"{"messages": {"global": {"type": "error", "text": "Try again"}}}"#.utf8))
    else {
      Issue.record("no render")
      return
    }
    #expect(all == ["identifier"])

    // A different screen clears the answers.
    let password =
      #"{"screen": "password", "forms": [{"id": "password", "widgets": [{"type": "password", "id": "password", "#
      + #""label": "Password", "qualityIndicator": false}, {"type": "submit", "id": "s", "label": "Sign in"}]}]}"#
    guard case .render = machine.receive(status: 200, body: Array(password.utf8)) else {
      Issue.record("no render")
      return
    }
    #expect(machine.answers.isEmpty)
    #expect(machine.screen?.hostedURL == "https://t/hosted", "hostedUrl is kept when a screen omits it")
    #expect(
      machine.receive(status: 200, body: Array(#"{"finalizeUrl": "https://t/finish?x=1", "hostedUrl": "h"}"#.utf8))
        == .finalize(url: "https://t/finish?x=1"))
  }

  @Test func terminalOutcomes() {
    var machine = JourneyMachine()
    #expect(machine.receive(status: 403, body: []) == .sessionExpired)
    #expect(
      machine.receive(status: 200, body: Array(#"{"hostedUrl": "https://t/h"}"#.utf8))
        == .fallback(url: "https://t/h", reason: "the tenant asked to continue in the browser"))
    #expect(
      machine.receive(status: 401, body: Array(#"{"hostedUrl": "https://t/h"}"#.utf8))
        == .fallback(url: "https://t/h", reason: "the tenant asked to continue in the browser (HTTP 401)"))
    #expect(
      machine.receive(
        status: 404,
        body: Array(#"{"hostedUrl": "https://t/h", "messages": {"global": {"type": "error", "text": "Gone"}}}"#.utf8))
        == .failed(.unexpectedStatus(404, "Gone")))
    #expect(machine.receive(status: 503, body: Array("{}".utf8)) == .failed(.unexpectedStatus(503, nil)))
    #expect(
      machine.receive(status: 200, body: Array("<html>".utf8)) == .failed(.malformedAnswer("not JSON (HTTP 200)")))
    #expect(
      machine.receive(status: 200, body: Array("[]".utf8))
        == .failed(.malformedAnswer("expected a JSON object, got an array")))
    #expect(
      machine.receive(status: 400, body: Array(#"{"messages": {"global": {"type": "error", "text": "x"}}}"#.utf8))
        == .failed(.malformedAnswer("messages arrived before any screen")))
  }

  @Test func fullScreenErrorsKeepAnswers() throws {
    var machine = JourneyMachine()
    _ = machine.receive(status: 200, body: Array(identification.utf8))
    machine.setAnswer("typed", form: "identifier", widget: "identifier")
    _ = machine.body(for: "identifier")
    var again = try #require(JSONValue.parse(identification)?.object)
    again["messages"] = ["identifier": ["identifier": ["type": "error", "text": "Invalid format"]]]
    guard case .render(_, let ask) = machine.receive(status: 400, body: JSONValue.object(again).serialized()) else {
      Issue.record("no render")
      return
    }
    #expect(ask == ["identifier"])
    #expect(machine.answers["identifier"]?["identifier"] == "typed")
  }
}

@Suite struct BodyTests {
  @Test func onlyTheSubmittedFormWithNestingAndDefaults() throws {
    let form = try #require(
      try screen(
        #"""
        {"forms": [{"id": "registration", "widgets": [
          {"type": "input", "id": "profile.name", "label": "Name", "readonly": false, "validator": null},
          {"type": "input", "id": "profile.email", "label": "Email", "value": "pre@example.com", "readonly": true,
          "validator": null},
          {"type": "input", "id": "nickname", "label": "Nick", "readonly": false, "validator": null},
          {"type": "checkbox", "id": "terms", "label": "T", "value": false, "readonly": false,
          "render": {"type": "checkboxHidden"}},
          {"type": "checkbox", "id": "news", "label": "N", "value": false, "readonly": false},
          {"type": "multiSelect", "id": "tags", "label": "Tags", "value": [], "readonly": false,
          "options": [{"type": "item", "label": "A", "value": "a"}]},
          {"type": "select", "id": "country", "label": "C", "value": "HU", "readonly": false,
          "options": [{"type": "item", "label": "HU", "value": "HU"}]},
          {"type": "static", "id": "s", "value": "text"},
          {"type": "submit", "id": "go", "label": "Go"}]}]}
        """#
      ).forms?.first)
    let body = SubmitBody.build(form: form, answers: ["profile.name": "Jane", "nickname": ""])
    #expect(
      body == [
        "profile": ["name": "Jane", "email": "pre@example.com"],
        "terms": true, "news": false, "tags": [], "country": "HU",
      ])
  }

  @Test func actionOnlyFormsPostEmptyObjects() throws {
    let form = Form(id: "reset", widgets: [Widget(id: "submit", kind: .submit(link: true), label: "Not you?")])
    #expect(SubmitBody.build(form: form, answers: [:]) == [:])
  }
}

@Suite struct ValidationTests {
  func rules(_ json: JSONValue) -> Validator {
    Widget(json: ["type": "password", "id": "p", "label": "P", "qualityIndicator": false, "validator": json]).validator
  }

  @Test func passwordPolicy() {
    let policy = rules([
      "mustContain": ["UPPERCASE", "LOWERCASE", "NUMERIC", "SPECIAL"], "maxRepeatedCharacters": 2,
      "maxNumericCharacterSequences": 3, "restrictedCharacters": "<>",
    ])
    #expect(PasswordPolicy.violation("Abc-1x", policy) == nil)
    #expect(PasswordPolicy.violation("abc-1x", policy) == "Password must contain an uppercase letter")
    #expect(PasswordPolicy.violation("ABC-1X", policy) == "Password must contain a lowercase letter")
    #expect(PasswordPolicy.violation("Abc-xx", policy) == "Password must contain a number")
    #expect(PasswordPolicy.violation("Abc1xx", policy) == "Password must contain a special character")
    #expect(
      PasswordPolicy.violation("Abbb-1", policy) == "Password must not repeat a character more than 2 times in a row")
    #expect(PasswordPolicy.violation("Ab-1234", policy) == "Password must not contain more than 3 sequential digits")
    #expect(PasswordPolicy.violation("Ab-4321", policy) == "Password must not contain more than 3 sequential digits")
    #expect(PasswordPolicy.violation("Ab-123", policy) == nil)
    #expect(PasswordPolicy.violation("Ab-1<", policy) == "Password must not contain \"<\"")
  }

  @Test func fieldRules() {
    let email = Widget(json: [
      "type": "input", "id": "e", "label": "E", "readonly": false,
      "validator": ["required": true, "regex": "[^@]+@[^@]+", "maxLength": 10],
    ])
    #expect(WidgetValidation.problem(email, nil) == "This field is required")
    #expect(WidgetValidation.problem(email, "nope") == "Invalid format")
    #expect(WidgetValidation.problem(email, "a@b") == nil)
    #expect(WidgetValidation.problem(email, "aaaaaa@bbbbbbb") == "Must be at most 10 characters")
    let code = Widget(json: ["type": "passcode", "id": "c", "label": "C", "validator": ["length": 6]])
    #expect(WidgetValidation.problem(code, "12345a") == "Use digits only")
    #expect(WidgetValidation.problem(code, "12345") == "Enter the 6-digit code")
    let date = Widget(json: [
      "type": "date", "id": "d", "readonly": false,
      "validator": ["required": true, "notBefore": "1900-01-01", "notAfter": "2012-12-31"],
    ])
    #expect(WidgetValidation.problem(date, "2013-01-01") == "Must not be after 2012-12-31")
    #expect(WidgetValidation.problem(date, "1990-02-30") == "1990-02-30: February 1990 has 28 days")
    #expect(WidgetValidation.problem(date, "2000-02-30") == "2000-02-30: February 2000 has 29 days")
    #expect(
      WidgetValidation.problem(date, "1990-13-01") == "1990-13-01: there is no month 13; enter a date as YYYY-MM-DD")
    #expect(WidgetValidation.problem(date, "1990-4-3") == "Enter a date as YYYY-MM-DD")
    #expect(WidgetValidation.problem(date, "1990-04-03") == nil)
  }
}

@Suite struct HTMLTextTests {
  @Test(arguments: [
    (
      "By continuing you accept the <a href=\"https://example.com/terms\">terms</a>.",
      "By continuing you accept the terms (https://example.com/terms)."
    ),
    ("I accept the <a href='https://x.example/'>https://x.example/</a>", "I accept the https://x.example/"),
    ("<p>One</p><p>Two &amp; three</p>", "One\nTwo & three"),
    ("line<br>break &lt;b&gt; &#233;&#x41;", "line\nbreak <b> éA"),
    ("<ul><li>a</li><li>b</li></ul>", "• a\n• b"),
    ("  lots   of\tspace  ", "lots of space"),
    ("unclosed <b", "unclosed <b"),
  ])
  func plainText(_ html: String, _ expected: String) {
    #expect(HTMLText.plain(html) == expected)
  }
}

// Journey files: every shipped example is valid; mistakes are reported with their JSON path.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@testable import Emulator

@Suite struct JourneyFileTests {
  @Test func everyShippedJourneyLoads() throws {
    let names = Journey.builtInNames
    #expect(
      Set(names).isSuperset(of: [
        "password", "password-full-errors", "mfa", "registration", "activation", "passkey", "hosted-only", "sso",
      ]))
    for name in names { _ = try loadJourney(name) }
  }

  func issues(_ text: String) -> [String] { journeyIssues(text) }

  static let valid = """
    {"name": "t", "start": "a",
     "clients": [{"client_id": "c", "redirect_uris": ["http://127.0.0.1/cb"]}],
     "users": [{"identifier": "u@example.com", "password": "p"}],
     "screens": {"a": {"forms": [{"type": "form", "id": "f", "widgets": [
        {"type": "input", "id": "identifier", "label": "Email", "readonly": false, "validator": {"required": true}},
        {"type": "submit", "id": "go", "label": "Go"}]}],
       "layout": {"type": "vertical", "items": [{"type": "widget", "formId": "f", "widgetId": "identifier"}]},
       "transitions": [{"form": "f", "check": "identify", "next": "finish"}]}}}
    """

  @Test func aValidMinimalJourney() {
    #expect(issues(Self.valid) == [])
  }

  @Test(arguments: [
    ("\"start\": \"a\"", "\"start\": \"zz\"", "$.start: no screen \"zz\""),
    (
      "\"type\": \"input\"", "\"type\": \"inptu\"",
      "$.screens.a.forms[0].widgets[0].type: unknown widget type \"inptu\""
    ),
    ("\"label\": \"Email\", ", "", "$.screens.a.forms[0].widgets[0].label: input widgets need a string \"label\""),
    (
      "\"widgetId\": \"identifier\"", "\"widgetId\": \"nope\"",
      "$.screens.a.layout.items[0].widgetId: no widget \"nope\" in form \"f\""
    ),
    ("\"next\": \"finish\"", "\"next\": \"b\"", "$.screens.a.transitions[0].next: no screen \"b\""),
    ("\"check\": \"identify\"", "\"check\": \"guess\"", "$.screens.a.transitions[0].check: unknown check \"guess\""),
    (
      "{\"required\": true}", "{\"required\": true, \"regex\": \"([\"}",
      "$.screens.a.forms[0].widgets[0].validator.regex: not a valid regular expression"
    ),
    (
      "\"redirect_uris\": [\"http://127.0.0.1/cb\"]", "\"redirect_uris\": [\"not a url\"]",
      "$.clients[0].redirect_uris[0]: not an absolute URL"
    ),
    (
      "\"users\": [{\"identifier\": \"u@example.com\", \"password\": \"p\"}]", "\"users\": [{\"password\": \"p\"}]",
      "$.users[0].identifier: missing"
    ),
    ("\"name\": \"t\"", "\"name\": \"t\", \"colour\": 1", "$.colour: unknown key"),
    ("\"type\": \"vertical\"", "\"type\": \"diagonal\"", "$.screens.a.layout.type: unknown layout type \"diagonal\""),
  ])
  func mistakesNameTheirPath(_ find: String, _ replace: String, _ expected: String) {
    expectMistake(in: Self.valid, find, replacedBy: replace, named: expected)
  }

  @Test func notJSONAtAll() {
    #expect(issues("{nope") == ["$: not valid JSON"])
  }

  @Test func checkCommandReportsPathsAndExitCodes() throws {
    let dir = try ScratchDirectory("journey")
    let good = try dir.write("good.json", Self.valid)
    let bad = try dir.write(
      "bad.json", Self.valid.replacingOccurrences(of: "\"next\": \"finish\"", with: "\"next\": \"b\""))
    let emulator = TestEnvironment.binary("strivacity-emulator")
    let ok = try run([emulator, "--journey", good, "--check"], environment: [:])
    #expect(ok.status == 0)
    #expect(ok.stdout.contains("ok (1 screens, 1 users, 1 clients)"))
    let failed = try run([emulator, "--journey", bad, "--check"], environment: [:])
    #expect(failed.status == 1)
    #expect(failed.stderr.contains("\(bad): $.screens.a.transitions[0].next: no screen \"b\""))
    // Usage errors are 2, as docs/emulator.md says (ArgumentParser's own would be 64).
    let hostile = try run([emulator, "--journey", good, "--hostile", "bogus"], environment: [:])
    #expect(
      hostile.status == 2 && hostile.stderr.contains("unknown hostile kind \"bogus\""),
      "\(hostile.status) \(hostile.stderr)")
    #expect(try run([emulator, "--no-such-option"], environment: [:]).status == 2)
  }
}

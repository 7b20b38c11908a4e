// API security policies in journey files (issue 27.6): the `apis` list, checked when the file
// loads, each mistake named by its JSON path.
import Foundation
import StrivacityCore
import Testing

@testable import Emulator

@Suite struct APIPolicyFileTests {
  @Test func shippedJourneysDeclareOrdersAndBilling() throws {
    for name in ["password", "mfa"] {
      let journey = try loadJourney(name)
      #expect(
        journey.api(named: "orders")
          == API(
            name: "orders", audience: "https://api.example.com/orders", resources: ["https://api.example.com/orders/"],
            scopes: ["orders:read", "orders:write"], acr: nil))
      #expect(journey.api(named: "billing")?.acr == "mfa")
    }
    // A journey without `apis` has none.
    #expect(try loadJourney("sso").apis.isEmpty)
  }

  static let valid = JourneyFileTests.valid.replacingOccurrences(
    of: "\"start\": \"a\",",
    with: """
      "start": "a", "apis": [
        {"name": "orders", "audience": "https://api.example.com/orders",
         "resources": ["https://api.example.com/orders/"], "scopes": ["orders:read", "orders:write"]},
        {"name": "billing", "audience": "urn:billing", "scopes": ["billing:read"], "acr": "mfa"}],
      """)

  func issues(_ text: String) -> [String] { journeyIssues(text) }

  @Test func validAPIsLoad() throws {
    #expect(issues(Self.valid) == [])
    let journey = try Journey.load(data: Array(Self.valid.utf8), file: "j.json")
    #expect(journey.apis.map(\.name) == ["orders", "billing"])
    #expect(journey.api(named: "billing")?.resources == [])
  }

  @Test(arguments: [
    ("\"name\": \"billing\"", "\"name\": \"orders\"", "$.apis[1].name: duplicate API name \"orders\""),
    ("\"name\": \"billing\"", "\"name\": \"bill ing\"", "$.apis[1].name: use letters, digits"),
    ("\"name\": \"billing\", ", "", "$.apis[1].name: missing"),
    ("\"audience\": \"urn:billing\", ", "", "$.apis[1].audience: missing"),
    ("\"urn:billing\"", "\"https://api.example.com/orders\"", "$.apis[1].audience: audience \"https://api"),
    ("\"urn:billing\"", "\"urn: billing\"", "$.apis[1].audience: must not contain white space"),
    (
      "\"https://api.example.com/orders/\"]", "\"orders/\"]",
      "$.apis[0].resources[0]: not an absolute URI without a fragment: \"orders/\""
    ),
    (
      "\"https://api.example.com/orders/\"]", "\"https://api.example.com/orders/#x\"]",
      "$.apis[0].resources[0]: not an absolute URI without a fragment"
    ),
    (
      "\"scopes\": [\"billing:read\"]", "\"resources\": [\"https://api.example.com/orders/\"], \"scopes\": [\"b\"]",
      "$.apis[1].resources[0]: resource \"https://api.example.com/orders/\" is already API \"orders\"'s"
    ),
    ("[\"billing:read\"]", "[\"billing read\"]", "$.apis[1].scopes[0]: not a scope token"),
    ("[\"billing:read\"]", "[]", "$.apis[1].scopes: declare at least one scope"),
    ("[\"billing:read\"]", "\"billing:read\"", "$.apis[1].scopes: must be an array"),
    ("\"scopes\": [\"billing:read\"], ", "", "$.apis[1].scopes: missing"),
    ("\"acr\": \"mfa\"", "\"acr\": 2", "$.apis[1].acr: must be a string"),
    ("\"acr\": \"mfa\"", "\"acr\": \"\"", "$.apis[1].acr: must not be empty"),
    ("\"acr\": \"mfa\"", "\"acr\": \"mfa\", \"colour\": 1", "$.apis[1].colour: unknown key"),
    ("{\"name\": \"billing\"", "3, {\"name\": \"billing\"", "$.apis[1]: an API is an object"),
  ])
  func apiMistakesNameTheirPath(_ find: String, _ replace: String, _ expected: String) {
    expectMistake(in: Self.valid, find, replacedBy: replace, named: expected)
  }

  @Test func apisMustBeAList() {
    let text = JourneyFileTests.valid.replacingOccurrences(
      of: "\"start\": \"a\",", with: "\"start\": \"a\", \"apis\": {},")
    #expect(issues(text).contains { $0.hasPrefix("$.apis: must be an array") })
  }
}

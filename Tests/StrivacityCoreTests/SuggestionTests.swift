// "Did you mean …?" for a mistyped name: only a near one, never a guess between two.
import StrivacityCore
import Testing

@Suite struct SuggestionTests {
  static let commands = ["login", "token", "status", "doctor", "userinfo", "logout", "revoke", "exec", "curl", "agent"]

  @Test(
    arguments: [
      ("tokne", "token"),  // two letters swapped
      ("tokn", "token"),  // one left out
      ("statsu", "status"),
      ("Doctr", "doctor"),
      ("logni", "login"),
      ("xyz", nil),  // nothing near
      ("token", nil),  // the name itself: nothing to suggest
      ("no-such-command", nil),
      ("", nil),
    ] as [(String, String?)])
  func theNearestNameIsSuggested(_ typed: String, _ expected: String?) {
    #expect(Suggestion.nearest(to: typed, among: Self.commands) == expected)
  }

  @Test func twoEquallyNearNamesSuggestNeither() {
    #expect(Suggestion.nearest(to: "ab1", among: ["ab2", "ab3"]) == nil)
  }
}

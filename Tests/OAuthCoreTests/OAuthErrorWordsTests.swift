// An OAuth error's words are admitted where the error is read (issue 46, point 4).
import OAuthCore
import StrivacityCore
import Testing

/// The tenant's words are cut where an OAuth error is read: no message naming it (a CLIFailure,
/// a helper's answer, doctor's report) carries more than the bound (issue 46, point 4).
@Suite struct OAuthErrorWordsTests {
  @Test func anErrorDescriptionOfAMegabyteIsCutAndInertWhereItIsRead() throws {
    let clears = String(repeating: "\u{1B}[2J", count: 262_144)
    let body = JSONValue.object(["error": .string("invalid_grant"), "error_description": .string(clears)]).serialized()
    let clock = ContinuousClock()
    var error: OAuthError?
    let took = clock.measure { error = OAuthError.from(status: 400, body: body) }
    let found = try #require(error)
    #expect(found.code == "invalid_grant")
    #expect(found.description.count <= TenantWords.limit)
    #expect(!found.description.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) })
    guard case .deadGrant = TokenEndpointOutcome(HTTPResponse(status: 400, body: body)) else {
      Issue.record("invalid_grant is still a dead grant")
      return
    }
    #expect(took < .seconds(2), "\(took)")
  }
}

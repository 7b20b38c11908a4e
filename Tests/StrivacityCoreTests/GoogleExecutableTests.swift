// Google's executable-sourced credentials, in-process: what the client's variables may say
// (GoogleExecutableInfo.from) and the response's error shape for every exit status.
// The real google-auth runs all of it end to end in CloudSDKTests.
import Testing

@testable import StrivacityCore

@Suite struct GoogleExecutableTests {
  @Test func theClientsTokenTypeIsAdmittedOrRefused() throws {
    #expect(try GoogleExecutableInfo.from([:]) == GoogleExecutableInfo(tokenType: GoogleExecutableInfo.jwt))
    #expect(try GoogleExecutableInfo.from(["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": ""]) == GoogleExecutableInfo())
    for type in GoogleExecutableInfo.tokenTypes {
      #expect(try GoogleExecutableInfo.from(["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": type]).tokenType == type)
    }
    // Interactive or not, an audience, an output file: nothing that changes the answer.
    let quiet = try GoogleExecutableInfo.from([
      "GOOGLE_EXTERNAL_ACCOUNT_INTERACTIVE": "1", "GOOGLE_EXTERNAL_ACCOUNT_AUDIENCE": "\u{1b}[2J",
      "GOOGLE_EXTERNAL_ACCOUNT_OUTPUT_FILE": "/etc/passwd",
    ])
    #expect(quiet == GoogleExecutableInfo())
    for hostile in [
      "urn:ietf:params:oauth:token-type:saml2", "jwt", "\u{1b}]0;x\u{7}", String(repeating: "x", count: 100_000),
    ] {
      do {
        _ = try GoogleExecutableInfo.from(["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": hostile])
        Issue.record("admitted \(hostile.prefix(40))")
      } catch {
        #expect(error.description.contains("subject_token_type"))
        #expect(!error.description.contains("\u{1b}") && error.description.utf8.count < 400)
      }
    }
  }

  @Test func everyExitStatusHasACodeAndTheErrorShapeIsOneLine() {
    let codes = ExitStatus.allCases.map(GoogleExecutableInfo.code)
    #expect(Set(codes).count == codes.count, "one code per status")
    #expect(GoogleExecutableInfo.code(.signInRequired) == "sign_in_required")
    #expect(GoogleExecutableInfo.code(.transient) == "transient")
    let shaped = GoogleExecutableInfo.failure(.transient, message: "the tenant\nis \u{1b}[31mdown")
    #expect(shaped.hasSuffix("\n") && shaped.dropLast().split(separator: "\n").count == 1)
    #expect(!shaped.contains("\u{1b}"))
    let parsed = JSONValue.parse(shaped)
    #expect(parsed?["version"]?.int == 1 && parsed?["success"]?.bool == false)
    #expect(parsed?["code"]?.string == "transient")
  }
}

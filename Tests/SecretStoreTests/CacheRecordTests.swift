// The access-token cache's payload (TokenCache.Record): what is written, and that anything else
// read back — another process of this user can write the key — is no entry, never a token that
// failed admission.
import StrivacityCore
import Testing
@testable import TokenCache

@Suite struct CacheRecordTests {
  let tokens = TokenSet(
    accessToken: "sat_abc", tokenType: "Bearer", refreshToken: "rt", idToken: "a.b.c", scope: "openid profile",
    expiresAt: 2_000_000_000, obtainedAt: 1_999_996_400)

  func decode(_ text: String) -> TokenSet? { Record.decode(ArraySlice(text.utf8)) }

  @Test func holdsTheAccessTokenAndItsTimesOnly() {
    let text = Record.encode(tokens, expiresAt: 2_000_000_000)
    #expect(text == "access_token=sat_abc\ntoken_type=Bearer\nexpires_at=2000000000\nobtained_at=1999996400\nscope=openid profile\n")
    let back = decode(text)
    #expect(back == TokenSet(accessToken: "sat_abc", scope: "openid profile", expiresAt: 2_000_000_000, obtainedAt: 1_999_996_400))
    #expect(back?.refreshToken == nil && back?.idToken == nil)
    var unscoped = tokens
    unscoped.scope = nil
    #expect(decode(Record.encode(unscoped, expiresAt: 2_000_000_000))?.scope == nil)
  }

  @Test(arguments: [
    "",
    "access_token=sat_abc\n",  // no times
    "access_token=sat abc\ntoken_type=Bearer\nexpires_at=2\nobtained_at=1\n",  // not a bearer token
    "access_token=sat_\u{1B}[2J\ntoken_type=Bearer\nexpires_at=2\nobtained_at=1\n",  // an escape sequence
    "access_token=sat_abc\ntoken_type=Bearer\r\nexpires_at=2\nobtained_at=1\n",  // CR
    "access_token=sat_abc\ntoken_type=Mac\nexpires_at=2\nobtained_at=1\n",  // another token type
    "access_token=sat_abc\nexpires_at=-2\nobtained_at=1\n",  // a sign
    "access_token=sat_abc\nexpires_at=99999999999999999999\nobtained_at=1\n",  // past Int64
    "access_token=sat_abc\nexpires_at=0x10\nobtained_at=1\n",
    "access_token=sat_abc\nexpires_at=2\nobtained_at=1\nrefresh_token=rt\n",  // a key it never writes
    "access_token=sat_abc\naccess_token=sat_other\nexpires_at=2\nobtained_at=1\n",  // twice
    "access_token=sat_abc\nexpires_at=2\nobtained_at=1\nscope=a  b\n",  // not scope syntax
    "access_token=sat_abc\nexpires_at\nobtained_at=1\n",  // no =
    "{\"v\":1,\"tokens\":{\"access_token\":\"sat_abc\",\"obtained_at\":1,\"expires_at\":2}}",  // the old JSON form
  ])
  func anythingElseIsNoEntry(_ text: String) {
    #expect(decode(text) == nil)
  }

  @Test func invalidUTF8IsNoEntry() {
    #expect(Record.decode(ArraySlice(Array("access_token=sat_abc\nexpires_at=2\nobtained_at=1\n".utf8) + [0xFF])) == nil)
  }
}

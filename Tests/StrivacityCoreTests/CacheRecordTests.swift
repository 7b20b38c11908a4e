// The access-token cache's payload (CacheRecord): what is written, and that anything else read
// back — another process of this user can write the key — is no entry, never a token that
// failed admission.
import StrivacityCore
import Testing

@Suite struct CacheRecordTests {
  let tokens = TokenSet(
    accessToken: "sat_abc", tokenType: "Bearer", refreshToken: "rt", idToken: "a.b.c", scope: "openid profile",
    expiresAt: 2_000_000_000, obtainedAt: 1_999_996_400)
  static let valid = "access_token=sat_abc\ntoken_type=Bearer\nexpires_at=2\nobtained_at=1\n"

  func decode(_ bytes: [UInt8]) -> TokenSet? { CacheRecord.decode(bytes[...]) }
  func decode(_ text: String) -> TokenSet? { decode(Array(text.utf8)) }

  @Test func holdsTheAccessTokenAndItsTimesOnly() {
    let text = CacheRecord.encode(tokens, expiresAt: 2_000_000_000)
    #expect(
      text
        == "access_token=sat_abc\ntoken_type=Bearer\nexpires_at=2000000000\nobtained_at=1999996400\nscope=openid "
        + "profile\n"
    )
    let back = decode(text)
    #expect(
      back
        == TokenSet(
          accessToken: "sat_abc", scope: "openid profile", expiresAt: 2_000_000_000, obtainedAt: 1_999_996_400))
    #expect(back?.refreshToken == nil && back?.idToken == nil)
    var unscoped = tokens
    unscoped.scope = nil
    #expect(decode(CacheRecord.encode(unscoped, expiresAt: 2_000_000_000))?.scope == nil)
    #expect(decode(Self.valid) != nil)
  }

  @Test(arguments: [
    "",
    "access_token=sat_abc\n",  // no times
    "access_token=sat abc\ntoken_type=Bearer\nexpires_at=2\nobtained_at=1\n",  // not a bearer token
    "access_token=sat_\u{1B}[2J\ntoken_type=Bearer\nexpires_at=2\nobtained_at=1\n",  // an escape sequence
    "access_token=sat_abc\ntoken_type=Mac\nexpires_at=2\nobtained_at=1\n",  // another token type
    "access_token=sat_abc\nexpires_at=-2\nobtained_at=1\n",  // a sign
    "access_token=sat_abc\nexpires_at=99999999999999999999\nobtained_at=1\n",  // past Int64
    "access_token=sat_abc\nexpires_at=0x10\nobtained_at=1\n",
    "access_token=sat_abc\nexpires_at=2\nobtained_at=1\nrefresh_token=rt\n",  // a key it never writes
    "access_token=sat_abc\naccess_token=sat_other\nexpires_at=2\nobtained_at=1\n",  // twice
    "access_token=sat_abc\nexpires_at=2\nobtained_at=1\nscope=a  b\n",  // not scope syntax
    "access_token=sat_abc\nexpires_at\nobtained_at=1\n",  // no =
    " access_token=sat_abc\nexpires_at=2\nobtained_at=1\n",  // a space before a name
    "\u{FEFF}access_token=sat_abc\nexpires_at=2\nobtained_at=1\n",  // a byte-order mark
    "access_token=\u{301}sat_abc\nexpires_at=2\nobtained_at=1\n",  // "=" followed by a combining mark
    "{\"v\":1,\"tokens\":{\"access_token\":\"sat_abc\",\"obtained_at\":1,\"expires_at\":2}}",  // the old JSON form
  ])
  func anythingElseIsNoEntry(_ text: String) {
    #expect(decode(text) == nil)
  }

  /// Byte by byte: a CR before a line's end, a NUL, bytes that are not UTF-8.
  @Test func controlBytesAndBrokenUTF8AreNoEntry() {
    for (field, bad) in [
      ("token_type=Bearer", "token_type=Bearer\r"), ("access_token=sat_abc", "access_token=sat_abc\r"),
      ("expires_at=2", "expires_at=2\r"), ("access_token=sat_abc", "access_token=sat_\u{0}abc"),
    ] {
      let text = Self.valid.replacing(field, with: bad)
      #expect(text != Self.valid && decode(text) == nil, "\(bad.debugDescription)")
    }
    #expect(decode(Array(Self.valid.utf8) + [0xFF]) == nil)
    #expect(decode(Array("access_token=sat_".utf8) + [0xC3] + Array("\nexpires_at=2\nobtained_at=1\n".utf8)) == nil)
  }
}

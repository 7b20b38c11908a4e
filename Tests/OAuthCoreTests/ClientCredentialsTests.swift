// The client-credentials grant and a confidential client's authentication (issue 28): RFC 6749
// §4.4.2's example, §2.3.1's Basic encoding (each part form-urlencoded, then base64) read back
// both ways for secrets with every awkward character, and the secret never shown.
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@Suite struct ClientCredentialsTests {
  func body(_ request: HTTPRequest) -> String { String(decoding: request.body ?? [], as: UTF8.self) }

  /// RFC 6749 §4.4.2: `Authorization: Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW` and
  /// `grant_type=client_credentials` (its example's id and secret need no encoding).
  @Test func theRFCsExample() throws {
    let secret = try ClientSecret(admitting: "gX1fBat3bV")
    let http = TokenRequest(
      grant: .clientCredentials, client: .clientSecretBasic(clientID: "s6BhdRkqt3", secret: secret)
    )
    .httpRequest(url: "https://server.example.com/token")
    #expect(body(http) == "grant_type=client_credentials")
    #expect(http.headers.contains(HTTPHeader("Authorization", "Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW")))
    #expect(!http.freshConnection)
  }

  /// Secrets with newlines, `:`, `%`, `+`, spaces and non-ASCII: the Basic header and the body
  /// each decode back to exactly the id and secret given.
  @Test(arguments: [
    "a:b", "100%+sure", "line\nbreak", "sp ace", "πß€🔑", "=&?#/\\\"'", String(repeating: "x", count: 4096),
  ])
  func everySecretSurvivesBothEncodings(_ text: String) throws {
    let secret = try ClientSecret(admitting: text)
    let clientID = "ci:bot+1"
    let basic = TokenRequest(grant: .clientCredentials, client: .clientSecretBasic(clientID: clientID, secret: secret))
      .httpRequest(url: "https://t/token")
    let header = try #require(basic.headers.first { $0.name == "Authorization" }?.value)
    #expect(header.hasPrefix("Basic "))
    let decoded = try #require(
      Data(base64Encoded: String(header.dropFirst(6))).map { String(decoding: $0, as: UTF8.self) })
    let parts = decoded.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    #expect(parts.count == 2 && !parts[0].contains(":"), "the separator is the only raw colon")
    #expect(FormURLEncoding.unescape(parts[0]) == clientID && FormURLEncoding.unescape(parts[1]) == text)
    #expect(!body(basic).contains("client_secret"))

    let post = TokenRequest(grant: .clientCredentials, client: .clientSecretPost(clientID: clientID, secret: secret))
      .httpRequest(url: "https://t/token")
    let form = FormURLEncoding.dictionary(body(post))
    #expect(
      form["client_secret"] == text && form["client_id"] == clientID && form["grant_type"] == "client_credentials")
    #expect(!post.headers.contains { $0.name == "Authorization" })
  }

  @Test func revocationAuthenticatesTheSameWay() throws {
    let secret = try ClientSecret(admitting: "s3cret")
    let http = RevocationRequest(
      token: "at", hint: .accessToken, client: .clientSecretBasic(clientID: "c", secret: secret)
    ).httpRequest(url: "https://t/revoke")
    #expect(body(http) == "token=at&token_type_hint=access_token")
    #expect(http.headers.contains(HTTPHeader("Authorization", "Basic YzpzM2NyZXQ=")))
  }

  @Test func theSecretIsNeverShownAndIsBounded() throws {
    let secret = try ClientSecret(admitting: "hunter2-very-secret")
    #expect("\(secret)" == "<redacted 19 bytes>")
    #expect(
      String(describing: ClientAuthentication.clientSecretPost(clientID: "c", secret: secret)).contains("hunter2")
        == false)
    #expect(throws: AdmissionError.self) { try ClientSecret(admitting: "") }
    #expect(throws: AdmissionError.self) { try ClientSecret(admitting: String(repeating: "x", count: 4097)) }
    #expect(throws: AdmissionError.self) { try ClientSecret(admitting: "a\u{0}b") }
  }

  @Test func base64MatchesRFC4648() {
    let vectors = [
      "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy",
    ]
    for (plain, encoded) in vectors { #expect(Base64.encode(Array(plain.utf8)) == encoded, "\(plain)") }
  }
}

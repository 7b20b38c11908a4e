// The one reading of the tenant's answers (TokenEndpointOutcome): RFC 6749 §5.1's successful
// response and §5.2's error response (its own example), RFC 6750 §3.1's invalid_token, and
// RFC 6585 §4's 429 with Retry-After.
import OAuthCore
import StrivacityCore
import Testing

@Suite struct TokenEndpointOutcomeTests {
  func answer(_ status: Int, _ body: String = "", headers: [HTTPHeader] = []) -> HTTPResponse {
    HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
  }

  func error(_ code: String, _ status: Int, _ description: String? = nil) -> OAuthError {
    .server(error: code, description: description, status: status)
  }

  func outcome(_ status: Int, error code: String) -> TokenEndpointOutcome {
    TokenEndpointOutcome(answer(status, #"{"error":"\#(code)"}"#))
  }

  /// RFC 6749 §5.1's example response.
  @Test func tokens() throws {
    let body = """
      {"access_token":"2YotnFZFEjr1zCsicMWpAA","token_type":"example","expires_in":3600,\
      "refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA","example_parameter":"example_value"}
      """
    // "example" is not Bearer: this client refuses it (RFC 6750 only).
    #expect(TokenEndpointOutcome(answer(200, body)).status == 200)
    guard case .serverError(200, .malformed?) = TokenEndpointOutcome(answer(200, body)) else {
      Issue.record("a token type other than Bearer was taken")
      return
    }
    let bearer = body.replacing("\"example\"", with: "\"Bearer\"")
    guard case .tokens(let tokens) = TokenEndpointOutcome(answer(200, bearer)) else {
      Issue.record("RFC 6749 §5.1's response was refused")
      return
    }
    #expect(tokens.accessToken.value == "2YotnFZFEjr1zCsicMWpAA" && tokens.expiresIn == 3600)
    #expect(tokens.refreshToken == "tGzv3JOkF0XG5Qx2TlKWIA")
    let notJSON = OAuthError.malformed("the token response is not a JSON object")
    #expect(TokenEndpointOutcome(answer(200, "not json")) == .serverError(status: 200, error: notJSON))
  }

  /// RFC 6749 §5.2's example: invalid_request is the server's refusal, not a dead grant.
  @Test func errorResponses() {
    #expect(outcome(400, error: "invalid_request") == .serverError(status: 400, error: error("invalid_request", 400)))
    let expired = answer(400, #"{"error":"invalid_grant","error_description":"expired"}"#)
    #expect(TokenEndpointOutcome(expired) == .deadGrant(error("invalid_grant", 400, "expired")))
    #expect(outcome(401, error: "invalid_token") == .deadGrant(error("invalid_token", 401)))
    #expect(outcome(401, error: "invalid_client") == .clientRefused(error("invalid_client", 401)))
    #expect(outcome(400, error: "unauthorized_client") == .clientRefused(error("unauthorized_client", 400)))
    // Only on 400 and 401: the same code on a 403 is another error.
    #expect(outcome(403, error: "invalid_grant") == .serverError(status: 403, error: error("invalid_grant", 403)))
    #expect(TokenEndpointOutcome(answer(404)) == .serverError(status: 404, error: nil))
    #expect(!TokenEndpointOutcome(answer(400)).isTransient)
  }

  /// 5xx and 429 are worth trying again, everywhere; Retry-After's delay is admitted as seconds.
  @Test func transientAnswers() {
    for status in [500, 502, 503, 504, 429] {
      #expect(TokenEndpointOutcome.failure(status: status).isTransient, "\(status)")
    }
    for status in [400, 401, 403, 404, 410, 418] {
      #expect(!TokenEndpointOutcome.failure(status: status).isTransient, "\(status)")
    }
    let limited = answer(429, #"{"error":"slow_down"}"#, headers: [HTTPHeader("retry-after", "120")])
    #expect(TokenEndpointOutcome(limited) == .transient(status: 429, retryAfter: 120, error: error("slow_down", 429)))
    for odd in ["Fri, 31 Dec 1999 23:59:59 GMT", "-1", "1e9", "", "99999999999999"] {
      let answer = answer(503, headers: [HTTPHeader("Retry-After", odd)])
      #expect(TokenEndpointOutcome(answer) == .transient(status: 503, retryAfter: nil, error: nil), "\(odd)")
    }
  }
}

extension TokenEndpointOutcomeTests {
  /// The one status-to-exit rule every command reads an unwanted answer by: 4 where trying again
  /// later may help (429, 5xx), else 5.
  @Test func failureStatus() {
    for status in [429, 500, 502, 503, 599] {
      #expect(TokenEndpointOutcome.failure(answer(status)).failureStatus == .transient, "\(status)")
      #expect(TokenEndpointOutcome.failure(status: status).failureStatus == .transient, "\(status)")
    }
    for status in [300, 400, 401, 403, 404, 410, 418] {
      #expect(TokenEndpointOutcome.failure(answer(status)).failureStatus == .server, "\(status)")
    }
    #expect(outcome(400, error: "invalid_request").failureStatus == .server)
    #expect(TokenEndpointOutcome(answer(200, "{}")).failureStatus == .server)
  }
}

// What an answer of the tenant means, read once: tokens, a dead grant, a refused client, trouble
// worth trying again later, or an error. The sign-in, the refresh, discovery, userinfo and the
// journey's answers all take their exit class from here (RFC 6749 §5.1, §5.2; RFC 6750 §3.1;
// RFC 6585 §4; RFC 9110 §10.2.3), so that 429 or a 5xx means the same thing everywhere.
import StrivacityCore

public enum TokenEndpointOutcome: Sendable, Equatable {
  /// A 200 with an admitted token response.
  case tokens(TokenResponse)
  /// The grant is dead (`invalid_grant`, `invalid_token` on a 400 or 401): expired, revoked or
  /// rotated elsewhere. Only a new sign-in helps.
  case deadGrant(OAuthError)
  /// The client itself is refused (`invalid_client`, `unauthorized_client`,
  /// `unsupported_grant_type` on a 400 or 401).
  case clientRefused(OAuthError)
  /// Worth trying again later: a 5xx, or 429 with `Retry-After`'s delay in seconds when it says
  /// one (admitted as a lifetime is; an HTTP-date or anything else is no delay).
  case transient(status: Int, retryAfter: Int64?, error: OAuthError?)
  /// Any other answer: another status, with the server's OAuth error when its body is one; or a
  /// 200 whose body is no admissible token response (status 200, `.malformed`).
  case serverError(status: Int, error: OAuthError?)

  /// The token endpoint's answer (RFC 6749 §5.1, §5.2).
  public init(_ response: HTTPResponse) {
    guard response.status == 200 else {
      self = Self.failure(response)
      return
    }
    do {
      self = .tokens(try TokenResponse(json: JSONValue.parse(response.body) ?? .null))
    } catch {
      self = .serverError(status: 200, error: error)
    }
  }

  /// Any answer of the tenant's that is not the tokens asked for: the one status-to-class rule.
  public static func failure(_ response: HTTPResponse) -> TokenEndpointOutcome {
    let status = response.status
    let error = OAuthError.from(status: status, body: response.body)
    if status >= 500 || status == 429 {
      let retryAfter = response.header("Retry-After").flatMap { try? Admit.lifetime(.string($0), what: "Retry-After") }
      return .transient(status: status, retryAfter: retryAfter, error: error)
    }
    if status == 400 || status == 401, case .server(let code, _, _)? = error {
      if deadGrantErrors.contains(code) { return .deadGrant(error!) }
      if clientErrors.contains(code) { return .clientRefused(error!) }
    }
    return .serverError(status: status, error: error)
  }

  /// The class of a failure status alone (the journey's answers, read by JourneyCore).
  public static func failure(status: Int) -> TokenEndpointOutcome {
    failure(HTTPResponse(status: status))
  }

  static let deadGrantErrors: Set<String> = ["invalid_grant", "invalid_token"]
  static let clientErrors: Set<String> = ["invalid_client", "unauthorized_client", "unsupported_grant_type"]

  /// Whether trying again later may help (exit 4, stored tokens untouched).
  public var isTransient: Bool {
    if case .transient = self { return true }
    return false
  }

  /// The exit status of a command that did not get the answer it wanted, unless it reads this
  /// case its own way (a dead grant, a refused client): 4 when trying again later may help, else
  /// 5, the tenant's. The one status-to-exit rule for every answer of the tenant's.
  public var failureStatus: ExitStatus { isTransient ? .transient : .server }

  /// The HTTP status the outcome came from.
  public var status: Int {
    switch self {
    case .tokens: return 200
    case .deadGrant(let error), .clientRefused(let error):
      if case .server(_, _, let status) = error { return status }
      return 400
    case .transient(let status, _, _), .serverError(let status, _): return status
    }
  }

  /// The server's OAuth error, or why a 200 was refused.
  public var error: OAuthError? {
    switch self {
    case .tokens: return nil
    case .deadGrant(let error), .clientRefused(let error): return error
    case .transient(_, _, let error), .serverError(_, let error): return error
    }
  }
}

extension HTTPResponse {
  /// The exit status of a command this answer failed (discovery's, userinfo's, the JWKS's, the
  /// journey's): read as the token endpoint's are (`TokenEndpointOutcome.failureStatus`).
  public var failureStatus: ExitStatus { TokenEndpointOutcome.failure(self).failureStatus }
}

extension BrokerError {
  /// The one reading of a token endpoint's answer that brought no tokens, for `ask`.
  public init(_ outcome: TokenEndpointOutcome, asking ask: EndpointAsk) {
    let http = outcome.status
    switch (outcome, ask) {
    case (.deadGrant(let error), .refresh(let profile)):
      self = .refreshRefused(profile: profile, error)
    case (.clientRefused(let error), .client(_, let clientID, _, let proof)):
      self =
        error.code == "invalid_client"
        ? .clientRefused(clientID: clientID, error, http: http, proof: proof)
        : .grantRefused(clientID: clientID, error)
    case (.serverError(401, nil), .client(_, let clientID, _, let proof)),
      (.serverError(403, nil), .client(_, let clientID, _, let proof)):
      // No OAuth error at all (glewlwyd answers a wrong secret with a bare 403): for this grant
      // the client is what the tenant can be refusing.
      self = .clientRefused(clientID: clientID, nil, http: http, proof: proof)
    case (.serverError(200, _), _), (.tokens, _):
      self = .unusableAnswer(ask, outcome.error)
    case (.transient, _):
      self = .failed(ask, http: http, transient: true)
    case (_, .refresh):
      self =
        http == 400 || http == 401
        ? .refused(ask, outcome.error, http: http) : .failed(ask, http: http, transient: false)
    default:
      self =
        outcome.error == nil ? .failed(ask, http: http, transient: false) : .refused(ask, outcome.error, http: http)
    }
  }
}

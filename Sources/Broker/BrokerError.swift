// What went wrong in the engine, as values: the profile, the tenant's answer, what was asked.
// The sentence and the exit code are the command line's, in one place (ExitStatus.swift), read
// by the agent's answers and the doctor too.
import OAuthCore
import StrivacityCore

package enum BrokerError: Error {
  case notSignedIn(profile: String)
  /// Tokens are needed and no refresh token is held (`NoRefresh`: for what).
  case noRefreshToken(profile: String, NoRefresh)
  /// Only a sign-in asking for more helps (`reason`: why, `command`: the login that asks);
  /// `offered`: one was offered to the person at the terminal already.
  case signInNeeded(reason: String, command: String, offered: Bool)
  /// The tenant refused an API's token again after a sign-in that asked for it.
  indirect case stillRefused(BrokerError)
  /// The tenant refused the refresh token (it is discarded).
  case refreshRefused(profile: String, OAuthError)
  /// A 200 whose body is no token response.
  case unusableAnswer(TokenAsk, OAuthError?)
  /// The tenant refused what was asked (its error, or only an HTTP status).
  case refused(TokenAsk, OAuthError?, http: Int)
  /// Another answer; `transient`: trying again later may help.
  case failed(TokenAsk, http: Int, transient: Bool)
  /// The tenant refused the client's proof (a secret or a key assertion).
  case clientRefused(clientID: String, OAuthError?, http: Int, proof: ClientProof)
  /// The tenant does not let the client use the client-credentials grant.
  case grantRefused(clientID: String, OAuthError)
  /// The tenant's token is not for what was asked (`APITarget.mismatch`).
  case notForTarget(label: String, mismatch: String)
  /// What the agent answered that is final (the tenant's or the network's word).
  case agentRefused(message: String, status: ExitStatus)
  /// The tenant's discovery document answered with this HTTP status.
  case discoveryFailed(http: Int)
  /// The tenant's discovery or endpoints cannot be used (one line saying why).
  case tenantUnusable(String)
  /// The profile's configuration, the environment, or a file they name (one line saying which).
  case configuration(String)
  /// The client secret kept for the profile does not read.
  case storedSecretUnreadable(profile: String)
  /// An API's step-up demand: the sign-in to run.
  case stepUpNeeded(whose: String, command: String)
  /// An API's protected-resource metadata (how the fetch failed is not said).
  case metadataUnreadable(transient: Bool)
  /// Another strivacity has held the profile's refresh lock for `seconds`.
  case busy(profile: String, seconds: Int)
  /// A call of this system failed (the refresh lock, the agent's socket): one line saying which.
  case system(String)

  /// For what a refresh token was needed: a forced refresh of tokens that have not expired,
  /// tokens that have, a token for an API (its label).
  package enum NoRefresh: Sendable { case forced, expired, api(String) }
}

/// What was asked of the token endpoint, as a failure's sentence names it.
package enum TokenAsk: Sendable {
  /// The sign-in's set renewed by its refresh token.
  case refresh(profile: String)
  /// The refresh grant narrowed to an API (`label`: "API orders").
  case api(label: String, APITarget)
  /// The client-credentials grant, for the profile (no target) or an API; `scopes`: asked.
  case client(label: String, clientID: String, APITarget?, scopes: [String], proof: ClientProof)
}

/// How a client proved itself, as a refusal names it (never the secret).
package enum ClientProof: Sendable {
  /// `method`: how it was sent; `source`: where the secret came from.
  case secret(method: String, source: String)
  /// A `private_key_jwt` assertion signed with the key at `path` (`keyID`: its kid).
  case key(path: String, keyID: String?, profile: String)
}

extension BrokerError {
  /// The one reading of a token endpoint's answer that brought no tokens, for `ask`.
  package init(_ outcome: TokenEndpointOutcome, asking ask: TokenAsk) {
    let http = outcome.status
    switch (outcome, ask) {
    case (.deadGrant(let error), .refresh(let profile)):
      self = .refreshRefused(profile: profile, error)
    case (.clientRefused(let error), .client(_, let clientID, _, _, let proof)):
      self =
        error.code == "invalid_client"
        ? .clientRefused(clientID: clientID, error, http: http, proof: proof)
        : .grantRefused(clientID: clientID, error)
    case (.serverError(401, nil), .client(_, let clientID, _, _, let proof)),
      (.serverError(403, nil), .client(_, let clientID, _, _, let proof)):
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

  /// The tenant's refusal of a target or scope that a sign-in asking for them may cure.
  package var signInMayCure: Bool {
    guard case .refused(.api, let error?, _) = self else { return false }
    return ["invalid_target", "invalid_scope", "invalid_grant"].contains(error.code)
  }
}

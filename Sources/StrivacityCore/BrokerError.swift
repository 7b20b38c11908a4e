// What went wrong in the engine (Broker), as values: the profile, the tenant's answer, what was
// asked. Each says its one sentence and exit code here, the one place every caller reads them
// from: the command line (CLIFailure), the agent's answers and journal, logout's report, doctor.

public enum BrokerError: Error {
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
  case unusableAnswer(EndpointAsk, OAuthError?)
  /// The tenant refused what was asked (its error, or only an HTTP status).
  case refused(EndpointAsk, OAuthError?, http: Int)
  /// Another answer; `transient`: trying again later may help.
  case failed(EndpointAsk, http: Int, transient: Bool)
  /// The tenant refused the client's proof (a secret or a key assertion).
  case clientRefused(clientID: String, OAuthError?, http: Int, proof: ClientProof)
  /// The tenant does not let the client use the client-credentials grant.
  case grantRefused(clientID: String, OAuthError)
  /// The tenant's token is not for what was asked (`APITarget.mismatch`).
  case notForTarget(label: String, mismatch: String)
  /// What the agent answered that is final (the tenant's or the network's word).
  case agentRefused(message: String, status: ExitStatus)
  /// The tenant's discovery document answered with this HTTP status (its class: `status`).
  case discoveryFailed(http: Int, status: ExitStatus)
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
  public enum NoRefresh: Sendable { case forced, expired, api(String) }
}

/// What was asked of the token endpoint, as a failure's sentence names it.
public enum EndpointAsk: Sendable {
  /// The sign-in's set renewed by its refresh token.
  case refresh(profile: String)
  /// The refresh grant narrowed to an API (`label`: "API orders").
  case api(label: String, Narrowed)
  /// The client-credentials grant, for the profile or an API.
  case client(label: String, clientID: String, Narrowed, proof: ClientProof)

  /// What a token was narrowed to (RFC 8707 §2.2: audience, resources, scopes asked).
  public struct Narrowed: Sendable {
    public var audience: String?
    public var resources: [String]
    public var scopes: [String]
    public init(audience: String? = nil, resources: [String] = [], scopes: [String] = []) {
      (self.audience, self.resources, self.scopes) = (audience, resources, scopes)
    }
  }
}

/// How a client proved itself, as a refusal names it (never the secret).
public enum ClientProof: Sendable {
  /// `method`: how it was sent; `source`: where the secret came from.
  case secret(method: String, source: String)
  /// A `private_key_jwt` assertion signed with the key at `path` (`keyID`: its kid).
  case key(path: String, keyID: String?, profile: String)
}

extension BrokerError {
  /// The one line people read.
  public var message: String {
    switch self {
    case .notSignedIn(let profile):
      return "not signed in to \(profile): run strivacity login\(ProfileName.flag(profile))"
    case .noRefreshToken(let profile, .forced):
      return "no refresh token is held for \(profile), so it cannot be refreshed: run strivacity login for new tokens"
    case .noRefreshToken(let profile, .expired):
      return "the access token for \(profile) has expired and no refresh token is held: run strivacity login"
    case .noRefreshToken(let profile, .api(let label)):
      return "no refresh token is held for \(profile), so no token for \(label) can be asked for: run strivacity login"
    case .signInNeeded(let reason, let command, _): return "\(reason); run \(command)"
    case .stillRefused(let first): return "\(first.message), even after signing in again asking for it"
    case .refreshRefused(let profile, let error):
      return "the tenant refused the refresh token for \(profile) (\(error)); it was discarded: run strivacity login"
    case .unusableAnswer(.refresh, let error):
      return "the refresh answer is unusable: \(Self.why(error, 200)); stored tokens are unchanged"
    case .unusableAnswer(let ask, let error): return "the answer for \(ask.label) is unusable: \(Self.why(error, 200))"
    case .refused(.refresh, let error, let http):
      return "the refresh failed: \(Self.why(error, http)); stored tokens are unchanged"
    case .refused(let ask, let error, let http):
      let client = if case .client(_, let clientID, _, _) = ask { " to client \(clientID)" } else { "" }
      return
        "the tenant refused a token for \(ask.label)\(ask.parameter(error?.code))\(client): \(Self.why(error, http))"
    case .failed(.refresh, let http, _): return "the refresh failed with HTTP \(http); stored tokens are unchanged"
    case .failed(let ask, let http, let transient):
      let later = if case .client = ask { "; try again later" } else { "; stored tokens are unchanged" }
      return "a token for \(ask.label) failed with HTTP \(http)\(transient ? later : "")"
    case .clientRefused(let clientID, let error, let http, let proof):
      let why =
        error.map { " (\($0))" }
        ?? " (HTTP \(http) without an OAuth error: a wrong secret, or a grant or scope this client may not have)"
      switch proof {
      case .key(let path, let keyID, let profile):
        return "the tenant refused the client's key assertion for \(clientID)\(why): check that \(path) is the key "
          + "registered for the client\(keyID.map { " with kid \($0)" } ?? "") (strivacity status --profile \(profile) "
          + "--jwk prints it)"
      case .secret(let method, let source):
        return
          "the tenant refused the client secret for \(clientID)\(why), sent as \(method): check the secret in \(source)"
      }
    case .grantRefused(let clientID, let error):
      return "the tenant does not let client \(clientID) use the client-credentials grant (\(error)): allow it for the "
        + "client at the tenant"
    case .notForTarget(let label, let mismatch): return "\(label): \(mismatch); it was not kept"
    case .agentRefused(let message, _): return message
    case .discoveryFailed(let http, _): return "the tenant's discovery document failed with HTTP \(http)"
    case .tenantUnusable(let message), .configuration(let message), .system(let message): return message
    case .stepUpNeeded(let whose, let command): return "\(whose) asks for a stronger sign-in: run \(command)"
    case .metadataUnreadable: return "the API's metadata could not be read"
    case .busy(let profile, let seconds):
      return "another strivacity has been refreshing profile \(profile) for over \(seconds) s; try again"
    case .storedSecretUnreadable(let profile):
      return "the client secret stored for \(profile) does not read: store it again with strivacity login --profile "
        + "\(profile) --client-secret-stdin"
    }
  }

  /// The exit code it means.
  public var status: ExitStatus {
    switch self {
    case .notSignedIn, .noRefreshToken, .signInNeeded, .stillRefused, .refreshRefused, .stepUpNeeded:
      return .signInRequired
    case .unusableAnswer, .refused, .notForTarget, .tenantUnusable: return .server
    case .failed(_, _, let transient): return transient ? .transient : .server
    case .clientRefused, .grantRefused: return .clientRefused
    case .agentRefused(_, let status): return status
    case .metadataUnreadable(let transient): return transient ? .transient : .server
    case .busy: return .transient
    case .system: return .failure
    case .discoveryFailed(_, let status): return status
    case .configuration: return .usage
    case .storedSecretUnreadable: return .store
    }
  }

  /// A sign-in was offered to the person at the terminal already (`signInAgain`) and declined or
  /// did not help: whoever offers one on a `.signInRequired` failure need not ask again.
  public var signInOffered: Bool {
    switch self {
    case .signInNeeded(_, _, let offered): return offered
    case .stillRefused: return true
    default: return false
    }
  }

  /// The tenant's refusal of a target or scope that a sign-in asking for them may cure.
  public var signInMayCure: Bool {
    guard case .refused(.api, let error?, _) = self else { return false }
    return ["invalid_target", "invalid_scope", "invalid_grant"].contains(error.code)
  }

  private static func why(_ error: OAuthError?, _ http: Int) -> String { error.map { "\($0)" } ?? "HTTP \(http)" }
}

extension EndpointAsk {
  /// How messages name what was asked: "API orders", "profile ci".
  public var label: String {
    switch self {
    case .refresh(let profile): return "profile \(profile)"
    case .api(let label, _), .client(let label, _, _, _): return label
    }
  }

  /// " (scope a b)", " (audience X)": the parameter a refusal with `code` is about; "" for others.
  func parameter(_ code: String?) -> String {
    let asked: Narrowed
    switch self {
    case .refresh: return ""
    case .api(_, let narrowed), .client(_, _, let narrowed, _): asked = narrowed
    }
    switch code {
    case "invalid_target":
      guard asked.audience != nil || !asked.resources.isEmpty else { return "" }
      return " (\(asked.audience.map { "audience \($0)" } ?? "resource \(asked.resources.joined(separator: " "))"))"
    case "invalid_scope", "invalid_grant":
      return asked.scopes.isEmpty ? "" : " (scope \(asked.scopes.joined(separator: " ")))"
    default: return ""
    }
  }
}

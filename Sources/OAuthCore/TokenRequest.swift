// Requests to the tenant's authorization, token and revocation endpoints as values: every
// authorize URL and form body is built here and nowhere else (RFC 6749 §4.1.1, §4.1.3, §6;
// RFC 7636 §4.3, §4.5; RFC 7009 §2.1). A new grant (client credentials, token exchange) is one
// case of `TokenRequest.Grant`; a per-request parameter (resource, audience, scope) is an entry
// of `additionalParameters`; a way for the client to prove itself is one case of
// `ClientAuthentication`.
import StrivacityCore

/// How the client identifies itself at the token and revocation endpoints (RFC 6749 §2.3). A
/// public client (a command line: no secret to keep) sends its `client_id` in the body.
public enum ClientAuthentication: Sendable, Equatable, CustomStringConvertible {
  case none(clientID: String)
  /// A confidential client (a machine profile) in the Basic header (RFC 6749 §2.3.1).
  case clientSecretBasic(clientID: String, secret: ClientSecret)
  /// The same in the body (`client_id`, `client_secret`; RFC 6749 §2.3.1).
  case clientSecretPost(clientID: String, secret: ClientSecret)
  /// A JWT signed with the client's private key (RFC 7523 §2.2; `ClientAssertion` makes one,
  /// for one request), with `client_id` beside it (RFC 7521 §4.2: some servers want it).
  case privateKeyJWT(clientID: String, assertion: String)

  /// Its method's name (RFC 7591 §2), never the secret.
  public var description: String {
    switch self {
    case .none: return "none"
    case .clientSecretBasic: return "client_secret_basic"
    case .clientSecretPost: return "client_secret_post"
    case .privateKeyJWT: return "private_key_jwt"
    }
  }

  /// The body parameters it adds.
  var parameters: [FormParameter] {
    switch self {
    case .none(let clientID): return [FormParameter("client_id", clientID)]
    case .clientSecretBasic: return []
    case .clientSecretPost(let clientID, let secret):
      return [FormParameter("client_id", clientID), FormParameter("client_secret", secret.value)]
    case .privateKeyJWT(let clientID, let assertion):
      return [
        FormParameter("client_id", clientID), FormParameter("client_assertion_type", ClientAssertion.type),
        FormParameter("client_assertion", assertion),
      ]
    }
  }

  /// The secrets it sends: the secret (and the Basic header's encoded pair), or the assertion.
  var secrets: [String] {
    switch self {
    case .none: return []
    case .clientSecretBasic(_, let secret):
      return [secret.value] + headers.map { String($0.value.drop { $0 != " " }.dropFirst()) }
    case .clientSecretPost(_, let secret): return [secret.value]
    case .privateKeyJWT(_, let assertion): return [assertion]
    }
  }

  /// The headers it adds.
  var headers: [HTTPHeader] {
    switch self {
    case .clientSecretBasic(let clientID, let secret): return [.basicAuthorization(clientID: clientID, secret: secret)]
    case .none, .clientSecretPost, .privateKeyJWT: return []
    }
  }
}

/// One `name=value` of a form body, in order.
public struct FormParameter: Sendable, Equatable {
  public var name: String
  public var value: String
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// A request to the token endpoint.
public struct TokenRequest: Sendable, Equatable {
  public enum Grant: Sendable, Equatable {
    /// RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5): the code, its verifier, and the redirect URI
    /// the code was issued to.
    case authorizationCode(code: String, verifier: String, redirectURI: String)
    /// RFC 6749 §6.
    case refreshToken(RefreshToken)
    /// RFC 6749 §4.4: a machine's own token (scope, audience, resource as additional parameters).
    case clientCredentials
    /// RFC 6749 §4.5: every grant beyond the four is an extension grant, named by an absolute URI
    /// (a device code's, RFC 8628; a token exchange's, RFC 8693; a JWT bearer's, RFC 7523) with
    /// parameters of its own, which the broker's path for it builds. Sent on a new connection,
    /// as a refresh is: what it carries may be good for one use only.
    case extensionGrant(type: String, parameters: [FormParameter])
  }

  public var grant: Grant
  public var client: ClientAuthentication
  /// Parameters after the grant's own and the client's (resource, audience, scope), in order.
  public var additionalParameters: [FormParameter]

  public init(grant: Grant, client: ClientAuthentication, additionalParameters: [FormParameter] = []) {
    self.grant = grant
    self.client = client
    self.additionalParameters = additionalParameters
  }

  /// The form's parameters, in the order they are sent.
  public var parameters: [FormParameter] {
    var out: [FormParameter]
    switch grant {
    case .authorizationCode(let code, let verifier, let redirectURI):
      out = [
        FormParameter("grant_type", "authorization_code"), FormParameter("code", code),
        FormParameter("redirect_uri", redirectURI),
      ]
      out += client.parameters
      out.append(FormParameter("code_verifier", verifier))
    case .refreshToken(let token):
      out = [FormParameter("grant_type", "refresh_token"), FormParameter("refresh_token", token.value)]
      out += client.parameters
    case .clientCredentials:
      out = [FormParameter("grant_type", "client_credentials")] + client.parameters
    case .extensionGrant(let type, let parameters):
      out = [FormParameter("grant_type", type)] + parameters + client.parameters
    }
    return out + additionalParameters
  }

  /// The POST to `url`. A refresh goes on a new connection: libcurl would send it again by
  /// itself if a reused connection died before the answer, and a rotated refresh token must not
  /// be sent twice.
  public func httpRequest(url: String) -> HTTPRequest {
    var freshConnection = false
    switch grant {
    case .refreshToken, .extensionGrant: freshConnection = true
    case .authorizationCode, .clientCredentials: break
    }
    return HTTPRequest(
      method: "POST", url: url,
      headers: [
        HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json"),
      ] + client.headers,
      body: formBody(parameters), freshConnection: freshConnection,
      sentSecrets: secrets(in: parameters, client))
  }
}

/// A request to the revocation endpoint (RFC 7009 §2.1).
public struct RevocationRequest: Sendable, Equatable {
  public enum Hint: String, Sendable {
    case refreshToken = "refresh_token"
    case accessToken = "access_token"
  }

  public var token: String
  public var hint: Hint
  public var client: ClientAuthentication

  public init(token: String, hint: Hint, client: ClientAuthentication) {
    self.token = token
    self.hint = hint
    self.client = client
  }

  public var parameters: [FormParameter] {
    [FormParameter("token", token), FormParameter("token_type_hint", hint.rawValue)] + client.parameters
  }

  public func httpRequest(url: String) -> HTTPRequest {
    HTTPRequest(
      method: "POST", url: url,
      headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")] + client.headers,
      body: formBody(parameters), sentSecrets: secrets(in: parameters, client))
  }
}

/// The form body of `parameters`, encoded as every value is (FormURLEncoding).
private func formBody(_ parameters: [FormParameter]) -> [UInt8] {
  Array(FormURLEncoding.encode(parameters.map { ($0.name, $0.value) }).utf8)
}

/// What a form to the token or revocation endpoint sends that is secret (`Redaction.secretFields`,
/// and the client's proof), for `HTTPRequest.sentSecrets`.
private func secrets(in parameters: [FormParameter], _ client: ClientAuthentication) -> [String] {
  parameters.filter { Redaction.secretFields.contains($0.name) }.map(\.value) + client.secrets
}

/// The authorization request of one sign-in attempt (RFC 6749 §4.1.1 with PKCE, RFC 7636 §4.3;
/// OpenID Connect Core §3.1.2.1): its own PKCE verifier, state and nonce, and the query of the
/// authorize URL. Every authorize URL is built here.
public struct AuthorizationRequest: Sendable, Equatable {
  public var clientID: String
  public var redirectURI: String
  public var scopes: [String]
  public var pkce: PKCE
  public var state: String
  public var nonce: String
  /// Parameters after the protocol's own (prompt, acr_values, login_hint, ui_locales; resource,
  /// audience), in order.
  public var additionalParameters: [FormParameter]

  /// A fresh attempt: a new verifier, and 128 random bits each of state and nonce.
  public init(
    clientID: String, redirectURI: String, scopes: [String], pkce: PKCE = PKCE(),
    state: String = SecureRandom.token(bytes: 16), nonce: String = SecureRandom.token(bytes: 16),
    additionalParameters: [FormParameter] = []
  ) {
    self.clientID = clientID
    self.redirectURI = redirectURI
    self.scopes = scopes
    self.pkce = pkce
    self.state = state
    self.nonce = nonce
    self.additionalParameters = additionalParameters
  }

  /// The query's parameters, in the order they are sent; `sdk` (Strivacity's native flow:
  /// answer with a URL, not a page) last when given.
  public func parameters(sdk: String? = nil) -> [FormParameter] {
    var out = [
      FormParameter("client_id", clientID), FormParameter("redirect_uri", redirectURI),
      FormParameter("response_type", "code"),
      FormParameter("scope", scopes.joined(separator: " ")), FormParameter("code_challenge_method", pkce.method),
      FormParameter("code_challenge", pkce.challenge), FormParameter("state", state), FormParameter("nonce", nonce),
    ]
    out += additionalParameters
    if let sdk { out.append(FormParameter("sdk", sdk)) }
    return out
  }

  /// The authorize URL: `endpoint` with the query appended (after its own query, if it has one).
  public func url(endpoint: String, sdk: String? = nil) -> String {
    FormURLEncoding.appending(parameters(sdk: sdk).map { ($0.name, $0.value) }, to: endpoint)
  }
}

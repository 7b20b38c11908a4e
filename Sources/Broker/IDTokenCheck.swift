// ID tokens are verified one way, at sign-in and at a refresh: the tenant's JWKS from its
// advertised jwks_uri (https, or http on loopback: the transport checks), then every claim by
// IDTokenValidator. The JWKS carries no secret, so unlike the token endpoints it may live on
// another origin (a CDN).
import OAuthCore
import StrivacityCore

package enum IDTokenCheck {
  package enum Failure: Error, CustomStringConvertible {
    case noJWKS
    case jwksAnswer(HTTPResponse)
    case jwksUnusable(String)
    case invalid(IDTokenError)

    package var description: String {
      switch self {
      case .noJWKS: return "the tenant publishes no jwks_uri, so its ID token cannot be verified"
      case .jwksAnswer(let response): return "the JWKS answered HTTP \(response.status)"
      case .jwksUnusable(let detail): return "the tenant's JWKS is unusable: \(detail)"
      case .invalid(let error): return "the ID token failed validation: \(error)"
      }
    }
  }

  /// The token's claims, or a `Failure`; transport errors from `send` pass through.
  package static func verify(
    _ idToken: IDToken, discovery: Discovery, clientID: String, nonce: String?, now: Int64,
    send: (HTTPRequest) throws -> HTTPResponse
  ) throws -> [String: JSONValue] {
    guard let jwksURI = discovery.jwksURI else { throw Failure.noJWKS }
    let response = try send(HTTPRequest(url: jwksURI, headers: [HTTPHeader("Accept", "application/json")]))
    guard response.status == 200, let json = JSONValue.parse(response.body) else { throw Failure.jwksAnswer(response) }
    let keys: JWKS
    do {
      keys = try JWKS(json: json)
    } catch {
      throw Failure.jwksUnusable("\(error)")
    }
    do {
      return try IDTokenValidator.validate(
        idToken.value, keys: keys, issuer: discovery.issuer, clientID: clientID, nonce: nonce, now: now)
    } catch {
      throw Failure.invalid(error)
    }
  }
}

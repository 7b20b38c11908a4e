// OpenID Connect values a client needs: discovery, token responses, OAuth errors, and ID token
// validation stricter than the official SDKs (which check no signature, protocol §10.3).
import StrivacityCore

/// The fields of an OpenID Provider's discovery document this client uses.
public struct Discovery: Sendable, Equatable {
  public var issuer: String
  public var authorizationEndpoint: String
  public var tokenEndpoint: String
  public var jwksURI: String?
  public var userinfoEndpoint: String?
  public var revocationEndpoint: String?
  public var endSessionEndpoint: String?
  /// `token_endpoint_auth_methods_supported` (RFC 8414 §2), what a machine profile's default
  /// client authentication is chosen from; nil when the document has none (then Basic, the
  /// RFC's default). Only names of the token alphabet are kept.
  public var tokenEndpointAuthMethods: [String]?

  public init(json: JSONValue) throws(OAuthError) {
    func required(_ key: String) throws(OAuthError) -> String {
      guard let value = json[key]?.string, !value.isEmpty else {
        throw .malformed("the discovery document has no \(key)")
      }
      return value
    }
    guard json.object != nil else { throw .malformed("the discovery document is not a JSON object") }
    issuer = try required("issuer")
    authorizationEndpoint = try required("authorization_endpoint")
    tokenEndpoint = try required("token_endpoint")
    jwksURI = json["jwks_uri"]?.string
    userinfoEndpoint = json["userinfo_endpoint"]?.string
    revocationEndpoint = json["revocation_endpoint"]?.string
    endSessionEndpoint = json["end_session_endpoint"]?.string
    // An array in the document; a space-separated string in what a profile keeps (`cacheable`).
    let methods = json["token_endpoint_auth_methods_supported"]
    let names =
      methods?.array?.compactMap(\.string) ?? methods?.string.map { $0.split(separator: " ").map(String.init) }
    tokenEndpointAuthMethods = names.map { list in
      list.filter { name in
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { $0 == 0x5F || (0x61...0x7A).contains($0) }
      }
    }
  }

  /// What a profile keeps of the document (TokenSet.endpoints), in the document's own keys.
  public var cacheable: [String: String] {
    var out = ["issuer": issuer, "authorization_endpoint": authorizationEndpoint, "token_endpoint": tokenEndpoint]
    out["jwks_uri"] = jwksURI
    out["userinfo_endpoint"] = userinfoEndpoint
    out["revocation_endpoint"] = revocationEndpoint
    out["end_session_endpoint"] = endSessionEndpoint
    out["token_endpoint_auth_methods_supported"] = tokenEndpointAuthMethods?.joined(separator: " ")
    return out
  }

  /// Back from `cacheable` (the same checks as a fetched document).
  public init(cached: [String: String]) throws(OAuthError) {
    try self.init(json: .object(cached.mapValues(JSONValue.string)))
  }

  /// The discovery URL of a tenant: its origin + /.well-known/openid-configuration.
  public static func url(forTenant tenant: String) -> String {
    TenantURL.base(tenant) + ".well-known/openid-configuration"
  }
}

/// A successful token response (RFC 6749 §5.1), admitted: every field is checked by the trust
/// boundary (the one admission of a token set, `TokenSet(admitting:)`) before anything can be
/// stored or shown.
public struct TokenResponse: Sendable, Equatable {
  public var accessToken: BearerToken
  public var tokenType: String
  public var expiresIn: Int64?
  public var refreshToken: RefreshToken?
  public var idToken: IDToken?
  public var scope: Scope?

  public init(json: JSONValue) throws(OAuthError) {
    guard json.object != nil else { throw .malformed("the token response is not a JSON object") }
    func text(_ key: String) throws(OAuthError) -> String? {
      guard let value = json[key], !value.isNull else { return nil }
      guard let string = value.string else { throw .malformed("the token response's \(key) is not a string") }
      return string
    }
    guard let access = try text("access_token"), !access.isEmpty else {
      throw .malformed("the token response has no access_token")
    }
    let (tokenType, refreshToken) = try (text("token_type"), text("refresh_token"))
    let (idToken, scope) = try (text("id_token"), text("scope"))
    // Admitted as a set obtained at time 0, so that its expiry is the lifetime. Some servers send
    // expires_in as a string; both are admitted the same way.
    let admitted: TokenSet
    do {
      admitted = try TokenSet(
        admitting: access, tokenType: tokenType, refreshToken: refreshToken, idToken: idToken, scope: scope,
        expiresIn: json["expires_in"], obtainedAt: .number(0))
    } catch {
      throw .malformed("the token response is refused: \(error.description)")
    }
    accessToken = admitted.accessToken
    self.tokenType = admitted.tokenType
    expiresIn = admitted.expiresAt
    self.refreshToken = admitted.refreshToken
    self.idToken = admitted.idToken
    self.scope = admitted.scope
  }

  /// The token set to store, with the absolute expiry.
  public func tokenSet(now: Int64, previous: TokenSet? = nil) -> TokenSet {
    TokenSet(
      accessToken: accessToken, tokenType: tokenType,
      refreshToken: refreshToken ?? previous?.refreshToken,  // servers that do not rotate keep the old one valid
      idToken: idToken ?? previous?.idToken, scope: scope ?? previous?.scope,
      expiresAt: expiresIn.map { now + $0 }, obtainedAt: now, endpoints: previous?.endpoints)
  }
}

/// Why an ID token was refused.
public enum IDTokenError: Error, Equatable, CustomStringConvertible {
  case signature(JWTError)
  case issuer(expected: String, found: String?)
  case audience(expected: String)
  case expired
  case issuedInTheFuture
  case nonce
  case missing(String)
  case claim(String)
  case authorizedParty(expected: String)

  public var description: String {
    switch self {
    case .signature(let error): return error.description
    case .issuer(let expected, let found):
      return "issuer is \(found.map { "\"\($0)\"" } ?? "missing"), expected \"\(expected)\""
    case .audience(let expected): return "audience does not contain the client id \(expected)"
    case .expired: return "it has expired"
    case .issuedInTheFuture: return "it was issued in the future (check the clock)"
    case .nonce: return "nonce does not match this sign-in"
    case .missing(let claim): return "the \(claim) claim is missing"
    case .claim(let detail): return detail
    case .authorizedParty(let expected): return "it has several audiences and its azp is not the client id \(expected)"
    }
  }
}

public enum IDTokenValidator {
  /// Verifies signature (RS256, JWKS by kid), `iss` (exact), `aud` (string or array containing
  /// the client id), `exp` and `iat` (with `skew` seconds of tolerance) and `nonce`.
  /// - Returns: the token's claims.
  public static func validate(
    _ token: String, keys: JWKS, issuer: String, clientID: String, nonce: String?, now: Int64, skew: Int64 = 120
  ) throws(IDTokenError) -> [String: JSONValue] {
    let jwt: JWT
    do {
      jwt = try JWT(compact: token)
      try jwt.verify(with: keys)
    } catch {
      throw .signature(error)
    }
    let claims = jwt.claims
    guard claims["iss"]?.string == issuer else { throw .issuer(expected: issuer, found: claims["iss"]?.string) }
    switch claims["aud"] {
    case .string(let aud)?: guard aud == clientID else { throw .audience(expected: clientID) }
    case .array(let list)?:
      guard list.contains(.string(clientID)) else { throw .audience(expected: clientID) }
      // OIDC Core §3.1.3.7 (4, 5): with other audiences too, azp must name this client.
      if list.count > 1 { guard claims["azp"]?.string == clientID else { throw .authorizedParty(expected: clientID) } }
    default: throw .missing("aud")
    }
    guard claims["exp"] != nil else { throw .missing("exp") }
    guard claims["iat"] != nil else { throw .missing("iat") }
    let exp: Int64, iat: Int64
    do {
      exp = try Admit.unixTime(claims["exp"], what: "exp")
      iat = try Admit.unixTime(claims["iat"], what: "iat")
    } catch {
      throw .claim(error.description)
    }
    guard exp + skew > now else { throw .expired }
    guard iat - skew <= now else { throw .issuedInTheFuture }
    if let nonce { guard claims["nonce"]?.string == nonce else { throw .nonce } }
    if let azp = claims["azp"], azp.string != clientID { throw .authorizedParty(expected: clientID) }
    return claims
  }
}

/// What a sign-in asked about the authentication itself (`max_age`, `acr_values`: a step-up),
/// checked against the verified ID token's claims.
public enum AuthenticationCheck {
  /// With `max_age` sent, the ID token must carry `auth_time` (OpenID Connect Core §3.1.2.1) and
  /// the client checks that it is recent enough (§3.1.3.7, 13): no older than `maxAge` seconds,
  /// with `skew` seconds of tolerance either way as for `exp` and `iat`.
  public static func authTime(
    _ claims: [String: JSONValue], maxAge: Int, now: Int64, skew: Int64 = 120
  ) throws(IDTokenError) {
    guard claims["auth_time"] != nil else {
      throw .claim("the auth_time claim is missing although max_age was asked (OpenID Connect Core 3.1.2.1)")
    }
    let authTime: Int64
    do {
      authTime = try Admit.unixTime(claims["auth_time"], what: "auth_time")
    } catch {
      throw .claim(error.description)
    }
    guard authTime - skew <= now else { throw .claim("its auth_time is in the future (check the clock)") }
    let age = now - authTime
    guard age <= Int64(maxAge) + skew else {
      throw .claim("the sign-in it vouches for is \(age) s old, more than the max_age of \(maxAge) s that was asked")
    }
  }

  /// The `acr` the ID token names (nil: none, or not a string) and whether it is one of the
  /// space-separated `asked` values. The tenant decides which it grants (OpenID Connect Core
  /// §3.1.3.7, 12: the client judges whether it is appropriate).
  public static func acr(_ claims: [String: JSONValue], asked: String) -> (acr: String?, matches: Bool) {
    let acr = claims["acr"]?.string
    return (acr, acr.map { asked.split(separator: " ").contains(Substring($0)) } ?? false)
  }
}

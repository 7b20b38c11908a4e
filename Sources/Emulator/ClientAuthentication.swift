// Confidential clients at the token and revocation endpoints: client authentication by exactly
// one method (RFC 6749 §2.3: a Basic header, or the secret in the body; RFC 7523 §2.2: a signed
// assertion), and the client-credentials grant (RFC 6749 §4.4).
//
// Every refusal of the client itself is 401 invalid_client with a Basic challenge (RFC 6749
// §5.2), whichever method was tried, so a client cannot tell an unknown id from a wrong secret.
import Crypto
import Foundation
import LoopbackHTTP
import OAuthCore
import StrivacityCore

extension Emulator {
  static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
  /// How far ahead a client assertion's `exp` may be, and the clock skew allowed to `nbf` and `iat`.
  static let assertionLifetime: Int64 = 300
  static let assertionSkew: Int64 = 60

  /// Why client authentication failed: a malformed request (400) or a refused client (401).
  enum ClientAuthRefusal: Error {
    case invalidRequest(String)
    case invalidClient(String)
  }

  /// What a request presented: the client it names and whether it proved to be that client.
  struct PresentedClient {
    /// The id the request names (Basic user, `client_id`, or the assertion's `sub`), if any.
    var clientID: String?
    /// The client, when it authenticated with one of its methods.
    var authenticated: Client?
    /// Whether the request carried client credentials at all.
    var triedToAuthenticate: Bool
  }

  /// The answer to a refused client: 401 with `WWW-Authenticate: Basic` (RFC 6749 §5.2), counted.
  func invalidClient(_ description: String) -> ServerReply {
    state.withLock { $0.stats.invalidClient += 1 }
    return json(
      401, ["error": "invalid_client", "error_description": .string(description)],
      headers: [("WWW-Authenticate", "Basic realm=\"strivacity-emulator\"")])
  }

  func reply(_ refusal: ClientAuthRefusal) -> ServerReply {
    switch refusal {
    case .invalidRequest(let description): return oauthError(400, "invalid_request", description)
    case .invalidClient(let description): return invalidClient(description)
    }
  }

  /// The client a request names and, if it carries credentials, the result of checking them. A
  /// request with no credentials is not refused here: whether it needs them is the caller's call.
  func presentedClient(
    _ request: ServerRequest, _ pairs: [(String, String)], now: Int64
  ) -> Result<PresentedClient, ClientAuthRefusal> {
    // RFC 6749 §3.2: no parameter more than once.
    for name in ["client_id", "client_secret", "client_assertion", "client_assertion_type"]
    where pairs.filter({ $0.0 == name }).count > 1 {
      return .failure(.invalidRequest("\(name) is sent more than once"))
    }
    let form = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    let authorization = request.header("Authorization")
    let basic = authorization.flatMap { $0.lowercased().hasPrefix("basic ") ? String($0.dropFirst(6)) : nil }
    let post = form["client_secret"] != nil
    let assertion = form["client_assertion"] != nil || form["client_assertion_type"] != nil
    let methods = [basic != nil, post, assertion].filter { $0 }.count
    guard methods <= 1 else {
      return .failure(.invalidRequest("use exactly one client authentication method, not \(methods)"))
    }
    if let basic {
      guard let (id, secret) = Self.basicCredentials(basic) else {
        return .failure(.invalidClient("the Basic credentials are not base64 of client_id:client_secret"))
      }
      if let bodyID = form["client_id"], bodyID != id {
        return .failure(.invalidRequest("client_id in the body is not the client of the Authorization header"))
      }
      return secretCheck(id: id, secret: secret, method: "client_secret_basic")
        .map { PresentedClient(clientID: id, authenticated: $0, triedToAuthenticate: true) }
    }
    if post {
      guard let id = form["client_id"] else {
        return .failure(.invalidClient("client_secret without client_id"))
      }
      return secretCheck(id: id, secret: form["client_secret"] ?? "", method: "client_secret_post")
        .map { PresentedClient(clientID: id, authenticated: $0, triedToAuthenticate: true) }
    }
    if assertion {
      return assertionCheck(form, now: now).map {
        PresentedClient(clientID: $0.clientID, authenticated: $0, triedToAuthenticate: true)
      }
    }
    return .success(PresentedClient(clientID: form["client_id"], authenticated: nil, triedToAuthenticate: false))
  }

  /// The client a request says it is, before anything is checked (for the counters only).
  static func claimedClientID(_ request: ServerRequest, _ pairs: [(String, String)]) -> String? {
    if let header = request.header("Authorization"), header.lowercased().hasPrefix("basic ") {
      return basicCredentials(String(header.dropFirst(6)))?.0
    }
    if let id = pairs.first(where: { $0.0 == "client_id" })?.1 { return id }
    let assertion = pairs.first { $0.0 == "client_assertion" }?.1
    return assertion.flatMap { try? JWT(compact: $0) }?.claims["sub"]?.string
  }

  /// RFC 6749 §2.3.1: base64 of `id:secret`, split at the first `:`, each form-urldecoded.
  static func basicCredentials(_ encoded: String) -> (String, String)? {
    guard let data = Data(base64Encoded: encoded.trimmingCharacters(in: .whitespaces)),
      let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
    else { return nil }
    let id = FormEncoding.unescape(text[..<colon])
    let secret = FormEncoding.unescape(text[text.index(after: colon)...])
    return id.isEmpty ? nil : (id, secret)
  }

  private func secretCheck(id: String, secret: String, method: String) -> Result<Client, ClientAuthRefusal> {
    guard let client = client(id) else { return .failure(.invalidClient("unknown client")) }
    guard client.authMethods.contains(method) else {
      return .failure(
        .invalidClient(
          client.isConfidential
            ? "client \(Self.quoted(id)) does not authenticate with \(method) "
              + "(it uses \(client.authMethods.joined(separator: ", ")))"
            : "client \(Self.quoted(id)) is a public client; it has no secret"))
    }
    let registered = state.withLock { $0.clientSecrets[id] } ?? ""
    guard Self.constantTimeEqual(registered, secret) else {
      return .failure(.invalidClient("client authentication failed"))
    }
    return .success(client)
  }

  /// Equal texts, in time that tells nothing about where they differ or how long the secret is:
  /// both are hashed first, and the digests compared without an early exit.
  static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(SHA256.hash(data: Array(a.utf8)))
    let y = Array(SHA256.hash(data: Array(b.utf8)))
    var difference: UInt8 = 0
    for i in 0..<x.count { difference |= x[i] ^ y[i] }
    return difference == 0
  }

  /// RFC 7523 §3: the assertion's signature by one of the client's keys, then its claims.
  private func assertionCheck(_ form: [String: String], now: Int64) -> Result<Client, ClientAuthRefusal> {
    guard form["client_assertion_type"] == Self.assertionType else {
      return .failure(.invalidClient("client_assertion_type must be \(Self.assertionType)"))
    }
    guard let text = form["client_assertion"], !text.isEmpty else {
      return .failure(.invalidRequest("client_assertion is missing"))
    }
    guard let jwt = try? JWT(compact: text) else { return .failure(.invalidClient("client_assertion is not a JWS")) }
    guard let id = jwt.claims["sub"]?.string, jwt.claims["iss"]?.string == id else {
      return .failure(.invalidClient("the assertion's iss and sub must both be the client_id"))
    }
    if let bodyID = form["client_id"], bodyID != id {
      return .failure(.invalidClient("client_id is not the assertion's sub"))
    }
    guard let client = client(id) else { return .failure(.invalidClient("unknown client")) }
    guard client.authMethods.contains("private_key_jwt"), let keys = client.assertionKeys else {
      return .failure(.invalidClient("client \(Self.quoted(id)) does not authenticate with private_key_jwt"))
    }
    do {
      try jwt.verifyAssertion(with: keys)
    } catch {
      switch error {
      case .unsupportedAlgorithm(let alg):
        return .failure(
          .invalidClient("the assertion is signed with \(Self.quoted(alg)); RS256 and ES256 are accepted"))
      case .unknownKey: return .failure(.invalidClient("the assertion names no key of this client"))
      default: return .failure(.invalidClient("the assertion's signature does not verify"))
      }
    }
    let audience = jwt.claims["aud"]?.array?.compactMap(\.string) ?? jwt.claims["aud"]?.string.map { [$0] } ?? []
    let accepted = [issuer + "oauth2/token", issuer, String(issuer.dropLast())]
    guard audience.contains(where: accepted.contains) else {
      return .failure(.invalidClient("the assertion's aud must be the token endpoint, \(issuer)oauth2/token"))
    }
    guard let exp = jwt.claims["exp"]?.number, exp.isFinite else {
      return .failure(.invalidClient("the assertion has no exp"))
    }
    guard exp > Double(now) else { return .failure(.invalidClient("the assertion expired")) }
    guard exp - Double(now) <= Double(Self.assertionLifetime) else {
      return .failure(.invalidClient("the assertion's exp is more than \(Self.assertionLifetime) seconds ahead"))
    }
    for claim in ["nbf", "iat"] {
      if let value = jwt.claims[claim] {
        guard let time = value.number, time <= Double(now + Self.assertionSkew) else {
          return .failure(.invalidClient("the assertion's \(claim) is not a time up to now"))
        }
      }
    }
    guard let jti = jwt.claims["jti"]?.string, !jti.isEmpty else {
      return .failure(.invalidClient("the assertion has no jti"))
    }
    guard state.withLock({ $0.firstUse(client: id, jti: jti, expiresAt: Int64(exp.rounded(.up)), now: now) }) else {
      return .failure(.invalidClient("the assertion's jti was used before (a replay)"))
    }
    return .success(client)
  }

  // MARK: the client-credentials grant

  func clientCredentials(_ request: ServerRequest, _ pairs: [(String, String)], now: Int64) -> ServerReply {
    let claimed = Self.claimedClientID(request, pairs)
    state.withLock { state in
      state.stats.clientCredentialsRequests += 1
      state.stats.grants["client_credentials", default: 0] += 1
      if let claimed, self.client(claimed) != nil { state.stats.clientCredentialsByClient[claimed, default: 0] += 1 }
    }
    let presented = presentedClient(request, pairs, now: now)
    let client: Client
    switch presented {
    case .failure(let refusal): return reply(refusal)
    case .success(let p):
      guard let authenticated = p.authenticated else {
        guard let id = p.clientID, let named = self.client(id) else {
          return invalidClient(p.clientID == nil ? "client authentication is required" : "unknown client")
        }
        return invalidClient(
          named.isConfidential
            ? "client \(Self.quoted(id)) must authenticate (\(named.authMethods.joined(separator: ", ")))"
            : "client \(Self.quoted(id)) is a public client; client credentials need a confidential one")
      }
      client = authenticated
    }
    guard client.grantTypes.contains("client_credentials") else {
      return oauthError(400, "unauthorized_client", "client \(Self.quoted(client.clientID)) may not use this grant")
    }
    let form = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    let audiences = pairs.filter { $0.0 == "audience" }.map(\.1)
    let resources = pairs.filter { $0.0 == "resource" }.map(\.1)
    var apis: [API] = []
    for audience in audiences {
      guard client.audiences.contains(audience) else {
        return oauthError(400, "invalid_target", "audience \(Self.quoted(audience)) is not allowed for this client")
      }
      if let api = journey.apis.first(where: { $0.audience == audience }), !apis.contains(api) { apis.append(api) }
    }
    for resource in resources {
      // A resource the client may name as audience, or one naming an API whose audience it may.
      if client.audiences.contains(resource) { continue }
      let named = namedAPIs(audiences: [], resources: [resource])
      if let refusal = named.refusal { return oauthError(400, "invalid_target", refusal) }
      guard let api = named.apis.first, client.audiences.contains(api.audience) else {
        return oauthError(400, "invalid_target", "resource \(Self.quoted(resource)) is not allowed for this client")
      }
      if !apis.contains(api) { apis.append(api) }
    }
    // Naming APIs narrows the client's scopes to those the APIs allow.
    let allowed =
      apis.isEmpty ? client.scopes : client.scopes.filter { scope in apis.contains { $0.scopes.contains(scope) } }
    var scopes: [String] = []
    if let asked = form["scope"], !asked.isEmpty {
      for scope in asked.split(separator: " ").map(String.init) where !scopes.contains(scope) {
        guard allowed.contains(scope) else {
          return oauthError(400, "invalid_scope", "scope \(Self.quoted(scope)) is not allowed for this client")
        }
        scopes.append(scope)
      }
    } else {
      scopes = allowed
    }
    var audience: [String] = []
    for value in audiences + resources where !audience.contains(value) { audience.append(value) }
    // No audience or resource: the client's own id, as introspection reports for other tokens.
    if audience.isEmpty { audience = [client.clientID] }
    let scope = scopes.joined(separator: " ")
    // A client with no `scopes` is granted none: no `scope` at all rather than an empty one.
    var claims: [String: JSONValue] = [
      "iss": .string(issuer), "sub": .string(client.clientID), "aud": .array(audience.map(JSONValue.string)),
      "client_id": .string(client.clientID), "iat": .number(Double(now)),
      "exp": .number(Double(now + Int64(client.accessTokenTTL))), "jti": .string(SecureRandom.token(bytes: 12)),
    ]
    if !scope.isEmpty { claims["scope"] = .string(scope) }
    let jwt = (try? JWT.sign(claims: claims, with: signingKey, keyID: keyID)) ?? ""
    return state.withLock { state -> ServerReply in
      let hostile = state.hostile
      let access = Hostile.accessToken(jwt, hostile)
      state.tokens[access] = IssuedToken(
        kind: .access, clientID: client.clientID, user: "", scope: scope, sid: "",
        family: SecureRandom.token(bytes: 12),
        issuedAt: now, expiresAt: now + Int64(client.accessTokenTTL), api: apis.first?.name, audience: audience,
        clientCredentials: true)
      var body: [String: JSONValue] = [
        "access_token": .string(access), "token_type": "Bearer", "expires_in": .number(Double(client.accessTokenTTL)),
      ]
      if !scope.isEmpty { body["scope"] = .string(scope) }
      Hostile.tokenBody(&body, hostile)
      return json(200, .object(body), headers: [("Pragma", "no-cache")])
    }
  }
}

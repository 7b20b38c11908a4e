// /oauth2/auth, the finish URL, /oauth2/token, /oauth2/revoke, /userinfo, logout, introspection.
import Crypto
import Foundation
import LoopbackHTTP
import OAuthCore
import StrivacityCore
import _CryptoExtras

extension Emulator {
  static let knownSDKModes: Set<String> = ["web", "web-minimal", "ios", "ios-minimal", "android", "android-minimal"]
  /// How old the tenant's session of an `sso` journey is, in seconds (its `auth_time` is this long ago).
  static let ssoSessionAge: Int64 = 300

  func client(_ id: String?) -> Client? { journey.clients.first { $0.clientID == id } }

  /// RFC 8252 §7.3: a registered loopback redirect URI matches the same URI on any port.
  func redirectAllowed(_ uri: String, for client: Client) -> Bool {
    if client.redirectURIs.contains(uri) { return true }
    guard let given = URLParts(uri), given.scheme == "http", given.isLoopback else { return false }
    return client.redirectURIs.contains { registered in
      guard let r = URLParts(registered), r.scheme == "http", r.isLoopback else { return false }
      return r.host == given.host && r.pathAndQuery == given.pathAndQuery
    }
  }

  // MARK: authorization

  func authorize(_ request: ServerRequest) -> ServerReply {
    let query = FormEncoding.dictionary(request.query)
    // No redirect to a URI not known to be the client's (RFC 6749 §4.1.2.1): an unknown client
    // goes to the tenant's error page, its words in the URL (as a real tenant does, protocol
    // §3.3); a bad redirect_uri gets a page of its own (the other shape a server may use).
    guard let client = client(query["client_id"]) else {
      let description = "The client_id \(query["client_id"] ?? "(missing)") is not registered with this tenant."
      let location = FormEncoding.appending(
        [("error", "invalid_client"), ("error_description", description)], to: issuer + "oauth2/error")
      return ServerReply(status: 302, headers: [("Location", location)])
    }
    guard let redirect = query["redirect_uri"], redirectAllowed(redirect, for: client) else {
      return html(400, page("Invalid redirect URI", "The redirect_uri is not registered for this client."))
    }
    // Without `sdk` this is a classic browser sign-in: the hosted pages, then a redirect with a code.
    let sdk = query["sdk"] ?? "hosted"
    let answersWithBody = sdk.hasPrefix("web")
    func fail(_ error: String, _ description: String) -> ServerReply {
      var pairs = [("error", error), ("error_description", hostileText(description))]
      if let state = query["state"] { pairs.append(("state", state)) }
      return nativeAnswer(FormEncoding.appending(pairs, to: redirect), withBody: answersWithBody)
    }
    if sdk != "hosted" && !Self.knownSDKModes.contains(sdk) {
      return fail("invalid_request", "unknown sdk mode \(sdk)")
    }
    guard query["response_type"] == "code" else {
      return fail("unsupported_response_type", "only response_type=code is supported")
    }
    guard let challenge = query["code_challenge"], query["code_challenge_method"] == "S256", challenge.utf8.count == 43
    else {
      return fail("invalid_request", "PKCE with code_challenge_method=S256 is required")
    }
    // RFC 8707 resource indicators and audiences: each must name an API of the journey file.
    let pairs = FormEncoding.decode(request.query)
    var consent = Consent()
    consent.resources = pairs.filter { $0.0 == "resource" }.map(\.1)
    consent.audiences = pairs.filter { $0.0 == "audience" }.map(\.1)
    if let refusal = namedAPIs(audiences: consent.audiences, resources: consent.resources).refusal {
      return fail("invalid_target", refusal)
    }
    // The sign-in's acr is what the journey does; acr_values asking for `mfa` adds a second
    // factor to a journey without one (the step-up screen, StepUp.swift).
    consent.acrValues = (query["acr_values"] ?? "").split(separator: " ").map(String.init)
    var maxAge: Int64?
    if let text = query["max_age"], !text.isEmpty {
      guard let seconds = Int64(text), seconds >= 0 else {
        return fail("invalid_request", "max_age must be a whole number of seconds, 0 or more")
      }
      maxAge = seconds
    }
    let scope = query["scope"] ?? "openid"
    let now = self.now()
    // The tenant's session (sso journeys) is a password sign-in `ssoSessionAge` seconds old: it
    // serves unless the request wants a fresh sign-in, a second factor or a younger session.
    let ssoAuthTime = now - Self.ssoSessionAge
    if journey.mode == .sso && query["prompt"] != "login" && !consent.wantsMFA
      && maxAge.map({ now - ssoAuthTime <= $0 }) ?? true
    {
      // The user already has a session at the tenant: answer with a code at once.
      let code = state.withLock { state -> String in
        let code = SecureRandom.token()
        state.codes[code] = AuthorizationCode(
          clientID: client.clientID, redirectURI: redirect, codeChallenge: challenge, nonce: query["nonce"],
          scope: scope,
          user: journey.ssoUser ?? "", sid: SecureRandom.token(bytes: 12), authTime: ssoAuthTime,
          expiresAt: now + 60, consent: consent)
        return code
      }
      var pairs = [("code", code)]
      if let state = query["state"] { pairs.append(("state", state)) }
      return nativeAnswer(FormEncoding.appending(pairs, to: redirect), withBody: answersWithBody)
    }
    var session = JourneySession(
      id: SecureRandom.token(bytes: 24), clientID: client.clientID, redirectURI: redirect, state: query["state"],
      nonce: query["nonce"], codeChallenge: challenge, scope: scope, sdkMode: sdk, screen: journey.start,
      user: nil, factor: nil, identifier: query["login_hint"], expiresAt: now + Int64(journey.sessionTTL))
    session.consent = consent
    state.withLock { $0.sessions[session.id] = session }
    if sdk == "hosted" { return ServerReply(status: 302, headers: [("Location", hostedURL(session))]) }
    let native = FormEncoding.appending([("session_id", session.id)], to: redirect)
    if answersWithBody { return nativeAnswer(native, withBody: true) }
    // Other modes: a 302 chain through the provider, as a real tenant does (protocol §3.3).
    let hop = issuer + "provider/native?" + FormEncoding.encode([("challenge", session.id)])
    return ServerReply(
      status: 302, headers: [("Location", hop), ("Content-Type", "text/plain")], body: Array(hop.utf8))
  }

  /// The second hop of the 302 chain: on to the native URL.
  func authorizeContinue(_ request: ServerRequest) -> ServerReply {
    let query = FormEncoding.dictionary(request.query)
    guard let id = query["challenge"], let session = state.withLock({ $0.sessions[id] }) else {
      return html(403, page("Session expired", "This sign-in session is unknown or has expired."))
    }
    return nativeAnswer(FormEncoding.appending([("session_id", session.id)], to: session.redirectURI), withBody: false)
  }

  /// `web*` modes: 200 with the URL as body; others: 302 with the URL in Location and body.
  func nativeAnswer(_ url: String, withBody: Bool) -> ServerReply {
    if withBody { return ServerReply(status: 200, contentType: "text/plain; charset=utf-8", text: url) }
    return ServerReply(
      status: 302, headers: [("Location", url), ("Content-Type", "text/plain; charset=utf-8")], body: Array(url.utf8))
  }

  /// GET {finalizeUrl}: the journey is done; redirect to the client with a code.
  func finalize(_ request: ServerRequest) -> ServerReply {
    let token = FormEncoding.dictionary(request.query)["token"] ?? ""
    let now = self.now()
    let outcome = state.withLock { state -> (JourneySession, String)? in
      guard let id = state.finishTokens.removeValue(forKey: token), let session = state.sessions[id],
        let user = session.user
      else {
        return nil
      }
      let code = issueCode(for: session, user: user, now: now, in: &state)
      return (session, code)
    }
    guard let (session, code) = outcome else {
      return json(400, ["error": "invalid_request", "error_description": "unknown or used finalize URL"])
    }
    var target = codeRedirect(session, code: code)
    switch state.withLock({ $0.takeTamper { !$0.isIDToken } }) {
    case .callbackState?:
      target = FormEncoding.appending([("code", code), ("state", "forged-state")], to: session.redirectURI)
    case .callbackForeign?:
      target = FormEncoding.appending(
        [("code", code)] + (session.state.map { [("state", $0)] } ?? []), to: "https://evil.example/callback")
    case .callbackPath?:
      // Same origin, a path that merely starts like the redirect URI's.
      let base = String(session.redirectURI.prefix { $0 != "?" }) + "-evil"
      target = FormEncoding.appending([("code", code)] + (session.state.map { [("state", $0)] } ?? []), to: base)
    default: break
    }
    return nativeAnswer(target, withBody: session.answersWithBody)
  }

  func issueCode(for session: JourneySession, user: String, now: Int64, in state: inout TenantState) -> String {
    let code = SecureRandom.token()
    var consent = session.consent
    consent.acr = session.secondFactor ? Consent.mfaACR : Consent.defaultACR
    state.codes[code] = AuthorizationCode(
      clientID: session.clientID, redirectURI: session.redirectURI, codeChallenge: session.codeChallenge,
      nonce: session.nonce, scope: session.scope, user: user, sid: session.id, authTime: now, expiresAt: now + 60,
      consent: consent)
    state.sessions[session.id]?.finished = true
    return code
  }

  func codeRedirect(_ session: JourneySession, code: String) -> String {
    var pairs = [("code", code)]
    if let state = session.state { pairs.append(("state", state)) }
    return FormEncoding.appending(pairs, to: session.redirectURI)
  }

  // MARK: token

  func token(_ request: ServerRequest) -> ServerReply {
    guard request.method == "POST" else { return oauthError(405, "invalid_request", "use POST") }
    guard request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
      return oauthError(400, "invalid_request", "the body must be application/x-www-form-urlencoded")
    }
    let form = FormEncoding.dictionary(request.bodyText)
    let pairs = FormEncoding.decode(request.bodyText)
    let now = self.now()
    if pairs.filter({ $0.0 == "grant_type" }).count > 1 {
      return oauthError(400, "invalid_request", "grant_type is sent more than once")
    }
    switch form["grant_type"] {
    case "client_credentials": return clientCredentials(request, pairs, now: now)
    case "authorization_code", "refresh_token":
      // A confidential client proves itself here too (RFC 6749 §4.1.3, §6); a public one sends its id.
      var form = form
      switch presentedClient(request, pairs, now: now) {
      case .failure(let refusal): return reply(refusal)
      case .success(let presented):
        if let id = presented.clientID { form["client_id"] = id }
        if let named = client(presented.clientID), named.isConfidential, presented.authenticated == nil {
          return invalidClient("client \(Self.quoted(named.clientID)) must authenticate")
        }
        if let named = client(presented.clientID), !named.grantTypes.contains(form["grant_type"] ?? "") {
          return oauthError(400, "unauthorized_client", "client \(Self.quoted(named.clientID)) may not use this grant")
        }
      }
      if form["grant_type"] == "authorization_code" { return exchangeCode(form, now: now) }
      return refresh(form, pairs, now: now)
    case nil: return oauthError(400, "invalid_request", "grant_type is missing")
    case let other?: return oauthError(400, "unsupported_grant_type", "grant_type \(other) is not supported")
    }
  }

  private func exchangeCode(_ form: [String: String], now: Int64) -> ServerReply {
    guard let code = form["code"], let verifier = form["code_verifier"], let clientID = form["client_id"],
      let redirect = form["redirect_uri"]
    else {
      return oauthError(400, "invalid_request", "code, code_verifier, client_id and redirect_uri are required")
    }
    guard let client = client(clientID) else { return invalidClient("unknown client") }
    return state.withLock { state -> ServerReply in
      state.stats.grants["authorization_code", default: 0] += 1
      guard var grant = state.codes[code] else { return oauthError(400, "invalid_grant", "unknown authorization code") }
      if grant.used {
        if let family = grant.family { state.revokeFamily(family) }
        return oauthError(400, "invalid_grant", "authorization code already used; tokens issued from it are revoked")
      }
      grant.used = true
      state.codes[code] = grant
      guard grant.expiresAt > now else { return oauthError(400, "invalid_grant", "authorization code expired") }
      guard grant.clientID == clientID else {
        return oauthError(400, "invalid_grant", "code was issued to another client")
      }
      guard grant.redirectURI == redirect else {
        return oauthError(400, "invalid_grant", "redirect_uri does not match the authorization request")
      }
      guard PKCE.isValidVerifier(verifier), PKCE.challenge(for: verifier) == grant.codeChallenge else {
        return oauthError(400, "invalid_grant", "PKCE verification failed")
      }
      let family = SecureRandom.token(bytes: 12)
      state.codes[code]?.family = family
      var consent = grant.consent
      consent.authTime = grant.authTime
      return tokenResponse(
        client: client, user: grant.user, scope: grant.scope, sid: grant.sid, family: family, nonce: grant.nonce,
        authTime: grant.authTime, now: now, consent: consent, state: &state)
    }
  }

  private func refresh(_ form: [String: String], _ pairs: [(String, String)], now: Int64) -> ServerReply {
    guard let presented = form["refresh_token"], let clientID = form["client_id"] else {
      return oauthError(400, "invalid_request", "refresh_token and client_id are required")
    }
    guard let client = client(clientID) else { return invalidClient("unknown client") }
    return state.withLock { state -> ServerReply in
      state.stats.grants["refresh_token", default: 0] += 1
      // RFC 8707 §2.2: `audience` and `resource` narrow the token to one API of the journey file.
      let audiences = pairs.filter { $0.0 == "audience" }.map(\.1)
      let resources = pairs.filter { $0.0 == "resource" }.map(\.1)
      var api: API?
      if !audiences.isEmpty || !resources.isEmpty {
        let named = namedAPIs(audiences: audiences, resources: resources)
        if let refusal = named.refusal { return oauthError(400, "invalid_target", refusal) }
        guard named.apis.count == 1 else {
          return oauthError(
            400, "invalid_target",
            "audience and resource name \(named.apis.count) APIs (\(named.apis.map(\.name).joined(separator: ", "))); "
              + "ask for one API per token")
        }
        api = named.apis[0]
        state.stats.apiTokenRequests[named.apis[0].name, default: 0] += 1
      }
      guard let old = state.tokens[presented], old.kind == .refresh else {
        return oauthError(400, "invalid_grant", "unknown refresh token")
      }
      if old.rotated {
        // Reuse of a rotated refresh token: someone holds a stolen copy. End the whole family.
        state.revokeFamily(old.family)
        return oauthError(400, "invalid_grant", "refresh token was already used; the session is revoked")
      }
      guard !old.revoked else { return oauthError(400, "invalid_grant", "refresh token has been revoked") }
      guard old.expiresAt > now else { return oauthError(400, "invalid_grant", "refresh token expired") }
      guard old.clientID == clientID else {
        return oauthError(400, "invalid_grant", "refresh token was issued to another client")
      }
      if let api {
        let scopes: [String]
        switch apiScopes(api, asked: form["scope"], consent: old) {
        case .success(let granted): scopes = granted
        case .failure(let refusal): return oauthError(400, refusal.error, refusal.description)
        }
        state.tokens[presented]?.rotated = true
        // The new refresh token keeps the whole consent: it stays good for every API and the default token.
        return tokenResponse(
          client: client, user: old.user, scope: old.scope, sid: old.sid, family: old.family, nonce: nil,
          authTime: old.consent.authTime, now: now, refreshGrant: true, consent: old.consent,
          api: (api, scopes.joined(separator: " "), resources.contains(resourceURL(api))), state: &state)
      }
      var requested = old.scope
      if let scope = form["scope"] {
        let granted = Set(old.scope.split(separator: " "))
        guard Set(scope.split(separator: " ")).isSubset(of: granted) else {
          return oauthError(400, "invalid_scope", "a refresh cannot widen the scope")
        }
        requested = scope
      }
      state.tokens[presented]?.rotated = true
      // The grant keeps its scope (so offline_access still yields the rotated refresh token, and
      // the old one is never dead with no successor); the access token gets the narrowed one.
      return tokenResponse(
        client: client, user: old.user, scope: old.scope, sid: old.sid, family: old.family, nonce: nil,
        authTime: old.consent.authTime, now: now, refreshGrant: true, consent: old.consent,
        accessScope: requested == old.scope ? nil : requested, state: &state)
    }
  }

  struct TargetRefusal: Error, CustomStringConvertible {
    /// `invalid_target` or `invalid_scope`.
    var error: String
    var description: String
  }

  /// The APIs that `audience` and `resource` values name, or why one of them names none (RFC 8707 §2).
  func namedAPIs(audiences: [String], resources: [String]) -> (apis: [API], refusal: String?) {
    var named: [API] = []
    for audience in audiences {
      guard let api = journey.apis.first(where: { $0.audience == audience }) else {
        return ([], "unknown audience \(Self.quoted(audience))")
      }
      if !named.contains(api) { named.append(api) }
    }
    for resource in resources {
      guard URLParts(resource) != nil, !resource.contains("#") else {
        return ([], "resource \(Self.quoted(resource)) is not an absolute URI without a fragment")
      }
      // The API's protected resource at this emulator names it too (ProtectedResource.swift).
      guard let api = journey.apis.first(where: { $0.resources.contains(resource) || resourceURL($0) == resource })
      else {
        return ([], "unknown resource \(Self.quoted(resource))")
      }
      if !named.contains(api) { named.append(api) }
    }
    return (named, nil)
  }

  /// The scopes of a token for `api`: those asked for (each allowed by the API and consented at
  /// sign-in), or without `scope` every consented scope the API allows.
  func apiScopes(_ api: API, asked: String?, consent refresh: IssuedToken) -> Result<[String], TargetRefusal> {
    guard refresh.consent.covers(api, at: resourceURL(api)) else {
      return .failure(
        TargetRefusal(
          error: "invalid_target",
          description: "API \(api.name) was not named at sign-in; sign in again with audience or resource "
            + Self.quoted(api.resources.first ?? api.audience)))
    }
    let consented = refresh.scope.split(separator: " ").map(String.init)
    var asked = (asked ?? "").split(separator: " ").map(String.init)
    if asked.isEmpty {
      asked = consented.filter(api.scopes.contains)
      guard !asked.isEmpty else {
        return .failure(
          TargetRefusal(
            error: "invalid_scope",
            description: "none of the scopes API \(api.name) allows (\(api.scopes.joined(separator: " "))) "
              + "was consented at sign-in"))
      }
    }
    if let beyond = asked.first(where: { !api.scopes.contains($0) }) {
      return .failure(
        TargetRefusal(
          error: "invalid_scope",
          description: "API \(api.name) does not allow scope \(Self.quoted(beyond)) "
            + "(it allows \(api.scopes.joined(separator: " ")))"))
    }
    if let unconsented = asked.first(where: { !consented.contains($0) }) {
      return .failure(
        TargetRefusal(
          error: "invalid_scope",
          description: "scope \(Self.quoted(unconsented)) was not consented at sign-in; a refresh cannot widen it"))
    }
    var unique: [String] = []
    for scope in asked where !unique.contains(scope) { unique.append(scope) }
    return .success(unique)
  }

  /// A request value inside an error_description: RFC 6749 §5.2's characters only, and short.
  static func quoted(_ value: String) -> String {
    let safe = value.unicodeScalars.prefix(200).map { scalar -> String in
      scalar.value == 0x20 || scalar.value == 0x21 || (0x23...0x7E).contains(scalar.value) && scalar != "\\"
        ? String(scalar) : "?"
    }
    return "'" + safe.joined() + (value.unicodeScalars.count > 200 ? "..." : "") + "'"
  }

  /// An access token for an API: a JWT signed with the tenant's key (RFC 9068's claims). Its `aud`
  /// is the API's audience and resources, and its protected resource here when the request named it.
  func apiAccessToken(
    _ api: API, scope: String, namingResourceURL: Bool, client: Client, user: String, consent: Consent, now: Int64,
    state: TenantState
  ) -> (token: String, audience: [String]) {
    let audience = [api.audience] + api.resources + (namingResourceURL ? [resourceURL(api)] : [])
    let claims: [String: JSONValue] = [
      "iss": .string(issuer), "sub": userClaims(state.user(user), identifier: user)["sub"] ?? .string(user),
      "aud": .array(audience.map(JSONValue.string)), "scope": .string(scope), "client_id": .string(client.clientID),
      "iat": .number(Double(now)), "exp": .number(Double(now + Int64(client.accessTokenTTL))),
      "acr": .string(consent.acr), "auth_time": .number(Double(consent.authTime)),
      "jti": .string(SecureRandom.token(bytes: 12)),
    ]
    return ((try? JWT.sign(claims: claims, with: signingKey, keyID: keyID)) ?? "", audience)
  }

  private func tokenResponse(
    client: Client, user: String, scope: String, sid: String, family: String, nonce: String?, authTime: Int64?,
    now: Int64, refreshGrant: Bool = false, consent: Consent,
    api: (api: API, scope: String, namingResourceURL: Bool)? = nil, accessScope: String? = nil,
    state: inout TenantState
  ) -> ServerReply {
    // `scope` is the grant's (the refresh token's, and what decides on refresh and ID tokens); an
    // API's access token carries only the API's scopes, and a refresh narrowed by `scope`
    // (`accessScope`) only those: RFC 6749 §6 keeps a new refresh token's scope the old one's.
    let scopes = Set(scope.split(separator: " ").map(String.init))
    let hostile = state.hostile
    let access: String
    if let api {
      let (jwt, audience) = apiAccessToken(
        api.api, scope: api.scope, namingResourceURL: api.namingResourceURL, client: client, user: user,
        consent: consent, now: now, state: state)
      access = Hostile.accessToken(jwt, hostile)
      state.tokens[access] = IssuedToken(
        kind: .access, clientID: client.clientID, user: user, scope: api.scope, sid: sid, family: family,
        issuedAt: now, expiresAt: now + Int64(client.accessTokenTTL), consent: consent, api: api.api.name,
        audience: audience)
    } else {
      access = Hostile.accessToken("sat_" + SecureRandom.token(), hostile)
      state.tokens[access] = IssuedToken(
        kind: .access, clientID: client.clientID, user: user, scope: accessScope ?? scope, sid: sid, family: family,
        issuedAt: now, expiresAt: now + Int64(client.accessTokenTTL), consent: consent)
    }
    var body: [String: JSONValue] = [
      "access_token": .string(access), "token_type": "bearer", "expires_in": .number(Double(client.accessTokenTTL)),
      "scope": .string(api?.scope ?? accessScope ?? scope),
    ]
    if scopes.contains("offline_access") || scopes.contains("offline") {
      let refresh = Hostile.refreshToken("srt_" + SecureRandom.token(), hostile)
      state.tokens[refresh] = IssuedToken(
        kind: .refresh, clientID: client.clientID, user: user, scope: scope, sid: sid, family: family, issuedAt: now,
        expiresAt: now + Int64(client.refreshTokenTTL), consent: consent)
      body["refresh_token"] = .string(refresh)
    }
    if scopes.contains("openid") {
      var claims = userClaims(state.user(user), identifier: user)
      claims["iss"] = .string(issuer)
      claims["aud"] = [.string(client.clientID)]
      claims["client_id"] = .string(client.clientID)
      claims["iat"] = .number(Double(now))
      claims["exp"] = .number(Double(now + Int64(client.idTokenTTL)))
      claims["auth_time"] = .number(Double(authTime ?? now))
      // OIDC Core §3.1.2.1: asked for with acr_values, the ID token says what the sign-in did.
      if !consent.acrValues.isEmpty { claims["acr"] = .string(consent.acr) }
      claims["sid"] = .string(sid)
      claims["jti"] = .string(SecureRandom.token(bytes: 12))
      claims["at_hash"] = .string(Base64URL.encode(SHA256.hash(data: Array(access.utf8)).prefix(16)))
      if let nonce { claims["nonce"] = .string(nonce) }
      Hostile.claims(&claims, identifier: user, hostile)
      let tamper = state.takeTamper(\.isIDToken)
      switch tamper {
      case .idTokenAudience?: claims["aud"] = ["someone-else"]
      case .idTokenNonce?: claims["nonce"] = "not-your-nonce"
      case .idTokenExpired?:
        claims["exp"] = .number(Double(now - 3600))
        claims["iat"] = .number(Double(now - 7200))
      case .idTokenIssuer?: claims["iss"] = "https://evil.example/"
      default: break
      }
      var idToken = (try? JWT.sign(claims: claims, with: signingKey, keyID: keyID)) ?? ""
      if tamper == .idTokenSignature || (refreshGrant && hostile.contains(.refreshIDTokenForged)) {
        // Same header and claims, another key's signature.
        idToken = Hostile.forgedIDToken(claims, keyID: keyID) ?? idToken
      } else if tamper == .idTokenAlgNone {
        let parts = idToken.split(separator: ".")
        let header: JSONValue = ["alg": "none", "typ": "JWT"]
        idToken = Base64URL.encode(header.serialized()) + "." + parts[1] + "."
      }
      body["id_token"] = .string(idToken)
    }
    Hostile.tokenBody(&body, hostile)
    return json(200, .object(body), headers: [("Pragma", "no-cache")])
  }

  /// Claims about a user: `sub` (stable per identifier) and what the journey file declares.
  func userClaims(_ user: User?, identifier: String) -> [String: JSONValue] {
    var claims = user?.claims ?? [:]
    if claims["sub"] == nil {
      let digest = SHA256.hash(data: Array(identifier.lowercased().utf8))
      claims["sub"] = .string(digest.prefix(16).map { String(format: "%02x", $0) }.joined())
    }
    if claims["email"] == nil, identifier.contains("@") { claims["email"] = .string(identifier) }
    return claims
  }

  // MARK: revoke, userinfo, introspect, logout

  func revoke(_ request: ServerRequest) -> ServerReply {
    guard request.method == "POST" else { return oauthError(405, "invalid_request", "use POST") }
    let form = FormEncoding.dictionary(request.bodyText)
    let pairs = FormEncoding.decode(request.bodyText)
    guard let token = form["token"] else { return oauthError(400, "invalid_request", "token is required") }
    // RFC 7009 §2.1: a confidential client authenticates; a public one may name itself.
    let presented: PresentedClient
    switch presentedClient(request, pairs, now: now()) {
    case .failure(let refusal):
      state.withLock { $0.stats.revocations += 1 }
      return reply(refusal)
    case .success(let p): presented = p
    }
    let owner = state.withLock { $0.tokens[token]?.clientID }
    for id in [presented.clientID, owner].compactMap({ $0 }) where presented.authenticated == nil {
      if let named = client(id), named.isConfidential {
        state.withLock { $0.stats.revocations += 1 }
        return invalidClient("client \(Self.quoted(id)) must authenticate to revoke its tokens")
      }
    }
    state.withLock { state in
      state.stats.revocations += 1
      guard let issued = state.tokens[token] else { return }  // RFC 7009 §2.2: unknown tokens are fine
      if let clientID = presented.clientID, clientID != issued.clientID { return }
      if issued.kind == .refresh { state.revokeFamily(issued.family) } else { state.tokens[token]?.revoked = true }
    }
    return ServerReply(status: 200)
  }

  /// The live access token of a Bearer header, if any.
  func bearerToken(_ request: ServerRequest, now: Int64) -> IssuedToken? {
    guard let header = request.header("Authorization"), header.lowercased().hasPrefix("bearer ") else { return nil }
    let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    return state.withLock { state in
      guard let issued = state.tokens[token], issued.kind == .access, !issued.revoked, issued.expiresAt > now else {
        return nil
      }
      return issued
    }
  }

  func userinfo(_ request: ServerRequest) -> ServerReply {
    guard let token = bearerToken(request, now: now()) else {
      return json(
        401, ["error": "invalid_token", "error_description": "missing, expired or revoked access token"],
        headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\"")])
    }
    // A client-credentials token speaks for a client, not a person: there is no one to describe.
    guard !token.clientCredentials else {
      return json(
        401, ["error": "invalid_token", "error_description": "a client-credentials token has no user"],
        headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\", error_description=\"no user\"")])
    }
    let user = state.withLock { $0.user(token.user) }
    return json(200, .object(userClaims(user, identifier: token.user)))
  }

  func introspect(_ request: ServerRequest) -> ServerReply {
    guard request.method == "POST" else { return oauthError(405, "invalid_request", "use POST") }
    let form = FormEncoding.dictionary(request.bodyText)
    guard let token = form["token"] else { return oauthError(400, "invalid_request", "token is required") }
    let now = self.now()
    let found = state.withLock { state -> (IssuedToken, User?)? in
      guard let issued = state.tokens[token] else { return nil }
      return (issued, state.user(issued.user))
    }
    guard let (issued, user) = found, !issued.revoked, !issued.rotated, issued.expiresAt > now else {
      return json(200, ["active": false])
    }
    if issued.clientCredentials {
      return json(
        200,
        [
          "active": true, "scope": .string(issued.scope), "client_id": .string(issued.clientID),
          "sub": .string(issued.clientID), "iss": .string(issuer),
          "aud": .array((issued.audience ?? [issued.clientID]).map(JSONValue.string)),
          "exp": .number(Double(issued.expiresAt)), "iat": .number(Double(issued.issuedAt)), "token_type": "Bearer",
        ])
    }
    let claims = userClaims(user, identifier: issued.user)
    return json(
      200,
      [
        "active": true, "scope": .string(issued.scope), "client_id": .string(issued.clientID),
        "username": .string(issued.user), "sub": claims["sub"] ?? .null, "iss": .string(issuer),
        "aud": .array((issued.audience ?? [issued.clientID]).map(JSONValue.string)),
        "exp": .number(Double(issued.expiresAt)),
        "iat": .number(Double(issued.issuedAt)),
        "token_type": issued.kind == .access ? "Bearer" : "refresh_token",
      ])
  }

  func logout(_ request: ServerRequest) -> ServerReply {
    let query = FormEncoding.dictionary(request.method == "POST" ? request.bodyText : request.query)
    var clientID: String?
    if let hint = query["id_token_hint"] {
      guard let jwt = try? JWT(compact: hint),
        (try? jwt.verify(with: JWKS(json: JWKS.document(for: signingKey.publicKey, keyID: keyID)))) != nil
      else {
        return html(400, page("Sign-out failed", "id_token_hint is not an ID token issued by this tenant."))
      }
      clientID = jwt.claims["aud"]?[0]?.string ?? jwt.claims["aud"]?.string
      if let sid = jwt.claims["sid"]?.string {
        state.withLock { state in
          state.sessions[sid]?.finished = true
        }
      }
    }
    if let target = query["post_logout_redirect_uri"] {
      guard let client = client(clientID ?? query["client_id"]),
        client.postLogoutRedirectURIs.contains(target) || redirectAllowed(target, for: client)
      else {
        return html(400, page("Sign-out failed", "post_logout_redirect_uri is not registered for this client."))
      }
      var location = target
      if let state = query["state"] { location = FormEncoding.appending([("state", state)], to: target) }
      state.withLock { $0.stats.logouts += 1 }
      return ServerReply(status: 302, headers: [("Location", location)])
    }
    state.withLock { $0.stats.logouts += 1 }
    return html(200, page("Signed out", "You are signed out of this tenant. You may close this window."))
  }

  /// The tenant's error page: the error of its URL, for a person.
  func errorPage(_ request: ServerRequest) -> ServerReply {
    let query = FormEncoding.dictionary(request.query)
    let error = HTML.escape(query["error"] ?? "error")
    return html(200, page("Sign-in error", "\(error): \(HTML.escape(query["error_description"] ?? ""))"))
  }

  func page(_ title: String, _ message: String) -> String {
    """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>\(HTML.escape(title))</title></head>
    <body><h1>\(HTML.escape(title))</h1><p>\(message)</p></body></html>

    """
  }
}

// Each API of the journey file as a protected resource at `/resources/NAME/`: it checks access
// tokens as a real resource server does (the JWT alone: signature through the tenant's JWKS,
// `iss`, `exp`, `aud`, `scope`, `acr`, `auth_time`; it never asks the tenant's state), answers
// RFC 6750 §3 / RFC 9470 challenges, and serves its RFC 9728 metadata at
// `/.well-known/oauth-protected-resource/resources/NAME/`. Hostile mode's `challenge-*` kinds
// replace every answer with a hostile challenge (Hostile.swift).
import Foundation
import LoopbackHTTP
import OAuthCore
import StrivacityCore

extension Emulator {
  static let resourcePrefix = "/resources/"
  static let resourceMetadataPrefix = "/.well-known/oauth-protected-resource/resources/"

  /// `http://127.0.0.1:PORT/resources/NAME/`: the API served here, also one of its resource indicators.
  func resourceURL(_ api: API) -> String { issuer + "resources/\(api.name)/" }

  /// Where the API's RFC 9728 metadata is (the well-known name inserted before the resource's path).
  func resourceMetadataURL(_ api: API) -> String {
    issuer + ".well-known/oauth-protected-resource/resources/\(api.name)/"
  }

  /// The API named by the first segment of `path` after `prefix` (dot segments removed first),
  /// and the path within it.
  func resourceAPI(_ path: String, under prefix: String) -> API? {
    let normalized = Self.removingDotSegments(path)
    guard normalized.hasPrefix(prefix) else { return nil }
    let name = normalized.dropFirst(prefix.count).prefix { $0 != "/" }
    return journey.apis.first { $0.name == name }
  }

  /// RFC 3986 §5.2.4 on a path: what the resource decides on is what a client's URL resolves to.
  static func removingDotSegments(_ path: String) -> String {
    var out: [Substring] = []
    let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    for (index, segment) in segments.enumerated() {
      let last = index == segments.count - 1
      switch segment {
      case ".":
        if last { out.append("") }
      case "..":
        if !out.isEmpty { out.removeLast() }
        if last { out.append("") }
      default: out.append(segment)
      }
    }
    return "/" + out.joined(separator: "/")
  }

  // MARK: the resource

  /// Why a request is refused: `error` nil is a request without a token (RFC 6750 §3.1).
  struct ResourceRefusal: Error {
    var status: Int
    var error: String?
    var description: String
    var parameters: [(String, String)] = []

    var statsKey: String { error ?? "no_token" }
  }

  func protectedResource(_ request: ServerRequest) -> ServerReply {
    guard let api = resourceAPI(request.path, under: Self.resourcePrefix) else {
      return json(404, ["error": "not_found", "error_description": .string("no API at \(Self.quoted(request.path))")])
    }
    let hostile = state.withLock { state -> Set<HostileKind> in
      state.stats.resourceRequests[api.name, default: 0] += 1
      return state.hostile
    }
    if let kind = HostileKind.challengeKinds.first(where: hostile.contains) {
      let (status, error, header) = Hostile.challenge(
        kind, api: api, realmAndMetadata: challengeHead(api))
      state.withLock { $0.stats.resourceRefusals[error, default: 0] += 1 }
      return resourceReply(
        request, status, ["error": .string(error)], headers: [("WWW-Authenticate", header)])
    }
    switch check(request, for: api) {
    case .failure(let refusal):
      state.withLock { $0.stats.resourceRefusals[refusal.statsKey, default: 0] += 1 }
      var parameters: [(String, String)] = []
      if let error = refusal.error {
        parameters = [("error", error), ("error_description", Self.headerSafe(refusal.description))]
        parameters += refusal.parameters
      }
      let header = challengeHead(api) + parameters.map { ", \($0)=\"\($1)\"" }.joined()
      return resourceReply(
        request, refusal.status,
        ["error": .string(refusal.statsKey), "error_description": .string(refusal.description)],
        headers: [("WWW-Authenticate", header)])
    case .success(let claims):
      return resourceReply(
        request, 200,
        [
          "api": .string(api.name), "sub": claims["sub"] ?? .null, "scope": claims["scope"] ?? .null,
          "acr": claims["acr"] ?? .null, "method": .string(request.method), "path": .string(request.path),
        ])
    }
  }

  /// `Bearer realm="NAME", resource_metadata="…"`: how every challenge of the API begins.
  func challengeHead(_ api: API) -> String {
    "Bearer realm=\"\(api.name)\", resource_metadata=\"\(resourceMetadataURL(api))\""
  }

  /// A JSON answer; to HEAD without the body (its length still said).
  func resourceReply(
    _ request: ServerRequest, _ status: Int, _ body: JSONValue, headers: [(name: String, value: String)] = []
  ) -> ServerReply {
    var reply = json(status, body, headers: headers)
    if request.method == "HEAD" {
      reply.headers.append(("Content-Length", String(reply.body.count)))
      reply.body = []
    }
    return reply
  }

  /// The token's claims when it may make this request, else why not, in this order: a token at
  /// all, its form and signature, `iss`, `exp`, `aud`, the scopes the method needs, then the
  /// API's `acr` and `max_age` together.
  func check(_ request: ServerRequest, for api: API) -> Result<[String: JSONValue], ResourceRefusal> {
    func invalid(_ description: String) -> Result<[String: JSONValue], ResourceRefusal> {
      .failure(ResourceRefusal(status: 401, error: "invalid_token", description: description))
    }
    guard let header = request.header("Authorization"), header.lowercased().hasPrefix("bearer ") else {
      return .failure(ResourceRefusal(status: 401, error: nil, description: "this API needs a Bearer access token"))
    }
    let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    let jwt: JWT
    do {
      jwt = try JWT(compact: token)
      try jwt.verify(with: try JWKS(json: JWKS.document(for: signingKey.publicKey, keyID: keyID)))
    } catch {
      return invalid("\(error)")
    }
    let claims = jwt.claims
    guard claims["iss"]?.string == issuer else { return invalid("the token was not issued by this tenant") }
    guard let exp = claims["exp"]?.number else { return invalid("the token has no exp") }
    let now = self.now()
    guard Double(now) < exp else { return invalid("the token expired") }
    let audience = claims["aud"]?.array?.compactMap(\.string) ?? claims["aud"]?.string.map { [$0] } ?? []
    let accepted = [api.audience] + api.resources + [resourceURL(api)]
    guard audience.contains(where: accepted.contains) else {
      return invalid("the token is not for API \(api.name) (its aud names another)")
    }
    // Reading needs the API's first scope; anything else needs them all.
    let needed = request.method == "GET" || request.method == "HEAD" ? Array(api.scopes.prefix(1)) : api.scopes
    let granted = (claims["scope"]?.string ?? "").split(separator: " ").map(String.init)
    if !needed.allSatisfy(granted.contains) {
      return .failure(
        ResourceRefusal(
          status: 403, error: "insufficient_scope",
          description: "\(request.method) needs scope \(needed.joined(separator: " "))",
          parameters: [("scope", needed.joined(separator: " "))]))
    }
    var unmet: [String] = []
    if let acr = api.acr, claims["acr"]?.string != acr { unmet.append("a sign-in with acr \(acr)") }
    if let maxAge = api.maxAge {
      let authTime = claims["auth_time"]?.number ?? 0
      if Double(now) - authTime > Double(maxAge) { unmet.append("a sign-in at most \(maxAge) seconds old") }
    }
    if !unmet.isEmpty {
      // Both the API's requirements, whichever failed: a new sign-in must meet them all.
      var parameters: [(String, String)] = []
      if let acr = api.acr { parameters.append(("acr_values", acr)) }
      if let maxAge = api.maxAge { parameters.append(("max_age", String(maxAge))) }
      return .failure(
        ResourceRefusal(
          status: 401, error: "insufficient_user_authentication",
          description: "API \(api.name) needs " + unmet.joined(separator: " and "), parameters: parameters))
    }
    return .success(claims)
  }

  /// RFC 6750 §3's characters for a quoted `error_description` (no `"`, `\` or controls).
  static func headerSafe(_ text: String) -> String {
    String(
      String.UnicodeScalarView(
        text.unicodeScalars.prefix(300).map { scalar in
          scalar.value == 0x20 || scalar.value == 0x21 || (0x23...0x5B).contains(scalar.value)
            || (0x5D...0x7E).contains(scalar.value) ? scalar : "?"
        }))
  }

  // MARK: metadata

  /// RFC 9728 §3: the API's protected-resource metadata.
  func resourceMetadata(_ request: ServerRequest) -> ServerReply {
    guard request.method == "GET" || request.method == "HEAD" else {
      return json(405, ["error": "invalid_request", "error_description": "use GET"])
    }
    let path = Self.removingDotSegments(request.path)
    guard let api = resourceAPI(path, under: Self.resourceMetadataPrefix),
      path == Self.resourceMetadataPrefix + api.name || path == Self.resourceMetadataPrefix + api.name + "/"
    else {
      return json(404, ["error": "not_found", "error_description": "no protected resource at this metadata path"])
    }
    let foreign = state.withLock { $0.hostile.contains(.metadataForeignIssuer) }
    return resourceReply(
      request, 200,
      [
        "resource": .string(resourceURL(api)),
        "authorization_servers": [.string(foreign ? Hostile.foreignAuthorizationServer : issuer)],
        "scopes_supported": .array(api.scopes.map(JSONValue.string)),
        "bearer_methods_supported": ["header"],
        "resource_name": .string(api.name),
      ])
  }
}

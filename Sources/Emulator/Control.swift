// Test hooks under /_emulator/: counters and recorded bodies, fault injection, forced expiry,
// and what the loaded journey offers (for demos).
import Foundation
import LoopbackHTTP
import StrivacityCore

extension Emulator {
  func control(_ request: ServerRequest) -> ServerReply {
    let body = JSONValue.parse(request.body) ?? .object([:])
    switch (request.method, request.path) {
    case ("GET", "/_emulator/stats"):
      return json(200, state.withLock { $0.stats.json })
    case ("POST", "/_emulator/stats/reset"):
      state.withLock { $0.stats = Stats() }
      return ServerReply(status: 204)
    case ("POST", "/_emulator/faults"):
      guard let name = body["endpoint"]?.string, let endpoint = Endpoint(rawValue: name), endpoint != .control,
        endpoint != .unknown
      else {
        return oauthError(
          400, "invalid_request",
          "endpoint must be one of: "
            + "\(Endpoint.allCases.filter { $0 != .control && $0 != .unknown }.map(\.rawValue).joined(separator: ", "))"
        )
      }
      guard let fault = Fault(body) else {
        return oauthError(
          400, "invalid_request", "kind must be one of: \(Fault.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      state.withLock { $0.faults[endpoint, default: []].append(fault) }
      return ServerReply(status: 201)
    case ("DELETE", "/_emulator/faults"):
      state.withLock { $0.faults = [:] }
      return ServerReply(status: 204)
    case ("POST", "/_emulator/tamper"):
      guard let kind = body["kind"]?.string.flatMap(Tamper.init(rawValue:)) else {
        return oauthError(
          400, "invalid_request", "kind must be one of: \(Tamper.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      state.withLock { $0.tampering.append(kind) }
      return ServerReply(status: 201)
    case ("POST", "/_emulator/expire"):
      let what = body["what"]?.string ?? ""
      let past = now() - 1
      state.withLock { state in
        switch what {
        case "sessions":
          for key in state.sessions.keys { state.sessions[key]!.expiresAt = past }
        case "access_tokens", "refresh_tokens":
          let kind: IssuedToken.Kind = what == "access_tokens" ? .access : .refresh
          for (key, token) in state.tokens where token.kind == kind { state.tokens[key]!.expiresAt = past }
        default: break
        }
      }
      guard ["sessions", "access_tokens", "refresh_tokens"].contains(what) else {
        return oauthError(400, "invalid_request", "what must be sessions, access_tokens or refresh_tokens")
      }
      return ServerReply(status: 204)
    case ("POST", let path) where path.hasPrefix("/_emulator/clients/") && path.hasSuffix("/secret"):
      return replaceSecret(path, request.body)
    case (_, "/_emulator/hostile"):
      return hostileControl(request, body)
    case ("GET", "/_emulator/info"):
      let users = state.withLock { $0.users }
      return json(
        200,
        [
          "journey": .string(journey.name), "description": .string(journey.description), "issuer": .string(issuer),
          "clients": .array(
            journey.clients.map {
              ["client_id": .string($0.clientID), "redirect_uris": .array($0.redirectURIs.map(JSONValue.string))]
            }),
          "users": .array(
            users.map { user in
              [
                "identifier": .string(user.identifier), "password": user.password.map(JSONValue.string) ?? .null,
                "mfa": .array(user.factors.map { ["id": .string($0.id), "passcode": .string($0.passcode)] }),
              ]
            }),
        ])
    default:
      return json(404, ["error": "not_found", "error_description": "unknown control endpoint"])
    }
  }

  /// `POST /_emulator/clients/ID/secret` with the new secret as the whole body (UTF-8, taken as
  /// is): a test makes the secret a client holds wrong, or right again.
  func replaceSecret(_ path: String, _ body: [UInt8]) -> ServerReply {
    let encoded = path.dropFirst("/_emulator/clients/".count).dropLast("/secret".count)
    guard let id = String(encoded).removingPercentEncoding, let client = client(id) else {
      return json(404, ["error": "not_found", "error_description": "no such client"])
    }
    guard client.authMethods.contains(where: { $0 != "private_key_jwt" }) else {
      return oauthError(400, "invalid_request", "client \(Self.quoted(id)) does not authenticate with a secret")
    }
    guard !body.isEmpty, let secret = String(validating: body, as: UTF8.self) else {
      return oauthError(400, "invalid_request", "the body must be the new secret, UTF-8, not empty")
    }
    state.withLock { $0.clientSecrets[id] = secret }
    return ServerReply(status: 204)
  }
}

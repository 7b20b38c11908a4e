// The local tenant: OIDC/OAuth endpoints and the Journey-flow API on 127.0.0.1, driven by a
// journey file, with hooks for tests (request counters, recorded bodies, fault injection).
//
// Concurrency: the LoopbackServer serves each connection on its own thread; every piece of
// tenant state sits behind one mutex, held only while state is read or changed (never while
// sleeping for an injected delay or writing to a socket).
import Crypto
import Foundation
import LoopbackHTTP
import OAuthCore
import StrivacityCore
import Synchronization
import _CryptoExtras

public final class Emulator: @unchecked Sendable {
  public let journey: Journey
  /// The issuer, with its trailing slash: `http://127.0.0.1:PORT/`.
  public let issuer: String
  let signingKey: _RSA.Signing.PrivateKey
  let keyID: String
  let now: @Sendable () -> Int64
  let state: Mutex<TenantState>
  /// Hostile mode's recording listener, started on first use (Hostile.swift).
  let hostileListener = Mutex<LoopbackServer?>(nil)
  private var server: LoopbackServer!

  /// Starts serving on 127.0.0.1:`port` (0 picks a free port).
  /// - Parameters:
  ///   - keyPEM: an RSA private key in PEM; a fresh 2048-bit key when nil.
  ///   - now: the clock, in seconds since 1970 (tests may pin it).
  ///   - publicURL: the URL clients reach it at, when that is not the loopback address it
  ///     listens on (behind a TLS front under a name, as a real tenant is): the issuer and every
  ///     endpoint are named from it. Its own trailing slash is added.
  public init(
    journey: Journey, port: Int = 0, keyPEM: String? = nil, publicURL: String? = nil,
    now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
  ) throws {
    self.journey = journey
    self.now = now
    if let keyPEM {
      signingKey = try _RSA.Signing.PrivateKey(pemRepresentation: keyPEM)
    } else {
      signingKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }
    keyID = JWKS.keyID(for: signingKey.publicKey)
    var tenant = TenantState(users: journey.users)
    for client in journey.clients { tenant.clientSecrets[client.clientID] = client.secret }
    state = Mutex(tenant)
    // Bind first so the issuer can name the real port.
    let box = HandlerBox()
    let server = try LoopbackServer(host: "127.0.0.1", port: port) { request in box.handle(request) }
    issuer = publicURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? "http://127.0.0.1:\(server.port)/"
    self.server = server
    box.emulator = self
  }

  public var port: Int { server.port }

  /// Stops serving; idempotent.
  public func stop() {
    server.stop()
    stopHostileListener()
  }

  /// Routes one request: faults first, then the endpoint.
  func handle(_ request: ServerRequest) -> ServerReply {
    let endpoint = Endpoint(request)
    if endpoint == .control { return control(request) }
    let fault = state.withLock { state -> Fault? in
      state.stats.record(endpoint, request)
      return state.takeFault(for: endpoint)
    }
    // A slow server: the request is handled only after the delay.
    if let fault, fault.kind == .delay, fault.delay > 0 { usleep(useconds_t(min(fault.delay, 600) * 1_000_000)) }
    var reply: ServerReply
    if let fault, let early = fault.replyBefore(endpoint: endpoint) {
      reply = early
    } else if let echo = echoAnswer(endpoint, request) {
      reply = echo
    } else {
      reply = hostileAnswer(endpoint, route(endpoint, request))
      if let fault { reply = fault.apply(to: reply) }
    }
    // The tenant's clock, as a real server says it (`strivacity doctor` compares it with ours).
    if endpoint == .discovery, !reply.headers.contains(where: { $0.name == "Date" }) {
      reply.headers.append(("Date", HTTPDate.format(now())))
    }
    // Every journey answer carries a correlation id, errors included (protocol §5).
    if endpoint == .initialize || endpoint == .form, !reply.headers.contains(where: { $0.name == "X-Event-ID" }) {
      reply.headers.append(contentsOf: journeyHeaders())
    }
    return reply
  }

  private func route(_ endpoint: Endpoint, _ request: ServerRequest) -> ServerReply {
    switch endpoint {
    case .discovery: return discovery()
    case .jwks: return json(200, JWKS.document(for: signingKey.publicKey, keyID: keyID))
    case .auth: return authorize(request)
    case .authContinue: return authorizeContinue(request)
    case .errorPage: return errorPage(request)
    case .initialize: return journeyInit(request)
    case .form: return journeyForm(request)
    case .finalize: return finalize(request)
    case .token: return token(request)
    case .revoke: return revoke(request)
    case .userinfo: return userinfo(request)
    case .logout: return logout(request)
    case .introspect: return introspect(request)
    case .hosted: return hosted(request)
    case .control: return control(request)
    case .resource: return protectedResource(request)
    case .resourceMetadata: return resourceMetadata(request)
    case .unknown:
      return json(404, ["error": "not_found", "error_description": .string("no endpoint at \(request.path)")])
    }
  }

  /// What discovery lists: every method the emulator knows, unless the journey file says otherwise.
  var authMethodsSupported: [String] {
    journey.tokenEndpointAuthMethodsSupported ?? [
      "none", "client_secret_basic", "client_secret_post", "private_key_jwt",
    ]
  }

  private func discovery() -> ServerReply {
    json(
      200,
      [
        "issuer": .string(issuer),
        "authorization_endpoint": .string(issuer + "oauth2/auth"),
        "token_endpoint": .string(issuer + "oauth2/token"),
        "jwks_uri": .string(issuer + ".well-known/jwks.json"),
        "userinfo_endpoint": .string(issuer + "userinfo"),
        "revocation_endpoint": .string(issuer + "oauth2/revoke"),
        "introspection_endpoint": .string(issuer + "oauth2/introspect"),
        "end_session_endpoint": .string(issuer + "oauth2/sessions/logout"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query", "fragment"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "code_challenge_methods_supported": ["plain", "S256"],
        "token_endpoint_auth_methods_supported": .array(authMethodsSupported.map(JSONValue.string)),
        "token_endpoint_auth_signing_alg_values_supported": ["RS256", "ES256"],
        "revocation_endpoint_auth_methods_supported": .array(authMethodsSupported.map(JSONValue.string)),
        "scopes_supported": ["offline_access", "offline", "openid", "profile", "email"],
        "claims_supported": ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "sid", "email", "name"],
      ])
  }

  // MARK: replies

  func json(_ status: Int, _ body: JSONValue, headers: [(name: String, value: String)] = []) -> ServerReply {
    ServerReply(
      status: status,
      headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")] + headers,
      body: body.serialized())
  }

  func oauthError(_ status: Int, _ error: String, _ description: String) -> ServerReply {
    json(status, ["error": .string(error), "error_description": .string(description)])
  }

  func html(_ status: Int, _ body: String, headers: [(name: String, value: String)] = []) -> ServerReply {
    ServerReply(status: status, contentType: "text/html; charset=utf-8", text: body, headers: headers)
  }
}

/// Lets the server's handler reach the emulator once it exists (the port is known only after binding).
private final class HandlerBox: @unchecked Sendable {
  weak var emulator: Emulator?
  func handle(_ request: ServerRequest) -> ServerReply {
    emulator?.handle(request) ?? ServerReply(status: 503)
  }
}

/// The endpoints, as named by stats and faults.
public enum Endpoint: String, Sendable, CaseIterable {
  case discovery, jwks, auth, authContinue = "auth-continue", initialize = "init", form, finalize, token, revoke
  case userinfo, logout, introspect, hosted, control
  /// The tenant's error page, where a refused authorization request is sent (protocol §3.3).
  case errorPage = "error-page"
  /// The APIs' protected resources and their RFC 9728 metadata (ProtectedResource.swift).
  case resource, resourceMetadata = "resource-metadata"
  case unknown

  init(_ request: ServerRequest) {
    let path = request.path
    switch path {
    case "/.well-known/openid-configuration": self = .discovery
    case "/.well-known/jwks.json": self = .jwks
    case "/oauth2/auth": self = .auth
    case "/provider/native": self = .authContinue
    case "/flow/api/v1/init": self = .initialize
    case "/provider/oauth2/v1/finish": self = .finalize
    case "/oauth2/token": self = .token
    case "/oauth2/revoke": self = .revoke
    case "/userinfo": self = .userinfo
    case "/oauth2/sessions/logout": self = .logout
    case "/oauth2/introspect": self = .introspect
    case "/provider/flow": self = .hosted
    case "/oauth2/error": self = .errorPage
    default:
      if path.hasPrefix("/flow/api/v1/form/") {
        self = .form
      } else if path.hasPrefix("/_emulator/") {
        self = .control
      } else if path.hasPrefix(Emulator.resourcePrefix) {
        self = .resource
      } else if path.hasPrefix("/.well-known/oauth-protected-resource/") {
        self = .resourceMetadata
      } else {
        self = .unknown
      }
    }
  }
}

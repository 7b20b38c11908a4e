// Everything the tenant remembers: journey sessions, codes, tokens, users registered during
// the run, counters and queued faults.
import Foundation
import LoopbackHTTP
import StrivacityCore

struct JourneySession {
  var id: String
  var clientID: String
  var redirectURI: String
  var state: String?
  var nonce: String?
  var codeChallenge: String
  var scope: String
  var sdkMode: String
  var screen: String
  var user: String?
  var factor: String?
  /// What the user typed as identifier (shown back by placeholders before the user is known).
  var identifier: String?
  /// Text values of the submissions so far by (dotted) widget id, passwords left out: `{{answer.ID}}`.
  var answers: [String: String] = [:]
  var expiresAt: Int64
  var finished = false
  /// The APIs the authorization request named (`resource`, `audience`) and what `acr_values` asked.
  var consent = Consent()
  /// A second factor was completed in this sign-in (a passcode, an enrolment, the step-up screen).
  var secondFactor = false

  var minimal: Bool { sdkMode.hasSuffix("-minimal") }
  /// `web*` modes answer redirects as 200 with the URL as body; others with 302 (protocol §3.3).
  var answersWithBody: Bool { sdkMode.hasPrefix("web") }
}

struct AuthorizationCode {
  var clientID: String
  var redirectURI: String
  var codeChallenge: String
  var nonce: String?
  var scope: String
  var user: String
  var sid: String
  var authTime: Int64
  var expiresAt: Int64
  var consent = Consent()
  var used = false
  /// Tokens issued from this code, revoked if the code is replayed (RFC 6749 §4.1.2).
  var family: String?
}

struct IssuedToken {
  enum Kind { case access, refresh }
  var kind: Kind
  var clientID: String
  var user: String
  var scope: String
  var sid: String
  var family: String
  var issuedAt: Int64
  var expiresAt: Int64
  var revoked = false
  /// Refresh tokens only: already exchanged (rotation).
  var rotated = false
  /// What the sign-in consented to, handed on from the code to each refresh token of the family.
  var consent = Consent()
  /// Access tokens for an API: its name and the token's `aud`.
  var api: String?
  var audience: [String]?
  /// Issued by the client-credentials grant: the client's own token, with no user behind it.
  var clientCredentials = false
}

/// What a sign-in consented to besides its scope: the resource indicators (RFC 8707) and audiences
/// its authorization request named, and the sign-in's `acr` and `auth_time` for API access tokens.
struct Consent {
  var resources: [String] = []
  var audiences: [String] = []
  /// What the sign-in did: `Consent.mfaACR` when a second factor was completed, else `defaultACR`.
  var acr = Consent.defaultACR
  /// The authorization request's `acr_values`, in order (the ID token names `acr` when there were any).
  var acrValues: [String] = []
  var authTime: Int64 = 0

  static let defaultACR = "pwd"
  static let mfaACR = "mfa"

  /// Whether `acr_values` asked for a second factor: the journey then adds one if it has none (step-up).
  var wantsMFA: Bool { acrValues.contains(Consent.mfaACR) }

  /// Whether the sign-in named `api` by its audience, one of its resources, or `url` (its protected
  /// resource at this emulator).
  func covers(_ api: API, at url: String) -> Bool {
    audiences.contains(api.audience) || api.resources.contains(where: resources.contains) || resources.contains(url)
  }
}

struct TenantState {
  var users: [User]
  var sessions: [String: JourneySession] = [:]
  var finishTokens: [String: String] = [:]
  var codes: [String: AuthorizationCode] = [:]
  var tokens: [String: IssuedToken] = [:]
  var stats = Stats()
  var faults: [Endpoint: [Fault]] = [:]
  /// Screen faults from the journey file, by screen id, with the submissions they still apply to.
  var screenFaults: [String: Fault] = [:]
  /// Tampering queued for the next ID token or finalize redirect (`POST /_emulator/tamper`).
  var tampering: [Tamper] = []
  /// Hostile kinds in force (`--hostile`, `POST /_emulator/hostile`), until cleared.
  var hostile: Set<HostileKind> = []
  /// Confidential clients' secrets by client id: the journey file's, until a test replaces one
  /// (`POST /_emulator/clients/ID/secret`).
  var clientSecrets: [String: String] = [:]
  /// The `jti` of each client assertion accepted, by client id and jti, until its `exp` (RFC 7523 §3).
  var seenAssertions: [String: Int64] = [:]

  /// Remembers an assertion's `jti`; false when it was seen before (a replay). Forgets expired ones.
  mutating func firstUse(client: String, jti: String, expiresAt: Int64, now: Int64) -> Bool {
    seenAssertions = seenAssertions.filter { $0.value >= now }
    let key = client + "\u{0}" + jti
    guard seenAssertions[key] == nil else { return false }
    seenAssertions[key] = expiresAt
    return true
  }

  mutating func takeTamper(_ matching: (Tamper) -> Bool) -> Tamper? {
    guard let index = tampering.firstIndex(where: matching) else { return nil }
    return tampering.remove(at: index)
  }

  func user(_ identifier: String?) -> User? {
    guard let identifier else { return nil }
    return users.first { $0.identifier.lowercased() == identifier.lowercased() }
  }

  mutating func takeFault(for endpoint: Endpoint) -> Fault? {
    guard var queue = faults[endpoint], !queue.isEmpty else { return nil }
    var fault = queue[0]
    fault.remaining -= 1
    if fault.remaining <= 0 { queue.removeFirst() } else { queue[0] = fault }
    faults[endpoint] = queue
    return fault
  }

  /// The journey file's fault for a submission on `screen`, while its count lasts.
  mutating func takeScreenFault(_ screen: Screen) -> Fault? {
    guard let spec = screen.fault else { return nil }
    var fault = screenFaults[screen.id] ?? Fault(spec)
    guard let current = fault, current.remaining > 0 else { return nil }
    fault!.remaining -= 1
    screenFaults[screen.id] = fault
    return current
  }

  mutating func revokeFamily(_ family: String) {
    for (key, token) in tokens where token.family == family { tokens[key]!.revoked = true }
  }
}

/// Request counters and what was last sent to each endpoint, for tests (`GET /_emulator/stats`).
struct Stats {
  var requests: [String: Int] = [:]
  var grants: [String: Int] = [:]
  /// Token requests naming an API (`audience`, `resource`), by API name.
  var apiTokenRequests: [String: Int] = [:]
  /// Requests to each API's protected resource, by API name; its refusals by error code (`no_token`
  /// for a request without a token).
  var resourceRequests: [String: Int] = [:]
  var resourceRefusals: [String: Int] = [:]
  var lastBodies: [String: JSONValue] = [:]
  /// Every journey form submission in order: form id and parsed body.
  var submissions: [JSONValue] = []
  /// Every body and screen that broke the API description (SpecSchema.swift): direction, where, problems.
  var nonConforming: [JSONValue] = []
  var logouts = 0
  var revocations = 0
  /// Every client-credentials token request, refused or not; by the client it named (known ones).
  var clientCredentialsRequests = 0
  var clientCredentialsByClient: [String: Int] = [:]
  /// `invalid_client` refusals at the token and revocation endpoints.
  var invalidClient = 0
  /// What hostile mode's recording listener received (Hostile.swift).
  var hostileListenerRequests = 0
  var hostileListenerBodies: [String] = []
  var hostileListenerLog: [JSONValue] = []

  mutating func record(_ endpoint: Endpoint, _ request: ServerRequest) {
    requests[endpoint.rawValue, default: 0] += 1
    guard !request.body.isEmpty else { return }
    let body = JSONValue.parse(request.body) ?? .string(request.bodyText)
    lastBodies[endpoint.rawValue] = body
    if endpoint == .form {
      let formID = FormPath.formID(request.path) ?? "?"
      lastBodies["form/" + formID] = body
      submissions.append(["form": .string(formID), "body": body])
    }
  }

  var json: JSONValue {
    .object([
      "requests": .object(requests.mapValues { .number(Double($0)) }),
      "grants": .object(grants.mapValues { .number(Double($0)) }),
      "api_token_requests": .object(apiTokenRequests.mapValues { .number(Double($0)) }),
      "resource_requests": .object(resourceRequests.mapValues { .number(Double($0)) }),
      "resource_refusals": .object(resourceRefusals.mapValues { .number(Double($0)) }),
      "last_bodies": .object(lastBodies),
      "submissions": .array(submissions),
      "non_conforming": .array(nonConforming),
      "logouts": .number(Double(logouts)),
      "revocations": .number(Double(revocations)),
      "client_credentials_requests": .number(Double(clientCredentialsRequests)),
      "client_credentials_by_client": .object(clientCredentialsByClient.mapValues { .number(Double($0)) }),
      "invalid_client": .number(Double(invalidClient)),
      "hostile_listener_requests": .number(Double(hostileListenerRequests)),
      "hostile_listener_bodies": .array(hostileListenerBodies.map(JSONValue.string)),
      "hostile_listener_log": .array(hostileListenerLog),
    ])
  }
}

enum FormPath {
  /// The form id of `/flow/api/v1/form/{formId}`; ids may contain `/` and are percent-decoded.
  static func formID(_ path: String) -> String? {
    let prefix = "/flow/api/v1/form/"
    guard path.hasPrefix(prefix), path.count > prefix.count else { return nil }
    return String(path.dropFirst(prefix.count)).removingPercentEncoding
  }
}

/// A fault queued for an endpoint (`POST /_emulator/faults`).
struct Fault {
  enum Kind: String, CaseIterable {
    case status, delay, drop, malformedJSON = "malformed-json", truncatedJSON = "truncated-json"
    case truncatedTransfer = "truncated-transfer", wrongContentType = "wrong-content-type", huge, empty
    case wrongTypes = "wrong-types", unknownFields = "unknown-fields"
  }
  var kind: Kind
  var status: Int?
  var delay: Double
  var body: JSONValue?
  var remaining: Int

  init?(_ json: JSONValue) {
    guard let kindText = json["kind"]?.string ?? (json["status"] != nil ? "status" : nil),
      let kind = Kind(rawValue: kindText)
    else { return nil }
    self.kind = kind
    status = json["status"]?.int
    delay = json["delay"]?.number ?? 0
    body = json["body"]
    remaining = max(1, json["count"]?.int ?? 1)
  }

  /// Faults that replace the endpoint's work entirely.
  func replyBefore(endpoint: Endpoint) -> ServerReply? {
    switch kind {
    case .status:
      let status = self.status ?? 500
      let body = self.body ?? ["error": "server_error", "error_description": "injected fault"]
      var reply = ServerReply(status: status, headers: [("Content-Type", "application/json")], body: body.serialized())
      reply.delay = delay
      return reply
    case .empty:
      var reply = ServerReply(status: status ?? 500)
      reply.delay = delay
      return reply
    case .drop:
      var reply = ServerReply.dropped
      reply.delay = delay
      return reply
    case .huge:
      var reply = ServerReply(
        status: status ?? 200, headers: [("Content-Type", "application/json")],
        body: Array("{\"padding\":\"".utf8) + [UInt8](repeating: 65, count: 10 * 1_048_576) + Array("\"}".utf8))
      reply.delay = delay
      return reply
    case .malformedJSON:
      var reply = ServerReply(
        status: status ?? 200, headers: [("Content-Type", "application/json")],
        body: Array("{\"access_token\": tru".utf8))
      reply.delay = delay
      return reply
    default:
      return nil
    }
  }

  /// Faults that distort the endpoint's real answer.
  func apply(to reply: ServerReply) -> ServerReply {
    var reply = reply
    if kind != .delay { reply.delay += delay }
    switch kind {
    case .truncatedJSON:
      reply.body = Array(reply.body.prefix(max(1, reply.body.count / 2)))
      reply.headers.removeAll { $0.name.lowercased() == "content-length" }
    case .truncatedTransfer:
      let head = reply.encoded().count - reply.body.count
      reply.truncateAfter = head + reply.body.count / 2
    case .wrongContentType:
      reply.headers.removeAll { $0.name.lowercased() == "content-type" }
      reply.headers.append(("Content-Type", "text/html; charset=utf-8"))
    case .wrongTypes:
      if var object = JSONValue.parse(reply.body)?.object {
        for (key, value) in object {
          switch value {
          case .string: object[key] = .number(42)
          case .number: object[key] = .string("42")
          case .array, .object: object[key] = .bool(true)
          case .bool: object[key] = .string("true")
          case .null: object[key] = .array([])
          }
        }
        reply.body = JSONValue.object(object).serialized()
      }
    case .unknownFields:
      if var object = JSONValue.parse(reply.body)?.object {
        object["x_unknown_field"] = ["nested": ["deep": true]]
        object["another_unknown"] = .string("ignored")
        reply.body = JSONValue.object(object).serialized()
      }
    default:
      break
    }
    return reply
  }
}

/// Ways to break the next ID token or redirect, so clients can be tested against them.
enum Tamper: String, CaseIterable {
  case idTokenSignature = "id-token-signature", idTokenAudience = "id-token-aud", idTokenNonce = "id-token-nonce"
  case idTokenExpired = "id-token-expired", idTokenIssuer = "id-token-issuer", idTokenAlgNone = "id-token-alg-none"
  case callbackState = "callback-state", callbackForeign = "callback-foreign", callbackPath = "callback-path"

  var isIDToken: Bool { rawValue.hasPrefix("id-token") }
}

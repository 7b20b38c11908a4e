// Hostile mode: the emulator plays a malicious tenant, so end-to-end tests can drive a client
// through every kind of hostile answer (docs/emulator.md "Hostile mode"). Unlike tampering,
// which breaks only the next ID token or redirect, hostile kinds are persistent: they apply to
// every matching answer until cleared. Turned on with `--hostile KIND[,KIND…]` or
// `POST /_emulator/hostile {"kinds": [...]}`; `DELETE /_emulator/hostile` clears them.
//
// Most kinds rewrite finished JSON answers (`hostileAnswer`, called by `handle`); those that
// must reach tenant state (issued tokens, signed ID tokens, server-side validation) have small
// hooks in OAuthEndpoints and JourneyEndpoints. Values and ids are never touched, only texts,
// URLs and numbers, so a journey stays completable with the same answers.
import Crypto
import Foundation
import LoopbackHTTP
import OAuthCore
import StrivacityCore
import Synchronization
import _CryptoExtras

/// The hostile answers the emulator can give; the raw values are the contract with tests.
public enum HostileKind: String, Sendable, CaseIterable, Hashable {
  case tokenNewline = "token-newline"
  case tokenControl = "token-control"
  case tokenType = "token-type"
  case refreshTokenNewline = "refresh-token-newline"
  case idTokenNumbers = "id-token-numbers"
  case expiresInHostile = "expires-in-hostile"
  case expiresInString = "expires-in-string"
  case refreshIDTokenForged = "refresh-id-token-forged"
  case texts
  case hostedURL = "hosted-url"
  case hostedURLFile = "hosted-url-file"
  case hostedURLOption = "hosted-url-option"
  case hostedURLForeign = "hosted-url-foreign"
  case hostedURLScheme = "hosted-url-scheme"
  case hostedURLSpace = "hosted-url-space"
  case regex
  case deepNesting = "deep-nesting"
  case deepNestingDiscovery = "deep-nesting-discovery"
  case discoveryPort = "discovery-port"
  case discoveryIssuer = "discovery-issuer"
  case discoveryAuthorization = "discovery-authorization"
  case discoveryJWKS = "discovery-jwks"
  case finalizeElsewhere = "finalize-elsewhere"
  case hugeNumbers = "huge-numbers"
  case challengeHuge = "challenge-huge"
  case challengeUnterminated = "challenge-unterminated"
  case challengeMany = "challenge-many"
  case challengeControl = "challenge-control"
  case challengeScopeForeign = "challenge-scope-foreign"
  case metadataForeignIssuer = "metadata-foreign-issuer"
  case echo
  case echoHTML = "echo-html"
  case echoForm = "echo-form"

  /// The kinds that answer every protected-resource request with a hostile challenge (the first wins).
  static let challengeKinds: [HostileKind] = [
    .challengeHuge, .challengeUnterminated, .challengeMany, .challengeControl, .challengeScopeForeign,
  ]

  /// Parses names separated by commas (and/or given as several strings); fails on the first unknown one.
  public static func parse(_ names: [String]) -> Result<Set<HostileKind>, HostileKindError> {
    var kinds = Set<HostileKind>()
    for name in names.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces) })
    where !name.isEmpty {
      guard let kind = HostileKind(rawValue: name) else { return .failure(HostileKindError(name: name)) }
      kinds.insert(kind)
    }
    return .success(kinds)
  }
}

public struct HostileKindError: Error, CustomStringConvertible {
  public var name: String
  public var description: String {
    "unknown hostile kind \"\(name)\"; kinds: \(HostileKind.allCases.map(\.rawValue).joined(separator: ", "))"
  }
}

/// What hostile answers carry, as constants tests can search for.
public enum Hostile {
  /// Appended to every human-readable text under `texts`: OSC 52 (clipboard write), clear
  /// screen, an SGR colour exactly like strivacity's own (which only the renderer's admission
  /// can tell apart), a right-to-left override and a C1 CSI (U+009B) starting an SGR.
  public static let marker = "\u{1B}]52;c;aGk=\u{07}\u{1B}[2J\u{1B}[31m\u{202E}\u{9B}31m"
  /// Also appended to static widgets' text under `texts`: OSC 0, set the window title.
  public static let titleSet = "\u{1B}]0;pwned\u{07}"
  /// Also appended where a widget's text is rendered as HTML: the same escapes as character references.
  public static let htmlEntities = "&#x1b;[2J&#x1b;]52;c;aGk=&#x07;"
  /// `token-newline`: appended to a real access token.
  public static let accessTokenNewline = "x\nurl = http://127.0.0.1:9/\nupload-file = /etc/hostname\nnext\n"
  /// `token-control`: appended to a real access token.
  public static let accessTokenControl = "\u{1B}]52;c;aGk=\u{07} x"
  /// `token-type`: the token_type.
  public static let tokenType = "Bearer\r\nX-Injected: 1"
  /// `refresh-token-newline`: appended to a real refresh token.
  public static let refreshTokenNewline = "\nx-injected = 1\n"
  /// `regex`: a pattern that backtracking engines take exponential time on (`a…a` without `b`).
  public static let regex = "(a|a)*b"
  /// `deep-nesting*`: how many arrays are nested under the field `x`.
  public static let nestingDepth = 100_000
  public static let foreignIssuer = "https://evil.example/"
  /// `metadata-foreign-issuer`: the only authorization server the protected-resource metadata names.
  public static let foreignAuthorizationServer = "https://evil.example.com"
  /// `challenge-huge`: the length in bytes of the `WWW-Authenticate` value.
  public static let challengeHugeLength = 65_536
  /// `challenge-many`: how many auth-params the challenge carries (the last is `error`).
  public static let challengeParameterCount = 1000
  /// `challenge-control`: inside `error_description`: OSC 52, BEL, clear screen, VT, FF, NEL
  /// (U+0085), the line and paragraph separators, a C1 CSI, DEL and a would-be header. (CR, LF
  /// and NUL are left out: they cannot be sent inside a field value without breaking HTTP's framing.)
  public static let challengeControlText =
    "\u{1B}]52;c;aGk=\u{07}\u{1B}[2J\u{0B}\u{0C}\u{85}X-Injected: 1\u{2028}\u{2029}\u{9B}31m\u{7F}"
  /// `challenge-control`: appended to the API's first scope inside `scope`.
  public static let challengeControlScope = "\u{1B}[31m\u{0B}\u{85}admin:all\u{07}"
  /// `challenge-scope-foreign`: the scope asked for, which no API of the built-in journeys has.
  public static let foreignScope = "admin:all"

  /// The hostedUrl served under a `hosted-url*` kind, given the real one.
  static func hostedURL(_ kind: HostileKind, real: String) -> String? {
    switch kind {
    case .hostedURL, .hostedURLForeign: return "https://evil.example/provider/flow?x=1"
    case .hostedURLFile: return "file:///etc/passwd"
    case .hostedURLOption: return "--new-window=https://evil.example/"
    case .hostedURLScheme: return "javascript:alert(1)"
    case .hostedURLSpace: return real + " --argument"
    default: return nil
    }
  }

  /// The answer of every protected-resource request under a `challenge-*` kind: status, the
  /// error counted in stats, and the `WWW-Authenticate` value (after `head`, the API's realm and
  /// resource_metadata, except where the kind says otherwise).
  static func challenge(_ kind: HostileKind, api: API, realmAndMetadata head: String) -> (Int, String, String) {
    switch kind {
    case .challengeHuge:
      let start = head + ", error=\"invalid_token\", error_description=\""
      let padding = max(0, challengeHugeLength - start.utf8.count - 1)
      return (401, "invalid_token", start + String(repeating: "A", count: padding) + "\"")
    case .challengeUnterminated:
      return (
        401, "invalid_token", head + ", error=\"invalid_token\", error_description=\"this quoted string never ends"
      )
    case .challengeMany:
      // realm and resource_metadata, filler parameters, and `error` as the last.
      let filler = (3..<challengeParameterCount).map { "p\($0)=\"\($0)\"" }.joined(separator: ", ")
      return (401, "invalid_token", head + ", " + filler + ", error=\"invalid_token\"")
    case .challengeControl:
      return (
        403, "insufficient_scope",
        head + ", error=\"insufficient_scope\", error_description=\"\(challengeControlText)\", scope=\""
          + (api.scopes.first ?? "") + challengeControlScope + "\""
      )
    default:
      return (
        403, "insufficient_scope",
        head + ", error=\"insufficient_scope\", error_description=\"this request needs scope \(foreignScope)\", "
          + "scope=\"\(foreignScope)\""
      )
    }
  }

  static func accessToken(_ real: String, _ kinds: Set<HostileKind>) -> String {
    var token = real
    if kinds.contains(.tokenNewline) { token += accessTokenNewline }
    if kinds.contains(.tokenControl) { token += accessTokenControl }
    return token
  }

  static func refreshToken(_ real: String, _ kinds: Set<HostileKind>) -> String {
    kinds.contains(.refreshTokenNewline) ? real + refreshTokenNewline : real
  }

  /// ID token claims before signing: hostile names and numbers.
  static func claims(_ claims: inout [String: JSONValue], identifier: String, _ kinds: Set<HostileKind>) {
    if kinds.contains(.texts) {
      claims["name"] = .string((claims["name"]?.string ?? "Hostile User") + marker)
      claims["email"] = .string((claims["email"]?.string ?? identifier) + marker)
      for key in ["given_name", "family_name", "preferred_username", "nickname"] {
        if let text = claims[key]?.string { claims[key] = .string(text + marker) }
      }
    }
    if kinds.contains(.idTokenNumbers) {
      claims["exp"] = .number(1e300)
      claims["iat"] = .number(1e300)
    }
  }

  /// The token response's own fields (the tokens themselves are made by `accessToken`/`refreshToken`).
  static func tokenBody(_ body: inout [String: JSONValue], _ kinds: Set<HostileKind>) {
    if kinds.contains(.tokenType) { body["token_type"] = .string(tokenType) }
    if kinds.contains(.idTokenNumbers) { body["expires_in"] = .number(1e300) }
    if kinds.contains(.expiresInHostile) { body["expires_in"] = .number(-5) }
    if kinds.contains(.expiresInString) { body["expires_in"] = "3600" }
  }

  /// A key other than the tenant's, for ID tokens with a forged signature (one per process).
  static let forgeryKey: _RSA.Signing.PrivateKey? = try? _RSA.Signing.PrivateKey(keySize: .bits2048)

  /// The same header and claims, signed with another key.
  static func forgedIDToken(_ claims: [String: JSONValue], keyID: String) -> String? {
    forgeryKey.flatMap { try? JWT.sign(claims: claims, with: $0, keyID: keyID) }
  }

  /// `regex`, server side: what `(a|a)*b` accepts (`a*b`), checked in linear time, for `input`
  /// widgets, where WidgetValidation applies regexes. Messages by widget id, as FormValidation.
  static func problems(_ form: Form, _ body: [String: JSONValue], _ kinds: Set<HostileKind>) -> [String: String] {
    guard kinds.contains(.regex) else { return [:] }
    var problems: [String: String] = [:]
    for widget in form.widgets where widget.type == "input" {
      guard let text = FormValidation.value(of: widget.id, in: body)?.string, !text.isEmpty else { continue }
      if !(text.hasSuffix("b") && text.dropLast().allSatisfy { $0 == "a" }) { problems[widget.id] = "Invalid format" }
    }
    return problems
  }

  /// A JSON object's bytes with `"x": [[[…]]]` (`nestingDepth` arrays) as its first field.
  static func nested(_ body: [UInt8]) -> [UInt8] {
    guard body.first == UInt8(ascii: "{") else { return body }
    let rest = body.dropFirst()
    var out = Array("{\"x\":".utf8)
    out.reserveCapacity(body.count + 2 * nestingDepth + 8)
    out += [UInt8](repeating: UInt8(ascii: "["), count: nestingDepth)
    out += [UInt8](repeating: UInt8(ascii: "]"), count: nestingDepth)
    if rest.first != UInt8(ascii: "}") { out.append(UInt8(ascii: ",")) }
    return out + rest
  }

  // MARK: texts

  static func mark(_ value: JSONValue?, html: Bool = false) -> JSONValue? {
    guard let text = value?.string else { return value }
    return .string(text + marker + (html ? htmlEntities : ""))
  }

  /// Every human-readable text of a journey answer: widget labels and placeholders, static
  /// texts, option and group labels, passkey notifications, messages, branding. (Error
  /// descriptions, in every endpoint's answers, are marked by `hostileAnswer`.)
  static func markScreen(_ body: [String: JSONValue]) -> [String: JSONValue] {
    var body = body
    if let forms = body["forms"]?.array {
      body["forms"] = .array(
        forms.map { form in
          guard var object = form.object, let widgets = object["widgets"]?.array else { return form }
          object["widgets"] = .array(widgets.map(markWidget))
          return .object(object)
        })
    }
    if let messages = body["messages"] { body["messages"] = markMessages(messages) }
    if var branding = body["branding"]?.object {
      for key in ["copyright", "brandName"] where branding[key]?.string != nil { branding[key] = mark(branding[key]) }
      body["branding"] = .object(branding)
    }
    return body
  }

  static func markWidget(_ widget: JSONValue) -> JSONValue {
    guard var w = widget.object else { return widget }
    let render = w["render"]?.object ?? [:]
    if w["label"] != nil { w["label"] = mark(w["label"], html: render["labelType"]?.string == "html") }
    if w["placeholder"] != nil { w["placeholder"] = mark(w["placeholder"]) }
    if w["type"]?.string == "static", let text = w["value"]?.string {
      w["value"] = .string(text + titleSet + marker + (render["type"]?.string == "html" ? htmlEntities : ""))
    }
    if let options = w["options"]?.array { w["options"] = .array(options.map(markOption)) }
    if var r = w["render"]?.object, let notification = r["notification"]?.object {
      r["notification"] = .object(notification.mapValues { mark($0) ?? $0 })
      w["render"] = .object(r)
    }
    return .object(w)
  }

  static func markOption(_ option: JSONValue) -> JSONValue {
    guard var o = option.object else { return option }
    if o["label"] != nil { o["label"] = mark(o["label"]) }
    if let options = o["options"]?.array { o["options"] = .array(options.map(markOption)) }
    return .object(o)
  }

  /// Messages: every `text`, global and per widget, at any depth.
  static func markMessages(_ value: JSONValue) -> JSONValue {
    guard var object = value.object else { return value }
    for (key, item) in object { object[key] = key == "text" ? (mark(item) ?? item) : markMessages(item) }
    return .object(object)
  }

  // MARK: screens: URLs, validators, numbers

  static func replaceHostedURLs(_ value: JSONValue, _ kind: HostileKind) -> JSONValue {
    switch value {
    case .object(var object):
      for (key, item) in object {
        if key == "hostedUrl", let real = item.string, let hostile = hostedURL(kind, real: real) {
          object[key] = .string(hostile)
        } else {
          object[key] = replaceHostedURLs(item, kind)
        }
      }
      return .object(object)
    case .array(let items): return .array(items.map { replaceHostedURLs($0, kind) })
    default: return value
    }
  }

  static let textEntryTypes: Set<String> = ["input", "password", "passcode", "phone", "date"]
  static let inputTypes: Set<String> = textEntryTypes.union(["checkbox", "select", "multiSelect"])

  /// The numeric rules `huge-numbers` serves on every input widget.
  static let hugeValidator: [String: JSONValue] = [
    "minLength": -1, "maxLength": .number(1e300), "length": .number(1.5), "minSelectable": .number(1e300),
    "maxSelectable": -1, "maxRepeatedCharacters": .number(1.5), "maxNumericCharacterSequences": .number(1e300),
  ]

  static func hostileWidget(_ widget: JSONValue, _ kinds: Set<HostileKind>) -> JSONValue {
    guard var w = widget.object, let type = w["type"]?.string else { return widget }
    if kinds.contains(.hugeNumbers) {
      // Every number the widget carries (validators, WebAuthn timeouts and algorithms), and
      // the numeric rules on every input widget.
      w = everyNumber(.object(w)).object ?? w
      if inputTypes.contains(type) {
        w["validator"] = .object((w["validator"]?.object ?? [:]).merging(hugeValidator) { _, new in new })
      }
    }
    if kinds.contains(.regex), textEntryTypes.contains(type) {
      var validator = w["validator"]?.object ?? [:]
      validator["regex"] = .string(regex)
      w["validator"] = .object(validator)
    }
    return .object(w)
  }

  static func everyNumber(_ value: JSONValue) -> JSONValue {
    switch value {
    case .number: return .number(1e300)
    case .array(let items): return .array(items.map(everyNumber))
    case .object(let object): return .object(object.mapValues(everyNumber))
    default: return value
    }
  }
}

extension Emulator {
  /// Turns hostile mode on with exactly `kinds` (empty turns it off). Starts the recording
  /// listener the first time, so its port is known before any answer names it.
  public func setHostile(_ kinds: Set<HostileKind>) {
    if !kinds.isEmpty { _ = hostileListenerURL() }
    state.withLock { $0.hostile = kinds }
  }

  public var hostileKinds: Set<HostileKind> { state.withLock { $0.hostile } }

  /// `http://127.0.0.1:PORT/` of the recording listener (started on first use): what discovery,
  /// authorization, JWKS and finalize URLs point at under `discovery-port`,
  /// `discovery-authorization`, `discovery-jwks` and `finalize-elsewhere`. It counts and records
  /// every request and answers plausibly.
  public func hostileListenerURL() -> String {
    hostileListener.withLock { listener -> String in
      if listener == nil {
        listener = try? LoopbackServer(host: "127.0.0.1", port: 0) { [weak self] request in
          self?.hostileListenerAnswer(request) ?? ServerReply(status: 503)
        }
      }
      // Port 9 (discard) if no listener could be started: a request there fails, never arrives.
      return "http://127.0.0.1:\(listener?.port ?? 9)/"
    }
  }

  func stopHostileListener() { hostileListener.withLock { $0?.stop() } }

  private func hostileListenerAnswer(_ request: ServerRequest) -> ServerReply {
    state.withLock { state in
      state.stats.hostileListenerRequests += 1
      state.stats.hostileListenerBodies.append(request.bodyText)
      var entry: [String: JSONValue] = [
        "method": .string(request.method), "path": .string(request.path), "query": .string(request.query),
        "body": .string(request.bodyText),
      ]
      if let authorization = request.header("Authorization") { entry["authorization"] = .string(authorization) }
      state.stats.hostileListenerLog.append(.object(entry))
    }
    // A client that wrongly talks to us "succeeds": tests assert on the counts, not on a failure.
    if request.method == "POST" {
      return json(
        200,
        [
          "access_token": "hostile-listener-access-token", "token_type": "bearer", "expires_in": 3600,
          "refresh_token": "hostile-listener-refresh-token", "scope": "openid profile offline_access",
        ])
    }
    return json(200, ["sub": "hostile-listener", "ok": true])
  }

  /// `echo`, `echo-html`: an endpoint that gets secrets (token, revocation, userinfo,
  /// introspection) answers 400 quoting the whole request back, as a gateway that quotes what it
  /// refused does: the body first, then the request line and headers, raw; in an OAuth error's
  /// `error_description` or in an HTML page. `echo-form`: the journey's form submissions that
  /// carry a password or a passcode, the same way in an OAuth error. nil for other endpoints, or when no
  /// such kind is on.
  func echoAnswer(_ endpoint: Endpoint, _ request: ServerRequest) -> ServerReply? {
    let kinds = state.withLock { $0.hostile }
    let echoed: Bool =
      switch endpoint {
      case .token, .revoke, .userinfo, .introspect: kinds.contains(.echo) || kinds.contains(.echoHTML)
      case .form: kinds.contains(.echoForm) && Self.carriesASecret(request)
      default: false
      }
    guard echoed else { return nil }
    let quoted =
      request.bodyText + "\n" + "\(request.method) \(request.target) \(request.version)\n"
      + request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    if kinds.contains(.echo) || endpoint == .form { return oauthError(400, "invalid_request", quoted) }
    if kinds.contains(.echoHTML) {
      return html(400, "<html><head><title>Bad request</title></head><body><pre>\(quoted)</pre></body></html>")
    }
    return nil
  }

  /// Whether a form submission answers a password or a passcode (a key naming one, as the
  /// journey's own endpoints read them): what `echo-form` quotes back.
  static func carriesASecret(_ request: ServerRequest) -> Bool {
    guard let object = JSONValue.parse(request.body)?.object else { return false }
    return object.keys.contains { $0.lowercased().contains("password") || $0.lowercased().contains("passcode") }
  }

  /// `text` with the `texts` marker when that kind is on (OAuth error descriptions in redirects).
  func hostileText(_ text: String) -> String {
    state.withLock { $0.hostile.contains(.texts) } ? text + Hostile.marker : text
  }

  /// The finished answer of `endpoint`, made hostile for the active kinds.
  func hostileAnswer(_ endpoint: Endpoint, _ reply: ServerReply) -> ServerReply {
    let kinds = state.withLock { $0.hostile }
    guard !kinds.isEmpty, endpoint != .hosted,  // control requests never get here (handle)
      reply.headers.contains(where: { $0.name.lowercased() == "content-type" && $0.value.hasPrefix("application/json") }
      ),
      var body = JSONValue.parse(reply.body)?.object
    else { return reply }
    switch endpoint {
    case .discovery:
      let listener = hostileListenerURL()
      func moved(_ key: String) {
        if let url = body[key]?.string, url.hasPrefix(issuer) {
          body[key] = .string(listener + url.dropFirst(issuer.count))
        }
      }
      if kinds.contains(.discoveryPort) {
        for key in ["token_endpoint", "revocation_endpoint", "userinfo_endpoint", "end_session_endpoint"] { moved(key) }
      }
      if kinds.contains(.discoveryAuthorization) { moved("authorization_endpoint") }
      if kinds.contains(.discoveryJWKS) { moved("jwks_uri") }
      if kinds.contains(.discoveryIssuer) { body["issuer"] = .string(Hostile.foreignIssuer) }
    case .initialize, .form:
      if kinds.contains(.texts) { body = Hostile.markScreen(body) }
      if let kind = HostileKind.allCases.first(where: { kinds.contains($0) && Hostile.hostedURL($0, real: "") != nil })
      {
        body = Hostile.replaceHostedURLs(.object(body), kind).object ?? body
      }
      if kinds.contains(.regex) || kinds.contains(.hugeNumbers), let forms = body["forms"]?.array {
        body["forms"] = .array(
          forms.map { form in
            guard var object = form.object, let widgets = object["widgets"]?.array else { return form }
            object["widgets"] = .array(widgets.map { Hostile.hostileWidget($0, kinds) })
            return .object(object)
          })
      }
      if kinds.contains(.finalizeElsewhere), let url = body["finalizeUrl"]?.string, url.hasPrefix(issuer) {
        body["finalizeUrl"] = .string(hostileListenerURL() + url.dropFirst(issuer.count))
      }
    case .userinfo:
      if kinds.contains(.texts) {
        for key in ["name", "email", "given_name", "family_name", "preferred_username", "nickname"]
        where body[key]?.string != nil {
          body[key] = Hostile.mark(body[key])
        }
        if body["error"] == nil && body["name"] == nil { body["name"] = .string("Hostile User" + Hostile.marker) }
      }
    default:
      break
    }
    if kinds.contains(.texts), body["error_description"]?.string != nil {
      body["error_description"] = Hostile.mark(body["error_description"])
    }
    var out = reply
    out.body = JSONValue.object(body).serialized()
    if (endpoint == .initialize && kinds.contains(.deepNesting))
      || (endpoint == .discovery && kinds.contains(.deepNestingDiscovery))
    {
      out.body = Hostile.nested(out.body)
    }
    return out
  }

  /// `GET`, `POST {"kinds": [...]}` (replaces the active kinds) and `DELETE /_emulator/hostile`.
  func hostileControl(_ request: ServerRequest, _ body: JSONValue) -> ServerReply {
    switch request.method {
    case "GET": break
    case "POST":
      let names: [String]
      switch body["kinds"] ?? body["kind"] {
      case .array(let items)?:
        guard items.allSatisfy({ $0.string != nil }) else {
          return oauthError(400, "invalid_request", "kinds must be strings")
        }
        names = items.compactMap(\.string)
      case .string(let text)?: names = [text]
      default:
        return oauthError(
          400, "invalid_request",
          "send {\"kinds\": [...]}; kinds: \(HostileKind.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      switch HostileKind.parse(names) {
      case .success(let kinds): setHostile(kinds)
      case .failure(let error): return oauthError(400, "invalid_request", error.description)
      }
    case "DELETE":
      setHostile([])
      return ServerReply(status: 204)
    default:
      return oauthError(405, "invalid_request", "use GET, POST or DELETE")
    }
    let kinds = hostileKinds
    return json(
      200,
      [
        "kinds": .array(HostileKind.allCases.filter(kinds.contains).map { .string($0.rawValue) }),
        "listener": kinds.isEmpty ? .null : .string(hostileListenerURL()),
      ])
  }
}

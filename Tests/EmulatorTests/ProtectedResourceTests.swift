// The APIs as protected resources (issue 27.6): tokens checked as a resource server does, RFC
// 6750 / RFC 9470 challenges, RFC 9728 metadata, hostile challenges, the resource URL as a
// resource indicator, and the stats that count it all. Through real HTTP on loopback.
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import Testing

@testable import Emulator

extension Driver {
  /// A request to an API's protected resource, with `token` as Bearer when given.
  func resource(_ api: String, _ path: String = "", method: String = "GET", token: String?) throws -> HTTPResponse {
    try http.send(
      HTTPRequest(
        method: method, url: issuer + "resources/\(api)/" + path,
        headers: token.map { [HTTPHeader("Authorization", "Bearer \($0)")] } ?? [],
        body: method == "POST" || method == "PUT" ? Array("{}".utf8) : nil))
  }
}

@Suite struct ProtectedResourceTests {
  static let scope = "openid offline_access orders:read orders:write billing:read billing:pay"

  func metadataURL(_ emulator: Emulator, _ api: String) -> String {
    emulator.issuer + ".well-known/oauth-protected-resource/resources/\(api)/"
  }

  /// How every challenge of `api` begins.
  func head(_ emulator: Emulator, _ api: String) -> String {
    "Bearer realm=\"\(api)\", resource_metadata=\"\(metadataURL(emulator, api))\""
  }

  /// Signs in naming both APIs by their resource URLs here, then asks the refresh grant for a
  /// token for `api` (by its resource URL) with `scope`.
  func token(
    _ emulator: Emulator, _ api: String, scope: String, acrValues: String? = nil
  ) throws -> (Driver, String) {
    var extra = [
      ("resource", emulator.issuer + "resources/orders/"), ("resource", emulator.issuer + "resources/billing/"),
    ]
    if let acrValues { extra.append(("acr_values", acrValues)) }
    let (driver, tokens) = try signedIn(emulator, scope: Self.scope, extra: extra)
    let answer = try driver.refresh(
      tokens["refresh_token"]!.string!, [("resource", emulator.issuer + "resources/\(api)/"), ("scope", scope)])
    #expect(answer.status == 200, "\(answer.bodyText)")
    return (driver, try #require(try driver.parse(answer)["access_token"]?.string))
  }

  /// A token signed with the emulator's own key: claims of an orders token, changed by `change`.
  func crafted(_ emulator: Emulator, _ change: (inout [String: JSONValue]) -> Void) throws -> String {
    let now = Int64(Date().timeIntervalSince1970)
    var claims: [String: JSONValue] = [
      "iss": .string(emulator.issuer), "sub": "s", "aud": [.string(ordersAudience)], "scope": "orders:read",
      "iat": .number(Double(now)), "exp": .number(Double(now + 600)), "acr": "pwd",
      "auth_time": .number(Double(now)),
    ]
    change(&claims)
    return try JWT.sign(claims: claims, with: emulator.signingKey, keyID: emulator.keyID)
  }

  // MARK: challenges and success

  @Test func withoutATokenTheChallengeIsBare() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let driver = Driver(emulator)
    for (method, path) in [("GET", ""), ("POST", "items"), ("DELETE", "items/1")] {
      let answer = try driver.resource("orders", path, method: method, token: nil)
      #expect(answer.status == 401)
      #expect(answer.header("WWW-Authenticate") == head(emulator, "orders"))
      #expect(try driver.parse(answer)["error"] == "no_token")
    }
    // Another scheme is no Bearer token either.
    let basic = try driver.http.send(
      HTTPRequest(url: emulator.issuer + "resources/billing/", headers: [HTTPHeader("Authorization", "Basic eDp5")]))
    #expect(basic.status == 401)
    #expect(basic.header("WWW-Authenticate") == head(emulator, "billing"))
    // Not an API: no challenge.
    for path in ["resources/nope/", "resources/", "resources/ordersx/"] {
      let unknown = try driver.get(emulator.issuer + path)
      #expect(unknown.status == 404, "\(path)")
      #expect(unknown.header("WWW-Authenticate") == nil)
    }
  }

  @Test func aTokenWithTheScopeIsServed() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, token) = try token(emulator, "orders", scope: "orders:read")
    // The resource URL named in the request is in `aud`, besides the API's own.
    let jwt = try JWT(compact: token)
    #expect(
      jwt.claims["aud"]
        == [.string(ordersAudience), .string(ordersResource), .string(emulator.issuer + "resources/orders/")])
    let answer = try driver.resource("orders", "items/7?full=1", token: token)
    #expect(answer.status == 200, "\(answer.bodyText)")
    #expect(answer.header("WWW-Authenticate") == nil)
    #expect(
      try driver.parse(answer)
        == [
          "api": "orders", "sub": jwt.claims["sub"]!, "scope": "orders:read", "acr": "pwd", "method": "GET",
          "path": "/resources/orders/items/7",
        ])
    let head = try driver.resource("orders", method: "HEAD", token: token)
    #expect(head.status == 200)
    #expect(head.body.isEmpty)
    // Tokens naming the API by its audience alone serve too.
    let byAudience = try crafted(emulator) { _ in }
    #expect(try driver.resource("orders", token: byAudience).status == 200)
  }

  @Test func writingNeedsEveryScope() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, reader) = try token(emulator, "orders", scope: "orders:read")
    for method in ["POST", "DELETE", "PUT"] {
      let answer = try driver.resource("orders", "items", method: method, token: reader)
      #expect(answer.status == 403)
      #expect(
        answer.header("WWW-Authenticate")
          == head(emulator, "orders")
          + ", error=\"insufficient_scope\", error_description=\"\(method) needs scope orders:read orders:write\", "
          + "scope=\"orders:read orders:write\"")
      #expect(try driver.parse(answer)["error"] == "insufficient_scope")
    }
    let (_, writer) = try token(emulator, "orders", scope: "orders:read orders:write")
    #expect(try driver.resource("orders", "items", method: "POST", token: writer).status == 200)
    // Reading needs the API's first scope: a token with only the second cannot read.
    let (_, writeOnly) = try token(emulator, "orders", scope: "orders:write")
    let read = try driver.resource("orders", token: writeOnly)
    #expect(read.status == 403)
    #expect(read.header("WWW-Authenticate")?.hasSuffix(", scope=\"orders:read\"") == true)
  }

  @Test func badTokensAreInvalid() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, billing) = try token(emulator, "billing", scope: "billing:read")
    let real = try crafted(emulator) { _ in }
    let parts = real.split(separator: ".")
    let claims = try JWT(compact: real).claims
    let now = Double(Int64(Date().timeIntervalSince1970))
    let cases: [(String, String, String)] = [
      ("not a jwt", "not-a-jwt", "malformed token"),
      ("opaque", "sat_abc", "malformed token"),
      ("alg none", Base64URL.encode(#"{"alg":"none"}"#.utf8) + "." + parts[1] + ".", "only RS256 is accepted"),
      ("forged", try #require(Hostile.forgedIDToken(claims, keyID: emulator.keyID)), "does not verify"),
      ("other issuer", try crafted(emulator) { $0["iss"] = "https://evil.example/" }, "not issued by this tenant"),
      ("expired", try crafted(emulator) { $0["exp"] = .number(now - 1) }, "the token expired"),
      ("no exp", try crafted(emulator) { $0["exp"] = nil }, "the token has no exp"),
      ("another API", billing, "not for API orders"),
      ("no aud", try crafted(emulator) { $0["aud"] = nil }, "not for API orders"),
      ("aud string", try crafted(emulator) { $0["aud"] = "https://api.example.com/billing" }, "not for API orders"),
    ]
    for (name, token, description) in cases {
      let answer = try driver.resource("orders", token: token)
      #expect(answer.status == 401, "\(name)")
      let header = answer.header("WWW-Authenticate") ?? ""
      #expect(header.hasPrefix(head(emulator, "orders") + ", error=\"invalid_token\", error_description=\""), "\(name)")
      #expect(header.contains(description), "\(name): \(header)")
      #expect(try driver.parse(answer)["error"] == "invalid_token")
    }
    // An audience given as one string is read as a one-element list.
    let single = try crafted(emulator) { $0["aud"] = .string(ordersResource) }
    #expect(try driver.resource("orders", token: single).status == 200)
  }

  @Test func acrIsAStepUp() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, pwd) = try token(emulator, "billing", scope: "billing:read")
    let refused = try driver.resource("billing", token: pwd)
    #expect(refused.status == 401)
    #expect(
      refused.header("WWW-Authenticate")
        == head(emulator, "billing")
        + ", error=\"insufficient_user_authentication\", error_description=\"API billing needs a sign-in with acr mfa\""
        + ", acr_values=\"mfa\"")
    #expect(try driver.parse(refused)["error"] == "insufficient_user_authentication")
    // The step-up sign-in: the password journey adds the passcode screen; its tokens say mfa.
    let (_, mfa) = try token(emulator, "billing", scope: "billing:read", acrValues: "mfa")
    #expect(try JWT(compact: mfa).claims["acr"] == "mfa")
    let served = try driver.resource("billing", token: mfa)
    #expect(served.status == 200, "\(served.bodyText)")
    #expect(try driver.parse(served)["acr"] == "mfa")
    // Scope is checked before acr.
    let scope = try driver.resource("billing", method: "POST", token: pwd)
    #expect(scope.status == 403)
  }

  @Test func maxAgeIsAStepUp() throws {
    let path = try #require(Journey.builtInPath("password"))
    let text = try String(contentsOfFile: path, encoding: .utf8)
      .replacingOccurrences(of: "\"name\": \"orders\",", with: "\"name\": \"orders\", \"max_age\": 60,")
    let journey = try Journey.load(data: Array(text.utf8), file: "password+max_age")
    #expect(journey.api(named: "orders")?.maxAge == 60)
    let emulator = try Emulator(journey: journey)
    defer { emulator.stop() }
    let driver = Driver(emulator)
    let now = Double(Int64(Date().timeIntervalSince1970))
    let fresh = try crafted(emulator) { $0["auth_time"] = .number(now - 10) }
    #expect(try driver.resource("orders", token: fresh).status == 200)
    let old = try crafted(emulator) { $0["auth_time"] = .number(now - 61) }
    let refused = try driver.resource("orders", token: old)
    #expect(refused.status == 401)
    #expect(
      refused.header("WWW-Authenticate")
        == head(emulator, "orders") + ", error=\"insufficient_user_authentication\", "
        + "error_description=\"API orders needs a sign-in at most 60 seconds old\", max_age=\"60\"")
    let none = try crafted(emulator) { $0["auth_time"] = nil }
    #expect(try driver.resource("orders", token: none).status == 401)
    // Bad values are refused when the file loads.
    for bad in ["-1", "1.5", "\"60\""] {
      let wrong = text.replacingOccurrences(of: "\"max_age\": 60", with: "\"max_age\": \(bad)")
      #expect(throws: JourneyFileError.self) { try Journey.load(data: Array(wrong.utf8), file: "x") }
    }
  }

  // MARK: metadata

  @Test func metadataNamesTheTenant() throws {
    let emulator = try Emulator(journey: try loadJourney("mfa"))
    defer { emulator.stop() }
    let driver = Driver(emulator)
    let discovery = try driver.parse(try driver.get(emulator.issuer + ".well-known/openid-configuration"))
    for url in [metadataURL(emulator, "billing"), String(metadataURL(emulator, "billing").dropLast())] {
      let answer = try driver.get(url)
      #expect(answer.status == 200)
      #expect(answer.header("Content-Type") == "application/json")
      #expect(
        try driver.parse(answer)
          == [
            "resource": .string(emulator.issuer + "resources/billing/"),
            "authorization_servers": [discovery["issuer"]!], "scopes_supported": ["billing:read", "billing:pay"],
            "bearer_methods_supported": ["header"], "resource_name": "billing",
          ])
    }
    for path in ["nope/", "orders/x", ""] {
      let url = emulator.issuer + ".well-known/oauth-protected-resource/resources/" + path
      #expect(try driver.get(url).status == 404, "\(path)")
    }
    #expect(try driver.get(emulator.issuer + ".well-known/oauth-protected-resource").status == 404)
    let post = try driver.post(metadataURL(emulator, "orders"), form: [("x", "y")])
    #expect(post.status == 405)
  }

  // MARK: the resource URL as a resource indicator

  @Test func theResourceURLNamesTheAPI() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let orders = emulator.issuer + "resources/orders/"
    let (driver, tokens) = try signedIn(emulator, scope: Self.scope, extra: [("resource", orders)])
    let refresh = tokens["refresh_token"]!.string!
    // Named at sign-in by its resource URL: the audience names it too in the refresh grant.
    let byAudience = try driver.refresh(refresh, [("audience", ordersAudience)])
    #expect(byAudience.status == 200, "\(byAudience.bodyText)")
    let body = try driver.parse(byAudience)
    #expect(
      try JWT(compact: body["access_token"]!.string!).claims["aud"] == [
        .string(ordersAudience), .string(ordersResource),
      ])
    // Billing was not named at sign-in.
    let billing = try driver.refresh(
      body["refresh_token"]!.string!, [("resource", emulator.issuer + "resources/billing/")])
    #expect(billing.status == 400)
    #expect(try driver.parse(billing)["error"] == "invalid_target")
    // Another path under /resources/ names no API.
    let unknown = try driver.get(driver.authorizationURL(extra: [("resource", emulator.issuer + "resources/nope/")]))
    #expect(driver.query(unknown.bodyText)["error"] == "invalid_target")
  }

  // MARK: stats

  @Test func statsCountRequestsAndRefusals() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, reader) = try token(emulator, "orders", scope: "orders:read")
    #expect(try driver.resource("orders", token: reader).status == 200)
    #expect(try driver.resource("orders", token: nil).status == 401)
    #expect(try driver.resource("orders", token: "x").status == 401)
    #expect(try driver.resource("orders", method: "DELETE", token: reader).status == 403)
    let billing = try crafted(emulator) {
      $0["aud"] = [.string(billingAudience)]
      $0["scope"] = "billing:read"
    }
    #expect(try driver.resource("billing", token: billing).status == 401)
    #expect(try driver.resource("nope", token: reader).status == 404)
    let stats = try driver.stats()
    #expect(stats["resource_requests"] == ["orders": 4, "billing": 1])
    #expect(
      stats["resource_refusals"]
        == ["no_token": 1, "invalid_token": 1, "insufficient_scope": 1, "insufficient_user_authentication": 1])
    #expect(stats["requests"]?["resource"] == 6)
  }

  // MARK: hostile mode

  @Test func hostileChallenges() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let (driver, token) = try token(emulator, "orders", scope: "orders:read orders:write")
    let head = head(emulator, "orders")
    func challenge(_ kind: HostileKind, method: String = "GET") throws -> (Int, String) {
      emulator.setHostile([kind])
      defer { emulator.setHostile([]) }
      let answer = try driver.resource("orders", method: method, token: token)
      // The server lives on: the next request is answered.
      #expect(try driver.get(emulator.issuer + ".well-known/openid-configuration").status == 200)
      return (answer.status, answer.header("WWW-Authenticate") ?? "")
    }

    let (hugeStatus, huge) = try challenge(.challengeHuge)
    #expect(hugeStatus == 401)
    #expect(huge.utf8.count == Hostile.challengeHugeLength)
    #expect(huge.hasPrefix(head + ", error=\"invalid_token\", error_description=\"AAAA"))

    let (openStatus, open) = try challenge(.challengeUnterminated)
    #expect(openStatus == 401)
    #expect(open == head + ", error=\"invalid_token\", error_description=\"this quoted string never ends")
    #expect(open.filter { $0 == "\"" }.count % 2 == 1)

    let (manyStatus, many) = try challenge(.challengeMany, method: "POST")
    #expect(manyStatus == 401)
    let parameters = many.dropFirst("Bearer ".count).components(separatedBy: ", ")
    #expect(parameters.count == Hostile.challengeParameterCount)
    #expect(parameters.last == "error=\"invalid_token\"")
    #expect(many.hasPrefix(head + ", p3=\"3\", p4=\"4\""))

    let (controlStatus, control) = try challenge(.challengeControl)
    #expect(controlStatus == 403)
    #expect(
      control
        == head + ", error=\"insufficient_scope\", error_description=\"\(Hostile.challengeControlText)\", "
        + "scope=\"orders:read\(Hostile.challengeControlScope)\"")
    #expect(control.unicodeScalars.contains("\u{1B}") && control.unicodeScalars.contains("\u{85}"))
    #expect(!control.unicodeScalars.contains("\r") && !control.unicodeScalars.contains("\n"))

    let (foreignStatus, foreign) = try challenge(.challengeScopeForeign)
    #expect(foreignStatus == 403)
    #expect(foreign.hasPrefix(head + ", error=\"insufficient_scope\""))
    #expect(foreign.hasSuffix(", scope=\"admin:all\""))

    // Without a challenge kind the same token is served again.
    #expect(try driver.resource("orders", token: token).status == 200)
    let stats = try driver.stats()
    #expect(stats["resource_refusals"] == ["invalid_token": 3, "insufficient_scope": 2])

    // The metadata names only another authorization server.
    emulator.setHostile([.metadataForeignIssuer])
    let metadata = try driver.parse(try driver.get(metadataURL(emulator, "orders")))
    #expect(metadata["authorization_servers"] == ["https://evil.example.com"])
    #expect(metadata["resource"]?.string == emulator.issuer + "resources/orders/")
    #expect(try driver.resource("orders", token: token).status == 200, "the resource itself is unchanged")
  }

  /// The control endpoint turns the kinds on by name, as the client's tests do.
  @Test func hostileChallengeKindsByName() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    let driver = Driver(emulator)
    let kinds: JSONValue = ["kinds": ["challenge-scope-foreign"]]
    let on = try driver.http.send(
      HTTPRequest(method: "POST", url: emulator.issuer + "_emulator/hostile", body: kinds.serialized()))
    #expect(on.status == 200)
    let answer = try driver.resource("billing", token: nil)
    #expect(answer.status == 403)
    #expect(answer.header("WWW-Authenticate")?.hasSuffix("scope=\"admin:all\"") == true)
  }
}

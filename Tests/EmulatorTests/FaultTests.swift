// Fault injection through the control endpoint: every kind, on the endpoints clients call.
import CurlTransport
import Foundation
import StrivacityCore
import Testing

@testable import Emulator

@Suite struct FaultTests {
  func inject(_ emulator: Emulator, _ fault: JSONValue) throws {
    let response = try CurlHTTPClient().send(
      HTTPRequest(method: "POST", url: emulator.issuer + "_emulator/faults", body: fault.serialized()))
    #expect(response.status == 201, "\(response.bodyText)")
  }

  func discovery(_ emulator: Emulator, timeout: Double? = nil) throws(TransportError) -> HTTPResponse {
    try CurlHTTPClient().send(HTTPRequest(url: emulator.issuer + ".well-known/openid-configuration", timeout: timeout))
  }

  @Test func everyFaultKind() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }

    try inject(emulator, ["endpoint": "discovery", "kind": "status", "status": 503, "count": 2])
    #expect(try discovery(emulator).status == 503)
    #expect(try discovery(emulator).status == 503)
    #expect(try discovery(emulator).status == 200, "count is honoured")

    try inject(emulator, ["endpoint": "discovery", "kind": "empty", "status": 502])
    let empty = try discovery(emulator)
    #expect(empty.status == 502)
    #expect(empty.body.isEmpty)

    try inject(emulator, ["endpoint": "discovery", "kind": "malformed-json"])
    #expect(JSONValue.parse(try discovery(emulator).body) == nil)

    try inject(emulator, ["endpoint": "discovery", "kind": "truncated-json"])
    let truncated = try discovery(emulator)
    #expect(truncated.status == 200)
    #expect(JSONValue.parse(truncated.body) == nil)

    try inject(emulator, ["endpoint": "discovery", "kind": "truncated-transfer"])
    #expect(throws: TransportError.self) { try discovery(emulator) }

    try inject(emulator, ["endpoint": "discovery", "kind": "drop"])
    #expect(throws: TransportError.self) { try discovery(emulator) }

    try inject(emulator, ["endpoint": "discovery", "kind": "wrong-content-type"])
    #expect(try discovery(emulator).header("Content-Type") == "text/html; charset=utf-8")

    try inject(emulator, ["endpoint": "discovery", "kind": "huge"])
    let origin = String(emulator.issuer.dropLast())  // http://127.0.0.1:PORT
    #expect(throws: TransportError.tooLarge(host: origin, limit: 10 * 1_048_576)) { try discovery(emulator) }

    try inject(emulator, ["endpoint": "discovery", "kind": "wrong-types"])
    #expect(try JSONValue.parse(discovery(emulator).body)?["issuer"]?.number == 42)

    try inject(emulator, ["endpoint": "discovery", "kind": "unknown-fields"])
    let extra = try JSONValue.parse(discovery(emulator).body)
    #expect(extra?["x_unknown_field"] != nil)
    #expect(extra?["issuer"]?.string == emulator.issuer)

    try inject(emulator, ["endpoint": "discovery", "kind": "delay", "delay": 2])
    #expect(throws: TransportError.timeout(host: origin, seconds: 0.3)) { try discovery(emulator, timeout: 0.3) }

    #expect(try discovery(emulator).status == 200, "all faults consumed")
  }

  @Test func faultsTargetOneEndpointAndCanBeCleared() throws {
    let emulator = try Emulator(journey: try loadJourney("password"))
    defer { emulator.stop() }
    try inject(emulator, ["endpoint": "token", "status": 500, "count": 5])
    #expect(try discovery(emulator).status == 200)
    let driver = Driver(emulator)
    let token = try driver.post(emulator.issuer + "oauth2/token", form: [("grant_type", "refresh_token")])
    #expect(token.status == 500)
    #expect(
      try driver.http.send(HTTPRequest(method: "DELETE", url: emulator.issuer + "_emulator/faults")).status == 204)
    #expect(try driver.post(emulator.issuer + "oauth2/token", form: [("grant_type", "refresh_token")]).status == 400)
    let bad = try driver.http.send(
      HTTPRequest(
        method: "POST", url: emulator.issuer + "_emulator/faults", body: Array(#"{"endpoint":"nowhere"}"#.utf8)))
    #expect(bad.status == 400)
  }

  @Test func journeyFormsCanFail() throws {
    let (emulator, driver) = try startedDriver("password")
    defer { emulator.stop() }
    try inject(
      emulator,
      ["endpoint": "form", "kind": "status", "status": 401, "body": ["hostedUrl": "http://127.0.0.1:1/hosted"]])
    let (status, body) = try driver.submit("identifier", ["identifier": "demo@example.com"])
    #expect(status == 401)
    #expect(body["hostedUrl"]?.string == "http://127.0.0.1:1/hosted")
    try driver.expectScreen("identifier", ["identifier": "demo@example.com"], "password")
  }
}

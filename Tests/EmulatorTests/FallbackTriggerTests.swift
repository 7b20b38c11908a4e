// The hosted-fallback triggers of protocol §4.4/§4.5 as a journey file can declare them, and
// per-screen faults.
import CurlTransport
import Foundation
import OAuthCore
import StrivacityCore
import Testing
import _CryptoExtras

@testable import Emulator

@Suite struct FallbackTriggerTests {
  static let journey = """
    {"name": "triggers", "start": "a",
     "clients": [{"client_id": "strivacity-cli", "redirect_uris": ["http://127.0.0.1/callback"]}],
     "users": [{"identifier": "u@example.com", "password": "p"}],
     "screens": {
       "a": {"forms": [
          {"type": "form", "id": "go-hosted", "widgets": [{"type": "submit", "id": "s", "label": "Hosted"}]},
          {"type": "form", "id": "fail-401", "widgets": [{"type": "submit", "id": "s", "label": "401"}]},
          {"type": "form", "id": "mystery", "widgets": [{"type": "hologram", "id": "h"}]},
          {"type": "form", "id": "next", "widgets": [{"type": "submit", "id": "s", "label": "Next"}]}],
        "allow_unknown": true,
        "transitions": [
          {"form": "go-hosted", "next": "hosted"},
          {"form": "fail-401", "respond": {"status": 401, "body": {"hostedUrl": "{{hostedUrl}}"}}},
          {"form": "next", "next": "b"}]},
       "b": {"forms": [{"type": "form", "id": "f", "widgets": [{"type": "submit", "id": "s", "label": "Go"}]}],
        "fault": {"kind": "status", "status": 503, "count": 1},
        "transitions": [{"form": "f", "next": "a"}]}}}
    """

  @Test func serverDrivenFallbacks() throws {
    let emulator = try Emulator(journey: try Journey.load(data: Array(Self.journey.utf8), file: "t"))
    defer { emulator.stop() }
    let driver = Driver(emulator)
    let first = try driver.start()
    #expect(first["forms"]?[2]?["widgets"]?[0]?["type"]?.string == "hologram", "unknown widgets are sent as written")
    let hosted = try driver.submit("go-hosted", [:])
    #expect(hosted.status == 200)
    #expect(hosted.body.object?.keys.sorted() == ["hostedUrl"])
    let unauthorized = try driver.submit("fail-401", [:])
    #expect(unauthorized.status == 401)
    #expect(unauthorized.body["hostedUrl"]?.string?.contains("challenge=\(driver.sessionID)") == true)
    #expect(unauthorized.body["messages"] == nil)
    // Screen b fails its first submission with 503, then works.
    try driver.expectScreen("next", [:], "b")
    #expect(try driver.submit("f", [:]).status == 503)
    try driver.expectScreen("f", [:], "a")
  }

  @Test func screenFaultsAreChecked() {
    let bad = Self.journey.replacingOccurrences(
      of: "{\"kind\": \"status\", \"status\": 503, \"count\": 1}", with: "{\"kind\": \"meltdown\"}")
    do {
      _ = try Journey.load(data: Array(bad.utf8), file: "t")
      Issue.record("accepted")
    } catch {
      #expect(error.issues.map(\.path) == ["$.screens.b.fault.kind"])
    }
  }

  @Test func aGivenSigningKeyIsUsed() throws {
    let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let emulator = try Emulator(journey: try loadJourney("password"), keyPEM: key.pemRepresentation)
    defer { emulator.stop() }
    let jwks = try JWKS(
      json: JSONValue.parse(
        try CurlHTTPClient().send(HTTPRequest(url: emulator.issuer + ".well-known/jwks.json")).body)!)
    #expect(jwks.keys.count == 1)
    #expect(jwks.keys[0].kid == JWKS.keyID(for: key.publicKey))
    #expect(try jwks.keys[0].publicKey.getKeyPrimitives().modulus == key.publicKey.getKeyPrimitives().modulus)
  }
}

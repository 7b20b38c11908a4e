// `strivacity curl` and redirects, and what an API's challenge may make it do (issue 37, points
// 3, 4, 5 and 7): -L is refused where a redirect within the origin could carry the token out of
// the part of it that was checked; a challenge is answered only from where the token went; an
// API's metadata is read only from its own origin's well-known place, and a failed read says
// nothing of what it found; a 401 naming only the metadata is explained.
import Foundation
import LoopbackHTTP
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

@Suite struct CurlRedirectTests {
  typealias ScriptedAPI = CurlChallengeTests.ScriptedAPI

  static func redirect(to location: String) -> @Sendable (String) -> ServerReply {
    { _ in ServerReply(status: 302, contentType: "text/plain", text: "moved\n", headers: [("Location", location)]) }
  }

  static let ok: @Sendable (String) -> ServerReply = { target in
    ServerReply(status: 200, contentType: "text/plain", text: "ok \(target)\n")
  }

  /// The orders API of the emulator's journey, its `url` as given.
  func ordersAPI(_ h: Harness, url: String, more: String = "") throws {
    try h.writeProfile(
      """
      \(more)
      [profiles.\(h.profile).apis.orders]
      url = "\(url)"
      audience = "https://api.example.com/orders"
      resource = ["https://api.example.com/orders/"]
      scopes = ["orders:read"]
      """)
  }

  // MARK: point 3: -L

  /// A hosts prefix: /org/ → 302 /other/ would deliver the token outside it. -L (in every
  /// spelling) is refused before anything is sent; without -L the redirect is not followed.
  @Test func aRedirectCannotLeaveAHostsPrefix() throws {
    let api = try ScriptedAPI([Self.redirect(to: "/other/"), Self.ok])
    let h = try Harness(journey: "password")
    try h.writeProfile("hosts = [\"\(api.base)/org/\"]")
    try h.signIn()
    for flag in ["-L", "--location", "-sL", "-SsL"] {
      let result = try h.strivacity(["curl", "--profile", h.profile, flag, "\(api.base)/org/x"])
      #expect(result.status == 2, "\(flag): \(result.stderr)")
      #expect(
        result.stderr.hasPrefix("strivacity: error: refusing -L for \(api.base): curl keeps the token on a redirect")
          && result.stderr.contains("\(api.base)/org"), "\(flag): \(result.stderr)")
    }
    let trusted = try h.strivacity(["curl", "--profile", h.profile, "--location-trusted", "\(api.base)/org/x"])
    #expect(trusted.status == 2 && trusted.stderr.contains("--location-trusted"), "\(trusted.stderr)")
    #expect(api.tokens.isEmpty, "a request was sent: \(api.tokens)")
    let plain = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/org/x"])
    #expect(plain.status == 0 && plain.stdout == "moved\n", "\(plain.stderr)")
    #expect(api.tokens.count == 1)
  }

  /// Two APIs on one host: API A's token would follow a redirect to API B's path.
  @Test func aRedirectCannotCarryOneAPIsTokenToAnother() throws {
    let api = try ScriptedAPI([Self.redirect(to: "/billing/1"), Self.ok])
    let h = try Harness(journey: "password")
    try ordersAPI(
      h, url: "\(api.base)/orders/",
      more: "\n[profiles.\(h.profile).apis.billing]\nurl = \"\(api.base)/billing/\"\nscopes = [\"billing:read\"]\n")
    try h.signIn()
    let result = try h.strivacity(["curl", "--profile", h.profile, "-sSL", "\(api.base)/orders/1"])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(
      result.stderr.contains("places of another token are on it too (API billing \(api.base)/billing)"),
      "\(result.stderr)")
    #expect(api.tokens.isEmpty)
  }

  /// An origin allowed whole (a prefix of it beside changes nothing): -L follows as curl does,
  /// the token on every hop of the origin.
  @Test func aWholeOriginIsFollowed() throws {
    let api = try ScriptedAPI([Self.redirect(to: "/b"), Self.ok])
    let h = try Harness(journey: "password")
    let port = try #require(api.base.split(separator: ":").last)
    try h.writeProfile("hosts = [\"\(api.base)/org/\", \"127.0.0.1:\(port)\"]")
    try h.signIn()
    let result = try h.strivacity(["curl", "--profile", h.profile, "-sSL", "\(api.base)/a"])
    #expect(result.status == 0 && result.stdout == "ok /b\n", "\(result.stderr)")
    #expect(api.tokens.count == 2 && api.tokens.allSatisfy { $0.hasPrefix("Bearer ") }, "\(api.tokens)")
  }

  // MARK: point 4: whose challenge

  /// A redirect off the API's origin reaches a server that never saw the token: its
  /// insufficient_scope is not answered, no token is minted, and the API's kept token keeps the
  /// config's scopes.
  @Test func aRedirectTargetsChallengeIsNotAnswered() throws {
    let foreign = try ScriptedAPI([
      CurlChallengeTests.challenge(403, #"Bearer error="insufficient_scope", scope="orders:write""#)
    ])
    let api = try ScriptedAPI([Self.redirect(to: "\(foreign.base)/x")])
    let h = try Harness(journey: "password")
    try ordersAPI(h, url: api.base)
    try h.signIn()
    let result = try h.strivacity(["curl", "--profile", h.profile, "-sSL", "\(api.base)/orders/1"])
    #expect(result.status == 0 && result.stdout == "denied\n", "\(result.stderr)")
    #expect(
      result.stderr.contains("the challenge came from where a redirect led, off \(api.base)")
        && result.stderr.contains("not answered"), "\(result.stderr)")
    #expect(foreign.tokens == ["-"], "the foreign origin was sent a token: \(foreign.tokens)")
    #expect(try h.stats()["api_token_requests"]?["orders"]?.int == 1)
    let kept = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"]).stdout
    #expect(MachineProfileTests.claims(kept)["scope"] == "orders:read", "\(kept.prefix(20))")
  }

  // MARK: point 5: where metadata is read from

  /// A challenge naming metadata on another origin (a host, or a loopback port to probe) is not
  /// read: nothing reaches it, and the line says nothing of what is there.
  @Test func metadataIsReadOnlyFromTheAPIsOwnOrigin() throws {
    let elsewhere = try ScriptedAPI([Self.ok])
    let target = Mutex("")
    let api = try ScriptedAPI([
      { path in
        if path.hasPrefix("/.well-known/") { return ServerReply(status: 404, contentType: "text/plain", text: "no\n") }
        return ServerReply(
          status: 403, contentType: "text/plain", text: "denied\n",
          headers: [
            (
              "WWW-Authenticate",
              #"Bearer error="insufficient_scope", scope="orders:write", "#
                + #"resource_metadata="\#(target.withLock { $0 })""#
            )
          ])
      }
    ])
    let h = try Harness(journey: "password")
    try ordersAPI(h, url: "\(api.base)/orders/")
    try h.signIn()
    for (metadata, says) in [
      ("\(elsewhere.base)/.well-known/oauth-protected-resource/orders/", "named its metadata elsewhere"),
      ("http://127.0.0.1:1/.well-known/oauth-protected-resource/orders/", "named its metadata elsewhere"),
      ("\(api.base)/orders/meta", "named its metadata elsewhere"),
      ("\(api.base)/.well-known/oauth-protected-resource/orders/", "its metadata could not be read; not answered"),
    ] {
      target.withLock { $0 = metadata }
      let result = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
      #expect(result.status == 0 && result.stdout == "denied\n", "\(result.stderr)")
      #expect(result.stderr.contains(says), "\(metadata): \(result.stderr)")
      // (Not "404" alone: the port of a URL it names may hold those digits.)
      for detail in ["refused", "HTTP", "connect", "Connection", "127.0.0.1:1/"] {
        #expect(!result.stderr.contains(detail), "\(metadata): \(result.stderr)")
      }
    }
    #expect(elsewhere.tokens.isEmpty, "the other origin was asked")
  }

  // MARK: point 7: a 401 naming only the metadata

  @Test func aRefusalNamingOnlyTheMetadataIsExplained() throws {
    let issuer = Mutex("")
    let servers = Mutex("")
    let base = Mutex("")
    let api = try ScriptedAPI([
      { path in
        if path.hasPrefix("/.well-known/") {
          let resource = base.withLock { $0 } + "/orders/"
          let body =
            #"{"resource":"\#(resource)","authorization_servers":[\#(servers.withLock { $0 })],"#
            + #""scopes_supported":["orders:read","orders:write"]}"#
          return ServerReply(status: 200, contentType: "application/json", text: body)
        }
        let metadata = base.withLock { $0 } + "/.well-known/oauth-protected-resource/orders/"
        return ServerReply(
          status: 401, contentType: "text/plain", text: "who?\n",
          headers: [("WWW-Authenticate", #"Bearer resource_metadata="\#(metadata)""#)])
      }
    ])
    base.withLock { $0 = api.base }
    let h = try Harness(journey: "password")
    issuer.withLock { $0 = h.emulator.issuer }
    // No API entry for it: the profile's own token went (hosts), and setup-api is the way.
    try h.writeProfile("hosts = [\"\(api.base)/orders/\"]")
    try h.signIn()
    servers.withLock { $0 = "\"\(issuer.withLock { $0 })\"" }
    let own = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(own.stdout == "who?\n" && own.status == 2, "\(own.stderr)")
    #expect(
      own.stderr.contains(
        "the API at \(api.base) refused the profile's token (HTTP 401); its metadata names resource "
          + "\(api.base)/orders/ with scopes orders:read orders:write: run strivacity setup api --profile "
          + "\(h.profile) \(api.base)/orders/"),
      "\(own.stderr)")
    // Another authorization server: named.
    servers.withLock { $0 = #""https://evil.example.com""# }
    let other = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(
      other.stderr.contains(
        "refused the token (HTTP 401): the API's resource metadata names authorization server "
          + "https://evil.example.com, not this profile's issuer"), "\(other.stderr)")
    // An API entry: checked against what the metadata says.
    servers.withLock { $0 = "\"\(issuer.withLock { $0 })\"" }
    try ordersAPI(h, url: "\(api.base)/orders/")
    try h.signIn()
    let configured = try h.strivacity(["curl", "--profile", h.profile, "-sS", "\(api.base)/orders/1"])
    #expect(
      configured.stderr.contains("API orders refused its token (HTTP 401); its metadata names resource ")
        && configured.stderr.contains("check [profiles.\(h.profile).apis.orders] against it"),
      "\(configured.stderr)")
  }
}

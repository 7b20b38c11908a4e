// `strivacity setup-api` against an API on loopback whose protected-resource metadata the test
// scripts: RFC 9728 §3.3 wants its resource identical to the URL the metadata URL was made from,
// so metadata naming a wider resource (a prefix of the URL) is refused and nothing is written.
// The emulator's own metadata, used end to end, is in CurlChallengeTests.
import Foundation
import LoopbackHTTP
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

@Suite struct SetupAPITests {
  /// `setup-api BASE/orders/` while the metadata says `BASE/` (once written as the url): exit 5,
  /// one line naming both, the config untouched (with --dry-run too, nothing printed); once the
  /// metadata names the URL itself, the entry is written and the line says its url.
  @Test func metadataForAWiderResourceIsRefused() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    let issuer = h.emulator.issuer
    let resource = Mutex("")
    let targets = Mutex<[String]>([])
    let api = try LoopbackServer { request in
      targets.withLock { $0.append(request.target) }
      let body = JSONValue.object([
        "resource": .string(resource.withLock { $0 }), "authorization_servers": [.string(issuer)],
        "scopes_supported": ["orders:read"],
      ])
      return ServerReply(status: 200, contentType: "application/json", text: body.text)
    }
    defer { api.stop() }
    let base = "http://127.0.0.1:\(api.port)"
    let url = base + "/orders/"
    resource.withLock { $0 = base + "/" }
    let configPath = h.home.configPath
    let before = try String(contentsOfFile: configPath, encoding: .utf8)
    for dryRun in [[], ["--dry-run"]] {
      let refused = try h.strivacity(["setup-api", "--profile", h.profile, "--name", "orders"] + dryRun + [url])
      #expect(refused.status == 5, "\(refused.stderr)")
      #expect(refused.stdout.isEmpty)
      #expect(
        refused.stderr
          == "strivacity: error: the API's metadata at \(base)/.well-known/oauth-protected-resource/orders/ "
          + "names resource \(base)/, not the URL given (\(url)): RFC 9728 wants them identical; nothing written\n")
      #expect(try String(contentsOfFile: configPath, encoding: .utf8) == before)
    }
    #expect(targets.withLock { $0 } == Array(repeating: "/.well-known/oauth-protected-resource/orders/", count: 2))
    resource.withLock { $0 = url }
    let written = try h.strivacity(["setup-api", "--profile", h.profile, url])
    #expect(written.status == 0, "\(written.stderr)")
    #expect(
      written.stderr
        == "strivacity: API orders added to profile \(h.profile): url = \(url) (\(configPath))\n"
        + "strivacity: sign in to use it: strivacity login --profile \(h.profile)\n",
      "\(written.stderr)")
    #expect(
      try String(contentsOfFile: configPath, encoding: .utf8)
        == before + "\n[profiles.\(h.profile).apis.orders]\nurl = \"\(url)\"\nresource = [\"\(url)\"]\n"
        + "scopes = [\"orders:read\"]\n")
  }
}

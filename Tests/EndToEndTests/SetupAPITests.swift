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

  /// The --undo of the setups that write only strivacity's config or a file of their own: api
  /// removes its table, proxy its settings, gcloud its file (only one it wrote); each --dry-run
  /// first, which changes nothing.
  @Test func undoRemovesWhatTheSetupWrote() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile(
      """
      proxy = "http://127.0.0.1:1"
      proxy_user = "alice"

      [profiles.\(h.profile).apis.gcp]
      url = "https://gcp.example/"
      audience = "https://gcp.example/"
      """)
    let configPath = h.home.configPath
    let original = try String(contentsOfFile: configPath, encoding: .utf8)
    let file = h.home.file("gcp.json")
    let provider = "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x"
    let gcloud = ["setup", "gcloud", "--profile", h.profile, "--output", file]
    #expect(try h.strivacity(gcloud + ["--api", "gcp", "--audience", provider]).status == 0)
    for undo in [
      ["setup", "api", "--profile", h.profile, "--undo", "https://gcp.example/"],
      ["setup", "proxy", "--profile", h.profile, "--undo"], gcloud + ["--undo"],
    ] {
      let dry = try h.strivacity(undo + ["--dry-run"])
      #expect(dry.status == 0 && dry.stdout.hasPrefix("would "), "\(undo): \(dry.stdout) \(dry.stderr)")
      #expect(try String(contentsOfFile: configPath, encoding: .utf8) == original)
      #expect(FileManager.default.fileExists(atPath: file))
    }
    for undo in [
      ["setup", "api", "--profile", h.profile, "--undo", "https://gcp.example/"],
      ["setup", "proxy", "--profile", h.profile, "--undo"], gcloud + ["--undo"],
    ] {
      let done = try h.strivacity(undo)
      #expect(done.status == 0, "\(undo): \(done.stderr)")
    }
    let config = try String(contentsOfFile: configPath, encoding: .utf8)
    #expect(
      !config.contains("proxy") && !config.contains("gcp") && config.contains("[profiles.\(h.profile)]"), "\(config)")
    #expect(!FileManager.default.fileExists(atPath: file))
    // A file strivacity did not write is left alone.
    try "{}".write(toFile: file, atomically: true, encoding: .utf8)
    let refused = try h.strivacity(gcloud + ["--undo"])
    #expect(refused.status == 2 && FileManager.default.fileExists(atPath: file), "\(refused.stderr)")
  }
}

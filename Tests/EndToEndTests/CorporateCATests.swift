// The company's CA (issue 29, point 1): the tenant over https behind a TLS front (Debian's socat,
// its OpenSSL listener) with a certificate from a CA the test makes with openssl, which no
// system store trusts. strivacity trusts it through `ca_bundle` (the profile's, the config's) or
// curl's variables in curl's order, for its own requests and for the curl `strivacity curl`
// runs; without it, one line names the host, why, the trust in use and the setting.
import CurlTransport
import Foundation
import StrivacityConfig
import StrivacityCore
import StrivacityTestSupport
import Testing

/// A CA, a certificate for 127.0.0.1 from it, and socat serving TLS on a port of its own in
/// front of a plain port (the emulator's), stopped by PID.
final class TLSFront: @unchecked Sendable {
  let dir: ScratchDirectory
  let port: Int
  private var socat: pid_t = 0
  var ca: String { dir.file("ca.pem") }
  var url: String { "https://127.0.0.1:\(port)/" }

  init() throws {
    dir = try ScratchDirectory("tls-front")
    let ca = try TestCA("Corp Test CA", in: dir)
    try ca.issue("server", host: "tenant.corp.test", altNames: "IP:127.0.0.1,DNS:tenant.corp.test")
    try ca.hashedDirectory()
    port = try Loopback.unusedPort()
  }

  /// Starts forwarding TLS on `port` to plain `target` on 127.0.0.1.
  func start(forwardingTo target: Int) throws {
    let arguments = [
      "/usr/bin/socat",
      "OPENSSL-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork,verify=0,"
        + "cert=\(dir.file("server.pem")),key=\(dir.file("server.key"))",
      "TCP:127.0.0.1:\(target)",
    ]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)  // its per-connection notes
    // Its own session (a process group with the connections' children) and default signals.
    socat = try spawnProcess(arguments, environment: nil, actions: &actions)
    // Each probe is a connection socat forks a child for: stop at the first that is taken.
    waitUntil(timeout: 2) { Loopback.accepts(port) }
  }

  /// Stops socat and its connections' children (its process group), before the tenant stops:
  /// a connection they hold would keep the tenant waiting for it.
  func stop() {
    guard socat > 0 else { return }
    kill(-socat, SIGKILL)
    var status: Int32 = 0
    waitpid(socat, &status, 0)
    socat = 0
  }

  deinit { stop() }
}

@Suite struct CorporateCATests {
  /// The tenant's count, read on its own plain port (the test trusts no CA of its own).
  func requests(_ h: Harness) -> Int {
    let stats = try? CurlHTTPClient().send(HTTPRequest(url: "http://127.0.0.1:\(h.emulator.port)/_emulator/stats"))
    return stats.flatMap { JSONValue.parse($0.body)?["client_credentials_requests"]?.int } ?? -1
  }

  /// A machine profile on the tenant over TLS (no sign-in needed: every `token` with the cache
  /// off makes discovery and token requests through the CA in use).
  func setUp(_ extra: String = "", topLevel: String = "") throws -> (Harness, TLSFront) {
    try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/socat"), "socat: make deps installs it")
    let front = try TLSFront()
    let h = try Harness(journey: "machine", publicURL: front.url)
    try front.start(forwardingTo: h.emulator.port)
    try writeConfig(h, front, extra, topLevel: topLevel)
    h.extraEnvironment["STRIVACITY_CLIENT_SECRET"] = MachineProfileTests.botSecret
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    return (h, front)
  }

  /// The machine profile's config: `topLevel` lines before its table, `extra` in it.
  func writeConfig(_ h: Harness, _ front: TLSFront, _ extra: String = "", topLevel: String = "") throws {
    try h.writeMachineProfile(client: "ci-bot", tenant: front.url, topLevel: topLevel, extra)
  }

  @Test func withoutTheCAOneLineSaysWhatToSet() throws {
    let (h, front) = try setUp()
    defer { front.stop() }
    let result = try h.strivacity(["token", "--profile", h.profile])
    #expect(result.status == 4 && result.stdout.isEmpty, "\(result.stderr)")
    #expect(
      result.stderr == "strivacity: error: the certificate of https://127.0.0.1:\(front.port) is not trusted (its "
        + "issuer is not among the trusted CAs; it names CN = tenant.corp.test, issued by CN = Corp Test CA), "
        + "checked against the system's store; \(CATrust.fix)\n")
    #expect(requests(h) == 0, "nothing was sent over the probe")
  }

  @Test(arguments: ["CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"])
  func curlsVariablesAreHonoured(variable: String) throws {
    let (h, front) = try setUp()
    defer { front.stop() }
    let value = variable == "SSL_CERT_DIR" ? front.dir.file("certs") : front.ca
    let result = try h.strivacity(["token", "--profile", h.profile], environment: [variable: value])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(requests(h) == 1)
    // A variable in use that does not have the CA: the fix names that variable, not another.
    let system = variable == "SSL_CERT_DIR" ? "/etc/ssl/certs" : "/etc/ssl/certs/ca-certificates.crt"
    let wrong = try h.strivacity(["token", "--profile", h.profile, "--refresh"], environment: [variable: system])
    #expect(wrong.status == 4, "\(wrong.stderr)")
    #expect(
      wrong.stderr.contains(
        variable == "SSL_CERT_DIR" ? "add it to the directory SSL_CERT_DIR names" : "point \(variable) at a bundle"),
      "\(wrong.stderr)")
  }

  @Test func theConfigsCABundleAndTheProfilesComeFirst() throws {
    let anotherCA = try TLSFront()  // its CA only: a bundle that does not sign this tenant
    let (h, front) = try setUp()
    defer { front.stop() }
    try writeConfig(h, front, topLevel: "ca_bundle = \"\(front.ca)\"")
    // The config's before the variables (a wrong one there changes nothing).
    let top = try h.strivacity(["token", "--profile", h.profile], environment: ["CURL_CA_BUNDLE": "/nonexistent"])
    #expect(top.status == 0, "\(top.stderr)")
    // The profile's before the config's: a bundle without the CA is refused, naming it.
    let other = try front.dir.write("other.pem", try String(contentsOfFile: anotherCA.ca, encoding: .utf8))
    try writeConfig(h, front, "ca_bundle = \"\(other)\"", topLevel: "ca_bundle = \"\(front.ca)\"")
    let profile = try h.strivacity(["token", "--profile", h.profile])
    #expect(profile.status == 4, "\(profile.stderr)")
    #expect(
      profile.stderr.contains(
        "checked against the CA bundle \(other) (from ca_bundle in [profiles.\(h.profile)]); if your network's CA "
          + "signs it (a company proxy), make ca_bundle in [profiles.\(h.profile)] a bundle that has it"),
      "\(profile.stderr)")
  }

  @Test func aMissingOrGarbageBundleIsAConfigErrorNamingIt() throws {
    let (h, front) = try setUp()
    defer { front.stop() }
    let missing = try h.strivacity(
      ["token", "--profile", h.profile], environment: ["CURL_CA_BUNDLE": "/nonexistent.pem"])
    #expect(missing.status == 2, "\(missing.stderr)")
    #expect(
      missing.stderr == "strivacity: error: the CA bundle /nonexistent.pem (from CURL_CA_BUNDLE) does not exist\n")
    let garbage = try front.dir.write("garbage.pem", "not a certificate\n")
    let bad = try h.strivacity(["token", "--profile", h.profile], environment: ["SSL_CERT_FILE": garbage])
    #expect(bad.status == 2, "\(bad.stderr)")
    #expect(bad.stderr.contains("the CA bundle \(garbage) (from SSL_CERT_FILE) holds no PEM certificate"))
    #expect(requests(h) == 0)
  }

  /// `strivacity curl` hands curl the same trust: the API call goes the way the token call went.
  @Test func strivacityCurlTrustsTheSameCAs() throws {
    let (h, front) = try setUp()
    defer { front.stop() }
    let result = try h.strivacity(
      ["curl", "--profile", h.profile, "-sS", front.url + ".well-known/openid-configuration"],
      environment: ["CURL_CA_BUNDLE": front.ca])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout.contains("\"issuer\":\"\(front.url)\"") || result.stdout.contains(front.url), "\(result.stdout)")
  }
}

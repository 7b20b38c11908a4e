// Docker's helper protocol with Docker's own clients (issue 40): Debian's docker-registry 2.8 with
// token authentication, behind a token service (Tests/Fixtures/registry-token-service.py) that
// takes a password only when the emulator's API accepts it as a Bearer token. `setup-docker`
// names strivacity for the registry; skopeo pushes an image and reads it back, and the Docker
// CLI reads its manifest, each asking docker-credential-strivacity for the API's token. The same
// registry under a name no API covers gets nothing from strivacity.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

/// Debian's docker-registry (TLS, token authentication) and its token service on loopback, in a
/// scratch directory, stopped by PID. One EC key signs the registry's tokens (its certificate is
/// the registry's `rootcertbundle`) and serves its TLS.
final class TokenRegistry: @unchecked Sendable {
  static let binary = "/usr/bin/docker-registry"
  let dir: ScratchDirectory
  let port: Int
  private var pids: [pid_t] = []
  var host: String { "127.0.0.1:\(port)" }
  /// The token service's lines: `granted USER SCOPE…` or `refused WHY`.
  var log: [String] {
    ((try? String(contentsOfFile: dir.file("tokens.log"), encoding: .utf8)) ?? "").split(separator: "\n").map(
      String.init)
  }

  /// For the emulator's API `api` (its protected resource checks each password).
  init(issuer: String, api: String) throws {
    dir = try ScratchDirectory("registry")
    port = try Loopback.unusedPort()
    let made = try run(
      [
        "/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", dir.file("key.pem"), "-out", dir.file("cert.pem"), "-days", "2", "-subj", "/CN=127.0.0.1",
        "-addext", "subjectAltName=IP:127.0.0.1",
      ], environment: ["PATH": "/usr/bin:/bin"])
    guard made.status == 0 else { throw TestFailure("openssl: \(made.stderr)") }
    let fixtures = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Fixtures").path
    try start([
      "/usr/bin/python3", fixtures + "/registry-token-service.py", "--issuer", issuer,
      "--api-url", issuer + "resources/\(api)/", "--service", "registry.test", "--key", dir.file("key.pem"),
      "--cert", dir.file("cert.pem"), "--port-file", dir.file("tokens.port"), "--log", dir.file("tokens.log"),
    ])
    var tokenPort = ""
    waitUntil(timeout: 10) {
      tokenPort = (try? String(contentsOfFile: dir.file("tokens.port"), encoding: .utf8)) ?? ""
      return !tokenPort.isEmpty
    }
    guard !tokenPort.isEmpty else { throw TestFailure("the registry's token service did not start") }
    try dir.write(
      "registry.yml",
      """
      version: 0.1
      log: {level: error, accesslog: {disabled: true}}
      storage: {filesystem: {rootdirectory: \(dir.file("storage"))}}
      http: {addr: "127.0.0.1:\(port)", tls: {certificate: \(dir.file("cert.pem")), key: \(dir.file("key.pem"))}}
      auth:
        token: {realm: "http://127.0.0.1:\(tokenPort)/token", service: registry.test,
                issuer: strivacity-test-tokens, rootcertbundle: \(dir.file("cert.pem"))}
      """)
    try start([Self.binary, "serve", dir.file("registry.yml")])
    guard waitUntil(timeout: 10, { Loopback.accepts(port) }) else { throw TestFailure("docker-registry did not start") }
  }

  private func start(_ arguments: [String]) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let output = dir.file((arguments[1] as NSString).lastPathComponent + ".out")
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    pids.append(try spawnProcess(arguments, environment: ["PATH": "/usr/bin:/bin"], actions: &actions))
  }

  func stop() {
    for pid in pids {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
    pids = []
  }

  deinit { stop() }
}

@Suite struct RegistryClientTests {
  static let skopeo = "/usr/bin/skopeo"
  /// The Docker CLI (these machines have its client, no engine: `docker manifest inspect` talks
  /// to the registry itself).
  static let docker = ["/usr/local/bin/docker", "/usr/bin/docker"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  @Test func skopeoAndTheDockerCLIGetTheAPIsTokenFromTheHelper() throws {
    try #require(
      FileManager.default.isExecutableFile(atPath: TokenRegistry.binary), "make deps installs docker-registry")
    try #require(FileManager.default.isExecutableFile(atPath: Self.skopeo), "make deps installs skopeo")
    let docker = try #require(Self.docker, "the Docker CLI is not installed")
    let h = try Harness(journey: "password")
    let registry = try TokenRegistry(issuer: h.emulator.issuer, api: "orders")
    try h.writeProfile(
      """

      [profiles.\(h.profile).apis.registry]
      url = "\(registry.host)"
      audience = "https://api.example.com/orders"
      resource = ["https://api.example.com/orders/"]
      scopes = ["orders:read"]
      """)
    try h.signIn()
    h.extraEnvironment["PATH"] = try h.dockerHelperDirectory() + ":/usr/local/bin:/usr/bin:/bin"
    let setup = try h.strivacity(["setup-docker", "--profile", h.profile, "--registry", registry.host])
    #expect(setup.status == 0, "\(setup.stderr)")

    let image = h.home.file("image")
    let layout = try run(
      [
        "/usr/bin/python3", TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Fixtures/oci-layout.py").path,
        image, "1",
      ], environment: h.environment)
    let digest = layout.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(layout.status == 0 && digest.hasPrefix("sha256:"), "\(layout.stderr)")
    let reference = "\(registry.host)/team/app:1"
    let push = try run(
      [Self.skopeo, "copy", "--dest-tls-verify=false", "oci:\(image):1", "docker://" + reference],
      environment: h.environment)
    #expect(push.status == 0, "\(push.stderr)")
    let inspect = try run(
      [Self.skopeo, "inspect", "--tls-verify=false", "docker://" + reference], environment: h.environment)
    #expect(inspect.status == 0, "\(inspect.stderr)")
    #expect(JSONValue.parse(inspect.stdout)?["Digest"]?.string == digest)
    let manifest = try run([docker, "manifest", "inspect", "--insecure", reference], environment: h.environment)
    #expect(manifest.status == 0, "\(manifest.stderr)")
    #expect(manifest.stdout.contains("application/vnd.oci.image.layer.v1.tar+gzip"), "\(manifest.stdout)")
    // Every token the registry used was bought with the API's token, by the helper's username.
    let granted = registry.log
    #expect(granted.contains("granted oauth2accesstoken repository:team/app:pull,push"), "\(granted)")
    #expect(granted.count >= 3 && granted.allSatisfy { $0.hasPrefix("granted oauth2accesstoken ") }, "\(granted)")

    // The same registry by a name no API has, pointed at strivacity by hand: the helper answers
    // "not found", so the client goes without credentials and is refused.
    let other = "localhost:\(registry.port)"
    let authFile = try h.home.write("other-auth.json", "{\"credHelpers\": {\"\(other)\": \"strivacity\"}}")
    let refused = try run(
      [Self.skopeo, "inspect", "--tls-verify=false", "--authfile", authFile, "docker://\(other)/team/app:1"],
      environment: h.environment)
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("unauthorized") || refused.stderr.contains("authentication required"))
    #expect(registry.log.dropFirst(granted.count).allSatisfy { $0.hasPrefix("refused ") }, "\(registry.log)")
  }
}

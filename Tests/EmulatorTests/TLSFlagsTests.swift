// The executable's --tls-cert/--tls-key (issue 29, point 5): the tenant over https under a name
// (--public-url), its TLS served by socat in front of it, stopped with it; bad flags are usage
// errors naming the file.
import Foundation
import Glibc
import StrivacityTestSupport
import Testing

@Suite struct TLSFlagsTests {
  static let emulator = TestEnvironment.binary("strivacity-emulator")
  static let environment = ["PATH": "/usr/bin:/bin"]

  /// A CA and a certificate for tenant.corp.test from it, made with openssl.
  static func certificates() throws -> ScratchDirectory {
    let dir = try ScratchDirectory("tls-flags")
    try TestCA("Emulator Test CA", in: dir).issue("tenant", host: "tenant.corp.test")
    return dir
  }

  @Test func theTenantOverHTTPSUnderANameAndSocatStopsWithIt() throws {
    try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/socat"), "socat: make deps installs it")
    let dir = try Self.certificates()
    let port = try Loopback.unusedPort()
    let origin = "https://tenant.corp.test:\(port)"
    // The emulator's first line on a pipe; its stderr to a file.
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addopen(&actions, 2, dir.file("stderr"), O_WRONLY | O_CREAT, 0o600)
    let attributes = SpawnAttributes()
    let argv = [
      Self.emulator, "--journey", "machine", "--port", String(port), "--public-url", origin,
      "--tls-cert", dir.file("tenant.pem"), "--tls-key", dir.file("tenant.key"),
    ]
    let cArguments = argv.map { strdup($0) } + [nil]
    defer { cArguments.forEach { free($0) } }
    var pid: pid_t = 0
    #expect(posix_spawn(&pid, Self.emulator, &actions, &attributes.raw, cArguments, environ) == 0)
    close(fds[1])
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while read(fds[0], &byte, 1) == 1, byte != 10 { line.append(byte) }
    close(fds[0])
    defer {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
    let stderr = { (try? String(contentsOfFile: dir.file("stderr"), encoding: .utf8)) ?? "" }
    #expect(String(decoding: line, as: UTF8.self) == origin + "/", "\(stderr())")
    let curl = [
      "/usr/bin/curl", "-sS", "--cacert", dir.file("ca.pem"), "--resolve", "tenant.corp.test:\(port):127.0.0.1",
      origin + "/.well-known/openid-configuration",
    ]
    let discovery = try run(curl, environment: Self.environment)
    #expect(discovery.status == 0, "\(discovery.stderr) \(stderr())")
    #expect(discovery.stdout.contains("\"issuer\":\"\(origin)/\""), "\(discovery.stdout)")
    #expect(discovery.stdout.contains("\"token_endpoint\":\"\(origin)/oauth2/token\""), "\(discovery.stdout)")
    // Without the CA: curl refuses the certificate (it is TLS, and not trusted by default).
    let untrusted = try run(Array(curl[0...1]) + Array(curl[4...]), environment: Self.environment)
    #expect(untrusted.status == 60, "\(untrusted.stderr)")
    // SIGTERM: a clean exit, and nothing listens on the port any more (socat went with it).
    kill(pid, SIGTERM)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    #expect(status == 0, "\(stderr())")
    let gone = try run(curl + ["--max-time", "5"], environment: Self.environment)
    #expect(gone.status == 7, "\(gone.stderr)")
  }

  @Test func badTLSFlagsAreUsageErrorsNamingTheFile() throws {
    let dir = try Self.certificates()
    let onlyCert = try run([Self.emulator, "--tls-cert", dir.file("tenant.pem")], environment: Self.environment)
    #expect(onlyCert.status == 2 && onlyCert.stderr.contains("--tls-cert needs --tls-key"), "\(onlyCert.stderr)")
    let onlyKey = try run([Self.emulator, "--tls-key", dir.file("tenant.key")], environment: Self.environment)
    #expect(onlyKey.status == 2 && onlyKey.stderr.contains("--tls-key needs --tls-cert"), "\(onlyKey.stderr)")
    let missing = try run(
      [Self.emulator, "--tls-cert", dir.file("absent.pem"), "--tls-key", dir.file("tenant.key")],
      environment: Self.environment)
    #expect(missing.status == 2, "\(missing.stderr)")
    #expect(missing.stderr.contains("--tls-cert \(dir.file("absent.pem")): No such file"), "\(missing.stderr)")
  }
}

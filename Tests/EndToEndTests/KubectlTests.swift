// kubectl with the real kubectl: `strivacity setup-kubectl` writes the kubeconfig user, and
// kubectl's exec plugin call gets the profile's access token to an API server. The server is a
// stand-in on loopback (Python's http.server behind a throwaway certificate: kubectl hands exec
// credentials only to TLS servers) that answers /version to the right bearer token only.
import Foundation
import Glibc
import StrivacityTestSupport
import Testing

@Suite struct KubectlTests {
  static let kubectl = "/usr/bin/kubectl"
  static let server = """
    import http.server, os, ssl, sys
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_GET(self):
            ok = self.headers.get("Authorization") == "Bearer " + os.environ["EXPECTED"]
            with open(sys.argv[1] + "/seen", "a") as f: f.write(("token " if ok else "none ") + self.path + "\\n")
            self.send_response(200 if ok else 401)
            self.send_header("Content-Type", "application/json"); self.end_headers()
            if ok: self.wfile.write(b'{"major":"1","minor":"32","gitVersion":"v1.32.0-stand-in"}')
    s = http.server.HTTPServer(("127.0.0.1", 0), H)
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); c.load_cert_chain(sys.argv[1] + "/cert.pem", sys.argv[1] + "/key.pem")
    s.socket = c.wrap_socket(s.socket, server_side=True)
    print(s.server_address[1], flush=True)
    s.serve_forever()
    """

  @Test func kubectlGetsTheTokenThroughSetupKubectl() throws {
    try #require(FileManager.default.isExecutableFile(atPath: Self.kubectl), "the real kubectl (google-cloud-sdk's, on this kind of machine)")
    let h = try Harness(journey: "password")
    try h.signIn()
    let token = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    let dir = try ScratchDirectory("kube")
    let certificate = try run(
      ["/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
       "-keyout", dir.file("key.pem"), "-out", dir.file("cert.pem"), "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
      environment: ["PATH": "/usr/bin:/bin"])
    #expect(certificate.status == 0, "\(certificate.stderr)")
    let script = try dir.write("server.py", Self.server)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [script, dir.path]
    process.environment = ["EXPECTED": token, "PATH": "/usr/bin:/bin"]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    // SIGKILL: the test process blocks most signals, and Process hands that mask on.
    defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    let port = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(Int(port) != nil, "the stand-in server's port")

    var env = h.environment
    env["PATH"] = "/usr/bin:/bin"
    let kubeconfig = dir.file("kubeconfig")
    func kubectl(_ arguments: [String]) throws -> ProcessResult {
      try run([Self.kubectl, "--kubeconfig", kubeconfig] + arguments, environment: env, timeout: 60)
    }
    let setup = try run([TestEnvironment.binary("strivacity"), "setup-kubectl", "--profile", h.profile, "--kubeconfig", kubeconfig], environment: env)
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(setup.stderr.contains("kubectl config set-context --current --user=strivacity-\(h.profile)"))
    #expect(try kubectl(["config", "set-cluster", "c", "--server=https://127.0.0.1:\(port)", "--certificate-authority=\(dir.file("cert.pem"))"]).status == 0)
    #expect(try kubectl(["config", "set-context", "c", "--cluster=c", "--user=strivacity-\(h.profile)"]).status == 0)
    #expect(try kubectl(["config", "use-context", "c"]).status == 0)

    let version = try kubectl(["get", "--raw", "/version"])
    #expect(version.status == 0 && version.stdout.contains("v1.32.0-stand-in"), "\(version.stderr)")
    #expect((try? String(contentsOfFile: dir.file("seen"), encoding: .utf8))?.contains("token /version") == true, "the API server got the token")
    let written = try String(contentsOfFile: kubeconfig, encoding: .utf8)
    let front = URL(fileURLWithPath: TestEnvironment.binary("strivacity")).resolvingSymlinksInPath().path
    #expect(written.contains("command: \(front)"), "the small binary, by absolute path")
    #expect(!written.contains("sat_"), "no token in the kubeconfig")

    let undo = try run([TestEnvironment.binary("strivacity"), "setup-kubectl", "--profile", h.profile, "--kubeconfig", kubeconfig, "--undo"], environment: env)
    #expect(undo.status == 0, "\(undo.stderr)")
    #expect(try !String(contentsOfFile: kubeconfig, encoding: .utf8).contains("name: strivacity-\(h.profile)"))
  }
}

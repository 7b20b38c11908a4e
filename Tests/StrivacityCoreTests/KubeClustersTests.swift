import Testing

// kube_clusters: which API servers kubectl gets a profile's token for (ExecCredentialInfo.decision,
// the one rule both binaries follow), and what the config admits as an entry.
@testable import StrivacityConfig
@testable import StrivacityCore

@Suite struct KubeClustersTests {
  /// What kubectl would set: KUBERNETES_EXEC_INFO with spec.cluster.server (provideClusterInfo).
  func kubectl(server: String?) throws -> ExecCredentialInfo {
    let cluster = server.map { #","cluster":{"server":"\#($0)","certificate-authority-data":"LS0t"}"# } ?? ""
    return try ExecCredentialInfo.from([
      "KUBERNETES_EXEC_INFO":
        #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","#
        + #""spec":{"interactive":false\#(cluster)}}"#
    ])
  }

  /// kube_clusters as the config holds them: each admitted (one that is not, left out).
  func servers(_ list: [String]) -> [KubeServer] { list.compactMap { try? KubeServer(admitting: $0) } }

  func allowed(_ server: String, _ clusters: [String]) throws -> Bool {
    try kubectl(server: server).decision(clusters: servers(clusters), profile: "work") == .allow
  }

  @Test func kubectlsServerIsRead() throws {
    #expect(try kubectl(server: "https://k.example:6443").server == "https://k.example:6443")
    #expect(try kubectl(server: "https://k.example:6443").fromKubectl)
    #expect(try kubectl(server: nil).server == nil)
    #expect(try ExecCredentialInfo.from([:]).fromKubectl == false)
    let null = try ExecCredentialInfo.from([
      "KUBERNETES_EXEC_INFO": #"{"apiVersion":"client.authentication.k8s.io/v1","spec":{"cluster":null}}"#
    ])
    #expect(null.server == nil && null.fromKubectl)
    for cluster in [#"{}"#, #"{"server":6443}"#, #""https://k.example""#] {
      #expect(throws: AdmissionError("KUBERNETES_EXEC_INFO's spec.cluster has no server")) {
        try ExecCredentialInfo.from([
          "KUBERNETES_EXEC_INFO": #"{"apiVersion":"client.authentication.k8s.io/v1","spec":{"cluster":\#(cluster)}}"#
        ])
      }
    }
  }

  /// The same server however it is written: host case, the scheme's default port, trailing slashes.
  @Test(arguments: [
    ("https://k.example:6443", "https://k.example:6443"),
    ("https://K.Example:6443", "https://k.example:6443"),
    ("https://k.example", "https://k.example:443"),
    ("https://k.example:443/", "https://k.example"),
    ("http://127.0.0.1", "http://127.0.0.1:80"),
    ("https://k.example/", "https://k.example"),
    ("https://rancher.example/k8s/clusters/c-1", "https://rancher.example/k8s/clusters/c-1/"),
    // Dot segments resolved, as servers and kubectl's HTTP client resolve them (TokenDestination).
    ("https://rancher.example/k8s/x/../clusters/c-1", "https://rancher.example/k8s/clusters/c-1"),
    ("https://[::1]:6443", "https://[::1]:6443/"),
  ])
  func theSameServerMatches(server: String, listed: String) throws {
    #expect(try allowed(server, [listed]))
    #expect(try allowed(server, ["https://other.example", listed]), "any entry of the list")
  }

  /// Anything else is another server: scheme, host, port, path (case and encoding kept, an empty
  /// segment kept), a look-alike.
  @Test(arguments: [
    ("https://k.example:6444", "https://k.example:6443"),
    ("https://k.example", "https://k.example:6443"),
    ("http://localhost:443", "https://localhost"),
    ("https://127.0.0.1:6443", "https://localhost:6443"),
    ("https://k.example.evil:6443", "https://k.example:6443"),
    ("https://evil.k.example", "https://k.example"),
    ("https://k.example./", "https://k.example"),
    ("https://rancher.example/k8s/clusters/c-2", "https://rancher.example/k8s/clusters/c-1"),
    ("https://rancher.example/k8s/clusters/c-1/x", "https://rancher.example/k8s/clusters/c-1"),
    ("https://rancher.example/k8s/clusters", "https://rancher.example/k8s/clusters/c-1"),
    ("https://rancher.example/K8S/clusters/c-1", "https://rancher.example/k8s/clusters/c-1"),
    ("https://rancher.example/k8s/clusters/c-1", "https://rancher.example"),
    ("https://rancher.example/k8s/clusters/%63-1", "https://rancher.example/k8s/clusters/c-1"),
    ("https://k.example//", "https://k.example"),
    // Not normalised beyond case, port and trailing slashes: a spelling kubectl's kubeconfig
    // does not share is refused (never a false match).
    ("https://[::1]:6443", "https://[0:0:0:0:0:0:0:1]:6443"),
  ])
  func anotherServerIsRefused(server: String, listed: String) throws {
    let decision = try kubectl(server: server).decision(clusters: servers([listed]), profile: "work")
    guard case .refuse(let message) = decision else {
      Issue.record("\(server) allowed by \(listed)")
      return
    }
    #expect(message.hasPrefix("refusing the token to kubectl"), "\(message)")
    #expect(
      message.contains("strivacity setup kubectl --profile work --context CONTEXT"), "says how to allow it: \(message)")
    #expect(!message.contains("\n"))
  }

  /// kubectl's server is outside input: one that is not a plain https URL never matches, even
  /// when the list (admitted at parse time, so never in a real config) would.
  @Test(arguments: [
    "https://k.example@evil.example", "https://evil.example#@k.example", "https://k.example?x", "https://k.example/#",
    "k.example:6443", "ftp://k.example", "http://k.example", "https://k.example:0", "https://k.example:99999",
    "https://k.example\\@evil.example", "https://k.example /", "https://k.ex\u{1B}[2Jample", "", "https://",
    "https://:6443",
  ])
  func aHostileServerIsRefused(server: String) throws {
    let info = ExecCredentialInfo(fromKubectl: true, server: server)
    guard
      case .refuse(let message) = info.decision(
        clusters: servers([server, "https://k.example", "https://evil.example"]), profile: "work")
    else {
      Issue.record("\(server) allowed")
      return
    }
    #expect(message.hasPrefix("refusing the token to kubectl: its API server '"), "\(message)")
    #expect(!message.contains("\u{1B}") && !message.contains("\n"), "made inert: \(message)")
  }

  /// Without cluster information: the token as today unless kube_clusters says otherwise.
  @Test func withoutClusterInformation() throws {
    let listed = servers(["https://k.example:6443"])
    // A person running the command (no KUBERNETES_EXEC_INFO): the token, listed or not.
    #expect(ExecCredentialInfo().decision(clusters: listed, profile: "work") == .allow)
    #expect(ExecCredentialInfo().decision(clusters: [], profile: "work") == .allow)
    // kubectl without spec.cluster (provideClusterInfo false): as before kube_clusters existed
    // when none are listed; refused when some are, naming what to run.
    #expect(try kubectl(server: nil).decision(clusters: [], profile: "work") == .allow)
    guard case .refuse(let message) = try kubectl(server: nil).decision(clusters: listed, profile: "work") else {
      Issue.record("no spec.cluster, kube_clusters set: allowed")
      return
    }
    #expect(message.contains("provideClusterInfo: false"), "\(message)")
    #expect(message.contains("run strivacity setup kubectl --profile work --context CONTEXT again"), "\(message)")
    // kubectl names a server and the profile lists none: refused (nothing allows it there).
    guard case .refuse(let none) = try kubectl(server: "https://k.example:6443").decision(clusters: [], profile: "work")
    else {
      Issue.record("a named server, no kube_clusters: allowed")
      return
    }
    #expect(
      none
        == "refusing the token to kubectl for https://k.example:6443: profile work lists no kube_clusters; to "
        + "allow the context's API server: strivacity setup kubectl --profile work --context CONTEXT"
    )
  }

  @Test func theRefusalNamesTheServerAndTheList() throws {
    let decision = try kubectl(server: "https://B.example:443/").decision(
      clusters: servers(["https://a.example:6443/", "https://c.example"]), profile: "work")
    #expect(
      decision
        == .refuse(
          "refusing the token to kubectl for https://b.example: profile work allows only its kube_clusters "
            + "(https://a.example:6443, https://c.example); "
            + "to allow the context's API server: strivacity setup kubectl --profile work --context CONTEXT"))
  }

  /// The config admits only plain API server URLs, with a one-line error naming the line.
  @Test(arguments: [
    ("https://k.example:443@evil.example", "has user info"),
    ("https://user:pw@k.example", "has user info"),
    ("https://k.example/?a=b", "has a query"),
    ("https://k.example/#x", "has a query or a fragment"),
    ("http://k.example:8080", "is not https"),
    ("k.example:6443", "is not an API server URL"),
    ("https://k.example/a b", "has spaces, control or non-ASCII characters"),
    ("https://k.example\\@evil.example/", "has user info"),
    ("https://k_example:6443x", "is not a host, host:port or https:// URL"),
    ("https://k.\u{1B}]52;c;eA==\u{7}example", "has spaces, control or non-ASCII characters"),
    ("https://k.example/%2e%2e/x", "encoded dot"),
  ])
  func hostileEntriesAreAConfigError(entry: String, says: String) throws {
    func escaped(_ text: String) -> String {
      text.replacing("\\", with: "\\\\").replacing("\u{1B}", with: "\\u001b").replacing("\u{7}", with: "\\u0007")
    }
    let text =
      "[profiles.work]\ntenant = \"https://t.example\"\nkube_clusters = [\"https://ok.example\", "
      + "\"\(escaped(entry))\"]\n"
    do {
      _ = try Config.parse(text, path: "c.toml")
      Issue.record("\(entry) admitted")
    } catch {
      guard case .invalid(let path, let position, let message) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(path == "c.toml" && position.line == 3)
      #expect(message.hasPrefix("kube_clusters: '") && message.contains(says), "\(message)")
      #expect(
        !error.description.contains("\n") && !error.description.contains("\u{1B}")
          && !error.description.contains("\u{7}"), "\(error.description)")
    }
  }

  @Test func plainEntriesAreAdmitted() throws {
    // One line for kube_clusters: ConfigWriter replaces a key's line, not an array spread over lines.
    let text =
      "[profiles.work]\ntenant = \"https://t.example\"\n"
      + #"kube_clusters = ["https://k.example:6443", "https://rancher.example/k8s/clusters/c-1", "#
      + #""http://127.0.0.1:8080", "https://[::1]:6443/"]"#
    let profile = try #require(try Config.parse(text, path: "c.toml").profile(named: "work"))
    #expect(profile.kubeClusters.count == 4)
    #expect(try KubeServer(admitting: "https://K.example:443/a/").description == "https://k.example/a")
    #expect(try KubeServer(admitting: "https://[::1]:6443/").description == "https://[::1]:6443")
    #expect(
      try Config.parse("[profiles.work]\ntenant = \"https://t.example\"\n", path: "c.toml").profile(named: "work")?
        .kubeClusters == [])
    // Written back by setup-kubectl through ConfigWriter, it parses again.
    let updated = try ConfigWriter.update(
      text, profile: "work",
      settings: [("kube_clusters", .strings(profile.kubeClusters.map(\.description) + ["https://new.example"]))],
      path: "c.toml")
    #expect(
      try Config.parse(updated, path: "c.toml").profile(named: "work")?.kubeClusters.last?.description
        == "https://new.example")
  }
}

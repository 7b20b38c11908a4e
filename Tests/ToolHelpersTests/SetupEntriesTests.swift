// What the setup commands write and warn of, as values: kubectl's exec entry and the context's
// API server read from kubectl's view (KubeconfigEntry), git's config keys and helper
// (GitConfigEntry), Terraform's link and what it takes before the helper (TerraformSetup). The
// real kubectl, git and terraform run them end to end (KubectlTests, GitAndCurlTests,
// TerraformCredentialTests).
import StrivacityConfig
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct KubeconfigEntryTests {
  @Test func theUsersExecEntry() {
    let arguments = KubeconfigEntry.execArguments(profile: "work", api: "k8s")
    #expect(arguments == ["token", "--profile", "work", "--format", "exec-credential", "--login", "--api", "k8s"])
    #expect(KubeconfigEntry.execArguments(profile: "work", api: nil).last == "--login")
    let written = KubeconfigEntry.setCredentials(
      user: "strivacity-work", program: "/usr/bin/strivacity", arguments: ["token"], config: "/etc/s.toml",
      kubeconfig: ["--kubeconfig", "/k"])
    #expect(
      written == [
        "config", "set-credentials", "strivacity-work", "--exec-api-version=client.authentication.k8s.io/v1",
        "--exec-interactive-mode=IfAvailable", "--exec-provide-cluster-info=true",
        "--exec-command=/usr/bin/strivacity", "--exec-arg=token", "--exec-env=STRIVACITY_CONFIG=/etc/s.toml",
        "--kubeconfig", "/k",
      ])
    let unset = KubeconfigEntry.setCredentials(
      user: "u", program: "/s", arguments: [], config: nil, kubeconfig: [])
    #expect(unset.last == "--exec-env=STRIVACITY_CONFIG-")
    #expect(KubeconfigEntry.defaultUser(profile: "work") == "strivacity-work")
  }

  @Test func namesAreAdmittedOrRefused() {
    #expect((try? KubeconfigEntry.admitUser("a.b_c-d@e:f")) != nil)
    for bad in ["", "a b", "é", String(repeating: "a", count: 129), "a\u{1B}"] {
      #expect((try? KubeconfigEntry.admitUser(bad)) == nil, "\(bad)")
    }
    #expect((try? KubeconfigEntry.admitContext("arn:aws:eks:eu/cluster x")) != nil)
    #expect((try? KubeconfigEntry.admitContext("a\nb")) == nil)
    #expect((try? KubeconfigEntry.admitContext(String(repeating: "é", count: 513))) == nil)
  }

  static let view = JSONValue.parse(
    #"""
    {"current-context": "dev",
     "contexts": [{"name": "dev", "context": {"cluster": "c1", "user": "strivacity-work"}},
                  {"name": "no server", "context": {"cluster": "c2"}},
                  {"name": "bad", "context": {"cluster": "c3"}}],
     "clusters": [{"name": "c1", "cluster": {"server": "https://k8s.example.com:6443"}},
                  {"name": "c2", "cluster": {}},
                  {"name": "c3", "cluster": {"server": "k8s.example.com"}}]}
    """#)!

  @Test func theContextsServerIsReadFromKubectlsView() throws {
    let found = try KubeconfigEntry.contextCluster(Self.view, context: nil)
    #expect(found.context == "dev" && found.user == "strivacity-work")
    #expect(found.server.description == "https://k8s.example.com:6443")
    func refusal(_ view: JSONValue, _ context: String?) -> String {
      do {
        _ = try KubeconfigEntry.contextCluster(view, context: context)
        return ""
      } catch { return error.description }
    }
    #expect(refusal(JSONValue.parse("{}")!, nil).hasPrefix("kubectl has no current context"))
    let gone = refusal(Self.view, "gone\u{1B}[2J")
    #expect(gone.hasPrefix("kubectl has no context gone") && !gone.contains("\u{1B}"), "\(gone)")
    #expect(
      refusal(Self.view, "no server")
        == "context no server has no cluster with a server (kubectl config set-context 'no server' --cluster=NAME)")
    #expect(refusal(Self.view, "bad").hasPrefix("the API server of context bad: "))
  }

  @Test func shownNamesAreQuotedOnlyWhenNeeded() {
    #expect(KubeconfigEntry.shellQuoted("dev") == "dev")
    #expect(KubeconfigEntry.shellQuoted("it's") == #"'it'\''s'"#)
    #expect(KubeconfigEntry.shellQuoted("") == "''")
  }
}

@Suite struct GitConfigEntryTests {
  @Test func theURLGitMatchesAndItsKeys() throws {
    let plain = GitConfigEntry(try HostEntry(admitting: "git.example.com"), given: "git.example.com")
    #expect(plain.url == "https://git.example.com" && !plain.needsPath)
    #expect(plain.helperKey == "credential.https://git.example.com.helper")
    let prefix = GitConfigEntry(
      try HostEntry(admitting: "https://git.example.com/org/"), given: "https://git.example.com/org/")
    #expect(prefix.url == "https://git.example.com/org/" && prefix.needsPath)
    #expect(prefix.pathKey == "credential.https://git.example.com/org/.useHttpPath")
    let bare = GitConfigEntry(
      try HostEntry(admitting: "https://git.example.com/org"), given: "https://git.example.com/org")
    #expect(bare.url == "https://git.example.com/org")
  }

  @Test func theHelperIsTheLinkElseThisProgramQuoted() {
    #expect(GitConfigEntry.helper(linkOnPath: true, program: "/x") == "strivacity")
    #expect(
      GitConfigEntry.helper(linkOnPath: false, program: "/opt/it's/strivacity")
        == #"!'/opt/it'\''s/strivacity' credential"#)
  }
}

@Suite struct TerraformSetupTests {
  @Test func whatTerraformTakesFirstIsSaid() {
    #expect(TerraformSetup.link(home: "/h") == "/h/.terraform.d/plugins/terraform-credentials-strivacity")
    let saved = Array(#"{"credentials": {"TFE.example.com": {"token": "t"}}}"#.utf8)
    let warnings = TerraformSetup.earlierTokens(
      "tfe.example.com", credentialsBlocks: ["/h/.terraformrc"], environment: ["TF_TOKEN_tfe_example_com": ""],
      saved: saved, savedPath: "/h/s.json")
    #expect(
      warnings == [
        "/h/.terraformrc has a credentials \"tfe.example.com\" block, which terraform uses before asking strivacity: "
          + "remove it",
        "TF_TOKEN_tfe_example_com is set, and terraform uses it before asking strivacity: unset it",
        "/h/s.json holds a token for tfe.example.com (from terraform login), which terraform uses before asking "
          + "strivacity: remove the host from it",
      ])
    #expect(
      TerraformSetup.earlierTokens(
        "tfe.example.com", credentialsBlocks: [], environment: [:], saved: Array("not json".utf8), savedPath: "s"
      ).isEmpty)
  }
}

@Suite struct CargoAndDockerSetupTests {
  @Test func cargosProviderAndConfig() throws {
    #expect(CargoSetup.provider(program: "/usr/bin/strivacity", profile: nil) == ["/usr/bin/strivacity"])
    #expect(CargoSetup.provider(program: "/s", profile: "work") == ["/s", "--profile", "work"])
    #expect(CargoSetup.configPaths(cargoHome: nil, home: "/h") == ("/h/.cargo/config.toml", "/h/.cargo/config"))
    #expect(CargoSetup.configPaths(cargoHome: "/c", home: "/h").current == "/c/config.toml")
  }

  @Test func whetherTheProfileServesTheIndex() throws {
    let profile = try #require(
      try StrivacityConfig.Config.parse(
        """
        [profiles.work]
        tenant = "https://work.example.com"
        client_id = "cli"
        hosts = ["crates.example.com"]
        """, path: "config.toml"
      ).profiles.first)
    let text = """
      [registries.internal]
      index = "sparse+https://crates.example.com/index/"

      [registries.elsewhere]
      index = "sparse+https://crates.elsewhere.example/"

      [registries.bare]
      """
    let served = CargoSetup.index(text, registry: "internal", profile: profile)
    #expect(served == .init(index: "sparse+https://crates.example.com/index/", url: served.url, unserved: false))
    #expect(served.url?.hasPrefix("https://crates.example.com/") == true)
    #expect(CargoSetup.index(text, registry: "elsewhere", profile: profile).unserved)
    #expect(CargoSetup.index(text, registry: "bare", profile: profile) == .init(index: nil, url: nil, unserved: false))
    #expect(
      CargoSetup.unserved(registry: "elsewhere", index: "sparse+https://x.example/", profile: "work")
        == "registry elsewhere's index (sparse+https://x.example/) is under none of profile work's places: add it to "
        + "hosts (--add-host), or give it an API (--api NAME)")
  }

  @Test func aRegistryIsAHost() throws {
    #expect(try DockerSetup.admitRegistry("registry.example.com:5000").description == "registry.example.com:5000")
    #expect(try DockerSetup.admitRegistry("https://registry.example.com").description == "registry.example.com")
    #expect(throws: AdmissionError.self) { try DockerSetup.admitRegistry("https://registry.example.com/v2") }
    #expect(DockerSetup.linkMissing(program: "/s").hasSuffix("ln -s '/s' ~/.local/bin/docker-credential-strivacity"))
  }
}

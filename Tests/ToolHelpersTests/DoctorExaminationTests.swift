// doctor's pure reading of git's helpers (GitExamination) and cargo's config (CargoExamination):
// the order git asks helpers in, its URL matching, and cargo's registry tables among hostile,
// malformed and unrelated lines.
import Testing

@testable import ToolHelpers

@Suite struct GitExaminationTests {
  static let url = "https://git.example.com"

  @Test func entriesOfNullOutput() {
    let output =
      "credential.helper\nstore\0credential.https://git.example.com.helper\nstrivacity\0credential.x.helper\0"
    let entries = GitExamination.entries(output)
    #expect(
      entries.map(\.key) == ["credential.helper", "credential.https://git.example.com.helper", "credential.x.helper"])
    #expect(entries.map(\.value) == ["store", "strivacity", ""])
    #expect(GitExamination.entries("").isEmpty)
  }

  @Test func helpersInOrderAfterTheLastReset() {
    let entries: [(key: String, value: String)] = [
      ("credential.helper", "cache"), ("credential.https://git.example.com.helper", ""),
      ("credential.helper", "store"), ("credential.https://other.example.helper", "other"),
      ("credential.https://git.example.com.helper", "strivacity"), ("credential.https://*.example.com.helper", "wild"),
      ("credential.https://git.example.com:8443.helper", "port"), ("credential.http://git.example.com.helper", "http"),
    ]
    let asked = GitExamination.helpers(for: Self.url, in: entries)
    #expect(asked == ["store", "strivacity", "wild"])
    #expect(GitExamination.before(strivacity: asked) == ["store"])
    #expect(GitExamination.before(strivacity: ["!'/opt/strivacity' credential"]).isEmpty)
    #expect(GitExamination.before(strivacity: ["cache"]) == ["cache"])
  }

  @Test(arguments: [
    ("https://git.example.com", "https://git.example.com/org/repo", true),
    ("https://GIT.example.com/", "https://git.example.com", true),
    ("https://git.example.com:443", "https://git.example.com", true),
    ("https://git.example.com/org", "https://git.example.com/org/repo", true),
    ("https://git.example.com/org", "https://git.example.com/organisation", false),
    ("https://git.example.com/org", "https://git.example.com", false),
    ("https://*.example.com", "https://git.example.com", true),
    ("https://*.example.com", "https://a.git.example.com", false),
    ("http://git.example.com", "https://git.example.com", false),
    ("https://user@git.example.com", "https://git.example.com", true),
    ("git.example.com", "https://git.example.com", false),
    ("https://", "https://git.example.com", false),
  ])
  func urlMatching(pattern: String, url: String, matches: Bool) {
    #expect(GitExamination.matches(pattern, url) == matches)
  }
}

@Suite struct CargoExaminationTests {
  @Test func registriesAndTheirProviders() {
    let text = """
      [registry]
      global-credential-providers = ["cargo:token"]

      [registries.internal]
      index = "sparse+https://crates.example.com/index/"
      credential-provider = ["/usr/bin/strivacity", "--profile", "work"]

      [registries."spaced"] # a comment
      credential-provider = "/opt/other --flag"
      [env]
      X = { value = "inline", relative = true }
      [[bin]]
      [registries.internal.sub]
      credential-provider = "ignored"
      [registries.late]
      credential-provider = 'cargo:token'
      """
    let found = CargoExamination.registries(Array(text.utf8))
    #expect(found.map(\.name) == ["internal", "spaced", "late"])
    #expect(found[0].provider == ["/usr/bin/strivacity", "--profile", "work"])
    #expect(found[0].index == "sparse+https://crates.example.com/index/")
    #expect(found[1].provider == ["/opt/other", "--flag"] && found[1].index == nil)
    #expect(found[2].provider == ["cargo:token"])
    #expect(CargoExamination.isOurs(found[0].provider!) && !CargoExamination.isOurs(found[1].provider!))
  }

  @Test(arguments: ["", "\u{0}\u{FF}", "[registries.x", "[registries.x]\ncredential-provider = [\n\"a\",\n]\n"])
  func malformedFilesGiveNothingMisread(text: String) {
    let found = CargoExamination.registries(Array(text.utf8))
    #expect(found.allSatisfy { $0.provider == nil })
  }

  @Test func projectConfigsDeepestFirst() {
    #expect(
      CargoExamination.projectConfigs(from: "/work/app") == [
        "/work/app/.cargo/config.toml", "/work/app/.cargo/config", "/work/.cargo/config.toml", "/work/.cargo/config",
        "/.cargo/config.toml", "/.cargo/config",
      ])
    #expect(CargoExamination.projectConfigs(from: "/") == ["/.cargo/config.toml", "/.cargo/config"])
  }

  @Test func theVariableThatShadowsAFile() {
    #expect(CargoExamination.providerVariable("my-registry") == "CARGO_REGISTRIES_MY_REGISTRY_CREDENTIAL_PROVIDER")
  }
}

// doctor's reading of Docker's and containers' JSON files (DockerExamination): hostile and
// malformed bytes, other registries' entries, the order containers read the files in.
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct DockerExaminationTests {
  static func file(_ json: String, legacy: Bool = false) throws -> DockerExamination.File {
    try DockerExamination.read(Array(json.utf8), helper: "strivacity", legacy: legacy)
  }

  /// containers' order: the primary file first (REGISTRY_AUTH_FILE, else the runtime
  /// directory's), then the config home's, Docker's, ~/.dockercfg; a relative variable unset.
  @Test func theFilesInContainersOrder() {
    let plain = DockerExamination.files(["HOME": "/h"])
    #expect(plain.docker == "/h/.docker/config.json")
    #expect(plain.containers == ["/h/.config/containers/auth.json", "/h/.docker/config.json", "/h/.dockercfg"])
    let set = DockerExamination.files([
      "HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/1", "XDG_CONFIG_HOME": "/c", "DOCKER_CONFIG": "relative",
    ])
    #expect(
      set.containers == [
        "/run/user/1/containers/auth.json", "/c/containers/auth.json", "/h/.docker/config.json", "/h/.dockercfg",
      ])
    let named = DockerExamination.files(["HOME": "/h", "REGISTRY_AUTH_FILE": "/h/.config/containers/auth.json"])
    #expect(named.containers == ["/h/.config/containers/auth.json", "/h/.docker/config.json", "/h/.dockercfg"])
  }

  @Test func routedRegistriesAndOtherEntries() throws {
    let file = try Self.file(
      #"{"credsStore":"desktop","credHelpers":{"b.example":"strivacity","a.example":"ecr-login","#
        + #""c.example:5000":"strivacity","x":7},"auths":{"https://index.docker.io/v1/":{},"Reg.Example/team":{}}}"#)
    #expect(file.routed == ["b.example", "c.example:5000"])
    #expect(file.helpers == ["a.example": "ecr-login", "b.example": "strivacity", "c.example:5000": "strivacity"])
    #expect(file.saved.map(\.registry) == ["reg.example", "docker.io"])  // by key: "R" before "h"
  }

  @Test(arguments: ["", " \n\t", "{}"]) func blankOrEmptyIsNothing(json: String) throws {
    #expect(try Self.file(json) == DockerExamination.File())
  }

  @Test(arguments: ["[1]", "{", "\u{0}\u{FF}", "\"credHelpers\"", String(repeating: "[", count: 10_000)])
  func malformedIsRefused(json: String) {
    #expect(throws: DockerExamination.Unreadable.notAnObject) { try Self.file(json) }
  }

  @Test func credHelpersThatIsNoObjectIsRefused() {
    #expect(throws: DockerExamination.Unreadable.credHelpersNotAnObject) {
      try Self.file(#"{"credHelpers":["strivacity"]}"#)
    }
  }

  @Test func legacyDockercfgIsAllAuths() throws {
    let file = try Self.file(#"{"registry.example":{"auth":"eA=="},"credHelpers":{"r":"strivacity"}}"#, legacy: true)
    #expect(file.routed.isEmpty && file.saved.map(\.registry) == ["credhelpers", "registry.example"])
  }

  @Test(arguments: [
    ("registry.example", "registry.example"), ("https://Registry.Example:5000/v2/", "registry.example:5000"),
    ("http://registry.example", "registry.example"), ("registry-1.docker.io", "docker.io"), ("", ""),
  ])
  func authKeysNameTheirRegistry(key: String, registry: String) {
    #expect(DockerExamination.registry(ofAuthKey: key) == registry)
  }

  /// containers' order: a saved login, or another helper, in an earlier file shadows ours; the
  /// same file's auths never do (its credHelpers entry is read first); a later file never does.
  @Test func whatShadowsInContainersOrder() throws {
    let ours = try Self.file(#"{"credHelpers":{"reg.example":"strivacity"},"auths":{"reg.example":{}}}"#)
    let login = try Self.file(#"{"auths":{"reg.example/team":{"auth":"eA=="},"other.example":{}}}"#)
    let helper = try Self.file(#"{"credHelpers":{"REG.example":"pass"}}"#)
    let unrelated = try Self.file(#"{"auths":{"other.example":{}}}"#)
    #expect(DockerExamination.shadowing("reg.example", routedIn: 0, files: [ours, login]) == nil)
    #expect(DockerExamination.shadowing("reg.example", routedIn: 2, files: [nil, unrelated, ours]) == nil)
    let saved = try #require(DockerExamination.shadowing("reg.example", routedIn: 2, files: [login, nil, ours]))
    #expect(saved.file == 0 && saved.entry == #"a saved login (auths "reg.example/team")"# && saved.saved)
    let other = try #require(DockerExamination.shadowing("reg.example", routedIn: 1, files: [helper, ours]))
    #expect(other.file == 0 && other.entry == #"credHelpers "REG.example": "pass""# && !other.saved)
    // An earlier file naming strivacity too is ours.
    #expect(DockerExamination.shadowing("reg.example", routedIn: 1, files: [ours, ours]) == nil)
  }
}

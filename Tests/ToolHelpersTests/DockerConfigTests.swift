import StrivacityCore
import Testing
import ToolHelpers

@Suite struct DockerConfigTests {
  let other = #"{"auths":{"old.example":{"auth":"dTpw"}},"credHelpers":{"gcr.io":"gcloud"},"psFormat":"x"}"#

  @Test func setsTheHelperAndKeepsEveryOtherEntry() throws {
    let edited = try #require(try DockerConfig.settingHelper(Array(other.utf8), host: "registry.example"))
    let object = try #require(JSONValue.parse(edited)?.object)
    let helpers = try #require(object["credHelpers"]?.object)
    #expect(helpers["registry.example"] == .string("strivacity"))
    #expect(helpers["gcr.io"] == .string("gcloud"))
    #expect(object["auths"] == JSONValue.parse(Array(#"{"old.example":{"auth":"dTpw"}}"#.utf8)))
    #expect(object["psFormat"] == .string("x"))
    #expect(edited.last == 0x0A)
    // Set already: nothing to write.
    #expect(try DockerConfig.settingHelper(edited, host: "registry.example") == nil)
    #expect(DockerConfig.hosts(edited) == ["registry.example"])
  }

  @Test func aMissingOrBlankFileBecomesTheHelperAlone() throws {
    for bytes in [nil, Array(" \n\t".utf8)] as [[UInt8]?] {
      let edited = try #require(try DockerConfig.settingHelper(bytes, host: "r.example:5000"))
      #expect(DockerConfig.hosts(edited) == ["r.example:5000"])
    }
  }

  @Test func undoRemovesOnlyOurEntryAndEmptiesToBraces() throws {
    let set = try #require(try DockerConfig.settingHelper(Array(other.utf8), host: "registry.example"))
    let undone = try #require(try DockerConfig.removingHelper(set, host: "registry.example"))
    #expect(JSONValue.parse(undone) == JSONValue.parse(Array(other.utf8)))
    // Another helper's entry for the host stays.
    #expect(try DockerConfig.removingHelper(Array(other.utf8), host: "gcr.io") == nil)
    let alone = try #require(try DockerConfig.settingHelper(nil, host: "r.example"))
    #expect(try DockerConfig.removingHelper(alone, host: "r.example") == Array("{}\n".utf8))
  }

  @Test func hostileBytesAreRefusedNotRewritten() {
    let hostile: [[UInt8]] = [
      Array("[1,2]".utf8), Array("{\"credHelpers\":[]}".utf8), Array("{\"a\":".utf8), [0xFF, 0xFE, 0x00],
      Array(repeating: UInt8(ascii: "["), count: 100_000),
    ]
    for bytes in hostile {
      #expect(throws: DockerConfig.Refusal.self) { try DockerConfig.settingHelper(bytes, host: "r.example") }
    }
    #expect(
      DockerConfig.Refusal.helpersNotAnObject.sentence("/h/.docker/config.json")
        == "/h/.docker/config.json: credHelpers is not a JSON object: left as it is")
  }
}

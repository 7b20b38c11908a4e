// `exec --file-env`'s file, written through TokenRenderer: the access token alone, without a
// line break, replaced whole; emptied when the token expires unrenewed.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import SystemIO
import Testing

@Suite struct ExecTokenFileTests {
  @Test func theFileHoldsTheBareAccessTokenThenNothing() throws {
    let dir = try ScratchDirectory("execfile")
    let file = try TokenFile.create(environment: ["XDG_RUNTIME_DIR": dir.path])
    defer { file.remove() }
    #expect(file.path.hasPrefix(dir.path + "/strivacity/exec/"))
    let tokens = TokenSet(
      accessToken: "eyJ0.a-b_c~d+e/f==", scope: "openid", expiresAt: 1_795_363_532, obtainedAt: 1_795_359_932)
    try file.write(tokens)
    #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == Data("eyJ0.a-b_c~d+e/f==".utf8))
    let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    try file.write(nil)
    #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)).isEmpty)
    file.remove()
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }
}

// `exec --file-env`'s file, written through TokenRenderer: the access token alone, without a
// line break, replaced whole; emptied when the token expires unrenewed. Its place: the runtime
// directory, or a 0700 directory of the user's named by --dir (CI runners, containers).
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

  /// Without XDG_RUNTIME_DIR the refusal names --dir; --dir takes a 0700 directory of this
  /// user's, and refuses one that is missing, open or a link.
  @Test func withoutARuntimeDirectoryDirNamesThePlace() throws {
    #expect {
      try TokenFile.create(environment: ["HOME": "/nonexistent"])
    } throws: { error in
      let message = (error as? ExecFailure)?.message ?? ""
      return message.contains("XDG_RUNTIME_DIR is not set") && message.contains("--dir DIR")
        && (error as? ExecFailure)?.status == 2
    }
    let dir = try ScratchDirectory("execdir")
    let chosen = dir.file("tokens")
    mkdir(chosen, 0o700)
    let file = try TokenFile.create(environment: [:], directory: chosen)
    #expect(file.path.hasPrefix(chosen + "/") && file.path.hasSuffix(".token"))
    mkdir(dir.file("open"), 0o700)
    chmod(dir.file("open"), 0o755)
    symlink(chosen, dir.file("link"))
    for (name, fault) in [
      ("missing", "No such file or directory"), ("open", "its mode is 755, not private (700)"),
      ("link", "it is a symbolic link"),
    ] {
      #expect {
        try TokenFile.create(environment: [:], directory: dir.file(name))
      } throws: { error in
        ((error as? ExecFailure)?.message ?? "").hasPrefix("--dir \(dir.file(name)) cannot hold a token file: \(fault)")
      }
    }
  }
}

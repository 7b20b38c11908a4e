// EditedFile (issue 46): a config file strivacity edits is opened once, read through the
// descriptor it was checked on and replaced in the directory it was read from. The user's own
// links are followed and stay links; a link another user owns or could swap, a FIFO (without
// blocking), a directory and another user's file are refused; a name swapped between the read and
// the write is not written through. The tests run as root: "another user" is uid 65534.
import Foundation
import Glibc
import StrivacityTestSupport
import SystemIO
import Testing

@Suite struct EditedFileTests {
  static let other: uid_t = 65534

  func refusal(_ path: String) -> EditRefusal? {
    do {
      _ = try EditedFile.open(path)
      return nil
    } catch {
      return error
    }
  }

  func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  func mode(_ path: String) -> UInt32 {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
  }

  func isLink(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
  }

  @Test func theUsersLinksAreFollowedAndStayLinksTheModeAndOtherBytesKept() throws {
    let dir = try ScratchDirectory()
    let real = try dir.write("dotfiles/docker/config.json", "{\"auths\":{}}\n", mode: 0o640)
    // A chain: a link to a linked directory, one relative and one absolute.
    #expect(symlink("dotfiles/docker", dir.file("docker-dir")) == 0)
    #expect(mkdir(dir.file("home"), 0o700) == 0)
    #expect(symlink(dir.file("docker-dir"), dir.file("home/.docker")) == 0)
    let path = dir.file("home/.docker/config.json")
    let file = try EditedFile.open(path)
    #expect(file.bytes == Array("{\"auths\":{}}\n".utf8))
    #expect(file.permissions == 0o640)
    try file.replace(with: Array("{\"auths\":{},\"credHelpers\":{}}\n".utf8), mode: file.permissions ?? 0o600)
    #expect(try contents(real) == "{\"auths\":{},\"credHelpers\":{}}\n")
    #expect(mode(real) == 0o640)
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dir.file("home/.docker"))) != nil)
    #expect(dir.listing().filter { $0.contains(".tmp-") }.isEmpty, "no temporary left")
    // A second replace of the same opening goes to the same file.
    try file.replace(with: Array("{}\n".utf8), mode: 0o600)
    #expect(try contents(real) == "{}\n" && mode(real) == 0o600)
    // The same file by two spellings is the same; another is not.
    #expect(try EditedFile.open(real).isSame(as: try EditedFile.open(path)))
    #expect(!(try EditedFile.open(real).isSame(as: try EditedFile.open(dir.file("dotfiles/other")))))
  }

  @Test func aMissingFileIsCreatedWhereThePathLeadsItsDirectoriesPrivate() throws {
    let dir = try ScratchDirectory()
    let created = try EditedFile.open(dir.file("a/b/config.toml"))
    #expect(created.bytes == nil && created.permissions == nil)
    try created.replace(with: Array("x = 1\n".utf8), mode: 0o644)
    #expect(try contents(dir.file("a/b/config.toml")) == "x = 1\n")
    #expect(mode(dir.file("a")) == 0o700 && mode(dir.file("a/b")) == 0o700)
    #expect(mode(dir.file("a/b/config.toml")) == 0o644)
    // A dangling link of the user's: the file is made where it points, and the link stays.
    #expect(mkdir(dir.file("dotfiles"), 0o700) == 0)
    #expect(symlink(dir.file("dotfiles/terraformrc"), dir.file("terraformrc")) == 0)
    let dangling = try EditedFile.open(dir.file("terraformrc"))
    #expect(dangling.bytes == nil)
    try dangling.replace(with: Array("a = 1\n".utf8), mode: 0o600)
    #expect(try contents(dir.file("dotfiles/terraformrc")) == "a = 1\n")
    #expect(isLink(dir.file("terraformrc")), "still a link")
  }

  @Test func linksAnotherUserOwnsOrCouldSwapAreRefused() throws {
    let dir = try ScratchDirectory()
    let victim = try dir.write("victim", "mine\n", mode: 0o600)
    // The other user's link, in a directory of the user's.
    #expect(symlink(victim, dir.file("theirs")) == 0 && lchown(dir.file("theirs"), Self.other, Self.other) == 0)
    #expect(refusal(dir.file("theirs")) == .othersLink(at: dir.file("theirs"), owner: 65534))
    // … as a directory on the way.
    #expect(symlink(dir.path, dir.file("theirs-dir")) == 0)
    #expect(lchown(dir.file("theirs-dir"), Self.other, Self.other) == 0)
    #expect(refusal(dir.file("theirs-dir/victim")) == .othersLink(at: dir.file("theirs-dir"), owner: 65534))
    // The user's own link in a directory everyone writes (as /tmp), sticky or not.
    for shared in ["sticky", "open"] {
      #expect(mkdir(dir.file(shared), 0o777) == 0 && chmod(dir.file(shared), shared == "sticky" ? 0o1777 : 0o777) == 0)
      let link = dir.file(shared + "/config.json")
      #expect(symlink(victim, link) == 0)
      #expect(refusal(link) == .linkInSharedDirectory(at: link))
    }
    // The user's own link in another user's directory.
    #expect(mkdir(dir.file("their-dir"), 0o755) == 0 && chown(dir.file("their-dir"), Self.other, Self.other) == 0)
    #expect(symlink(victim, dir.file("their-dir/config.json")) == 0)
    #expect(
      refusal(dir.file("their-dir/config.json"))
        == .linkInOthersDirectory(at: dir.file("their-dir/config.json"), owner: 65534))
    // A loop.
    #expect(symlink("loop-b", dir.file("loop-a")) == 0 && symlink("loop-a", dir.file("loop-b")) == 0)
    #expect(refusal(dir.file("loop-a")) == .tooManyLinks)
    #expect(try contents(victim) == "mine\n")
  }

  @Test func whatIsNotARegularFileOfTheUsersIsNotRead() throws {
    let dir = try ScratchDirectory()
    // A FIFO: refused at once, never opened (opening it for reading would wait for a writer).
    #expect(mkfifo(dir.file("fifo"), 0o600) == 0)
    #expect(refusal(dir.file("fifo")) == .notRegularFile(at: dir.file("fifo"), kind: "a FIFO"))
    #expect(symlink(dir.file("fifo"), dir.file("to-fifo")) == 0)
    #expect(refusal(dir.file("to-fifo")) == .notRegularFile(at: dir.file("fifo"), kind: "a FIFO"))
    #expect(mkdir(dir.file("sub"), 0o700) == 0)
    #expect(refusal(dir.file("sub")) == .notRegularFile(at: dir.file("sub"), kind: "a directory"))
    #expect(refusal("/dev/null") == .notRegularFile(at: "/dev/null", kind: "a device"))
    let theirs = try dir.write("theirs.json", "{}", mode: 0o644)
    #expect(chown(theirs, Self.other, Self.other) == 0)
    #expect(refusal(theirs) == .othersFile(at: theirs, owner: 65534))
    let big = try dir.write("big", String(repeating: "x", count: 1_048_577))
    #expect(refusal(big) == .tooLarge(at: big, size: 1_048_577))
    let message = EditRefusal.othersFile(at: theirs, owner: 65534).detail(for: theirs)
    #expect(message == "it is owned by uid 65534, not by this user")
  }

  @Test func aNameSwappedBetweenTheReadAndTheWriteIsNotWrittenThrough() throws {
    let dir = try ScratchDirectory()
    let victim = try dir.write("victim", "mine\n", mode: 0o600)
    let config = try dir.write("cfg/config.json", "{}\n")
    let file = try EditedFile.open(config)
    // The name now a link to the victim: refused, neither written.
    #expect(unlink(config) == 0 && symlink(victim, config) == 0)
    #expect(throws: EditRefusal.changed(at: config)) { try file.replace(with: Array("{\"x\":1}\n".utf8), mode: 0o600) }
    #expect(try contents(victim) == "mine\n")
    #expect(isLink(config), "the link left as it is")
    // A file missing when read and there when written.
    let missing = try EditedFile.open(dir.file("cfg/new.json"))
    try dir.write("cfg/new.json", "someone's\n")
    #expect(throws: EditRefusal.changed(at: dir.file("cfg/new.json"))) {
      try missing.replace(with: Array("{}\n".utf8), mode: 0o600)
    }
    #expect(try contents(dir.file("cfg/new.json")) == "someone's\n")
    // A directory link on the way swapped: the file is replaced where it was read, not where the
    // link leads now.
    try dir.write("first/config.json", "first\n")
    try dir.write("second/config.json", "second\n")
    #expect(symlink(dir.file("first"), dir.file("current")) == 0)
    let through = try EditedFile.open(dir.file("current/config.json"))
    #expect(unlink(dir.file("current")) == 0 && symlink(dir.file("second"), dir.file("current")) == 0)
    try through.replace(with: Array("edited\n".utf8), mode: 0o600)
    #expect(try contents(dir.file("first/config.json")) == "edited\n")
    #expect(try contents(dir.file("second/config.json")) == "second\n")
  }
}

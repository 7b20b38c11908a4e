// A machine profile's token files where the kernel refuses keyrings (MachineTokenFiles): where
// they go, what they hold, and what is no entry (another tenant's or client's, expired, open to
// others, a link). ContainerTests runs the binaries under a filter that refuses keyctl.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import SystemIO
import Testing
import TokenCache

@Suite struct MachineTokenFilesTests {
  let key = StoreKey(profile: "ci", issuer: "https://t.example/", clientID: "bot")
  let now: Int64 = 1_900_000_000
  var tokens: TokenSet { TokenSet(accessToken: "at-1", scope: "orders:read", expiresAt: now + 600, obtainedAt: now) }

  func mode(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
  }

  @Test func aPrivateRuntimeDirectoryElseTheStateDirectory() throws {
    let dir = try ScratchDirectory("machinefiles")
    let runtime = dir.file("run")
    mkdir(runtime, 0o700)
    let base = ["HOME": dir.path, "XDG_RUNTIME_DIR": runtime]
    let inRuntime = MachineTokenFiles(environment: base)
    #expect(inRuntime.directory == runtime + "/strivacity/machine-tokens" && inRuntime.inRuntimeDirectory)
    chmod(runtime, 0o755)
    let open = MachineTokenFiles(environment: base)
    #expect(open.directory == dir.path + "/.local/state/strivacity/machine-tokens" && !open.inRuntimeDirectory)
    #expect(MachineTokenFiles(environment: ["HOME": dir.path]) == open)
  }

  @Test func keptPrivatelyAndReadBackOnlyForTheirEntry() throws {
    let dir = try ScratchDirectory("machinefiles")
    let files = MachineTokenFiles(environment: ["HOME": dir.path])
    #expect(files.get(key, now: now) == nil)
    let oldMask = umask(0o022)
    defer { umask(oldMask) }
    try files.put(tokens, for: key, now: now)
    #expect(mode(files.path(for: key)) == 0o600 && mode(files.directory) == 0o700)
    #expect(files.get(key, now: now) == tokens)
    // Another tenant's or client's entry under the same profile name is none; so is one expired.
    #expect(files.get(StoreKey(profile: "ci", issuer: "https://t.example/", clientID: "other"), now: now) == nil)
    #expect(files.get(key, now: now + 600) == nil)
    // A slot of its own beside the sign-in's; another profile whose name starts alike is not its.
    let api = key.with(slot: try #require(TokenSlot(apiName: "orders")))
    try files.put(tokens, for: api, now: now)
    try files.put(tokens, for: StoreKey(profile: "ci-2", issuer: key.issuer, clientID: "bot"), now: now)
    #expect(files.path(for: api) == files.directory + "/ci+orders.token")
    #expect(files.slots(of: "ci") == [.signIn, TokenSlot(apiName: "orders")])
    files.drop(api)
    #expect(files.slots(of: "ci") == [.signIn])
    // A set without an expiry (or expired) is not kept: the file goes.
    try files.put(TokenSet(accessToken: "at-2", obtainedAt: now), for: key, now: now)
    #expect(!FileManager.default.fileExists(atPath: files.path(for: key)))
  }

  @Test func filesOthersCouldReadOrLinksAreNoEntryAndOpenDirectoriesAreRefused() throws {
    let dir = try ScratchDirectory("machinefiles")
    let files = MachineTokenFiles(environment: ["HOME": dir.path])
    try files.put(tokens, for: key, now: now)
    chmod(files.path(for: key), 0o644)
    #expect(files.get(key, now: now) == nil)
    chmod(files.path(for: key), 0o600)
    let elsewhere = dir.file("elsewhere.token")
    try FileManager.default.moveItem(atPath: files.path(for: key), toPath: elsewhere)
    symlink(elsewhere, files.path(for: key))
    #expect(files.get(key, now: now) == nil)
    // Our own directory made wider is made private again; a link in its place is refused.
    chmod(files.directory, 0o755)
    try files.prepare()
    #expect(mode(files.directory) == 0o700)
    try FileManager.default.removeItem(atPath: files.directory)
    mkdir(dir.file("other"), 0o700)
    symlink(dir.file("other"), files.directory)
    #expect(throws: FileError.self) { try files.put(tokens, for: key, now: now) }
    #expect((try? FileManager.default.contentsOfDirectory(atPath: dir.file("other"))) == [])
  }
}

// The small `strivacity` and the full command line behind it (Sources/Launcher): where the full
// one is looked for, what a user sees when it is missing, and that the hand-over keeps argv[0]
// and what was already read from stdin. (What the small binary answers by itself, from the
// access-token cache, is in EndToEndTests/TokenCacheTests.)
import Foundation
import StrivacityTestSupport
import Testing

@Suite struct LauncherTests {
  /// A copy of `strivacity` in DIR/bin, with strivacity-cli (a link to the built one) at
  /// DIR/`place`, or nowhere.
  func installed(_ place: String?) throws -> (dir: ScratchDirectory, bin: String) {
    let dir = try ScratchDirectory("launcher")
    let bin = dir.file("bin/strivacity")
    try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: TestEnvironment.binary("strivacity"), toPath: bin)
    if let place {
      let target = dir.file(place)
      try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: TestEnvironment.binary("strivacity-cli"))
    }
    return (dir, bin)
  }

  func environment(_ dir: ScratchDirectory) -> [String: String] {
    ["HOME": dir.path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
  }

  /// Beside it (build trees), ../libexec/strivacity (Debian, RPM, make install), ../lib/strivacity (Arch).
  @Test(arguments: ["bin/strivacity-cli", "libexec/strivacity/strivacity-cli", "lib/strivacity/strivacity-cli"])
  func theFullCommandLineIsFound(place: String) throws {
    let (dir, bin) = try installed(place)
    let version = try run([bin, "--version"], environment: environment(dir))
    #expect(version.status == 0, "\(version.stderr)")
    #expect(version.stdout == (try run([TestEnvironment.binary("strivacity-cli"), "--version"], environment: environment(dir))).stdout)
  }

  @Test func aMissingFullCommandLineIsOneLineSayingSo() throws {
    let (dir, bin) = try installed(nil)
    let result = try run([bin, "status"], environment: environment(dir))
    expectOneLineError(result, status: 1, containing: "strivacity-cli is missing (looked for \(dir.path)/bin/strivacity-cli, ")
    #expect(result.stderr.contains("reinstall strivacity"))
  }

  /// git's request is read by the small binary first; when it hands over, the full command line
  /// reads the very same bytes (here a malformed request, which only the full one reports), and
  /// still knows it was called as git-credential-strivacity.
  @Test func theHandOverKeepsStdinAndTheHelperName() throws {
    let (dir, _) = try installed("libexec/strivacity/strivacity-cli")
    let link = dir.file("elsewhere/git-credential-strivacity")
    try FileManager.default.createDirectory(atPath: dir.file("elsewhere"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dir.file("bin/strivacity"))
    let request = "protocol=https\nhost=git.example.com\n" + String(repeating: "x", count: 100_000) + "\n"
    let result = try run([link, "get"], environment: environment(dir), stdin: request)
    #expect(result.status == 0)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr == "strivacity: error: git credential: credential request line 3 is not key=value\n")
  }

  /// A request for a host that no profile lists gets no answer (git asks its next helper),
  /// with or without the full command line.
  @Test func aHostOfNoProfileGetsNothing() throws {
    for place in [nil, "libexec/strivacity/strivacity-cli"] {
      let (dir, bin) = try installed(place)
      _ = try dir.write(".config/strivacity/config.toml", "[profiles.work]\ntenant = \"https://w.example\"\nclient_id = \"c\"\ngit_hosts = [\"git.example.com\"]\n")
      let result = try run([bin, "credential", "get"], environment: environment(dir), stdin: "protocol=https\nhost=other.example\n")
      #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(result.stderr)")
    }
  }
}

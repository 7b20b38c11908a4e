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
    try copyExecutable(TestEnvironment.binary("strivacity"), to: bin)
    if let place {
      let target = dir.file(place)
      try FileManager.default.createDirectory(
        atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: target, withDestinationPath: TestEnvironment.binary("strivacity-cli"))
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
    #expect(
      version.stdout
        == (try run([TestEnvironment.binary("strivacity-cli"), "--version"], environment: environment(dir))).stdout)
  }

  @Test func aMissingFullCommandLineIsOneLineSayingSo() throws {
    let (dir, bin) = try installed(nil)
    let result = try run([bin, "status"], environment: environment(dir))
    expectOneLineError(
      result, status: 1, containing: "strivacity-cli is missing (looked for \(dir.path)/bin/strivacity-cli, ")
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

  /// Where memfd_create is refused (some sandboxes' seccomp filters; here an LD_PRELOAD'ed
  /// memfd_create that fails with ENOSYS, as the real call would), the hand-over carries stdin on
  /// a pipe: a request that fits the pipe's buffer reaches the full command line whole; a larger
  /// one is one line saying why, never a partial request.
  @Test func withoutMemfdStdinIsHandedOverOnAPipe() throws {
    let (dir, _) = try installed("libexec/strivacity/strivacity-cli")
    let source = try dir.write(
      "nomemfd.c",
      "#include <errno.h>\nint memfd_create(const char *name, unsigned flags) { (void)name; (void)flags; errno = "
        + "ENOSYS; return -1; }\n"
    )
    let library = dir.file("nomemfd.so")
    let compiled = try run(["/usr/bin/cc", "-shared", "-fPIC", "-o", library, source], environment: environment(dir))
    try #require(compiled.status == 0, "\(compiled.stderr)")
    var env = environment(dir)
    env["LD_PRELOAD"] = library
    let small = "protocol=https\nhost=git.example.com\n" + String(repeating: "x", count: 30_000) + "\n"
    let fits = try run([dir.file("bin/strivacity"), "credential", "get"], environment: env, stdin: small)
    #expect(fits.status == 0 && fits.stdout.isEmpty)
    #expect(
      fits.stderr == "strivacity: error: git credential: credential request line 3 is not key=value\n",
      "the full command line read it whole")
    let large = "protocol=https\nhost=git.example.com\n" + String(repeating: "x", count: 100_000) + "\n"
    let refused = try run([dir.file("bin/strivacity"), "credential", "get"], environment: env, stdin: large)
    expectOneLineError(refused, status: 1, containing: "memfd_create: Function not implemented")
  }

  /// Where a place holds something that cannot run, the next place is tried; only when none
  /// runs is the refusal reported.
  @Test func aPlaceThatCannotRunIsPassedOver() throws {
    let (dir, bin) = try installed("lib/strivacity/strivacity-cli")
    _ = try dir.write("bin/strivacity-cli", "not a program\n", mode: 0o644)  // EACCES
    _ = try dir.write("libexec/strivacity", "a file, not a directory\n")  // ENOTDIR
    #expect(try run([bin, "--version"], environment: environment(dir)).status == 0)
    try FileManager.default.removeItem(atPath: dir.file("lib/strivacity/strivacity-cli"))
    let refused = try run([bin, "--version"], environment: environment(dir))
    expectOneLineError(refused, status: 1, containing: "cannot run \(dir.path)/bin/strivacity-cli: Permission denied")
  }

  /// A request for a host that no profile lists gets no answer (git asks its next helper): the
  /// small binary answers it as the full command line does. A config with something to say
  /// about it goes to the full command line, which says it.
  @Test func aHostOfNoProfileGetsWhatTheFullCommandLineGives() throws {
    let request = "protocol=https\nhost=other.example\n"
    let profile = StrivacityConfig.profile(
      "work", tenant: "https://w.example", clientID: "c", "git_hosts = [\"git.example.com\"]\n")
    for config in [nil, profile, "colour = \"always\"\n" + profile] {
      let (alone, bin) = try installed(nil)
      if let config { _ = try alone.writeConfig(config) }
      let small = try run([bin, "credential", "get"], environment: environment(alone), stdin: request)
      let full = try run(
        [TestEnvironment.binary("strivacity-cli"), "credential", "get"], environment: environment(alone), stdin: request
      )
      #expect(full.status == 0 && full.stdout.isEmpty, "\(full.stderr)")
      if config?.hasPrefix("colour") == true {
        #expect(full.stderr.contains("unknown key 'colour' ignored"))
        #expect(small.stderr.contains("strivacity-cli is missing"), "handed over: \(small.stderr)")
      } else {
        #expect(
          small.status == full.status && small.stdout == full.stdout && small.stderr == full.stderr
            && full.stderr.isEmpty)
      }
    }
  }
}

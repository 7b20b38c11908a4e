// The tools' config files that setup commands edit, where another local user can reach the path
// (a variable pointing into a directory everyone writes, as /tmp): issue 46. A link of theirs, a
// link anyone could swap and a FIFO are refused in one line before anything is written, and no
// file of the user's is written over through a link swapped while it was read.
import Foundation
import Glibc
import StrivacityTestSupport
import Testing

@Suite struct EditedConfigFileTests {
  /// Another user's uid (nobody's), which the tests (run as root) give the links they plant.
  static let other: uid_t = 65534

  /// A directory everyone may write, sticky, as /tmp.
  func sharedDirectory(_ h: Harness) throws -> String {
    let shared = h.home.file("tmp")
    #expect(mkdir(shared, 0o777) == 0 && chmod(shared, 0o1777) == 0)
    return shared
  }

  /// Makes `path` a link to `target` owned by the other user.
  func plantLink(_ path: String, to target: String) {
    #expect(symlink(target, path) == 0 && lchown(path, Self.other, Self.other) == 0, "\(path)")
  }

  /// The swap the issue shows: the other user's link leads to their FIFO; once strivacity opens
  /// it they point the link at the user's file and feed the FIFO JSON. Without the fix the user's
  /// file was written over with those bytes and strivacity's entry.
  @Test func aLinkSwappedDuringTheReadWritesNothingOfTheUsers() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile(signIn: false)
    let keys = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOurOwn me@laptop\n"
    let victim = try h.home.write(".ssh/authorized_keys", keys, mode: 0o600)
    let shared = try sharedDirectory(h)
    let theirs = shared + "/docker"  // DOCKER_CONFIG, made before the user ran anything
    #expect(mkdir(theirs, 0o755) == 0 && chown(theirs, Self.other, Self.other) == 0)
    let fifo = shared + "/feed"
    #expect(mkfifo(fifo, 0o644) == 0 && chown(fifo, Self.other, Self.other) == 0)
    let link = theirs + "/config.json"
    plantLink(link, to: fifo)
    let attacker = Attacker(fifo: fifo, link: link, victim: victim)
    let thread = Thread { attacker.run() }
    thread.start()
    var env = h.environment
    env["DOCKER_CONFIG"] = theirs
    let setup = try run(
      [
        TestEnvironment.binary("strivacity"), "setup-docker", "--profile", h.profile, "--registry",
        "registry.example.com",
      ],
      environment: env, timeout: 20)
    attacker.stop()
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == keys, "the user's file is as it was")
    #expect(setup.status == 2, "\(setup.stderr)")
    let lines = setup.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains(link) && lines[0].contains("uid 65534"), "\(setup.stderr)")
    #expect(!attacker.fed, "the FIFO was never opened")
    #expect(try FileManager.default.contentsOfDirectory(atPath: theirs) == ["config.json"], "nothing written there")
  }

  /// setup-docker, setup-cargo and setup-terraform, each pointed at a link another user planted
  /// (in a directory everyone writes, or in one of theirs) to a file of the user's: refused,
  /// naming the path and why, and the file untouched. A FIFO of the user's own does not block.
  @Test func linksOthersCouldPlantAndFIFOsAreRefusedBeforeAnythingIsWritten() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile(signIn: false)
    let victim = try h.home.write(".hushlogin", "", mode: 0o644)  // empty: JSON, TOML and HCL alike
    let shared = try sharedDirectory(h)
    let cargoHome = shared + "/cargo"
    #expect(mkdir(cargoHome, 0o755) == 0 && chown(cargoHome, Self.other, Self.other) == 0)
    plantLink(cargoHome + "/config.toml", to: victim)
    plantLink(shared + "/terraformrc", to: victim)
    plantLink(shared + "/auth.json", to: victim)
    let ownFIFO = h.home.file("fifo.json")
    #expect(mkfifo(ownFIFO, 0o600) == 0)
    let ownLinkInShared = shared + "/mine.json"
    #expect(symlink(victim, ownLinkInShared) == 0)
    let binary = TestEnvironment.binary("strivacity")
    let cases: [(variables: [String: String], command: [String], said: String)] = [
      (["CARGO_HOME": cargoHome], ["setup-cargo", "--registry", "internal"], "uid 65534"),
      (["TF_CLI_CONFIG_FILE": shared + "/terraformrc"], ["setup-terraform", "registry.example.com"], "uid 65534"),
      (["REGISTRY_AUTH_FILE": shared + "/auth.json"], ["setup-docker", "--registry", "registry.example.com"], "uid"),
      (["REGISTRY_AUTH_FILE": ownFIFO], ["setup-docker", "--registry", "registry.example.com"], "FIFO"),
      (
        ["REGISTRY_AUTH_FILE": ownLinkInShared], ["setup-docker", "--registry", "registry.example.com"],
        "others can write"
      ),
    ]
    for (variables, command, said) in cases {
      let env = h.environment.merging(variables) { _, new in new }
      let refused = try run([binary] + command + ["--profile", h.profile], environment: env, timeout: 20)
      let lines = refused.stderr.split(separator: "\n")
      #expect(refused.status == 2, "\(command[0]): \(refused.stderr)")
      #expect(lines.count == 1 && lines[0].contains(said), "\(command[0]): \(refused.stderr)")
      #expect(try String(contentsOfFile: victim, encoding: .utf8) == "", "\(command[0]) wrote the user's file")
    }
    #expect(!FileManager.default.fileExists(atPath: h.home.file(".docker/config.json")), "nothing written")
    #expect(!FileManager.default.fileExists(atPath: h.home.file(".terraform.d")), "no plugin link made")
  }

  /// strivacity's own config file (setup-docker --api adds an API to it) is edited the same way:
  /// a link of the user's into a dotfiles checkout is written through and stays a link, its mode
  /// kept. setup-gcloud's file too: another user's link in a directory everyone writes is refused.
  @Test func strivacitysOwnConfigAndSetupGcloudsFileAreOpenedTheSameWay() throws {
    let h = try Harness(journey: "password")
    try h.registryProfile(signIn: false)
    let dotfiles = h.home.file("dotfiles/strivacity.toml")
    try FileManager.default.createDirectory(atPath: h.home.file("dotfiles"), withIntermediateDirectories: true)
    #expect(rename(h.home.configPath, dotfiles) == 0 && chmod(dotfiles, 0o600) == 0)
    #expect(symlink(dotfiles, h.home.configPath) == 0)
    let added = try h.strivacity([
      "setup-docker", "--profile", h.profile, "--registry", "localhost:5000", "--api", "local",
    ])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(try String(contentsOfFile: dotfiles, encoding: .utf8).contains("[profiles.\(h.profile).apis.local]"))
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: h.home.configPath)) == dotfiles)
    #expect((try FileManager.default.attributesOfItem(atPath: dotfiles)[.posixPermissions] as? Int) == 0o600)

    let victim = try h.home.write("gcloud.json", "{\"mine\":true}\n", mode: 0o600)
    let shared = try sharedDirectory(h)
    plantLink(shared + "/gcloud.json", to: victim)
    let refused = try h.strivacity([
      "setup-gcloud", "--profile", h.profile, "--api", "registry", "--force", "--audience",
      "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/ci/providers/strivacity",
      "--output", shared + "/gcloud.json",
    ])
    #expect(refused.status == 2 && refused.stderr.contains("uid 65534"), "\(refused.stderr)")
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "{\"mine\":true}\n")
  }
}

/// The other user of the swap: waits for a reader of the FIFO (a writer's non-blocking open
/// succeeds only then), points the link at the victim's file and writes JSON into the FIFO.
private final class Attacker: @unchecked Sendable {
  let fifo: String
  let link: String
  let victim: String
  private let lock = NSLock()
  private var stopped = false
  private var opened = false

  init(fifo: String, link: String, victim: String) {
    self.fifo = fifo
    self.link = link
    self.victim = victim
  }

  /// Whether strivacity opened the FIFO and was fed.
  var fed: Bool { lock.withLock { opened } }

  func stop() { lock.withLock { stopped = true } }

  func run() {
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline && !lock.withLock({ stopped }) {
      let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
      guard fd >= 0 else {
        usleep(5000)
        continue
      }
      lock.withLock { opened = true }
      unlink(link)
      symlink(victim, link)
      lchown(link, 65534, 65534)
      let bytes = Array(#"{"attacker":"their bytes"}"#.utf8)
      _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
      return
    }
  }
}

// A machine's client secret in the environment of `strivacity exec` (or of any call the small
// binary hands on) reaches the full command line on a socket, never in an environment that the
// user's other processes can read before it has made itself undumpable (issue 37, point 1). A
// scanner — COMMAND itself, or a process beside the calls — reads every /proc/PID/environ and
// cmdline it can, as fast as it can, looking for the secret.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

extension ExecTests {
  /// `python3 -c scanner SECONDS`: scans /proc for the bytes of $NEEDLE_FILE for SECONDS, in the
  /// processes of this test only (their environment has $SCAN_MARK; other tests run beside it
  /// with the same secret); prints how many renewals of profile $P (`strivacity-cli token`) it
  /// saw, its rounds, and each hit with the program it was in (/proc/PID/exe).
  /// What the scanners share: `read(path)` (b"" when it cannot be read) and `program(pid)`, the
  /// file name of /proc/PID/exe ("?" when it cannot be read).
  static let procfs = """
    import os
    def read(path):
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError:
            return b""
    def program(pid):
        try:
            return os.path.basename(os.readlink("/proc/%s/exe" % pid))
        except OSError:
            return "?"

    """

  static let scanner =
    procfs + """
      import sys, time
      needle = open(os.environ["NEEDLE_FILE"], "rb").read()
      mark = ("SCAN_MARK=" + os.environ["SCAN_MARK"]).encode()
      renewal = b"strivacity-cli\\0token\\0--profile\\0" + os.environ["P"].encode() + b"\\0"
      deadline = time.time() + float(sys.argv[1])
      hits, renewals, rounds = set(), set(), 0
      while time.time() < deadline:
          rounds += 1
          for pid in os.listdir("/proc"):
              if not pid.isdigit() or int(pid) == os.getpid():
                  continue
              before = program(pid)
              command = read("/proc/%s/cmdline" % pid)
              if renewal in command:
                  renewals.add(pid)
              environment = read("/proc/%s/environ" % pid)
              # A process that called execve between the reads (the small binary handing on): which
              # image the environment was read from is unknown, so this look counts for neither.
              if program(pid) != before:
                  continue
              if needle in command and mark in environment:
                  hits.add(pid + " cmdline " + before)
              if needle in environment and mark in environment:
                  hits.add(pid + " environ " + before)
      print("renewals", len(renewals))
      print("rounds", rounds)
      for hit in sorted(hits):
          print("found", hit)
      """

  /// The secret in a file the scanner reads (the scanner's own environment names only the file).
  func needle(_ h: Harness) throws -> String {
    let path = h.home.file("needle")
    try MachineProfileTests.basicSecret.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// COMMAND scans /proc for 10 s while its 2-s tokens are renewed: the token cached, the small
  /// binary hands the run on with the secret (on a socket, before COMMAND exists), and the full
  /// command line renews in its own process: no renewal process runs, and the tenant sees the
  /// renewals. The secret is in no environment or command line COMMAND can read.
  @Test func commandNeverSeesTheSecretInARenewal() throws {
    let (h, base) = try machine(ttl: 2)
    var environment = base
    environment["NEEDLE_FILE"] = try needle(h)
    environment["SCANNER"] = Self.scanner
    environment["SCAN_MARK"] = UUID().uuidString
    let result = try sh(
      """
      "$STRIVACITY_BIN" token --profile "$P" >/dev/null || exit 99
      exec "$STRIVACITY_BIN" exec --profile "$P" --file-env TOKEN_FILE -- python3 -c "$SCANNER" 10
      """, environment, timeout: 90)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    let renewals = lines.first { $0.hasPrefix("renewals ") }.flatMap { Int($0.dropFirst(9)) } ?? -1
    #expect(renewals == 0, "the scanner saw \(renewals) renewal processes: \(lines)")
    #expect(try h.grants("client_credentials") >= 5)
    // (The shell that started it had the secret, as a CI job's shell does: not strivacity's.)
    let found = lines.filter { $0.hasPrefix("found ") && !$0.hasSuffix(" sh") && !$0.hasSuffix(" dash") }
    #expect(found.isEmpty, "\(found)")
    #expect(!result.stderr.contains(MachineProfileTests.basicSecret))
  }

  /// Calls the small binary hands on (the access-token cache off: each one is the full command
  /// line's) while a scanner runs beside them: the secret is in no environment it can read.
  @Test func aHandedOnCallCarriesTheSecretInNoEnvironment() throws {
    let (h, base) = try machine()
    var environment = base
    environment["NEEDLE_FILE"] = try needle(h)
    environment["SCANNER"] = Self.scanner
    environment["STRIVACITY_TOKEN_CACHE"] = "off"
    environment["SCAN_MARK"] = UUID().uuidString
    let result = try sh(
      """
      python3 -c "$SCANNER" 6 >"$NEEDLE_FILE.out" &
      scanner=$!
      sleep 0.3
      for i in $(seq 20); do "$STRIVACITY_BIN" token --profile "$P" >/dev/null || echo "token failed"; done
      wait $scanner
      cat "$NEEDLE_FILE.out"
      """, environment, timeout: 90)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(!lines.contains("token failed"), "\(result.stderr)")
    #expect(lines.contains { $0.hasPrefix("rounds ") }, "\(lines)")
    // The caller's shell, and the small binary it starts, hold the secret the caller gave them
    // until it takes it out: the full command line they hand on to never does.
    let found = lines.filter { $0.hasPrefix("found ") && $0.hasSuffix(" strivacity-cli") }
    #expect(found.isEmpty, "\(found)")
    #expect(try h.grants("client_credentials") == 20)
  }
}

// No process that holds a machine's client secret is open to COMMAND (issue 46, point 1). The
// secret in `strivacity exec`'s environment is withheld from COMMAND; a renewal of the kept-fresh
// file that started while COMMAND ran would be an ordinary process of the user's from its execve
// until it made itself undumpable, and COMMAND could take the secret out of it (pidfd_getfd(2)
// on the descriptor it arrives on, or PTRACE_SEIZE and read its memory once it has read it).
// COMMAND here is such an attacker, run as an unprivileged user (root may inspect anything):
// through many renewals it tries every process of its uid, every way, and finds nothing.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

extension ExecTests {
  /// `python3 -c attacker SECONDS`, as COMMAND: for SECONDS, on every other process of its uid,
  /// reads /proc/PID/environ and cmdline, duplicates each of its descriptors with pidfd_getfd
  /// and peeks into the sockets, seizes it with PTRACE_SEIZE and, for each process seized,
  /// opens /proc/PID/mem while it may and reads its writable memory every round after. Looks
  /// for the bytes of $NEEDLE_FILE. Prints the renewals seen (distinct tokens in $TOKEN_FILE),
  /// the programs seized, its rounds, and each hit.
  static let attacker =
    procfs + """
      import ctypes, socket, sys, time
      libc = ctypes.CDLL(None, use_errno=True)
      libc.syscall.restype = ctypes.c_long
      libc.ptrace.restype = ctypes.c_long
      libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
      SYS_pidfd_open, SYS_pidfd_getfd, PTRACE_SEIZE = 434, 438, 0x4206
      needle = open(os.environ["NEEDLE_FILE"], "rb").read()
      me, mine = os.getuid(), os.getpid()
      deadline = time.time() + float(sys.argv[1])
      hits, seized, tokens, memory, rounds = set(), {}, set(), {}, 0
      def look(pid, how, data):
          if needle in data:
              hits.add("%d %s %s" % (pid, how, program(pid)))
      def writable(pid):
          regions = []
          for line in read("/proc/%d/maps" % pid).decode(errors="replace").splitlines():
              fields = line.split()
              if len(fields) >= 2 and fields[1].startswith("rw"):
                  start, end = (int(x, 16) for x in fields[0].split("-"))
                  if end - start <= 256 << 20:
                      regions.append((start, end))
          return regions
      while time.time() < deadline:
          rounds += 1
          token = read(os.environ["TOKEN_FILE"])
          if token:
              tokens.add(token)
          for name in os.listdir("/proc"):
              if not name.isdigit() or int(name) == mine:
                  continue
              pid = int(name)
              try:
                  if os.stat("/proc/%d" % pid).st_uid != me:
                      continue  # another user's, or undumpable (its /proc entry is then root's)
              except OSError:
                  continue
              look(pid, "cmdline", read("/proc/%d/cmdline" % pid))
              look(pid, "environ", read("/proc/%d/environ" % pid))
              if pid not in seized and libc.ptrace(PTRACE_SEIZE, pid, None, None) == 0:
                  seized[pid] = program(pid)
                  try:
                      memory[pid] = (os.open("/proc/%d/mem" % pid, os.O_RDONLY), writable(pid))
                  except OSError:
                      pass
              pidfd = libc.syscall(SYS_pidfd_open, pid, 0)
              if pidfd < 0:
                  continue
              try:
                  descriptors = os.listdir("/proc/%d/fd" % pid)
              except OSError:
                  descriptors = []
              for fd in descriptors:
                  copy = libc.syscall(SYS_pidfd_getfd, pidfd, int(fd), 0)
                  if copy < 0:
                      continue
                  try:
                      s = socket.socket(fileno=copy)
                      try:
                          look(pid, "fd " + fd, s.recv(65536, socket.MSG_PEEK | socket.MSG_DONTWAIT))
                      except OSError:
                          pass
                      s.detach()
                  except OSError:
                      pass
                  os.close(copy)
              os.close(pidfd)
          for pid, (fd, regions) in list(memory.items()):
              alive = False
              for start, end in regions:
                  try:
                      look(pid, "memory", os.pread(fd, end - start, start))
                      alive = True
                  except OSError:
                      pass
              if not alive:
                  os.close(fd)
                  del memory[pid]
      print("renewals", max(0, len(tokens) - 1))
      print("rounds", rounds)
      for pid in sorted(seized):
          print("seized", pid, seized[pid])
      for hit in sorted(hits):
          print("found", hit)
      """

  /// COMMAND, an unprivileged user's attacker, runs for 10 s while 2-s tokens are renewed in its
  /// kept-fresh file (the token cached first, so the small binary would have run it): it sees
  /// the renewals, can seize no strivacity process, and finds the secret nowhere.
  @Test func commandCannotInspectWhatRenewsItsFile() throws {
    let (h, base) = try machine(ttl: 2)
    let user: uid_t = 65534
    // The attacker's user runs strivacity too: its own copies of the binaries, its home.
    let bin = h.home.file("bin")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    for name in ["strivacity", "strivacity-cli"] {
      try copyExecutable(TestEnvironment.binary(name), to: "\(bin)/\(name)")
    }
    var environment = base
    environment["NEEDLE_FILE"] = try needle(h)
    environment["ATTACKER"] = Self.attacker
    environment["STRIVACITY_BIN"] = "\(bin)/strivacity"
    let result = try sh(
      """
      chown -R \(user):\(user) "$HOME" || exit 98
      as_user() { setpriv --reuid=\(user) --regid=\(user) --clear-groups -- "$@"; }
      as_user "$STRIVACITY_BIN" token --profile "$P" >/dev/null || exit 99
      as_user "$STRIVACITY_BIN" exec --profile "$P" --file-env TOKEN_FILE -- python3 -c "$ATTACKER" 10
      """, environment, timeout: 90)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    let renewals = lines.first { $0.hasPrefix("renewals ") }.flatMap { Int($0.dropFirst(9)) } ?? 0
    #expect(renewals >= 3, "\(lines)")
    #expect(lines.contains { $0.hasPrefix("rounds ") }, "\(lines)")
    let seized = lines.filter { $0.hasPrefix("seized ") && $0.contains("strivacity") }
    #expect(seized.isEmpty, "\(seized)")
    let found = lines.filter { $0.hasPrefix("found ") }
    #expect(found.isEmpty, "\(found)")
    #expect(!result.stderr.contains(MachineProfileTests.basicSecret))
  }
}

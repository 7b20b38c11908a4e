// A throw-away corporate network for the proxy and CA tests (issue 29): a private network and
// mount namespace (its own loopback, its own /etc/hosts) in which the tenant is served over TLS
// under a name with a CA the test makes, behind a proxy with Basic authentication (Debian's
// tinyproxy) and an intercepting TLS proxy with its own CA (Debian's mitmproxy). A name and a
// namespace, not a loopback literal: strivacity never proxies loopback addresses, and a name is
// what a real tenant has. Any program runs in it through `inside(_:)`.
//
// The tenant itself (the emulator) listens on the host's loopback, which the namespace cannot
// reach; a unix socket in the scratch directory (the file system is shared) bridges the two:
// socat inside (TLS on tenant.corp.test:8443 → the socket), socat outside (the socket → the
// emulator's port).
//
// Everything lives in one scratch directory and stops with `stop()` (by PID, each daemon's
// process group). Should the test process die first, the namespace's holder sees its stdin close,
// kills the daemons it was told of (pids) and removes the directory, so nothing outlives the tests.
import Foundation
import Glibc

public final class CorporateNetwork: @unchecked Sendable {
  public static let tenantHost = "tenant.corp.test"
  public static let proxyHost = "proxy.corp.test"
  public static let tenantPort = 8443
  /// tinyproxy with Basic authentication.
  public static let proxyPort = 3128
  /// tinyproxy behind TLS (socat), with a certificate from a CA of its own: an https:// proxy.
  public static let tlsProxyPort = 3443
  /// mitmdump, regular (forward) mode, intercepting TLS with its own CA.
  public static let mitmPort = 3130
  /// A listener that accepts connections and never answers (a proxy that hangs).
  public static let silentPort = 3131
  /// A port nobody listens on in the namespace.
  public static let deadPort = 3999
  /// The tenant's origin as clients inside write it (the emulator's `publicURL`).
  public static let tenantOrigin = "https://\(tenantHost):\(tenantPort)"

  /// The versions the tests are written against (a newer one may log or answer otherwise: read
  /// its changelog, then move the pin).
  public static let pinned = ["tinyproxy": "1.11.1-2.1+deb12u1", "mitmproxy": "8.1.1-2"]

  public let dir: ScratchDirectory
  public let proxyUser = "corp-user"
  /// Random per network, so a test can look for it in everything strivacity prints.
  public let proxyPassword = "pw-" + UUID().uuidString.prefix(13).lowercased()
  /// The CA that signs the tenant's certificate (PEM), and a hashed directory of it.
  public var ca: String { dir.file("ca.pem") }
  public var caDirectory: String { dir.file("certs") }
  /// The CA that signs the https:// proxy's certificate (not the tenant's).
  public var proxyCA: String { dir.file("proxy-ca.pem") }
  /// mitmproxy's CA (made by mitmdump in its confdir when it starts).
  public var mitmCA: String { dir.file("mitmproxy/mitmproxy-ca-cert.pem") }
  public var proxyLog: String { dir.file("tinyproxy.log") }
  public var mitmLog: String { dir.file("mitmdump.log") }
  /// `http://proxy.corp.test:3128` with or without the credentials.
  public var proxyURL: String { "http://\(Self.proxyHost):\(Self.proxyPort)" }
  public var proxyURLWithCredentials: String {
    "http://\(proxyUser):\(proxyPassword)@\(Self.proxyHost):\(Self.proxyPort)"
  }
  public var mitmURL: String { "http://\(Self.proxyHost):\(Self.mitmPort)" }
  /// The same tinyproxy over TLS.
  public var tlsProxyURL: String { "https://\(Self.proxyHost):\(Self.tlsProxyPort)" }

  /// The namespace's holder (a shell waiting on its stdin), and our end of that stdin.
  private var holder: pid_t = 0
  private var holderInput: Int32 = -1
  private var daemons: [pid_t] = []

  /// Makes the CA and the namespace and starts every daemon, the tenant forwarded to
  /// 127.0.0.1:`emulatorPort` on the host. Throws (with what to do) when a tool is missing, a
  /// version differs from the pin, or the namespace cannot be made.
  public init(forwardingTo emulatorPort: Int) throws {
    dir = try ScratchDirectory("corpnet")
    do {
      try Self.checkTools()
      try makeCertificates()
      try startNamespace()
      try startDaemons(emulatorPort: emulatorPort)
    } catch {
      stop()
      throw error
    }
  }

  deinit { stop() }

  /// `argv` run inside the namespace (its network, its /etc/hosts); environment as given.
  public func inside(_ argv: [String]) -> [String] {
    ["/usr/bin/nsenter", "-t", String(holder), "-n", "-m", "--"] + argv
  }

  /// How many times tinyproxy's log shows a CONNECT to the tenant (each is one tunnel).
  public func proxyConnects() -> Int {
    let log = (try? String(contentsOfFile: proxyLog, encoding: .utf8)) ?? ""
    return log.components(separatedBy: "CONNECT \(Self.tenantHost):\(Self.tenantPort) ").count - 1
  }

  /// Stops every daemon (its process group) and the namespace; safe to call twice.
  public func stop() {
    // The holder's list first: it must not kill groups whose PIDs we reap (and may be reused).
    try? Data().write(to: URL(fileURLWithPath: dir.file("pids")))
    for pid in daemons.reversed() {
      kill(-pid, SIGKILL)
      kill(pid, SIGKILL)
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
    daemons = []
    if holderInput >= 0 {
      close(holderInput)
      holderInput = -1
    }
    if holder > 0 {
      kill(holder, SIGKILL)
      var status: Int32 = 0
      while waitpid(holder, &status, 0) < 0 && errno == EINTR {}
      holder = 0
    }
  }

  // MARK: setting up

  static func checkTools() throws {
    for tool in ["/usr/bin/unshare", "/usr/bin/nsenter", "/usr/sbin/ip", "/usr/bin/socat", "/usr/bin/openssl"]
    where !FileManager.default.isExecutableFile(atPath: tool) {
      throw TestFailure("corporate network: \(tool) is missing (make deps installs what the tests need)")
    }
    for (package, version) in pinned.sorted(by: { $0.key < $1.key }) {
      let query = try run(
        ["/usr/bin/dpkg-query", "-W", "-f=${Version}", package], environment: ["PATH": "/usr/bin:/bin"])
      guard query.status == 0, !query.stdout.isEmpty else {
        throw TestFailure(
          "corporate network: \(package) is not installed (apt-get install \(package)=\(version); make deps does it)")
      }
      guard query.stdout == version else {
        throw TestFailure(
          "corporate network: \(package) \(query.stdout) is installed, the tests are pinned to \(version) "
            + "(read its changelog, then change the pin in Tests/Support/CorporateNetwork.swift)")
      }
    }
  }

  /// The tenant's CA and certificate, the https:// proxy's (from a CA of its own), and the
  /// namespace's hosts file (both names on its loopback).
  private func makeCertificates() throws {
    let tenantCA = try TestCA("Corp Network Test CA", in: dir)
    try tenantCA.issue("tenant", host: Self.tenantHost)
    try tenantCA.hashedDirectory()
    try TestCA("Corp Proxy Test CA", name: "proxy-ca", in: dir).issue("proxy", host: Self.proxyHost)
    try dir.write("hosts", "127.0.0.1 localhost \(Self.tenantHost) \(Self.proxyHost)\n::1 localhost\n", mode: 0o644)
    try dir.write("pids", "", mode: 0o644)
  }

  /// The holder: unshare's new namespaces, loopback up, the scratch hosts file over /etc/hosts
  /// (in the private mount namespace only), then it waits for its stdin to close. (dash's kill
  /// takes a process group as `-SIG -PGID`; `--` is a bad number to it.)
  private func startNamespace() throws {
    let script = """
      ip link set lo up || exit 1
      mount --bind "$1" /etc/hosts || exit 1
      echo ready
      cat >/dev/null
      for pid in $(cat "$2" 2>/dev/null); do kill -KILL "-$pid" 2>/dev/null; done
      case "$3" in */strivacity-corpnet-*) rm -rf "$3" ;; esac
      """
    var fds: [Int32] = [0, 0]
    guard closeOnExecPipe(&fds) == 0 else { throw TestFailure("pipe failed") }
    defer { close(fds[0]) }
    holderInput = fds[1]
    holder = try spawn(
      [
        "/usr/bin/unshare", "-n", "-m", "/bin/sh", "-c", script, "sh", dir.file("hosts"), dir.file("pids"), dir.path,
      ],
      stdin: fds[0], output: dir.file("holder.log"))
    let ready = try waitUntil(timeout: 10, every: 0.01) {
      let log = (try? String(contentsOfFile: dir.file("holder.log"), encoding: .utf8)) ?? ""
      if log.contains("ready") { return true }
      var status: Int32 = 0
      if waitpid(holder, &status, WNOHANG) == holder {
        holder = 0
        throw TestFailure(
          "corporate network: cannot make a private network and mount namespace (unshare -n -m needs root or "
            + "CAP_SYS_ADMIN; the tests do not run without it): \(log.trimmingCharacters(in: .whitespacesAndNewlines))")
      }
      return false
    }
    guard ready else { throw TestFailure("corporate network: no namespace in 10 s") }
  }

  private func startDaemons(emulatorPort: Int) throws {
    let bridge = dir.file("tenant.sock")
    // Outside: the socket to the emulator's port.
    try daemon(
      ["/usr/bin/socat", "UNIX-LISTEN:\(bridge),fork,mode=600", "TCP:127.0.0.1:\(emulatorPort)"], log: "bridge.log")
    try daemon(
      inside([
        "/usr/bin/socat",
        "OPENSSL-LISTEN:\(Self.tenantPort),bind=127.0.0.1,reuseaddr,fork,verify=0,"
          + "cert=\(dir.file("tenant.pem")),key=\(dir.file("tenant.key"))",
        "UNIX-CONNECT:\(bridge)",
      ]), log: "tenant-front.log")
    // tinyproxy: no ConnectPort lines, so CONNECT to 8443 is allowed.
    try dir.write(
      "tinyproxy.conf",
      """
      Port \(Self.proxyPort)
      Listen 127.0.0.1
      Timeout 30
      MaxClients 50
      LogFile "\(proxyLog)"
      LogLevel Connect
      PidFile "\(dir.file("tinyproxy.pid"))"
      BasicAuth \(proxyUser) \(proxyPassword)

      """)
    try daemon(inside(["/usr/bin/tinyproxy", "-d", "-c", dir.file("tinyproxy.conf")]), log: "tinyproxy.out")
    try daemon(
      inside([
        "/usr/bin/socat",
        "OPENSSL-LISTEN:\(Self.tlsProxyPort),bind=127.0.0.1,reuseaddr,fork,verify=0,"
          + "cert=\(dir.file("proxy.pem")),key=\(dir.file("proxy.key"))",
        "TCP:127.0.0.1:\(Self.proxyPort)",
      ]), log: "proxy-front.log")
    try daemon(
      inside([
        "/usr/bin/mitmdump", "--mode", "regular", "--listen-host", "127.0.0.1", "--listen-port", String(Self.mitmPort),
        "--set", "confdir=\(dir.file("mitmproxy"))", "--set", "ssl_verify_upstream_trusted_ca=\(ca)",
      ]), log: "mitmdump.log")
    // Reads what it is sent and never answers.
    try daemon(
      inside([
        "/usr/bin/socat", "TCP-LISTEN:\(Self.silentPort),bind=127.0.0.1,reuseaddr,fork", "EXEC:/bin/sleep 3600",
      ]), log: "silent.log")
    try waitForListeners([Self.tenantPort, Self.proxyPort, Self.tlsProxyPort, Self.mitmPort, Self.silentPort])
    guard FileManager.default.fileExists(atPath: bridge) else {
      throw TestFailure("corporate network: the bridge socket \(bridge) did not appear")
    }
    guard waitUntil(timeout: 20, { FileManager.default.fileExists(atPath: mitmCA) }) else {
      throw TestFailure("mitmdump made no CA in \(mitmCA)")
    }
  }

  /// Waits (20 s at most: mitmdump, a Python program, starts slowly on a busy machine) until
  /// each port listens on the namespace's loopback, read from its /proc/PID/net/tcp.
  private func waitForListeners(_ ports: [Int]) throws {
    var missing = ports
    let allListen = try waitUntil(timeout: 20) {
      let table = (try? String(contentsOfFile: "/proc/\(holder)/net/tcp", encoding: .utf8)) ?? ""
      let listening = Set(
        table.split(separator: "\n").dropFirst().compactMap { line -> Int? in
          let fields = line.split(separator: " ")
          guard fields.count > 3, fields[3] == "0A" else { return nil }  // TCP_LISTEN
          return fields[1].split(separator: ":").last.flatMap { Int($0, radix: 16) }
        })
      missing = ports.filter { !listening.contains($0) }
      if missing.isEmpty { return true }
      for pid in daemons {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
          daemons.removeAll { $0 == pid }
          throw TestFailure("corporate network: a daemon (pid \(pid)) exited: see \(dir.path)/*.log\n" + logs())
        }
      }
      return false
    }
    guard allListen else { throw TestFailure("corporate network: nothing listens on \(missing) after 20 s\n" + logs()) }
  }

  /// The daemons' own logs, for a failure's message.
  private func logs() -> String {
    ["tenant-front.log", "bridge.log", "tinyproxy.out", "proxy-front.log", "mitmdump.log", "silent.log"].map { name in
      "--- \(name)\n" + ((try? String(contentsOfFile: dir.file(name), encoding: .utf8)) ?? "")
    }.joined(separator: "\n")
  }

  /// Starts a daemon in its own session (stdout and stderr to `log` in the scratch directory) and
  /// tells the holder of it.
  private func daemon(_ argv: [String], log: String) throws {
    let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
    defer { close(null) }
    let pid = try spawn(argv, stdin: null, output: dir.file(log))
    daemons.append(pid)
    if let handle = FileHandle(forWritingAtPath: dir.file("pids")) {
      handle.seekToEndOfFile()
      handle.write(Data("\(pid)\n".utf8))
      handle.closeFile()
    }
  }

  /// posix_spawn with the tests' attributes (default signals, its own session), HOME and TMPDIR
  /// in the scratch directory so nothing is written elsewhere.
  private func spawn(_ argv: [String], stdin: Int32, output: String) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdin, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let environment = [
      "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": dir.path, "TMPDIR": dir.path, "LANG": "C.UTF-8",
    ]
    return try spawnProcess(argv, environment: environment, actions: &actions)
  }
}

// --tls-cert/--tls-key: the tenant over https. The emulator's own server speaks plain http on
// loopback (LoopbackHTTP has no TLS, and a test tenant needs none of its own); Debian's socat,
// its OpenSSL listener, serves TLS on the port asked for and forwards each connection to it.
// socat runs under a shell that waits on a pipe from us: when the emulator exits, however it
// exits (a SIGKILL too), the pipe closes and the shell ends socat's whole process group.
import ArgumentParser
import Foundation
import Glibc

/// The certificate and key files, both given or neither, each readable.
struct TLSFiles {
  let cert: String
  let key: String

  /// nil when neither flag is given.
  init?(cert: String?, key: String?) throws {
    switch (cert, key) {
    case (nil, nil): return nil
    case (.some, nil): throw ValidationError("--tls-cert needs --tls-key (the certificate's private key)")
    case (nil, .some): throw ValidationError("--tls-key needs --tls-cert (the certificate it goes with)")
    case (.some(let cert), .some(let key)):
      for (flag, path) in [("--tls-cert", cert), ("--tls-key", key)] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
          throw ValidationError("\(flag) \(path): \(String(cString: strerror(errno)))")
        }
        close(fd)
      }
      // socat takes them as address options: no commas or colons that would end the value.
      guard !(cert + key).contains(where: { ",:!".contains($0) }) else {
        throw ValidationError("--tls-cert and --tls-key: a path with ',', ':' or '!' is not supported (socat)")
      }
      self.cert = (cert as NSString).standardizingPath
      self.key = (key as NSString).standardizingPath
    }
  }
}

/// socat serving TLS on 127.0.0.1:`port` in front of the plain `target`.
final class TLSFront {
  static let socat = "/usr/bin/socat"
  private var shell: pid_t = 0
  private var keepAlive: Int32 = -1

  init(_ files: TLSFiles, port: Int, forwardingTo target: Int) throws {
    guard FileManager.default.isExecutableFile(atPath: Self.socat) else {
      throw FrontError("--tls-cert needs socat (\(Self.socat); apt-get install socat)")
    }
    // A listener already there would answer the readiness probe for socat.
    guard !Self.accepts(port) else { throw FrontError("127.0.0.1:\(port) is in use") }
    let listen =
      "OPENSSL-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork,verify=0,cert=\(files.cert),key=\(files.key)"
    // $1..$3: socat and its two addresses (never parsed by the shell). Whichever ends first,
    // socat or our pipe, `kill 0` ends the group (socat's stderr says why it stopped). The pipe
    // goes by fd 3: sh gives a background list /dev/null as its stdin.
    let script =
      "exec 3<&0; \"$1\" \"$2\" \"$3\" </dev/null & s=$!; { cat <&3 >/dev/null; kill -TERM 0; } & "
      + "wait $s; kill -TERM 0"
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw FrontError("pipe: \(String(cString: strerror(errno)))") }
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
    defer { close(fds[0]) }
    keepAlive = fds[1]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
    posix_spawn_file_actions_addclose(&actions, fds[1])
    // Default signals and an empty mask (ours blocks SIGINT and SIGTERM for sigwait), and a
    // session of its own, so `kill 0` reaches socat and its connections only.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc 2.26+)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setsid))
    let argv = ["/bin/sh", "-c", script, "sh", Self.socat, listen, "TCP:127.0.0.1:\(target)"]
    let cArguments = argv.map { strdup($0) } + [nil]
    defer { cArguments.forEach { free($0) } }
    let rc = posix_spawn(&shell, argv[0], &actions, &attributes, cArguments, environ)
    guard rc == 0 else { throw FrontError("cannot start socat: \(String(cString: strerror(rc)))") }
    // Ready when it accepts a connection (each probe is one socat forks for and drops).
    for _ in 0..<250 {
      if Self.accepts(port) { return }
      var status: Int32 = 0
      if waitpid(shell, &status, WNOHANG) == shell {
        shell = 0
        throw FrontError("socat stopped at once (port \(port) taken, or a bad certificate or key)")
      }
      usleep(20_000)
    }
    stop()
    throw FrontError("socat does not listen on 127.0.0.1:\(port) after 5 s")
  }

  /// Closes the pipe (the shell ends socat's group) and waits for the shell.
  func stop() {
    if keepAlive >= 0 {
      close(keepAlive)
      keepAlive = -1
    }
    if shell > 0 {
      var status: Int32 = 0
      while waitpid(shell, &status, 0) < 0 && errno == EINTR {}
      shell = 0
    }
  }

  deinit { stop() }

  struct FrontError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  /// A port on 127.0.0.1 nobody listens on now (bound and released).
  static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw FrontError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  static func accepts(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return address
  }
}

// strivacity-emulator: a local Strivacity tenant for tests, demos and journey authors.
import ArgumentParser
import Emulator
import Foundation
import StrivacityCore

struct EmulatorCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "strivacity-emulator",
    abstract: "Run a local Strivacity tenant (OIDC + Journey-flow API) on 127.0.0.1.",
    discussion: """
      Prints the tenant's issuer URL as the first line on stdout once it accepts
      connections, then serves until SIGINT or SIGTERM. Journeys are JSON files
      (docs/journey-format.md) or the names of the built-in examples.

      At start it lists on stderr what there is to try: users and passwords, the
      passcodes a journey asks for (the step-up one too), the clients (with a
      confidential one's secret), the APIs (audience, scopes, the URL of their
      protected resource here) and the tokens' lifetimes. --access-ttl and
      --refresh-ttl set every client's access and refresh token lifetimes
      (seconds, 1 to 315360000) over the journey's own: --access-ttl 20 shows
      `strivacity exec` renewing a token.

      Test hooks: GET /_emulator/stats, GET /_emulator/info, POST /_emulator/faults,
      DELETE /_emulator/faults, POST /_emulator/expire, POST and DELETE
      /_emulator/hostile (see docs/emulator.md).

      Hostile mode (--hostile) makes the tenant malicious: newline-laden tokens,
      terminal escapes in every text, foreign hosted URLs, catastrophic regexes,
      deeply nested JSON, endpoints on another port... Kinds:
      \(HostileKind.allCases.map(\.rawValue).joined(separator: ", ")).

      --tls-cert and --tls-key serve https (the issuer https://127.0.0.1:PORT/, or
      --public-url): the tenant listens on another loopback port and socat(1)
      (Debian's socat, its OpenSSL listener) serves TLS on --port in front of it,
      stopped with the emulator.

      EXIT STATUS: 0 stopped cleanly or journey valid; 1 invalid journey file;
      2 usage error; 3 cannot listen.
      """,
    version: strivacityVersion)

  @Option(help: ArgumentHelp("A journey file, or a built-in journey's name.", valueName: "file-or-name"))
  var journey = "password"

  @Option(help: "Port on 127.0.0.1 (0 picks a free one).")
  var port = 0

  @Option(
    help: ArgumentHelp("RSA private key (PEM) to sign ID tokens with; default: a fresh key.", valueName: "pem-file"))
  var key: String?

  @Option(
    help: ArgumentHelp(
      "Play a malicious tenant: hostile answers of these kinds, always (docs/emulator.md).", valueName: "kind[,kind...]"
    ))
  var hostile: [String] = []

  @Option(
    name: .customLong("public-url"),
    help: ArgumentHelp(
      "The URL clients reach it at (https://tenant.corp.test:8443 behind a TLS front); its issuer and endpoints.",
      valueName: "url"))
  var publicURL: String?

  @Option(
    name: .customLong("tls-cert"),
    help: ArgumentHelp("Serve https with this certificate (PEM; with --tls-key; needs socat).", valueName: "pem-file"))
  var tlsCert: String?

  @Option(
    name: .customLong("tls-key"),
    help: ArgumentHelp("The certificate's private key (PEM; with --tls-cert).", valueName: "pem-file"))
  var tlsKey: String?

  @Option(
    name: .customLong("access-ttl"),
    help: ArgumentHelp("Every access token lives this long (default: each client's).", valueName: "seconds"))
  var accessTTL: String?

  @Option(
    name: .customLong("refresh-ttl"),
    help: ArgumentHelp("Every refresh token lives this long (default: each client's).", valueName: "seconds"))
  var refreshTTL: String?

  @Flag(help: "Check the journey file, report problems with their JSON paths, and exit.")
  var check = false

  @Flag(help: "List the built-in journeys and exit.")
  var listJourneys = false

  /// --access-ttl and --refresh-ttl, checked.
  func lifetimes() throws -> Lifetimes {
    switch Lifetimes.parse(access: accessTTL, refresh: refreshTTL) {
    case .success(let lifetimes): return lifetimes
    case .failure(let error): throw ValidationError(error.description)
    }
  }

  func validate() throws { _ = try lifetimes() }

  func run() throws {
    if listJourneys {
      // Name and what the journey shows, one line each (the name alone is what --journey takes).
      let names = Journey.builtInNames
      let width = names.map(\.count).max() ?? 0
      for name in names {
        let about = Journey.builtInPath(name).flatMap { try? Journey.load(path: $0).description } ?? ""
        print(name + String(repeating: " ", count: width - name.count) + (about.isEmpty ? "" : "  " + about))
      }
      return
    }
    let path = FileManager.default.fileExists(atPath: journey) ? journey : (Journey.builtInPath(journey) ?? journey)
    let lifetimes = try lifetimes()
    let loaded: Journey
    do {
      loaded = try Journey.load(path: path).with(lifetimes)
    } catch {
      FileHandle.standardError.write(Data("\(error)\n".utf8))
      if check {
        FileHandle.standardError.write(Data("strivacity-emulator: \(error.issues.count) problem(s) in \(path)\n".utf8))
      }
      throw ExitCode(1)
    }
    if check {
      print(
        "\(path): ok (\(loaded.screens.count) screens, \(loaded.users.count) users, \(loaded.clients.count) clients)")
      return
    }
    if let publicURL, !(publicURL.hasPrefix("https://") || publicURL.hasPrefix("http://")) || publicURL.contains("?") {
      throw ValidationError("--public-url must be an http(s) URL without a query")
    }
    let tls = try TLSFiles(cert: tlsCert, key: tlsKey)
    let hostileKinds: Set<HostileKind>
    switch HostileKind.parse(hostile) {
    case .success(let kinds): hostileKinds = kinds
    case .failure(let error): throw ValidationError(error.description)
    }
    var pem: String?
    if let key {
      guard let text = try? String(contentsOfFile: key, encoding: .utf8) else {
        throw ValidationError("cannot read the key file \(key)")
      }
      pem = text
    }
    // Take SIGINT/SIGTERM synchronously on this thread: block them before any thread starts.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    let emulator: Emulator
    var front: TLSFront?
    do {
      if let tls {
        // The tenant on a loopback port of its own, socat's TLS on the one asked for.
        let tlsPort = port == 0 ? try TLSFront.freePort() : port
        emulator = try Emulator(
          journey: loaded, keyPEM: pem, publicURL: publicURL ?? "https://127.0.0.1:\(tlsPort)")
        front = try TLSFront(tls, port: tlsPort, forwardingTo: emulator.port)
      } else {
        emulator = try Emulator(journey: loaded, port: port, keyPEM: pem, publicURL: publicURL)
      }
    } catch {
      FileHandle.standardError.write(Data("strivacity-emulator: \(error)\n".utf8))
      throw ExitCode(3)
    }
    emulator.setHostile(hostileKinds)
    // One line, written whole and unbuffered: whoever starts us waits for it.
    FileHandle.standardOutput.write(Data((emulator.issuer + "\n").utf8))
    // What there is to try, after the line whoever starts us reads.
    var banner = loaded.startupListing(issuer: emulator.issuer).map { $0 + "\n" }.joined()
    if !hostileKinds.isEmpty {
      banner +=
        "strivacity-emulator: HOSTILE: "
        + "\(HostileKind.allCases.filter(hostileKinds.contains).map(\.rawValue).joined(separator: ", "))"
        + " (recording listener \(emulator.hostileListenerURL()))\n"
    }
    FileHandle.standardError.write(Data(banner.utf8))
    var received: Int32 = 0
    sigwait(&signals, &received)
    front?.stop()
    emulator.stop()
    FileHandle.standardError.write(Data("strivacity-emulator: stopped\n".utf8))
  }
}

// Exit statuses as docs/emulator.md documents them: usage errors (ArgumentParser's 64, an
// unknown --hostile kind) are 2.
do {
  var command = try EmulatorCommand.parseAsRoot()
  try command.run()
} catch {
  let code = EmulatorCommand.exitCode(for: error)
  if code.rawValue == ExitCode.validationFailure.rawValue {
    FileHandle.standardError.write(Data((EmulatorCommand.fullMessage(for: error) + "\n").utf8))
    exit(2)
  }
  EmulatorCommand.exit(withError: error)
}

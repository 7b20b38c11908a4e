// The broker at the edges real users live on: access tokens that live seconds, a keyring daemon
// that stops answering, a session bus without a default collection, a machine with no desktop.
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct ResilienceTests {
  /// A tenant whose access tokens live `seconds`.
  func shortLived(_ seconds: Int) throws -> Harness {
    try Harness(journey: "password") { journey in
      for index in journey.clients.indices { journey.clients[index].accessTokenTTL = seconds }
    }
  }

  @Test func aStormOnAThreeSecondTokenMakesOneRefresh() throws {
    let h = try shortLived(3)
    try h.signIn()
    try h.expireStoredAccessToken(in: 0)
    // A slow tenant (2 s per refresh) keeps the storm inside one lifetime however slowly the
    // machine starts 32 processes: each caller has at most the delay plus 2 s to ask.
    try h.control("faults", ["endpoint": "token", "kind": "delay", "delay": 2])
    let results = h.tokenStorm(32)
    #expect(results.count == 32)
    #expect(results.allSatisfy { $0.status == 0 }, "\(results.filter { $0.status != 0 }.map(\.stderr))")
    #expect(
      try h.grants("refresh_token") == 1, "exactly one refresh, although the new token is inside --min-ttl at once")
    #expect(Set(results.map(\.stdout)).count == 1, "every caller prints the same token")
  }

  @Test func sequentialCallsWithinOneShortLifetimeRefreshOnce() throws {
    let h = try shortLived(5)
    try h.signIn()
    try h.expireStoredAccessToken(in: 0)
    var printed = Set<String>()
    for _ in 0..<10 {
      let result = try h.strivacity(["token", "--profile", h.profile])
      #expect(result.status == 0, "\(result.stderr)")
      printed.insert(result.stdout)
    }
    #expect(try h.grants("refresh_token") == 1)
    #expect(printed.count == 1)
    // The same margin for `strivacity curl` (and git), which used to hard-code 60 s.
    let curl = try h.strivacity([
      "curl", "--profile", h.profile, "--", "-sS", "-o", "/dev/null", h.emulator.issuer + "userinfo",
    ])
    #expect(curl.status == 0, "\(curl.stderr)")
    #expect(try h.grants("refresh_token") == 1)
  }

  /// A refresh uses the endpoints kept at sign-in: no discovery request. When the kept token
  /// endpoint is gone (404), discovery is asked again and the refresh goes to the new one.
  @Test func refreshesNeedNoDiscoveryRequest() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    #expect(
      try h.storedSecret()?["tokens"]?["endpoints"]?["token_endpoint"]?.string == h.emulator.issuer + "oauth2/token")
    try h.control("stats/reset", [:])
    for _ in 0..<3 {
      try h.expireStoredAccessToken(in: 5)
      #expect(try h.strivacity(["token", "--profile", h.profile]).status == 0)
    }
    #expect(try h.grants("refresh_token") == 3)
    #expect(try h.stats()["requests"]?["discovery"] == nil, "no discovery request for three refreshes")

    try h.rewriteStored { tokens in
      var endpoints = tokens["endpoints"]?.object ?? [:]
      endpoints["token_endpoint"] = .string(h.emulator.issuer + "oauth2/moved")
      tokens["endpoints"] = .object(endpoints)
    }
    try h.expireStoredAccessToken(in: 5)
    let result = try h.strivacity(["token", "--profile", h.profile])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try h.grants("refresh_token") == 4)
    #expect(try h.stats()["requests"]?["discovery"] == 1)
    #expect(
      try h.storedSecret()?["tokens"]?["endpoints"]?["token_endpoint"]?.string == h.emulator.issuer + "oauth2/token",
      "kept again")

    // Kept endpoints are outside input too: one off the tenant's origin is refused, not used.
    try h.rewriteStored { tokens in
      var endpoints = tokens["endpoints"]?.object ?? [:]
      endpoints["token_endpoint"] = "https://evil.example/token"
      tokens["endpoints"] = .object(endpoints)
    }
    try h.expireStoredAccessToken(in: 5)
    let refused = try h.strivacity(["token", "--profile", h.profile])
    #expect(refused.status == 5, "\(refused.stderr)")
    #expect(
      refused.stderr.contains("refusing the tenant's token endpoint on https://evil.example"), "\(refused.stderr)")
  }

  @Test func envSaysHowLongTheTokenHasLeft() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let now = Int64(Date().timeIntervalSince1970)
    try h.rewriteStored { tokens in
      tokens["obtained_at"] = .number(Double(now - 2_000))
      tokens["expires_at"] = .number(Double(now + 1_000))
    }
    let env = try h.strivacity(["token", "--profile", h.profile, "--format", "env"]).stdout
    let left = env.split(separator: "\n").first { $0.hasPrefix("STRIVACITY_TOKEN_EXPIRES_IN=") }.flatMap {
      Int($0.split(separator: "=")[1])
    }
    #expect((995...1_000).contains(left ?? 0), "\(env)")
  }

  /// A keyring daemon that stops answering (SIGSTOP): a cached access token is still answered
  /// at once; without one, a bounded wait, then exit 6 with the cause and the way out; on a
  /// terminal a word after a second; the stored set untouched.
  @Test func aStalledKeyringFailsWithinTheBound() throws {
    let h = try Harness(journey: "password")
    try h.useOwnKeyring()
    try h.signIn()
    let before = try h.storedSecret()
    let daemon = try h.ownKeyringDaemon()
    kill(daemon, SIGSTOP)
    defer { kill(daemon, SIGCONT) }
    h.extraEnvironment["STRIVACITY_KEYRING_TIMEOUT"] = "2"
    let cached = try h.strivacity(["token", "--profile", h.profile])
    #expect(
      cached.status == 0 && cached.stdout == (before?["tokens"]?["access_token"]?.string ?? "") + "\n",
      "from the token cache: \(cached.stderr)")
    h.dropCachedToken()
    let started = Date()
    let result = try h.strivacity(["token", "--profile", h.profile])
    let took = Date().timeIntervalSince(started)
    #expect(result.status == 6, "\(result.stderr)")
    #expect(took < 15, "bounded by STRIVACITY_KEYRING_TIMEOUT, not GLib's 25 s per call (took \(took) s)")
    #expect(
      result.stderr.hasPrefix(
        "strivacity: error: the keyring did not answer within 2 s (the Secret Service is stalled"), "\(result.stderr)")
    #expect(result.stderr.contains("--store file"))
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(!result.stderr.contains("waiting for the keyring"), "no terminal, no progress line")
    #expect(result.stdout.isEmpty)

    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile], environment: h.environment)
    try tty.expect("strivacity: waiting for the keyring…")
    try tty.expect("the keyring did not answer within 2 s")
    #expect(try tty.wait() == 6)

    kill(daemon, SIGCONT)
    h.extraEnvironment["STRIVACITY_KEYRING_TIMEOUT"] = nil
    #expect(try h.storedSecret() == before, "nothing was lost")
    #expect(try h.strivacity(["token", "--profile", h.profile]).status == 0)
  }

  /// A session bus whose Secret Service has no default collection (gnome-keyring started
  /// without --unlock on a fresh account, no desktop): the message says so for gnome-keyring
  /// (never "seahorse") and gives both ways out; the line it names, run as printed with a
  /// password of one's choosing, creates the login keyring, and the next call finds a keyring
  /// (not signed in yet: exit 3).
  @Test func noDefaultCollectionGivesTheHeadlessChoices() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    let script = """
      gnome-keyring-daemon --daemonize --components=secrets >/dev/null 2>&1
      owner() { gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus --method "$@"; }
      for n in $(seq 100); do
        owner org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets | grep -q true && break; sleep 0.05
      done
      "$STRIVACITY" token --profile "$PROFILE"
      echo "first exit $?"
      bash -c "$RECIPE"
      for n in $(seq 100); do owner org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets | grep -q true && \
        gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets/aliases/default \
          --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Locked 2>/dev/null |
          grep -q false && break; sleep 0.05; done
      "$STRIVACITY" token --profile "$PROFILE"
      echo "second exit $?"
      kill $(owner org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets |
        tr -dc '0-9 ' | awk '{print $2}')
      """
    var environment = h.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = nil
    environment["STRIVACITY"] = TestEnvironment.binary("strivacity")
    environment["PROFILE"] = h.profile
    environment["XDG_DATA_HOME"] = h.home.file("data")
    // Where the daemon's control socket is, for --replace to find it (as in any user session).
    let runtime = h.home.file("runtime")
    try FileManager.default.createDirectory(
      atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    environment["XDG_RUNTIME_DIR"] = runtime
    environment["RECIPE"] = StoreError.unlockRecipe + " >/dev/null"
    environment["PASSWORD"] = "a keyring password"
    let result = try run(
      ["/usr/bin/dbus-run-session", "--", "/bin/bash", "-c", script], environment: environment, timeout: 30)
    #expect(result.stdout.contains("first exit 6"), "\(result.stdout) \(result.stderr)")
    let message =
      result.stderr.split(separator: "\n").first { $0.hasPrefix("strivacity: error:") }.map(String.init) ?? ""
    #expect(
      message.hasPrefix(
        "strivacity: error: gnome-keyring has no default keyring, and no desktop is here to create one"),
      "\(result.stderr)")
    #expect(!message.contains("seahorse"))
    #expect(message.contains("run with --store file"))
    #expect(message.contains(StoreError.unlockRecipe))
    #expect(message.contains("README: Servers and containers"))
    #expect(
      result.stdout.contains("second exit 3"), "a keyring now, and nothing in it: \(result.stdout) \(result.stderr)")
  }

  /// The README's "Servers and containers" recipe, as written, on a machine with no display:
  /// a session bus, an unlocked keyring, a sign-in; and the next session finds the tokens.
  @Test func theServersAndContainersRecipeWorks() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    // The README's recipe, then the daemon it started stopped by its PID (asked of the bus) when
    // the script ends: a daemonized gnome-keyring may outlive its dbus-run-session.
    let recipe = """
      printf '%s' "$KEYRING_PASSWORD" | gnome-keyring-daemon --daemonize --unlock --components=secrets >/dev/null
      pid=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
        --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets |
        sed -n 's/.*uint32 \\([0-9]*\\).*/\\1/p')
      trap '[ -n "$pid" ] && kill "$pid"' EXIT
      """
    var environment = h.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = nil
    environment["DISPLAY"] = nil
    environment["KEYRING_PASSWORD"] = "a keyring password"
    environment["DEMO_PASSWORD"] = "Demo-pass-1"
    environment["XDG_DATA_HOME"] = h.home.file("data")
    let login =
      (h.loginArguments(
        sdk: "web", ["--field", "identifier=demo@example.com", "--field-env", "password=DEMO_PASSWORD"]))
      .map { "'\($0)'" }.joined(separator: " ")
    let first = try run(
      ["/usr/bin/dbus-run-session", "--", "/bin/bash", "-c", recipe + "\n" + login], environment: environment)
    #expect(first.status == 0, "\(first.stderr)")
    let token = "'\(TestEnvironment.binary("strivacity"))' token --profile '\(h.profile)'"
    let second = try run(
      ["/usr/bin/dbus-run-session", "--", "/bin/bash", "-c", recipe + "\n" + token], environment: environment)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(!second.stdout.isEmpty, "the tokens outlived the first session, in the unlocked login keyring")
  }
}

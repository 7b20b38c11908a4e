// `strivacity doctor` (issue 29, point 4), the real binary against the emulator and the test
// session's keyring: all well when signed in; an unreachable tenant (nobody listening, or a
// listener that never answers) said with its fix within 10 s; no config; the report's text (a
// golden, its volatile parts normalised) and JSON keys; planted secrets never in either.
import Foundation
import StrivacityConfig
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct DoctorTests {
  /// The report with what changes from run to run replaced: the profile's name, ports, times,
  /// the scratch home, seconds left.
  static func normalised(_ text: String, _ h: Harness) -> String {
    var text = unwrapped(text).replacingOccurrences(of: h.profile, with: "PROFILE")
    text = text.replacingOccurrences(of: h.home.path, with: "HOME")
    for (pattern, replacement) in [
      (#"127\.0\.0\.1:\d+"#, "127.0.0.1:PORT"), (#"\d+ ms"#, "N ms"), (#"valid for \d+ s"#, "valid for N s"),
      (#"pid \d+"#, "pid N"),
    ] {
      text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
    }
    return text
  }

  /// The report with each detail and fix on one line again: the text wraps them (at 80
  /// columns, off a terminal) under their start; a continuation is a line of spaces then
  /// anything but the fix's arrow, and the wrap broke it at a space.
  static func unwrapped(_ text: String) -> String {
    text.replacingOccurrences(of: #"\n {4,}(?![ →])"#, with: " ", options: .regularExpression)
  }

  @Test func aSignedInProfileIsAllWell() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile("\n" + APITokenTests.ordersAPI.replacingOccurrences(of: "PROFILE", with: h.profile))
    try h.signIn()
    let api = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(api.status == 0, "\(api.stderr)")
    let result = try h.strivacity(["doctor", "--profile", h.profile], environment: ["STRIVACITY_AGENT": "0"])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    #expect(!result.stdout.contains("✘") && !result.stdout.contains("\u{1B}"), "\(result.stdout)")
    // Off a terminal, 80 columns; a long row goes on under its start; only a word longer than a
    // line (the config's path) stands whole past them.
    #expect(
      result.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 || !$0.dropFirst(16).contains(" ") },
      "\(result.stdout)")
    #expect(result.stdout.contains("\n                scopes openid profile offline_access"), "\(result.stdout)")
    let provider = ProcessInfo.processInfo.environment["KEYRING_PROVIDER"] ?? "gnome-keyring"
    guard provider == "gnome-keyring" else { return }
    // The golden: what a person reads, one screen.
    #expect(
      Self.normalised(result.stdout, h) == """
        strivacity doctor: profile PROFILE
        ✔ config        HOME/.config/strivacity/config.toml parses (1 profile)
        ✔ profile       PROFILE: http://127.0.0.1:PORT/, client strivacity-cli, signs in
        ✔ ca            the system's store
        ✔ proxy         direct (no proxy variable)
        ✔ tenant        http://127.0.0.1:PORT answered in N ms (DNS, TCP, plain http on loopback)
        ✔ discovery     issuer http://127.0.0.1:PORT/ matches the tenant URL
        ✔ jwks          1 signing key
        ✔ clock         within 60 s of the tenant's
        ✔ store         gnome-keyring: the keyring 'Login', unlocked; the profile's item is there
        ✔ kernel-cache  the kernel's user keyring takes and returns entries
        - agent         not in use
        ✔ tokens        signed in; access token valid for N s; refresh token held; \
        scopes openid profile offline_access orders:read
        ✔ credentials   the tenant took the refresh token (one refresh; the new tokens are kept; access token \
        valid for N s)
        ✔ api orders    valid for N s; scopes orders:read
        - git           not set up (strivacity setup git --host HOST)
        - kubectl       not set up (strivacity setup kubectl)
        all checks passed

        """, "\(result.stdout)")
  }

  /// After setup git and setup kubectl, their rows say what asks strivacity; before, a warning
  /// with the command that sets it up.
  @Test func gitAndKubectlSetUpAreChecked() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let kubeconfig = h.home.file("kubeconfig")
    let environment = ["KUBECONFIG": kubeconfig, "STRIVACITY_AGENT": "0"]
    let git = try h.strivacity(
      ["setup", "git", "--profile", h.profile, "--host", "git.example.com"], environment: environment)
    #expect(git.status == 0, "\(git.stderr)")
    var result = try h.strivacity(["doctor", "--profile", h.profile], environment: environment)
    #expect(
      result.stdout.contains("✔ git           git asks strivacity for https://git.example.com"), "\(result.stdout)")
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/kubectl") else { return }
    for arguments in [
      ["config", "set-cluster", "c", "--server=https://127.0.0.1:6443"], ["config", "set-context", "x", "--cluster=c"],
      ["config", "use-context", "x"],
    ] {
      #expect(
        try run(["/usr/bin/kubectl"] + arguments, environment: h.environment.merging(environment) { $1 }).status == 0)
    }
    let kubectl = try h.strivacity(["setup", "kubectl", "--profile", h.profile], environment: environment)
    #expect(kubectl.status == 0, "\(kubectl.stderr)")
    result = try h.strivacity(["doctor", "--profile", h.profile], environment: environment)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(
      Self.unwrapped(result.stdout).contains(
        "✔ kubectl       kubeconfig user strivacity-\(h.profile) runs strivacity for this profile"),
      "\(result.stdout)")
    // The user gone (by hand): a warning with the command that writes it again.
    #expect(
      try run(
        ["/usr/bin/kubectl", "config", "delete-user", "strivacity-\(h.profile)"],
        environment: h.environment.merging(environment) { $1 }
      ).status == 0)
    result = try h.strivacity(["doctor", "--profile", h.profile], environment: environment)
    #expect(result.status == 0)
    #expect(
      result.stdout.contains("! kubectl       no kubeconfig user runs strivacity for this profile"), "\(result.stdout)")
    #expect(result.stdout.contains("→ strivacity setup kubectl --profile \(h.profile)"), "\(result.stdout)")
  }

  /// The tenant's clock two minutes behind: a warning with the number, exit 0.
  @Test func clockSkewIsAWarning() throws {
    let h = try Harness(journey: "password", clockBehind: 120)
    try h.signIn()
    let result = try h.strivacity(["doctor", "--profile", h.profile])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("! clock"), "\(result.stdout)")
    #expect(result.stdout.range(of: #"clock is 1[12]\d s ahead of the tenant's"#, options: .regularExpression) != nil)
  }

  @Test func notSignedInIsExitThree() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    let result = try h.strivacity(["doctor", "--profile", h.profile])
    #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("✘ tokens        not signed in"), "\(result.stdout)")
    #expect(result.stdout.contains("→ strivacity login --profile \(h.profile)"), "\(result.stdout)")
  }

  /// A discovery document naming a JWKS on another origin (another port of the same host): doctor
  /// sends nothing there, and its row says why, naming that origin.
  @Test func aJWKSOnAnotherOriginIsNotFetched() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    try h.hostile(["discovery-jwks"])
    let other = String(h.emulator.hostileListenerURL().dropLast())
    let result = try h.strivacity(["doctor", "--profile", h.profile])
    let row = Self.unwrapped(result.stdout).split(separator: "\n").first { $0.contains(" jwks ") } ?? ""
    #expect(row.hasPrefix("! jwks") && row.contains("on \(other), not the tenant's origin"), "\(result.stdout)")
    #expect(row.contains("not fetched"), "\(result.stdout)")
    #expect(try h.stats()["hostile_listener_requests"]?.int ?? 0 == 0, "a request went to \(other)")
  }

  @Test func noConfigIsExitTwo() throws {
    let h = try Harness(journey: "password")
    let result = try h.strivacity(["doctor"])
    #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
    #expect(
      Self.unwrapped(result.stdout).contains(
        "✘ config  no config file at \(h.home.path)/.config/strivacity/config.toml"), "\(result.stdout)")
    #expect(result.stdout.contains("→ create one: strivacity login"), "\(result.stdout)")
    let json = try h.strivacity(["doctor", "--format", "json"])
    #expect(json.status == 2)
    let checks = JSONValue.parse(Array(json.stdout.utf8))?["checks"]?.array ?? []
    #expect(checks.first?["check"] == "config" && checks.first?["outcome"] == "fail", "\(json.stdout)")
  }

  /// Nobody listening, and a listener that takes the connection and never answers: the tenant
  /// row fails with the step and its fix, the other network rows are skipped, exit 4, < 10 s.
  @Test(arguments: ["refused", "silent"])
  func anUnreachableTenantIsSaidQuickly(kind: String) throws {
    let h = try Harness(journey: "password")
    let tenant = try UnreachablePort(kind)
    defer { tenant.close() }
    try h.writeProfile(tenant: "http://127.0.0.1:\(tenant.port)")
    let started = Date()
    let result = try h.strivacity(["doctor", "--profile", h.profile])
    let seconds = Date().timeIntervalSince(started)
    #expect(seconds < 10, "took \(seconds) s")
    #expect(result.status == 4, "\(result.stdout)\(result.stderr)")
    let step = kind == "silent" ? "✘ tenant        time-out: " : "✘ tenant        TCP: "
    #expect(result.stdout.contains(step), "\(result.stdout)")
    #expect(result.stdout.contains("- discovery     skipped: the tenant cannot be reached"), "\(result.stdout)")
    #expect(result.stdout.contains("- jwks") && result.stdout.contains("- clock"), "\(result.stdout)")
    #expect(result.stdout.contains("→ "), "\(result.stdout)")
    // The store and the rest are still checked.
    #expect(result.stdout.contains("✘ tokens        not signed in"), "\(result.stdout)")
  }

  /// The tenant over TLS from the test's own CA: without it, the TLS step fails with the setting
  /// that fixes it (exit 4); with it (curl's variable), the CA row says where it came from.
  @Test func theTLSStepAndTheCAInUse() throws {
    let (h, front) = try CorporateCATests().setUp()
    defer { front.stop() }
    h.extraEnvironment["STRIVACITY_AGENT"] = "0"
    let untrusted = try h.strivacity(["doctor", "--profile", h.profile])
    let untrustedText = Self.unwrapped(untrusted.stdout)
    #expect(untrusted.status == 4, "\(untrusted.stdout)\(untrusted.stderr)")
    #expect(untrustedText.contains("✔ ca            the system's store"), "\(untrusted.stdout)")
    #expect(
      untrustedText.contains(
        "✘ tenant        TLS: the certificate of https://127.0.0.1:\(front.port) is not trusted (its issuer is not"),
      "\(untrusted.stdout)")
    #expect(untrustedText.contains("→ \(CATrust.fix)"), "\(untrusted.stdout)")
    h.extraEnvironment["CURL_CA_BUNDLE"] = front.ca
    let trusted = try h.strivacity(["doctor", "--profile", h.profile])
    let trustedText = Self.unwrapped(trusted.stdout)
    #expect(trusted.status == 0, "\(trusted.stdout)\(trusted.stderr)")
    #expect(
      trustedText.contains("✔ ca            the CA bundle \(front.ca) (from CURL_CA_BUNDLE)"), "\(trusted.stdout)")
    #expect(trustedText.contains("(DNS, TCP, TLS verified against the CA bundle \(front.ca)"), "\(trusted.stdout)")
    #expect(trusted.stdout.contains("✔ discovery") && trusted.stdout.contains("✔ jwks"), "\(trusted.stdout)")
  }

  /// The tenant by name through a proxy with credentials in its URL (from https_proxy): the
  /// proxy row names it, its user and where the password comes from (never the password); a
  /// proxy nobody listens on, or one that never answers, fails the tenant row naming the proxy
  /// and the variable, within 10 s.
  @Test(arguments: ["refused", "silent"])
  func theProxyInUseIsNamedAndItsFailureSaid(kind: String) throws {
    let h = try Harness(journey: "password")
    let proxy = try UnreachablePort(kind)
    defer { proxy.close() }
    let port = proxy.port
    let environment = ["https_proxy": "http://doctor:Pr0xyS3cret@127.0.0.1:\(port)", "STRIVACITY_AGENT": "0"]
    try h.writeProfile(tenant: "https://tenant.corp.test/")
    let started = Date()
    let result = try h.strivacity(["doctor", "--profile", h.profile], environment: environment)
    let text = Self.unwrapped(result.stdout)
    #expect(Date().timeIntervalSince(started) < 10)
    #expect(result.status == 4, "\(result.stdout)\(result.stderr)")
    #expect(
      text.contains(
        "✔ proxy         http://127.0.0.1:\(port) (from https_proxy); user doctor, the password in the proxy's URL"),
      "\(result.stdout)")
    let step = kind == "silent" ? "✘ tenant        proxy time-out: " : "✘ tenant        proxy: cannot reach the proxy "
    #expect(result.stdout.contains(step), "\(result.stdout)")
    #expect(result.stdout.contains("https_proxy"), "\(result.stdout)")
    let json = try h.strivacity(["doctor", "--profile", h.profile, "--format", "json"], environment: environment)
    for output in [result.stdout, result.stderr, json.stdout, json.stderr] { #expect(!output.contains("Pr0xyS3cret")) }
  }

  /// A locked keyring is said (exit 7) and nothing is unlocked or asked, on a terminal too.
  @Test(arguments: KeyringProvider.allCases)
  func aLockedKeyringIsSaidNotUnlocked(_ provider: KeyringProvider) throws {
    let h = try Harness(journey: "password")
    try h.useOwnKeyring(provider)
    try h.signIn()
    try h.lockKeyring()
    let (result, took) = try KeyringProviderTests.timed(h, ["doctor", "--profile", h.profile])
    #expect(result.status == 7, "\(result.stdout)\(result.stderr)")
    #expect(took < KeyringProviderTests.quick, "took \(took) s")
    #expect(result.stdout.contains("✘ store         "), "\(result.stdout)")
    #expect(result.stdout.contains(" is locked"), "\(result.stdout)")
    #expect(result.stdout.contains("→ ") && result.stdout.contains("--store file"), "\(result.stdout)")
    #expect(result.stdout.contains("- tokens        skipped: the store cannot be used"), "\(result.stdout)")
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "doctor", "--profile", h.profile], environment: h.environment)
    #expect(try tty.wait(timeout: KeyringProviderTests.quick) == 7)
    #expect(tty.stdout.contains(" is locked"), "\(tty.stdout)")
    #expect(!tty.transcript.contains("waiting up to") && !tty.transcript.contains("unlock it in"), "\(tty.transcript)")
  }

  /// KeePassXC asking before each new process reads an item: the item is found, not read, and
  /// no dialog is raised (a warning, exit 0).
  @Test func anItemLockedToUsIsNotRead() throws {
    let h = try Harness(journey: "password")
    try h.useOwnKeyring(.keepassxc, confirmAccess: true)
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    try h.signIn()
    let (result, took) = try KeyringProviderTests.timed(h, ["doctor", "--profile", h.profile])
    #expect(took < KeyringProviderTests.quick, "took \(took) s")
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(Self.unwrapped(result.stdout).contains("the profile's item is there"), "\(result.stdout)")
    #expect(result.stdout.contains("! tokens        the keyring keeps the item locked"), "\(result.stdout)")
  }

  /// JSON for a support ticket: stable keys, and no token, refresh token, client secret or
  /// proxy password, though each was there to be found.
  @Test func theJSONReportHoldsNoSecret() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let stored = try #require(try h.storedSecret()?["tokens"])
    let secrets = try [
      #require(stored["access_token"]?.string), #require(stored["refresh_token"]?.string),
      #require(stored["id_token"]?.string), "Pr0xyS3cret",
    ]
    let environment = ["https_proxy": "http://doctor:Pr0xyS3cret@127.0.0.1:9/", "STRIVACITY_AGENT": "0"]
    let result = try h.strivacity(["doctor", "--profile", h.profile, "--format", "json"], environment: environment)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let json = try #require(JSONValue.parse(Array(result.stdout.utf8)))
    #expect(Set(json.object?.keys.map { $0 } ?? []) == ["profile", "exit_status", "checks"])
    #expect(json["profile"]?.string == h.profile && json["exit_status"]?.int == 0)
    let checks = try #require(json["checks"]?.array)
    #expect(
      checks.compactMap { $0["check"]?.string } == [
        "config", "profile", "ca", "proxy", "tenant", "discovery", "jwks", "clock", "store", "kernel-cache", "agent",
        "tokens", "credentials", "git", "kubectl",
      ])
    #expect(checks.allSatisfy { Set(($0.object ?? [:]).keys) == ["check", "outcome", "detail", "fix"] })
    let text = try h.strivacity(["doctor", "--profile", h.profile], environment: environment)
    #expect(
      Self.unwrapped(text.stdout).contains(
        "✔ proxy         http://127.0.0.1:9 (from https_proxy), but not for the tenant: loopback is never proxied"),
      "\(text.stdout)")
    for secret in secrets {
      #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
      #expect(!text.stdout.contains(secret) && !text.stderr.contains(secret))
    }
  }

  /// A machine profile: its credentials' source is checked (the secret read, never shown), its
  /// tokens live in the kernel's keyring.
  @Test func aMachineProfileHasItsOwnRows() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-post", "token_endpoint_auth = \"client_secret_post\"")
    let environment = ["STRIVACITY_CLIENT_SECRET": MachineProfileTests.postSecret, "STRIVACITY_AGENT": "0"]
    let token = try h.strivacity(["token", "--profile", h.profile], environment: environment)
    #expect(token.status == 0, "\(token.stderr)")
    let accessToken = token.stdout.trimmingCharacters(in: .newlines)
    for format in ["text", "json"] {
      let result = try h.strivacity(["doctor", "--profile", h.profile, "--format", format], environment: environment)
      #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
      #expect(!result.stdout.contains(MachineProfileTests.postSecret) && !result.stdout.contains(accessToken))
      #expect(!result.stderr.contains(MachineProfileTests.postSecret))
      if format == "text" {
        let text = Self.unwrapped(result.stdout)
        // Tried: one client-credentials request, its token not kept.
        #expect(
          text.contains(
            "✔ credentials   client secret from STRIVACITY_CLIENT_SECRET (read, not shown): the tenant gave client "
              + "ci-post a token for it (client_secret_post; the token not kept)"), "\(result.stdout)")
        #expect(text.contains("✔ store         the kernel's user keyring"), "\(result.stdout)")
        #expect(text.contains("✔ tokens        access token valid for"), "\(result.stdout)")
      }
    }
    #expect(h.clientCredentialsRequests == 3, "the token request and one by each doctor")
    // Without the secret: the credentials row fails (a configuration error, 2), naming what it
    // looked for, and how to give one.
    let missing = try h.strivacity(["doctor", "--profile", h.profile], environment: ["STRIVACITY_AGENT": "0"])
    #expect(missing.status == 2, "\(missing.stdout)\(missing.stderr)")
    let text = Self.unwrapped(missing.stdout)
    #expect(
      text.contains(
        "✘ credentials   no client secret: STRIVACITY_CLIENT_SECRET is not set and [profiles.\(h.profile)] names no "
          + "client_secret_env or client_secret_file, and the keyring holds none kept by strivacity login"),
      "\(missing.stdout)")
    #expect(
      text.contains("→ strivacity login --profile \(h.profile) --client-secret-stdin, or set "), "\(missing.stdout)")
  }

  /// The acceptance of issue 39's second point: a wrong secret fails the credentials row with the
  /// tenant's error and the fix, and doctor exits with the refused client's status (9); the
  /// secret is never shown.
  @Test func aWrongSecretIsRefusedByTheTenant() throws {
    let h = try Harness(journey: "machine")
    try h.writeMachineProfile(client: "ci-post", "token_endpoint_auth = \"client_secret_post\"")
    let wrong = "wrong-s3cret-value"
    let environment = ["STRIVACITY_CLIENT_SECRET": wrong, "STRIVACITY_AGENT": "0"]
    let result = try h.strivacity(["doctor", "--profile", h.profile], environment: environment)
    #expect(result.status == 9, "\(result.stdout)\(result.stderr)")
    let text = Self.unwrapped(result.stdout)
    #expect(
      text.contains("✘ credentials   the tenant refused the client secret for ci-post (invalid_client"), "\(text)")
    #expect(text.contains("→ set STRIVACITY_CLIENT_SECRET to client ci-post's current secret"), "\(text)")
    #expect(text.contains("1 failed, 0 warnings; exit status 9"), "\(text)")
    let json = try h.strivacity(["doctor", "--profile", h.profile, "--format", "json"], environment: environment)
    #expect(json.status == 9)
    let row = JSONValue.parse(Array(json.stdout.utf8))?["checks"]?.array?.first { $0["check"] == "credentials" }
    #expect(row?["outcome"] == "fail", "\(json.stdout)")
    #expect(row?["detail"]?.string?.contains("(invalid_client") == true, "\(json.stdout)")
    for output in [result.stdout, result.stderr, json.stdout, json.stderr] { #expect(!output.contains(wrong)) }
    #expect(h.clientCredentialsRequests == 2, "one request by each doctor, no retry")
  }
}

/// Where nothing answers, by the tests' `kind`: "silent", a TCP listener that takes connections
/// (the kernel completes the handshake) and never reads or answers, a tenant that hangs;
/// otherwise a port nobody listens on (bound, then closed at once).
final class UnreachablePort: @unchecked Sendable {
  let port: UInt16
  private let fd: Int32?

  init(_ kind: String) throws {
    if kind == "silent" {
      (fd, port) = try Loopback.listen()
    } else {
      (fd, port) = (nil, UInt16(try Loopback.unusedPort()))
    }
  }

  func close() {
    if let fd { _ = Glibc.close(fd) }
  }
}

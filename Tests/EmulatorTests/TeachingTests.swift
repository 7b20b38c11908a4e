// The teaching emulator (issue 39, point 6): what it lists at start (users and passwords, every
// passcode, clients with their secrets, APIs with their protected resources, lifetimes), and
// --access-ttl / --refresh-ttl applied to every token it issues; one run of the real binary.
import CurlTransport
import Foundation
import Glibc
import OAuthCore
import StrivacityCore
import StrivacityTestSupport
import Testing

@testable import Emulator

@Suite struct TeachingTests {
  static let issuer = "http://127.0.0.1:8400/"

  // MARK: the listing

  @Test func theMachineJourneyListsEverythingToTry() throws {
    let lines = try loadJourney("machine").startupListing(issuer: Self.issuer)
    let expected = [
      "journey \"machine\" on http://127.0.0.1:8400/ (Ctrl-C stops)",
      "user demo@example.com / password Demo-pass-1",
      "step-up passcode 123456 (asked when acr_values names mfa and the sign-in had no second factor)",
      "client strivacity-cli: public; authorization_code, refresh_token; "
        + "access tokens 3600 s, refresh tokens 2592000 s, ID tokens 3600 s",
      "client ci-bot / secret 'ci:s3cr%t+ü/ä': client_secret_basic, client_secret_post; "
        + "client_credentials for https://api.example.com/orders (orders:read orders:write); access tokens 300 s",
      "client ci-post / secret ci-post-secret-1: client_secret_post; "
        + "client_credentials for https://api.example.com/orders (orders:read orders:write); access tokens 300 s",
      "client ci-basic / secret ci-basic-secret-1: client_secret_basic; "
        + "client_credentials for https://api.example.com/orders (orders:read orders:write); access tokens 300 s",
      "client ci-jwt: private_key_jwt (keys ci-jwt-rsa, ci-jwt-ec); "
        + "client_credentials for https://api.example.com/orders (orders:read orders:write); access tokens 300 s",
      "API orders: audience https://api.example.com/orders; scopes orders:read orders:write; "
        + "protected resource http://127.0.0.1:8400/resources/orders/; also resource https://api.example.com/orders/",
      "API billing: audience https://api.example.com/billing; scopes billing:read billing:pay; "
        + "protected resource http://127.0.0.1:8400/resources/billing/; "
        + "also resource https://api.example.com/billing/; needs acr mfa",
      "try: strivacity login --profile emulator --tenant http://127.0.0.1:8400/ --client-id strivacity-cli "
        + "(docs/emulator.md, \"Try everything\")",
    ].map { "strivacity-emulator: " + $0 }
    #expect(lines == expected, "\(lines.joined(separator: "\n"))")
  }

  @Test func everyPasscodeAJourneyAsksFor() throws {
    // A user's factors (what `make demo` shows as the demo account), a screen's own code, the
    // activation code of new accounts, a passkey.
    let mfa = try loadJourney("mfa").startupListing(issuer: Self.issuer)
    #expect(
      mfa.contains {
        $0.hasPrefix(
          "strivacity-emulator: user demo@example.com / password Demo-pass-1; "
            + "Email to d***@example.com: passcode 123456;")
      }, "\(mfa)")
    let enroll = try loadJourney("mfa-enroll").startupListing(issuer: Self.issuer)
    #expect(enroll.contains("strivacity-emulator: passcode 246810 on screen mfaEnrollChallenge"), "\(enroll)")
    let activation = try loadJourney("activation").startupListing(issuer: Self.issuer)
    #expect(activation.contains("strivacity-emulator: activation code 111111 for new accounts"), "\(activation)")
    let passkey = try loadJourney("passkey").startupListing(issuer: Self.issuer)
    #expect(
      passkey.contains { $0.hasPrefix("strivacity-emulator: user ") && $0.hasSuffix("; a passkey") }, "\(passkey)")
    for name in Journey.builtInNames {
      let lines = try loadJourney(name).startupListing(issuer: Self.issuer)
      #expect(lines.contains { $0.hasPrefix("strivacity-emulator: step-up passcode 123456 ") }, "\(name)")
    }
  }

  @Test func secretsPasteAsOneShellWordAndTextsAreInert() throws {
    #expect(Journey.shellWord("Demo-pass-1") == "Demo-pass-1")
    #expect(Journey.shellWord("it's a secret") == "'it'\\''s a secret'")
    #expect(Journey.shellWord("") == "''")
    #expect(Journey.shellWord("$HOME;rm") == "'$HOME;rm'")
    var journey = try loadJourney("mfa")
    journey.users[0].factors[0].label = "Email\u{1b}]52;c;aGk=\u{07} to \u{202e}you"
    journey.users[0].password = "pa ss"
    let user = try #require(journey.startupListing(issuer: Self.issuer).first { $0.contains(" user ") })
    #expect(user.contains("/ password 'pa ss'; Email^[]52;c;aGk=^G to <U+202E>you: passcode 123456"), "\(user)")
  }

  // MARK: lifetimes

  @Test(
    arguments: [
      (nil, nil, Lifetimes()),
      ("5", nil, Lifetimes(access: 5)),
      (nil, "60", Lifetimes(refresh: 60)),
      ("1", "315360000", Lifetimes(access: 1, refresh: 315_360_000)),
    ] as [(String?, String?, Lifetimes)])
  func lifetimeOptions(_ access: String?, _ refresh: String?, _ expected: Lifetimes) {
    #expect(Lifetimes.parse(access: access, refresh: refresh) == .success(expected))
  }

  @Test(arguments: [
    ("0", "--access-ttl", "'0'"), ("-5", "--access-ttl", "'-5'"), ("+5", "--access-ttl", "'+5'"),
    ("5.5", "--access-ttl", "'5.5'"), ("five", "--access-ttl", "'five'"), ("", "--access-ttl", "''"),
    (" 5", "--access-ttl", "' 5'"), ("315360001", "--access-ttl", "'315360001'"),
    ("99999999999999999999", "--access-ttl", "'99999999999999999999'"),
  ])
  func badLifetimesAreRefusedNamingTheOption(_ value: String, _ option: String, _ shown: String) {
    let message = "must be a whole number of seconds from 1 to 315360000, not \(shown)"
    #expect(
      Lifetimes.parse(access: value, refresh: nil) == .failure(LifetimeError(description: "--access-ttl " + message)))
    #expect(
      Lifetimes.parse(access: "5", refresh: value) == .failure(LifetimeError(description: "--refresh-ttl " + message)))
  }

  @Test func lifetimesReplaceEveryClientsOwnAndAreListed() throws {
    let machine = try loadJourney("machine")
    let both = machine.with(Lifetimes(access: 5, refresh: 60))
    #expect(both.clients.allSatisfy { $0.accessTokenTTL == 5 && $0.refreshTokenTTL == 60 })
    #expect(both.clients.map(\.idTokenTTL) == machine.clients.map(\.idTokenTTL))
    let accessOnly = machine.with(Lifetimes(access: 5))
    #expect(accessOnly.clients.map(\.refreshTokenTTL) == machine.clients.map(\.refreshTokenTTL))
    #expect(machine.with(Lifetimes()).clients.map(\.accessTokenTTL) == machine.clients.map(\.accessTokenTTL))
    let listing = both.startupListing(issuer: Self.issuer)
    #expect(
      listing.contains {
        $0.hasPrefix("strivacity-emulator: client strivacity-cli:")
          && $0.hasSuffix("access tokens 5 s, refresh tokens 60 s, ID tokens 3600 s")
      }, "\(listing)")
    #expect(
      listing.contains { $0.hasPrefix("strivacity-emulator: client ci-bot ") && $0.hasSuffix("access tokens 5 s") })
  }

  @Test func lifetimesApplyToEveryTokenIssued() throws {
    let emulator = try Emulator(journey: try loadJourney("machine").with(Lifetimes(access: 5, refresh: 60)))
    defer { emulator.stop() }
    // The sign-in's tokens, a refresh, an API's token.
    let (driver, tokens) = try signedIn(
      emulator, scope: "openid profile offline_access orders:read", extra: [("resource", ordersResource)])
    #expect(tokens["expires_in"]?.int == 5)
    let refresh = try driver.parse(
      try driver.post(emulator.issuer + "oauth2/introspect", form: [("token", tokens["refresh_token"]!.string!)]))
    #expect(refresh["exp"]?.int == refresh["iat"]!.int! + 60, "\(refresh)")
    let renewed = try driver.parse(try driver.refresh(tokens["refresh_token"]!.string!))
    #expect(renewed["expires_in"]?.int == 5, "\(renewed)")
    let api = try driver.parse(try driver.refresh(renewed["refresh_token"]!.string!, [("resource", ordersResource)]))
    #expect(api["expires_in"]?.int == 5, "\(api)")
    let jwt = try JWT(compact: try #require(api["access_token"]?.string))
    #expect(jwt.claims["exp"]?.int == jwt.claims["iat"]!.int! + 5)
    // A machine's token.
    let machine = MachineClient(emulator: emulator)
    let credentials = machine.json(
      try machine.token([("client_id", "ci-post"), ("client_secret", MachineClient.postSecret)]))
    #expect(credentials["expires_in"]?.int == 5, "\(credentials)")
  }

  // MARK: the executable

  @Test func theExecutableListsItAfterItsURLAndSetsLifetimes() throws {
    let emulator = TestEnvironment.binary("strivacity-emulator")
    let dir = try ScratchDirectory("teaching")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, dir.file("stdout"), O_WRONLY | O_CREAT, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, dir.file("stderr"), O_WRONLY | O_CREAT, 0o600)
    let pid = try spawnProcess(
      [emulator, "--journey", "machine", "--access-ttl", "5", "--refresh-ttl", "60"], environment: [:],
      actions: &actions)
    var stopped = false
    defer {
      if !stopped {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
      }
    }
    let read = { (name: String) in (try? String(contentsOfFile: dir.file(name), encoding: .utf8)) ?? "" }
    // The last line of the listing is out once the "try:" line is.
    try #require(waitUntil(timeout: 20) { read("stderr").contains("strivacity-emulator: try: ") }, "\(read("stderr"))")
    let stdout = read("stdout")
    let issuer = String(stdout.prefix { $0 != "\n" })
    #expect(stdout == issuer + "\n", "stdout holds the issuer's line only")
    #expect(issuer.hasPrefix("http://127.0.0.1:") && issuer.hasSuffix("/"))
    let journey = try loadJourney("machine").with(Lifetimes(access: 5, refresh: 60))
    #expect(read("stderr") == journey.startupListing(issuer: issuer).map { $0 + "\n" }.joined(), "\(read("stderr"))")
    // What it lists works: the secret, the lifetime.
    let answer = try CurlHTTPClient().send(
      HTTPRequest(
        method: "POST", url: issuer + "oauth2/token",
        headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
        body: Array("grant_type=client_credentials&client_id=ci-post&client_secret=ci-post-secret-1".utf8)))
    #expect(JSONValue.parse(answer.body)?["expires_in"]?.int == 5, "\(answer.bodyText)")
    kill(pid, SIGTERM)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    stopped = true
    #expect(status == 0, "\(read("stderr"))")
  }

  @Test func theExecutableRefusesBadLifetimes() throws {
    let emulator = TestEnvironment.binary("strivacity-emulator")
    let zero = try run([emulator, "--access-ttl", "0"], environment: [:])
    #expect(zero.status == 2, "\(zero.stderr)")
    #expect(
      zero.stderr.contains("--access-ttl must be a whole number of seconds from 1 to 315360000, not '0'"),
      "\(zero.stderr)")
    let words = try run([emulator, "--journey", "machine", "--refresh-ttl", "a day"], environment: [:])
    #expect(words.status == 2 && words.stderr.contains("--refresh-ttl must be"), "\(words.stderr)")
    #expect(words.stdout.isEmpty, "nothing started")
  }
}

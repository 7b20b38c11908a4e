// Signing in again when the tenant refuses an API's token (issue 27, point 3), and a sign-in's
// step-up parameters (`login --acr-values --max-age`, point 5): the real binary against the
// emulator, on a pseudo-terminal and without one.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite(.serialized) struct SignInAgainTests {
  /// The password journey's `orders` API allows orders:read and orders:write.
  static func orders(_ scopes: String) -> String {
    """

    [profiles.PROFILE.apis.orders]
    url = "https://api.example.com/orders/"
    audience = "https://api.example.com/orders"
    resource = ["https://api.example.com/orders/"]
    scopes = [\(scopes)]
    """
  }

  func config(_ h: Harness, _ apis: String) throws {
    try h.writeProfile(apis.replacingOccurrences(of: "PROFILE", with: h.profile))
  }

  func scope(_ token: String) throws -> String? {
    let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
    try #require(parts.count == 3, "a JWT: \(token.prefix(20))")
    var text = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    return try #require(Data(base64Encoded: text).flatMap { JSONValue.parse(Array($0)) })["scope"]?.string
  }

  /// Signed in when the API asked for orders:read only; then it asks for orders:write too, which
  /// the sign-in never consented to (the emulator refuses a refresh that widens it).
  func signedInBeforeTheAPIWantedMore() throws -> Harness {
    let h = try Harness(journey: "password")
    try config(h, Self.orders("\"orders:read\""))
    try h.signIn()
    try config(h, Self.orders("\"orders:read\", \"orders:write\""))
    return h
  }

  /// A script (no terminal) gets one line naming the API, the parameter, the tenant's error and
  /// the command that signs in for it; nothing is asked, nothing waits.
  @Test func withoutATerminalARefusalIsOneLineAndExitThree() throws {
    let h = try signedInBeforeTheAPIWantedMore()
    let codes = try h.grants("authorization_code")
    let started = Date()
    let refused = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(Date().timeIntervalSince(started) < 15)
    #expect(refused.status == 3)
    #expect(refused.stdout.isEmpty)
    #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    #expect(
      refused.stderr.hasPrefix(
        "strivacity: error: the tenant refused a token for API orders (scope orders:read orders:write): invalid_scope"),
      "\(refused.stderr)")
    // What the profile's own sign-in asks for is not repeated; the audience, which it does not send, is.
    #expect(
      refused.stderr.hasSuffix(
        "; run strivacity login --profile \(h.profile) --audience https://api.example.com/orders\n"),
      "\(refused.stderr)")
    #expect(try h.grants("authorization_code") == codes, "no sign-in was started")
  }

  /// A script started from a terminal, its stderr sent elsewhere: /dev/tty is there, but nobody
  /// would see why a prompt appeared, so none does; the line goes where stderr goes.
  @Test func aScriptOnATerminalWithStderrElsewhereIsNotAsked() throws {
    let h = try signedInBeforeTheAPIWantedMore()
    let errors = h.home.file("errors.txt")
    let tty = try PTYSession(
      [
        "/bin/sh", "-c", "exec \"$0\" token --profile \"$1\" --api orders 2>\"$2\"",
        TestEnvironment.binary("strivacity"), h.profile, errors,
      ], environment: h.environment)
    #expect(try tty.wait(timeout: 15) == 3, "\(tty.transcript)")
    #expect(tty.transcript.isEmpty, "\(tty.transcript)")
    let stderr = try String(contentsOfFile: errors, encoding: .utf8)
    #expect(stderr.hasPrefix("strivacity: error: the tenant refused a token for API orders"), "\(stderr)")
    #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")
  }

  /// On a terminal the journey runs at once, asking for what was refused; then the token.
  @Test func onATerminalTheRefusalSignsInAgainThenGivesTheToken() throws {
    let h = try signedInBeforeTheAPIWantedMore()
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile, "--api", "orders"],
      environment: h.environment)
    try tty.expect("the tenant refused a token for API orders (scope orders:read orders:write): invalid_scope")
    try tty.expect(": signing in again\n")
    try tty.expect("Sign in to \(h.profile) now? [Y/n]: ")
    tty.send("")
    try tty.typeDemoSignIn()
    try tty.expect("signed in to \(h.emulator.issuer) as Demo User <demo@example.com> (profile \(h.profile))")
    #expect(try tty.wait() == 0, "\(tty.transcript)")
    #expect(try scope(tty.stdout) == "orders:read orders:write")
    #expect(!tty.transcript.contains("Demo-pass-1"))
    // Kept: a script now gets it without a sign-in.
    let again = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(again.status == 0 && again.stdout == tty.stdout, "\(again.stderr)")
  }

  /// A person who says no gets the same line as a script (exit 3); the tokens held are untouched.
  @Test func decliningOnTheTerminalIsExitThree() throws {
    let h = try signedInBeforeTheAPIWantedMore()
    let codes = try h.grants("authorization_code")
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile, "--api", "orders"],
      environment: h.environment)
    try tty.expect("now? [Y/n]: ")
    tty.send("n")
    // `token`'s own offer to sign in (for a set that is gone) may follow: declined too.
    #expect(try tty.wait() == 3, "\(tty.transcript)")
    #expect(!tty.transcript.contains("Sign in now?"), "asked once, not again by token's own offer")
    #expect(tty.stdout.isEmpty)
    #expect(tty.transcript.contains("; run strivacity login --profile \(h.profile)"), "\(tty.transcript)")
    #expect(try h.grants("authorization_code") == codes)
    #expect(try h.strivacity(["token", "--profile", h.profile]).status == 0)
  }

  /// A scope the API does not allow is refused again after the sign-in: one line, exit 3, no loop.
  @Test func aSecondRefusalEndsIt() throws {
    let h = try Harness(journey: "password")
    try config(h, Self.orders("\"orders:read\""))
    try h.signIn()
    let tty = try PTYSession(
      [
        TestEnvironment.binary("strivacity"), "token", "--profile", h.profile, "--api", "orders", "--scope",
        "orders:delete",
      ], environment: h.environment)
    try tty.expect("now? [Y/n]: ")
    tty.send("y")
    try tty.typeDemoSignIn()
    try tty.expect("signed in to")
    try tty.expect("even after signing in again asking for it")
    #expect(try tty.wait() == 3, "\(tty.transcript)")
    #expect(!tty.transcript.contains("Sign in now?"), "asked once, not again by token's own offer")
    #expect(try h.grants("authorization_code") == 2, "one sign-in, not a loop")
  }

  /// `login --acr-values --max-age` sends both at the authorization endpoint (the browser is
  /// handed the whole request), reports the ID token's acr with --verbose, and checks auth_time.
  @Test func loginSendsACRValuesAndMaxAge() throws {
    let h = try Harness(journey: "password")
    let log = h.home.file("browser.log")
    h.extraEnvironment = [
      "BROWSER": TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Support/browser-standin").path,
      // (The step-up's passcode, for a tenant that adds a second factor when acr_values asks for it.)
      "STANDIN_ANSWERS": "identifier=demo%40example.com&password=Demo-pass-1&passcode=123456", "STANDIN_LOG": log,
    ]
    let result = try h.automatedLogin(
      sdk: "web", ["--browser", "--acr-values", "mfa", "--max-age", "60", "--add-scope", "orders:read", "--verbose"])
    #expect(result.status == 0, "\(result.stderr)")
    let opened = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").first ?? ""
    let query = FormURLEncoding.query(of: String(opened.dropFirst("open ".count)))
    #expect(query["acr_values"] == "mfa", "\(opened)")
    #expect(query["max_age"] == "60", "\(opened)")
    #expect(query["scope"]?.split(separator: " ").contains("orders:read") == true, "\(opened)")
    #expect(result.stderr.contains("strivacity: the ID token's acr: "), "\(result.stderr)")
    #expect(try h.signedIn())
    // Not remembered: the next plain sign-in asks for neither.
    let config = try h.home.readConfig()
    #expect(!config.contains("orders:read") && !config.contains("max_age") && !config.contains("acr"), "\(config)")
  }

  /// After a step-up the API tokens kept are from the weaker sign-in: dropped, asked anew. An
  /// ordinary sign-in again as the same user keeps them.
  @Test func aStepUpDropsTheAPITokensKept() throws {
    let h = try Harness(journey: "password")
    try config(h, Self.orders("\"orders:read\""))
    try h.signIn()
    let first = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(first.status == 0, "\(first.stderr)")
    try h.signIn()
    #expect(try h.strivacity(["token", "--profile", h.profile, "--api", "orders"]).stdout == first.stdout)
    let stepUp = try h.automatedLogin(
      sdk: "web",
      ["--field", "identifier=demo@example.com", "--field-env", "password=PW", "--max-age", "3600", "--verbose"],
      environment: ["PW": "Demo-pass-1"])
    #expect(stepUp.status == 0, "\(stepUp.stderr)")
    #expect(stepUp.stderr.contains("dropping \(h.profile)'s API tokens of the sign-in before"), "\(stepUp.stderr)")
    let after = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(after.status == 0 && after.stdout != first.stdout, "\(after.stderr)")
  }

  /// With max_age sent, an ID token vouching for an older sign-in is refused (OpenID Connect Core
  /// §3.1.3.7), whatever the tenant thought: this one's clock is 1000 s behind, so its single
  /// sign-on session, 300 s old by its clock, is 1300 s old by ours.
  @Test func anAuthTimeOlderThanMaxAgeIsRefused() throws {
    let h = try Harness(journey: "sso", clockBehind: 1000)
    let stale = try h.automatedLogin(sdk: "web", ["--max-age", "600"])
    #expect(stale.status == 5)
    #expect(stale.stderr.split(separator: "\n").count == 1, "\(stale.stderr)")
    #expect(
      stale.stderr.contains("the ID token failed validation: the sign-in it vouches for is 13"), "\(stale.stderr)")
    #expect(stale.stderr.contains("more than the max_age of 600 s that was asked; nothing was stored"))
    #expect(try !h.signedIn())
    let recent = try h.automatedLogin(sdk: "web", ["--max-age", "3600"])
    #expect(recent.status == 0, "\(recent.stderr)")
    #expect(try h.signedIn())
  }

  @Test func badStepUpValuesAreUsageErrors() throws {
    let h = try Harness(journey: "password")
    for arguments in [
      ["--max-age", "-1"], ["--max-age", "99999999999"], ["--acr-values", "a  b"], ["--acr-values", "\u{1b}[31m"],
      ["--add-scope", "two scopes"], ["--resource", "not-a-uri"], ["--audience", "has space"],
    ] {
      let result = try h.automatedLogin(sdk: "web", arguments)
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains("\u{1b}"), "\(arguments)")
    }
    #expect(try h.grants("authorization_code") == 0)
  }
}

// strivacity login without a terminal (--field, --field-env, --action), and everything the
// client must refuse: tampered ID tokens, a forged state, a redirect that is not ours.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct AutomatedLoginTests {
  static let password = ["--field", "identifier=demo@example.com", "--field-env", "password=DEMO_PASSWORD"]
  static let secret = ["DEMO_PASSWORD": "Demo-pass-1"]

  @Test(arguments: sdkModes) func fieldsAnswerWithoutATerminal(_ sdk: String) throws {
    let h = try Harness(journey: "password")
    let result = try h.automatedLogin(sdk: sdk, Self.password, environment: Self.secret)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("signed in to \(h.emulator.issuer) as Demo User <demo@example.com>"))
    #expect(!result.stderr.contains("Demo-pass-1"))
    #expect(try h.lastBody("password") == ["password": "Demo-pass-1", "keepMeLoggedIn": false])
    #expect(try h.signedIn())
  }

  /// The README's automation example against a tenant whose screens start with secondary
  /// actions (and a grid): it signs in straight away, in a layout mode and a minimal one.
  @Test(arguments: sdkModes) func theReadmeExampleSignsInWhenScreensStartWithSecondaryActions(_ sdk: String) throws {
    let h = try Harness(journey: "secondary-first")
    let started = Date()
    let result = try h.automatedLogin(sdk: sdk, Self.password, environment: Self.secret)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Date().timeIntervalSince(started) < 20, "bounded: it used to loop until killed")
    let submissions = try #require(try h.stats()["submissions"]?.array)
    #expect(
      submissions.compactMap { $0["form"]?.string } == ["identifier", "password"], "no secondary action was posted")
  }

  @Test func aJourneyGoingRoundInCirclesStops() throws {
    let h = try Harness(journey: "secondary-first")
    // Taking "Create account" (asked for again and again) brings the same screen back each time.
    let again = Array(repeating: ["--action", "additionalActions/registration"], count: 5).flatMap { $0 }
    let result = try h.automatedLogin(sdk: "web", again + Self.password, environment: Self.secret)
    #expect(result.status == 5, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "the sign-in is going round in circles: screen \"identification\" was answered the same way "
          + "(additionalActions/registration) 3 times without getting anywhere; stopping"
      ), "\(result.stderr)")
    #expect(try h.stats()["submissions"]?.array?.count == 3, "the fourth identical answer is never sent")
  }

  @Test func withoutATerminalOrABrowserAStepForTheBrowserFailsAtOnce() throws {
    let h = try Harness(journey: "hosted-only")
    h.extraEnvironment["BROWSER"] = ""
    let started = Date()
    let result = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    #expect(result.status == 3, "\(result.stderr)")
    #expect(Date().timeIntervalSince(started) < 20, "at once, not after the browser timeout")
    #expect(result.stderr.contains("strivacity: error: this step needs a browser ("), "\(result.stderr)")
    #expect(result.stderr.contains("  " + h.emulator.issuer + "provider/flow"), "the hosted URL for a person")
  }

  @Test func aPasswordOnTheCommandLineIsWarnedAbout() throws {
    let h = try Harness(journey: "password")
    let result = try h.automatedLogin(
      sdk: "web", ["--field", "identifier=demo@example.com", "--field", "password=Demo-pass-1"])
    #expect(result.status == 0)
    #expect(
      result.stderr.contains(
        "strivacity: warning: --field password put a secret on the command line, where other processes can read "
          + "it; use --field-env password=VARIABLE"
      ))
  }

  @Test func missingFieldsAreNamedInsteadOfHanging() throws {
    let h = try Harness(journey: "password")
    let result = try h.automatedLogin(sdk: "web", ["--field", "identifier=demo@example.com"])
    #expect(result.status == 2)
    #expect(
      result.stderr.contains(
        "no terminal to ask for password; answer them with --field ID=VALUE or --field-env ID=VARIABLE"))
    #expect(try !h.signedIn())
  }

  @Test func rejectedAnswersFailWithTheServersMessage() throws {
    let h = try Harness(journey: "password")
    let result = try h.automatedLogin(sdk: "web", Self.password, environment: ["DEMO_PASSWORD": "wrong"])
    #expect(result.status == 3)
    #expect(result.stderr.contains("strivacity: error: the tenant rejected the sign-in: Incorrect password"))
    #expect(!result.stderr.contains("wrong"))
  }

  @Test func actionsAndEveryWidgetFromFlags() throws {
    let h = try Harness(journey: "registration")
    let result = try h.automatedLogin(
      sdk: "android-minimal",
      [
        "--field", "identifier=x@example.com", "--action", "additionalActions/registration",
        "--field", "email=flags@example.com", "--field", "attributes.displayName=Flag Person",
        "--field-env", "password=PW", "--field-env", "passwordConfirmation=PW", "--field", "inviteCode=123456",
        "--field", "country=HU", "--field", "interests=security,product", "--field", "birthDate=1980-01-31",
        "--field", "consents.terms=yes",
      ], environment: ["PW": "Flag-pass1"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      try h.lastBody("registration") == [
        "email": "flags@example.com", "attributes": ["displayName": "Flag Person"], "password": "Flag-pass1",
        "passwordConfirmation": "Flag-pass1", "inviteCode": "123456", "country": "HU", "contactMethod": "email",
        "interests": ["security", "product"], "birthDate": "1980-01-31",
        "consents": ["terms": true, "newsletter": false],
      ])
  }

  @Test func invalidFieldValuesAreCaughtBeforeSending() throws {
    let h = try Harness(journey: "registration")
    let result = try h.automatedLogin(
      sdk: "web",
      [
        "--field", "identifier=x@example.com", "--action", "additionalActions/registration", "--field", "email=nope",
      ])
    #expect(result.status == 3)
    #expect(result.stderr.contains("--field email: Invalid format"))
    #expect(try h.stats()["submissions"]?.array?.count == 1, "the bad value never reached the tenant")
  }

  @Test(arguments: [
    ("id-token-signature", "token signature does not verify"),
    ("id-token-aud", "audience does not contain the client id strivacity-cli"),
    ("id-token-nonce", "nonce does not match this sign-in"),
    ("id-token-expired", "it has expired"),
    ("id-token-issuer", "issuer is \"https://evil.example/\""),
    ("id-token-alg-none", "token signed with none; only RS256 is accepted"),
  ])
  func tamperedIDTokensAreRefusedAndNothingIsStored(_ kind: String, _ reason: String) throws {
    let h = try Harness(journey: "password")
    try h.control("tamper", ["kind": .string(kind)])
    let result = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    #expect(result.status == 5)
    #expect(result.stderr.contains("strivacity: error: the ID token failed validation: \(reason)"), "\(result.stderr)")
    #expect(result.stderr.contains("; nothing was stored"))
    #expect(try !h.signedIn())
    #expect(
      !FileManager.default.fileExists(atPath: h.home.configPath), "no profile saved either")
  }

  @Test(arguments: [
    ("callback-state", "the sign-in redirect carries the wrong state; refusing it"),
    ("callback-foreign", "the sign-in ended at an address that is not this client's redirect URI; refusing it"),
    ("callback-path", "the sign-in ended at an address that is not this client's redirect URI; refusing it"),
  ])
  func foreignOrForgedRedirectsAreRefused(_ kind: String, _ message: String) throws {
    let h = try Harness(journey: "password")
    try h.control("tamper", ["kind": .string(kind)])
    let result = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    #expect(result.status == 5)
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(try h.stats()["grants"]?["authorization_code"] == nil, "the code was never exchanged")
    #expect(try !h.signedIn())
  }

  @Test func anExpiredSessionWithoutATerminalSaysSo() throws {
    let h = try Harness(journey: "password")
    try h.control("faults", ["endpoint": "form", "kind": "status", "status": 403, "count": 10])
    let result = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    #expect(result.status == 3)
    #expect(result.stderr.contains("the sign-in session expired; run strivacity login again"))
  }

  @Test func serverTroubleExitsWithTheDocumentedCodes() throws {
    let h = try Harness(journey: "password")
    try h.control("faults", ["endpoint": "discovery", "kind": "status", "status": 503])
    let unavailable = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    #expect(unavailable.status == 4)
    #expect(
      unavailable.stderr.contains(
        "the discovery document failed with HTTP 503: the tenant says server_error: injected fault"),
      "\(unavailable.stderr)")
    try h.control("faults", ["endpoint": "init", "kind": "malformed-json"])
    let malformed = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
    #expect(malformed.status == 5)
    #expect(malformed.stderr.contains("the tenant sent an answer this client cannot read"))
    let refused = try h.automatedLogin(
      sdk: "web", Self.password + ["--tenant", "http://127.0.0.1:9/"], environment: Self.secret)
    #expect(refused.status == 4)
    #expect(
      refused.stderr.contains("cannot connect to http://127.0.0.1:9: connection refused"),
      "the origin, stale port included")
    let insecure = try h.automatedLogin(
      sdk: "web", Self.password + ["--tenant", "http://tenant.example.com/"], environment: Self.secret)
    #expect(insecure.status == 2)
    #expect(
      insecure.stderr.contains(
        "refusing tenant http://tenant.example.com/: it must be https (plain http only on a loopback address)"))
    // A loopback tenant typed without its scheme is named with the one it most likely has.
    let schemeless = try h.automatedLogin(
      sdk: "web", Self.password + ["--tenant", "127.0.0.1:9/"], environment: Self.secret)
    #expect(schemeless.status == 2)
    #expect(
      schemeless.stderr.contains("refusing tenant 127.0.0.1:9/: it has no scheme; did you mean http://127.0.0.1:9/?"),
      "\(schemeless.stderr)")
    for result in [unavailable, malformed, refused, insecure, schemeless] {
      #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("strivacity: error:") }.count == 1)
    }
  }

  /// The tenant's own words, in whichever shape they come: its error page's URL (an unknown
  /// client), an OAuth error document from the authorization request, a journey's error body.
  @Test func theTenantsRefusalIsQuoted() throws {
    let h = try Harness(journey: "password")
    let unknown = try h.automatedLogin(sdk: "web", Self.password + ["--client-id", "nope"], environment: Self.secret)
    #expect(unknown.status == 5)
    #expect(
      unknown.stderr.contains(
        "the tenant refused the sign-in: invalid_client: The client_id nope is not registered with this tenant; "
          + "check the client id (--client-id)"), "\(unknown.stderr)")
    // An error document from the authorization request, then from the journey's first answer.
    let documents: [(endpoint: String, error: String, description: String, says: String)] = [
      (
        "auth", "invalid_scope", "scope \u{1b}[31mbogus is not allowed",
        "the authorization request failed with HTTP 400: the tenant says invalid_scope: scope "
      ),
      (
        "init", "magicLinkExpired", "This magic link has been expired",
        "the tenant answered HTTP 400: magicLinkExpired: This magic link has been expired"
      ),
    ]
    var results = [unknown]
    for document in documents {
      try h.control(
        "faults",
        [
          "endpoint": .string(document.endpoint), "kind": "status", "status": 400,
          "body": ["error": .string(document.error), "error_description": .string(document.description)],
        ])
      let result = try h.automatedLogin(sdk: "web", Self.password, environment: Self.secret)
      #expect(result.status == 5)
      #expect(result.stderr.contains(document.says), "\(result.stderr)")
      #expect(!result.stderr.contains("\u{1b}"))
      results.append(result)
    }
    for result in results {
      #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("strivacity: error:") }.count == 1)
    }
  }

  @Test func theBrowserFlagSignsInOnTheHostedPages() throws {
    let h = try Harness(journey: "password")
    h.extraEnvironment = [
      "BROWSER": TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Support/browser-standin").path,
      "STANDIN_ANSWERS": "identifier=demo%40example.com&password=Demo-pass-1",
    ]
    let result = try h.automatedLogin(sdk: "web", ["--browser"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try h.stats()["requests"]?["init"] == nil, "no native journey ran")
    #expect(try h.signedIn())
  }

  @Test func theListenerAnswersOnlyTheRightRequestOnce() throws {
    // A sign-in waiting on the browser, and other local processes knocking on its port.
    let h = try Harness(journey: "hosted-only")
    // Below Linux's ephemeral range (32768-60999), where no outgoing connection can hold it.
    let fixed = Int.random(in: 20000...30000)
    let tty = try h.interactiveLogin(
      sdk: "web", ["--no-browser", "--redirect-uri", "http://127.0.0.1:\(fixed)/callback"])
    try tty.expect("Waiting for the browser")
    func curl(_ arguments: [String]) throws -> String {
      try run(["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}"] + arguments, environment: [:]).stdout
    }
    let base = "http://127.0.0.1:\(fixed)"
    // Bound to loopback only: its listening socket's local address is 127.0.0.1 (0100007F).
    let tcp = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
    let port = String(fixed, radix: 16, uppercase: true)
    let listening = tcp.split(separator: "\n").filter { $0.contains(":\(port) ") && $0.contains(" 0A ") }
    #expect(!listening.isEmpty && listening.allSatisfy { $0.contains("0100007F:\(port)") }, "\(listening)")
    #expect(try curl([base + "/elsewhere"]) == "404")
    #expect(try curl([base + "/callback?code=x&state=wrong"]) == "400")
    #expect(try curl(["-X", "POST", base + "/callback?code=x"]) == "405")
    #expect(try curl([base + "/callback?error=access_denied&error_description=no"]) == "400", "no state, no answer")
    tty.type("\u{3}")
    #expect(try tty.wait() == 130)
  }
}

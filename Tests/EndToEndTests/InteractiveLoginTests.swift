// Every example journey signed in through a pseudo-terminal, asserting what the person sees and
// the exact bodies the tenant received, in a 200 mode (web) and a 302 mode (android-minimal).
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct InteractiveLoginTests {
  @Test(arguments: sdkModes) func password(_ sdk: String) throws {
    let h = try Harness(journey: "password")
    let tty = try h.interactiveLogin(
      sdk: sdk,
      playing: [
        ("Sign in", nil),
        ("Email address (you@example.com): ", "demo@example.com"),
        ("Enter your password", nil),
        ("(at any prompt: :2 Not you?)", nil),
        ("Password: ", "Demo-pass-1"),
        ("Keep me signed in [y/N]: ", ""),  // the last answer submits "Sign in": no menu
        ("signed in to \(h.emulator.issuer) as Demo User <demo@example.com> (profile \(h.profile))", nil),
      ])
    #expect(try tty.wait() == 0)
    #expect(tty.stdout.isEmpty, "stdout is for data only")
    #expect(!tty.transcript.contains("Demo-pass-1"), "the password is never echoed")
    #expect(try h.lastBody("identifier") == ["identifier": "demo@example.com"])
    #expect(try h.lastBody("password") == ["password": "Demo-pass-1", "keepMeLoggedIn": false])
    #expect(try h.signedIn())
    let config = try h.home.readConfig()
    #expect(config.contains("[profiles.\(h.profile)]"))
    #expect(config.contains("sdk_mode = \"\(sdk)\""))
  }

  @Test(arguments: sdkModes) func wrongPasswordThenRight(_ sdk: String) throws {
    let h = try Harness(journey: "password")
    let tty = try h.interactiveLogin(
      sdk: sdk,
      playing: [
        ("Email address", "demo@example.com"),
        ("Password: ", "not-it"),
        ("[y/N]: ", "y"),
        ("! Incorrect password", nil),
        // Only the submitted form's fields are asked again, the password first; the checkbox keeps its answer.
        ("Password: ", "Demo-pass-1"),
        ("Keep me signed in [Y/n]: ", ""),
        ("signed in to", nil),
      ])
    #expect(try tty.wait() == 0)
    let submissions = try h.stats()["submissions"]?.array?.compactMap { $0["form"]?.string }
    #expect(submissions == ["identifier", "password", "password"])
    #expect(try h.lastBody("password") == ["password": "Demo-pass-1", "keepMeLoggedIn": true])
  }

  @Test(arguments: sdkModes) func mfa(_ sdk: String) throws {
    let h = try Harness(journey: "mfa")
    let tty = try h.interactiveLogin(
      sdk: sdk, demoSignIn: true,
      playing: [
        ("Verification method", nil),
        ("  Email\n    1) Email to d***@example.com\n  Phone\n    2) Text message to +36 ** *** 4567", nil),
        ("Choice: ", "7"),
        ("! Choose a number from 1 to 2", "2"),
        ("We sent a code: Text message to +36 ** *** 4567", nil),
        ("(at any prompt: :2 Resend code, :3 Choose another method)", nil),
        ("Passcode (6 digits): ", "12"),
        ("! Enter the 6-digit code", "654321"),
        ("signed in to", nil),
      ])
    #expect(try tty.wait() == 0)
    #expect(try h.lastBody("mfaMethod") == ["id": "9b3e7d21-6a4f-4e8c-b5d2-1f7a9c3e5b84/passcode"])
    #expect(try h.lastBody("mfaPasscode") == ["passcode": "654321"])
  }

  /// Screens whose layout (or, in minimal modes, forms) start with "Create account" and "Not
  /// you?": the person is asked for the identifier and the password, never "What next?", and
  /// the main actions are posted.
  @Test(arguments: sdkModes) func screensThatStartWithSecondaryActions(_ sdk: String) throws {
    let h = try Harness(journey: "secondary-first")
    let tty = try h.interactiveLogin(sdk: sdk)
    try tty.expect("(at any prompt: :2 Create account, :3 Continue with Google)")
    try tty.typeDemoSignIn()
    try tty.expect("signed in to")
    #expect(try tty.wait() == 0)
    #expect(!tty.transcript.contains("What next?"))
    #expect(try h.stats()["submissions"]?.array?.compactMap { $0["form"]?.string } == ["identifier", "password"])
  }

  /// MFA enrolment on a terminal: the methods' defaults taken with Enter, the readonly target
  /// shown and not asked (a screen that then asks nothing offers its actions, Enter taking the
  /// main one), the code typed hidden.
  @Test(arguments: sdkModes) func mfaEnrolment(_ sdk: String) throws {
    let h = try Harness(journey: "mfa-enroll")
    let tty = try h.interactiveLogin(
      sdk: sdk, demoSignIn: true,
      playing: [
        ("Set up two-step verification", nil),
        ("  1) [x] Email\n  2) [ ] Text message", nil),
        ("Choice [1]: ", ""),
        ("Where should we send codes?", nil),
        ("Email address: demo@example.com\n", nil),
        ("What next?", nil),
        ("Choice [1]: ", ""),
        ("We sent a code to demo@example.com", nil),
        ("Passcode (6 digits): ", "000000"),
        ("000000", nil),  // one-time codes are echoed, so a typo can be seen
        ("Remember this device [y/N]: ", ""),
        ("! Incorrect code", nil),
        ("Passcode (6 digits): ", "246810"),  // only the field the tenant named
        ("signed in to", nil),
      ])
    #expect(try tty.wait() == 0)
    #expect(try h.lastBody("mfaEnrollStart") == ["optional": ["email"]])
    #expect(try h.lastBody("mfaEnrollTargetSelect") == ["target": "demo@example.com", "method": "passcode"])
    #expect(try h.lastBody("mfaEnrollChallenge") == ["passcode": "246810", "rememberDevice": false])
  }

  @Test(arguments: sdkModes) func registrationWithEveryWidget(_ sdk: String) throws {
    let h = try Harness(journey: "registration")
    let tty = try h.interactiveLogin(
      sdk: sdk,
      playing: [
        ("Email address", ""),
        ("! This field is required", ":2"),  // Create account
        ("Create your account", nil),
        ("By creating an account you accept the terms of use (https://example.com/terms).", nil),
        ("Email address: ", "not-an-email"),
        ("! Invalid format", "new@example.com"),
        ("Display name (How we greet you): ", "New Person"),
        ("Password: ", "weakpass1"),
        ("! Password must contain an uppercase letter", "Str0ng-Pass"),
        ("Re-type password: ", "Str0ng-Pass"),
        ("Invitation code (any 6 digits): ", "123456"),
        ("  Europe\n    1) Hungary\n    2) Germany\n  Americas\n    3) United States", nil),
        ("Choice: ", "Germany"),
        ("How should we contact you?\n  1) Email\n  2) Text message", nil),
        ("Choice [1]: ", "2"),
        ("(numbers separated by commas, 1 to 2)", nil),
        ("Choice: ", "1,2,3"),
        ("! Select at most 2", "1,3"),
        ("Date of birth (YYYY-MM-DD): ", "2020-01-01"),
        ("! Must not be after 2012-12-31", "1990-04-23"),
        ("Mobile number: ", "+36 30 123 4567"),
        ("I accept the terms of use (https://example.com/terms) [y/N]: ", "n"),
        ("! This must be accepted", "y"),
        ("Send me the newsletter [y/N]: ", ""),
        ("signed in to \(h.emulator.issuer) as new@example.com", nil),
      ])
    #expect(try tty.wait() == 0)
    #expect(
      try h.lastBody("registration") == [
        "email": "new@example.com", "attributes": ["displayName": "New Person"], "password": "Str0ng-Pass",
        "passwordConfirmation": "Str0ng-Pass", "inviteCode": "123456", "country": "DE", "contactMethod": "sms",
        "interests": ["security", "events"], "birthDate": "1990-04-23", "phone": "+36 30 123 4567",
        "consents": ["terms": true, "newsletter": false],
      ])
    #expect(try h.lastBody("additionalActions/registration") == [:], "action-only forms post {}")
  }

  @Test func shortcutsReachOtherActionsAndCloseCancels() throws {
    let h = try Harness(journey: "registration")
    let tty = try h.interactiveLogin(
      sdk: "web",
      playing: [
        ("(at any prompt: :2 Create account)", nil),
        ("Email address", ":2"),  // straight to registration, no identifier needed
        ("(at any prompt: :2 Back to login, :3 Cancel)", nil),
        ("Email address: ", ":2"),
        ("Sign in", nil),
        ("Email address", ":2"),
        ("Create your account", nil),
        ("Email address: ", ":3"),
        ("strivacity: error: sign-in cancelled", nil),
      ])
    #expect(try tty.wait() == 130)
    #expect(try !h.signedIn())
    #expect(
      try h.stats()["submissions"]?.array?.compactMap { $0["form"]?.string } == [
        "additionalActions/registration", "reset", "additionalActions/registration",
      ])
  }

  @Test func anExpiredSessionOffersToStartOver() throws {
    let h = try Harness(journey: "password")
    try h.control(
      "faults", ["endpoint": "form", "kind": "status", "status": 403, "body": ["error": "session_expired"]])
    let tty = try h.interactiveLogin(
      sdk: "web",
      playing: [("Email address", "demo@example.com"), ("The sign-in session expired. Start over? [Y/n]: ", "")])
    try tty.typeDemoSignIn()
    try tty.expect("signed in to")
    #expect(try tty.wait() == 0)
    #expect(try h.stats()["requests"]?["auth"]?.int == 2, "a fresh authorization request")
  }

  @Test func ctrlDAtAPromptCancels() throws {
    let h = try Harness(journey: "password")
    let tty = try h.interactiveLogin(sdk: "web")
    try tty.expect("Email address (you@example.com): ")
    tty.type("\u{4}")
    try tty.expect("\nstrivacity: error: sign-in cancelled")  // on a line of its own, not after the prompt
    #expect(try tty.wait() == 130)
  }

  @Test(arguments: sdkModes) func activation(_ sdk: String) throws {
    let h = try Harness(journey: "activation")
    let tty = try h.interactiveLogin(
      sdk: sdk,
      playing: [
        ("Email address", ":2"),  // Create account
        ("Email address: ", "fresh@example.com"),
        ("Password: ", "Fresh-pass1"),
        ("Re-type password: ", "Fresh-pass1"),
        ("We sent an activation code to fresh@example.com.", nil),
        ("Activation code (6 digits): ", "000000"),
        ("! Incorrect code", "111111"),
        ("signed in to", nil),
      ])
    #expect(try tty.wait() == 0)
    #expect(try h.lastBody("sendAccountActivation") == ["passcode": "111111"])
  }

  @Test(arguments: sdkModes) func passkeyFallsBackToTheBrowser(_ sdk: String) throws {
    let h = try Harness(journey: "passkey")
    let log = h.home.file("browser.log")
    h.extraEnvironment = [
      "BROWSER": TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Support/browser-standin").path,
      "STANDIN_LOG": log,
    ]
    let tty = try h.interactiveLogin(
      sdk: sdk,
      playing: [
        ("Email address", "demo@example.com"),
        ("strivacity: continuing in the browser: this step needs a passkey, which a terminal cannot use", nil),
        (h.emulator.issuer + "provider/flow?challenge=", nil),
        ("signed in to", nil),
      ])
    #expect(try tty.wait() == 0, "\(tty.transcript)")
    let browser = try String(contentsOfFile: log, encoding: .utf8)
    #expect(browser.contains("redirect http://127.0.0.1:"))
    #expect(try h.stats()["requests"]?["hosted"]?.int == 2)
    #expect(try h.signedIn())
  }

  @Test(arguments: sdkModes) func hostedOnly(_ sdk: String) throws {
    let h = try Harness(journey: "hosted-only")
    h.extraEnvironment = [
      "BROWSER": TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Support/browser-standin").path,
      "STANDIN_ANSWERS": "identifier=demo%40example.com&password=Demo-pass-1",
    ]
    let tty = try h.interactiveLogin(sdk: sdk)
    try tty.expect("continuing in the browser: the tenant asked to continue in the browser")
    try tty.expect("signed in to")
    #expect(try tty.wait() == 0, "\(tty.transcript)")
  }

  @Test func theFinalURLCanBePasted() throws {
    // The browser runs elsewhere (SSH): the person pastes the address it ended on.
    let h = try Harness(journey: "hosted-only")
    let tty = try h.interactiveLogin(sdk: "web", ["--no-browser"])
    try tty.expect("continuing in the browser")
    let hosted = try #require(
      try tty.expect("\nWaiting for the browser").split(separator: "\n").last.map {
        String($0).trimmingCharacters(in: .whitespaces)
      })
    // Complete the hosted pages "on the other machine" without following the last redirect.
    let ours = try run(
      [
        "/bin/sh", "-c",
        """
        jar=$(mktemp); base=$(printf '%s' "$1" | sed -E 's#^(https?://[^/]+).*#\\1#')
        curl -s -c $jar -b $jar "$1" >/dev/null
        a=$(curl -s -c $jar -b $jar "$1" | grep -o 'action="[^"]*"' | head -n1 |
          sed 's/action="//; s/"$//; s/&amp;/\\&/g')
        n=$(curl -s -c $jar -b $jar -o /dev/null -w '%{redirect_url}' --data 'identifier=demo%40example.com' "$base$a")
        a=$(curl -s -c $jar -b $jar "$n" | grep -o 'action="[^"]*"' | head -n1 |
          sed 's/action="//; s/"$//; s/&amp;/\\&/g')
        curl -s -c $jar -b $jar -o /dev/null -w '%{redirect_url}' --data 'password=Demo-pass-1' "$base$a"
        """, "sh", hosted,
      ], environment: ["PATH": "/usr/bin:/bin"])
    #expect(ours.stdout.hasPrefix("http://127.0.0.1:"), "\(ours.stderr)")
    tty.send(ours.stdout)
    try tty.expect("signed in to")
    #expect(try tty.wait() == 0)
  }

  @Test(arguments: sdkModes) func sso(_ sdk: String) throws {
    let h = try Harness(journey: "sso")
    let tty = try h.interactiveLogin(sdk: sdk)
    try tty.expect("signed in to \(h.emulator.issuer) as Demo User <demo@example.com>")
    #expect(try tty.wait() == 0)
    #expect(try h.stats()["requests"]?["init"] == nil, "no journey ran")
  }

  @Test func ctrlCAtAHiddenPromptRestoresTheTerminalAndKeepsTokens() throws {
    let h = try Harness(journey: "password")
    // First a successful sign-in, so there are tokens to keep.
    let first = try h.automatedLogin(
      sdk: "web", ["--field", "identifier=demo@example.com", "--field-env", "password=PW"],
      environment: ["PW": "Demo-pass-1"])
    #expect(first.status == 0, "\(first.stderr)")
    let tty = try h.interactiveLogin(
      sdk: "web", playing: [("Email address", "demo@example.com"), ("Password: ", nil)])
    usleep(100_000)
    #expect(tty.localFlags() & tcflag_t(ECHO) == 0, "echo is off while the password is typed")
    tty.type("\u{3}")
    #expect(try tty.wait() == 130)
    #expect(tty.transcript.contains("strivacity: sign-in cancelled"), "\(tty.transcript)")
    #expect(tty.localFlags() & tcflag_t(ECHO) != 0, "echo is back on after Ctrl-C")
    #expect(try h.signedIn(), "the earlier tokens are untouched")
  }

  /// `:N` at a hidden prompt takes the action: it is never sent as a password attempt.
  @Test func anActionShortcutAtThePasswordPromptIsNeverAPassword() throws {
    let h = try Harness(journey: "password")
    let tty = try h.interactiveLogin(
      sdk: "web", playing: [("Email address", "demo@example.com"), ("Password: ", ":2")])
    try tty.expect("Email address", timeout: 15)
    let forms = try h.stats()["submissions"]?.array?.compactMap { $0["form"]?.string }
    #expect(forms == ["identifier", "reset"], "\(String(describing: forms))")
    tty.type("\u{3}")
    #expect(try tty.wait() == 130)
  }
}

// Every example journey, in every sdk mode, walked by the real binary without a terminal, with
// both directions checked against Strivacity's OpenAPI description: each body strivacity posts
// against its form id's request schema, each screen the emulator serves against `Screen`. The
// emulator refuses non-conforming bodies (400) and records both kinds; a walk passes only with
// none recorded, every body re-checked here, and exactly the expected forms posted.
import Foundation
import OAuthCore
import StrivacityCore
import StrivacityTestSupport
import Testing

@testable import Emulator

struct Walk: Sendable, CustomStringConvertible {
  var journey: String
  var name: String
  var arguments: [String]
  var environment: [String: String] = [:]
  /// Use the scripted browser for steps that need one.
  var browser = false
  /// The form ids posted, in order.
  var forms: [String]
  /// The exact last body posted to some of them.
  var bodies: [String: JSONValue] = [:]
  var description: String { "\(journey)/\(name)" }
}

let allSDKModes = ["web", "web-minimal", "ios", "ios-minimal", "android", "android-minimal"]

@Suite struct SpecWalkTests {
  static let demo = ["--field", "identifier=demo@example.com", "--field-env", "password=PW"]
  static let demoPassword = ["PW": "Demo-pass-1"]
  static let sms = "9b3e7d21-6a4f-4e8c-b5d2-1f7a9c3e5b84/passcode"

  static let walks: [Walk] = [
    Walk(
      journey: "password", name: "sign-in", arguments: demo, environment: demoPassword,
      forms: ["identifier", "password"]),
    Walk(
      journey: "password", name: "not-you", arguments: demo + ["--action", "reset"], environment: demoPassword,
      forms: ["identifier", "reset", "identifier", "password"], bodies: ["reset": [:]]),
    Walk(
      journey: "password-full-errors", name: "sign-in", arguments: demo, environment: demoPassword,
      forms: ["identifier", "password"]),
    Walk(
      journey: "secondary-first", name: "sign-in", arguments: demo, environment: demoPassword,
      forms: ["identifier", "password"]),
    Walk(
      journey: "secondary-first", name: "other-provider", arguments: ["--action", "externalLoginProvider/google"],
      browser: true,
      forms: ["externalLoginProvider/google"], bodies: ["externalLoginProvider/google": [:]]),
    Walk(
      journey: "mfa", name: "sign-in",
      arguments: demo + [
        "--field", "id=\(sms)", "--field-env", "passcode=CODE", "--action", "additionalActions/resend",
      ],
      environment: demoPassword.merging(["CODE": "654321"]) { $1 },
      forms: ["identifier", "password", "mfaMethod", "additionalActions/resend", "mfaPasscode"],
      bodies: ["mfaMethod": ["id": .string(sms)], "mfaPasscode": ["passcode": "654321"]]),
    Walk(
      journey: "mfa-enroll", name: "enrol",
      arguments: demo + [
        "--field", "optional=email,phone", "--action", "additionalActions/selectDifferentMethod", "--field-env",
        "passcode=CODE",
        "--field", "rememberDevice=yes",
      ], environment: demoPassword.merging(["CODE": "246810"]) { $1 },
      forms: [
        "identifier", "password", "mfaEnrollStart", "additionalActions/selectDifferentMethod", "mfaEnrollStart",
        "mfaEnrollTargetSelect",
        "mfaEnrollChallenge",
      ],
      bodies: [
        "mfaEnrollStart": ["optional": ["email", "phone"]],
        "mfaEnrollTargetSelect": ["target": "demo@example.com", "method": "passcode"],
        "mfaEnrollChallenge": ["passcode": "246810", "rememberDevice": true],
        "additionalActions/selectDifferentMethod": [:],
      ]),
    Walk(
      journey: "password-reset", name: "by-email",
      arguments: [
        "--field", "identifier=demo@example.com", "--action", "additionalActions/forgottenPassword", "--field-env",
        "password=NEW",
        "--field-env", "passwordConfirmation=NEW",
      ], environment: ["NEW": "Brand-new-7"],
      forms: [
        "identifier", "additionalActions/forgottenPassword", "forgottenPasswordEmail", "passwordReset", "genericResult",
        "password",
      ],
      bodies: [
        "forgottenPasswordEmail": [:], "genericResult": [:],
        "passwordReset": ["password": "Brand-new-7", "passwordConfirmation": "Brand-new-7"],
        "password": ["password": "Brand-new-7", "keepMeLoggedIn": false],
      ]),
    Walk(
      journey: "password-reset", name: "username-then-phone",
      arguments: [
        "--action", "additionalActions/forgottenUsername", "--field", "recipient=demo@example.com", "--field",
        "identifier=demo@example.com",
        "--action", "additionalActions/forgottenPassword", "--action", "additionalActions/usePhone", "--field",
        "voice=yes",
        "--field-env", "password=NEW", "--field-env", "passwordConfirmation=NEW",
      ], environment: ["NEW": "Brand-new-7"],
      forms: [
        "additionalActions/forgottenUsername", "forgottenUsername", "genericResult", "identifier",
        "additionalActions/forgottenPassword",
        "additionalActions/usePhone", "forgottenPasswordPhone", "passwordReset", "genericResult", "password",
      ],
      bodies: ["forgottenUsername": ["recipient": "demo@example.com"], "forgottenPasswordPhone": ["voice": true]]),
    Walk(
      journey: "profile", name: "complete",
      arguments: demo + [
        "--field", "attributes.jobTitle=Engineer", "--field", "attributes.department=ops", "--field",
        "consents.terms=yes",
        "--field", "attributes.costCenter=1234", "--field", "local.note=hello", "--field",
        "attributes.documentType=passport",
        "--field", "attributes.documentExpiry=2031-05-01", "--field-env", "passwordConfirmation=PW",
      ], environment: demoPassword,
      forms: [
        "identifier", "password", "progressiveProfiling", "customerInput", "proofingData", "genericAction/continue",
        "passwordEnroll",
      ],
      bodies: [
        // Dotted widget ids nest; the readonly attribute goes with the server's value.
        "progressiveProfiling": [
          "attributes": ["employeeId": "E-1024", "jobTitle": "Engineer", "department": "ops"],
          "consents": ["terms": true, "marketing": false],
        ],
        "customerInput": ["attributes": ["costCenter": "1234"], "local": ["note": "hello"]],
        "proofingData": ["attributes": ["documentType": "passport", "documentExpiry": "2031-05-01"]],
        "genericAction/continue": [:],
        "passwordEnroll": ["password": "Demo-pass-1", "passwordConfirmation": "Demo-pass-1", "keepMeLoggedIn": false],
      ]),
    Walk(
      journey: "profile", name: "skip-and-later",
      arguments: demo + [
        "--action", "additionalActions/skip", "--field", "attributes.costCenter=1234", "--field",
        "attributes.documentType=idCard",
        "--field", "attributes.documentExpiry=2030-01-31", "--action", "genericAction/later",
      ], environment: demoPassword,
      forms: [
        "identifier", "password", "additionalActions/skip", "customerInput", "proofingData", "genericAction/later",
      ],
      bodies: [
        "additionalActions/skip": [:], "customerInput": ["attributes": ["costCenter": "1234"]],
        "genericAction/later": [:],
      ]),
    Walk(
      journey: "registration", name: "register",
      arguments: [
        "--field", "identifier=x@example.com", "--action", "additionalActions/registration",
        "--field", "email=walk@example.com", "--field", "attributes.displayName=Walker", "--field-env", "password=PW",
        "--field-env", "passwordConfirmation=PW", "--field", "inviteCode=123456", "--field", "country=HU",
        "--field", "interests=security", "--field", "birthDate=1980-01-31", "--field", "consents.terms=yes",
      ], environment: ["PW": "Walk-pass1"], forms: ["additionalActions/registration", "registration"]),
    Walk(
      journey: "activation", name: "register-and-activate",
      arguments: [
        "--action", "additionalActions/registration", "--field", "email=fresh@example.com", "--field-env",
        "password=PW",
        "--field-env", "passwordConfirmation=PW", "--field-env", "passcode=CODE",
      ], environment: ["PW": "Fresh-pass1", "CODE": "111111"],
      forms: ["additionalActions/registration", "registration", "sendAccountActivation"]),
    Walk(
      journey: "passkey", name: "browser", arguments: ["--field", "identifier=demo@example.com"], browser: true,
      forms: ["identifier"]),
    Walk(journey: "hosted-only", name: "browser", arguments: [], browser: true, forms: []),
    Walk(journey: "sso", name: "session", arguments: [], forms: []),
  ]

  static var cases: [(Walk, String)] { walks.flatMap { walk in allSDKModes.map { (walk, $0) } } }

  @Test(arguments: cases)
  func walk(_ walk: Walk, _ sdk: String) throws {
    let h = try Harness(journey: walk.journey)
    // These walks are about the journey; the keyring has suites of its own (and 96 sign-ins at
    // once would only load the shared test keyring).
    try h.writeProfile("store = \"file\"")
    if walk.browser {
      h.extraEnvironment = [
        "BROWSER": TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Support/browser-standin").path,
        "STANDIN_ANSWERS": "identifier=demo%40example.com&password=Demo-pass-1",
      ]
    }
    // The browser stand-in is a shell script of some fifty processes (curl, sed, grep): with 96
    // walks at once on a loaded 2-core machine it was seen to need more than 30 s.
    let result = try h.automatedLogin(
      sdk: sdk, walk.arguments + ["--timeout", walk.browser ? "120" : "30"], environment: walk.environment)
    #expect(result.status == 0, "\(walk) \(sdk): \(result.stderr)")
    let stats = try h.stats()
    #expect(stats["non_conforming"] == [], "\(walk) \(sdk): \(stats["non_conforming"]?.text ?? "")")
    let submissions = stats["submissions"]?.array ?? []
    #expect(submissions.compactMap { $0["form"]?.string } == walk.forms, "\(walk) \(sdk)")
    for submission in submissions {
      let form = submission["form"]?.string ?? ""
      #expect(
        JourneySpec.bundled.problems(formID: form, body: submission["body"] ?? .null) == [], "\(walk) \(sdk): \(form)")
      #expect(
        JourneySpec.bundled.lists(formID: form) || JourneySpec.sdkFormIDs.contains(form),
        "\(form) is a form id of the API")
    }
    for (form, body) in walk.bodies { #expect(try h.lastBody(form) == body, "\(walk) \(sdk): \(form)") }
    #expect(try h.signedIn())
  }

  /// Between them, the walks post every form id the API description lists.
  @Test func theWalksCoverEveryFormIDOfTheDescription() {
    let posted = Set(Self.walks.flatMap(\.forms))
    for template in JourneySpec.bundled.forms.map({ $0.template.joined(separator: "/") }) {
      let prefix = template.split(separator: "{").first.map(String.init) ?? template
      #expect(
        posted.contains {
          $0 == template || (template.contains("{") && $0.hasPrefix(prefix) && $0.count > prefix.count)
        }, "\(template)")
    }
  }

  /// What the profile walk entered came back as claims of the ID token; the new password and
  /// the enrolled factor are the tenant's from then on.
  @Test func answersTakeEffectAtTheTenant() throws {
    let h = try Harness(journey: "profile")
    try h.writeProfile("store = \"file\"")
    let walk = try #require(Self.walks.first { $0.journey == "profile" && $0.name == "complete" })
    #expect(try h.automatedLogin(sdk: "web", walk.arguments, environment: walk.environment).status == 0)
    let idToken = try h.strivacity(["token", "--id-token", "--profile", h.profile]).stdout.trimmingCharacters(
      in: .whitespacesAndNewlines)
    let payload = try #require(idToken.split(separator: ".").dropFirst().first)
    let decoded = try #require(Base64URL.decode(String(payload)))
    let claims = try #require(JSONValue.parse(decoded))
    #expect(claims["jobTitle"] == "Engineer")
    #expect(claims["department"] == "ops")
    #expect(claims["employeeId"] == "E-1024", "readonly: the server's value, never asked")
    #expect(claims["note"] == "hello")
    #expect(claims["consents"] == ["terms": true, "marketing": false])

    let reset = try Harness(journey: "password-reset")
    try reset.writeProfile("store = \"file\"")
    let byEmail = try #require(Self.walks.first { $0.journey == "password-reset" && $0.name == "by-email" })
    #expect(try reset.automatedLogin(sdk: "web", byEmail.arguments, environment: byEmail.environment).status == 0)
    let old = try reset.automatedLogin(sdk: "web", Self.demo, environment: Self.demoPassword)
    #expect(old.status == 3, "the old password no longer signs in: \(old.stderr)")
    #expect(old.stderr.contains("Incorrect password"))
  }
}

// A tenant that quotes back every request it gets (the emulator's `echo` and `echo-html`, as a
// gateway that quotes the body it refused): through every kind of request strivacity makes, no
// secret it sent appears in a message, a report or a helper's answer (issue 46, point 3).
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct EchoingTenantTests {
  /// The forms a secret could be found in: as sent, percent-encoded, base64 (a Basic header's);
  /// the start of a long one (a quotation cut in the middle of it).
  static func forms(_ secrets: [String], client: String? = nil) -> [String] {
    secrets.filter { !$0.isEmpty }.flatMap { secret in
      [secret, FormURLEncoding.escape(secret), Base64.encode(Array(secret.utf8))]
        + (secret.count > 24 ? [String(secret.prefix(16))] : [])
        + (client.map { [Base64.encode(Array("\($0):\(FormURLEncoding.escape(secret))".utf8))] } ?? [])
    }
  }

  /// The values of the secret fields of the last form the token (or revocation) endpoint got.
  static func sent(_ h: Harness, _ endpoint: String = "token") throws -> [String] {
    let body = try h.stats()["last_bodies"]?[endpoint]?.string ?? ""
    return FormURLEncoding.decode(body).filter { Redaction.secretFields.contains($0.0) }.map(\.1)
  }

  /// The command failed, quoting the tenant (so the echo was read), and no form of any secret is
  /// in what it wrote.
  static func expectNoSecret(
    _ result: ProcessResult, _ forms: [String], _ what: String, fails: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(!fails || result.status != 0, "\(what) succeeded: \(result.stderr)", sourceLocation: sourceLocation)
    #expect(!forms.isEmpty, "\(what): no secret was sent", sourceLocation: sourceLocation)
    for form in forms {
      #expect(!result.stdout.contains(form), "\(what) stdout: \(result.stdout)", sourceLocation: sourceLocation)
      #expect(!result.stderr.contains(form), "\(what) stderr: \(result.stderr)", sourceLocation: sourceLocation)
    }
  }

  static let api = """

    [profiles.P.apis.orders]
    url = "https://api.example.com/orders/"
    audience = "https://api.example.com/orders"
    scopes = ["orders:read"]
    """

  /// The journey's form: a tenant that quotes a refused password submission back quotes the
  /// request, never the password typed (`JourneyMachine.secretAnswers`).
  @Test func aJourneyFormsPasswordIsNeverQuoted() throws {
    let h = try Harness(journey: "password")
    try h.hostile(["echo-form"])
    let login = try h.automatedLogin(sdk: "web", HostileTenantTests.password, environment: HostileTenantTests.secret)
    #expect(login.stderr.contains("/flow/api/v1/form/") && login.stderr.contains(Redaction.mark), "\(login.stderr)")
    Self.expectNoSecret(login, Self.forms(["Demo-pass-1"]), "login")
  }

  /// A person's profile: the code exchange, a refresh, an API token, doctor (text and JSON),
  /// revocation.
  @Test(arguments: ["echo", "echo-html"]) func aPersonsRequestsAreNeverQuotedWithTheirSecrets(kind: String) throws {
    let h = try Harness(journey: "password")
    try h.writeProfile(Self.api.replacing("profiles.P.", with: "profiles.\(h.profile)."))
    try h.hostile([kind])
    let login = try h.automatedLogin(sdk: "web", HostileTenantTests.password, environment: HostileTenantTests.secret)
    let exchanged = try Self.sent(h)
    #expect(exchanged.count == 2, "code and code_verifier: \(exchanged)")
    Self.expectNoSecret(login, Self.forms(exchanged), "login")
    // The tenant's words are still quoted, without what was sent.
    if kind == "echo" { #expect(login.stderr.contains("code=" + Redaction.mark), "\(login.stderr)") }

    try h.hostile([])
    try h.signIn()
    let refreshToken = try #require(try h.storedSecret()?["tokens"]?["refresh_token"]?.string)
    try h.hostile([kind])
    let forms = Self.forms([refreshToken])
    for arguments in [
      ["token", "--profile", h.profile, "--refresh"], ["token", "--profile", h.profile, "--min-ttl", "100000"],
      ["token", "--profile", h.profile, "--api", "orders"], ["doctor", "--profile", h.profile],
      ["doctor", "--profile", h.profile, "--json"],
    ] {
      Self.expectNoSecret(try h.strivacity(arguments), forms, arguments.joined(separator: " "))
    }
    let revoke = try h.strivacity(["revoke", "--profile", h.profile])
    Self.expectNoSecret(revoke, forms + Self.forms(try Self.sent(h, "revoke")), "revoke", fails: false)
  }

  /// A machine profile's client authentication, each way: Basic, in the body, a signed
  /// assertion; its token, an API's, Google's executable-sourced answer, doctor.
  @Test(arguments: ["echo", "echo-html"]) func aMachinesCredentialsAreNeverQuoted(kind: String) throws {
    let h = try Harness(journey: "machine")
    let key = try h.home.write(
      "key.pem",
      try String(
        contentsOfFile: TestEnvironment.repositoryRoot.appendingPathComponent(
          "Tests/Fixtures/machine-keys/ci-jwt-rsa.pem"
        )
        .path, encoding: .utf8))
    let clients = [
      ("ci-bot", "token_endpoint_auth = \"client_secret_basic\"", MachineProfileTests.botSecret),
      ("ci-bot", "token_endpoint_auth = \"client_secret_post\"", MachineProfileTests.botSecret),
      (
        "ci-jwt",
        "token_endpoint_auth = \"private_key_jwt\"\nprivate_key_file = \"\(key)\"\nprivate_key_id = \"ci-jwt-rsa\"", ""
      ),
    ]
    try h.hostile([kind])
    for (client, settings, secret) in clients {
      try h.writeMachineProfile(
        client: client, settings + Self.api.replacing("profiles.P.", with: "profiles.\(h.profile)."))
      let environment = secret.isEmpty ? [:] : ["STRIVACITY_CLIENT_SECRET": secret]
      for arguments in [
        ["token", "--profile", h.profile], ["token", "--profile", h.profile, "--api", "orders"],
        ["token", "--profile", h.profile, "--api", "orders", "--format", "google-executable"],
        ["doctor", "--profile", h.profile], ["doctor", "--profile", h.profile, "--json"],
      ] {
        let result = try h.strivacity(arguments, environment: environment)
        let forms = Self.forms([secret] + (try Self.sent(h)), client: client)
        Self.expectNoSecret(result, forms, "\(client) \(settings): " + arguments.joined(separator: " "))
      }
    }
  }
}

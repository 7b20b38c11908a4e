// AWS's credential_process as data: the config's role keys admitted, STS's request form, its XML
// answer read as hostile input (bounded, every field admitted, Expiration a time, refusals in
// STS's words made inert), the JSON answer the SDKs read, and the cache's record. No AWS needed.
import StrivacityConfig
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct AWSCredentialProcessTests {
  static let role = AWSRole(roleARN: "arn:aws:iam::123456789012:role/ci/deploy")
  static let token: BearerToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"

  static func result(_ credentials: String) -> String {
    """
    <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
      <AssumeRoleWithWebIdentityResult>
        <SubjectFromWebIdentityToken>alice</SubjectFromWebIdentityToken>
        <Credentials>\(credentials)</Credentials>
      </AssumeRoleWithWebIdentityResult>
    </AssumeRoleWithWebIdentityResponse>
    """
  }

  static let good = result(
    "<AccessKeyId>ASIAEXAMPLE123456789</AccessKeyId><SecretAccessKey>wJalr/K7MDENG+bPxRfiCY=</SecretAccessKey>"
      + "<SessionToken>FwoGZXIvYXdzEJr//////////wEaDA==</SessionToken><Expiration>2026-11-28T17:05:32.123Z</Expiration>"
  )

  func read(_ body: String, status: Int = 200) throws(AWSCredentialError) -> AWSCredentials {
    try AWSCredentialProcess.credentials(HTTPResponse(status: status, body: Array(body.utf8)), role: Self.role)
  }

  @Test func theConfigAdmitsTheRoleItsSessionAndItsEndpoint() throws {
    let config = try Config.parse(
      """
      [profiles.work]
      tenant = "https://work.example.com"
      client_id = "cli"

      [profiles.work.apis.aws]
      url = "https://sts.amazonaws.com/"
      aws_role_arn = "arn:aws-us-gov:iam::123456789012:role/path/to/Deploy+1"
      aws_session_name = "alice@example.com"
      aws_sts_endpoint = "https://sts.eu-west-1.amazonaws.com/"
      """, path: "config.toml")
    let role = try #require(config.profiles.first?.api(named: "aws")?.aws)
    #expect(role.roleARN == "arn:aws-us-gov:iam::123456789012:role/path/to/Deploy+1")
    #expect(role.sessionName(profile: "work") == "alice@example.com")
    #expect(role.stsEndpoint == "https://sts.eu-west-1.amazonaws.com/")
    #expect(AWSRole(roleARN: role.roleARN).sessionName(profile: "my profile") == "strivacity-my_profile")

    for bad in [
      #"aws_role_arn = "arn:aws:iam::12345:role/x""#, #"aws_role_arn = "arn:aws:s3:::bucket/thing-long""#,
      #"aws_role_arn = "arn:aws:iam::123456789012:user/someone""#,
      #"aws_role_arn = "arn:aws:iam::123456789012:role/a b""#,
      "aws_role_arn = \"arn:aws:iam::123456789012:role/x\\u001b[2J\"",
      #"aws_role_arn = "arn:aws:iam::123456789012:role/ok"\#naws_session_name = "x""#,
      #"aws_role_arn = "arn:aws:iam::123456789012:role/ok"\#naws_sts_endpoint = "http://sts.example.com/""#,
      #"aws_role_arn = "arn:aws:iam::123456789012:role/ok"\#naws_sts_endpoint = "https://u:p@sts.example.com/""#,
      #"aws_session_name = "alone""#,
    ] {
      #expect(throws: ConfigError.self, "\(bad)") {
        try Config.parse(
          "[profiles.w]\ntenant = \"https://w.example.com\"\nclient_id = \"c\"\n"
            + "[profiles.w.apis.a]\nurl = \"https://a/\"\n" + bad, path: "c.toml")
      }
    }
  }

  @Test func theEndpointIsTheAPIsThenTheSDKsVariablesThenSTSsOwn() throws {
    let role = Self.role
    #expect(try AWSCredentialProcess.endpoint(role, environment: [:]) == "https://sts.amazonaws.com/")
    #expect(
      try AWSCredentialProcess.endpoint(role, environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:9/"])
        == "http://127.0.0.1:9/")
    #expect(
      try AWSCredentialProcess.endpoint(
        role, environment: ["AWS_ENDPOINT_URL": "https://a.example/", "AWS_ENDPOINT_URL_STS": "https://b.example/"])
        == "https://b.example/")
    var configured = role
    configured.stsEndpoint = "https://c.example/"
    #expect(
      try AWSCredentialProcess.endpoint(configured, environment: ["AWS_ENDPOINT_URL_STS": "https://b.example/"])
        == "https://c.example/")
    // The token goes to no plain-http host but loopback, nor anywhere a URL hides another.
    for bad in ["http://sts.example.com/", "https://x@evil.example/", "ftp://a/", "https://a/?b", "sts.amazonaws.com"] {
      #expect(throws: AWSCredentialError.self, "\(bad)") {
        try AWSCredentialProcess.endpoint(role, environment: ["AWS_ENDPOINT_URL_STS": bad])
      }
    }
  }

  @Test func theRequestIsAssumeRoleWithWebIdentityWithTheTokenAsASecret() {
    let request = AWSCredentialProcess.stsRequest(
      role: Self.role, token: Self.token, profile: "work", endpoint: "https://sts.amazonaws.com/")
    #expect(request.method == "POST" && request.url == "https://sts.amazonaws.com/")
    let form = FormURLEncoding.dictionary(String(decoding: request.body ?? [], as: UTF8.self))
    #expect(form["Action"] == "AssumeRoleWithWebIdentity" && form["Version"] == "2011-06-15")
    #expect(form["RoleArn"] == Self.role.roleARN && form["RoleSessionName"] == "strivacity-work")
    #expect(form["WebIdentityToken"] == Self.token.value)
    #expect(request.sentSecrets == [Self.token.value])
    #expect(request.maxBodyBytes == AWSCredentialProcess.maxResponse)
  }

  @Test func stsAnswerIsReadIntoCredentialsAndTheJSONTheSDKsRead() throws {
    let credentials = try read(Self.good)
    #expect(credentials.accessKeyID == "ASIAEXAMPLE123456789")
    #expect(credentials.expiration == RFC3339.parse("2026-11-28T17:05:32Z"))
    #expect(!"\(credentials)".contains("wJalr"), "the secret is never shown")
    let json = try #require(JSONValue.parse(AWSCredentialProcess.answer(credentials)))
    #expect(json["Version"]?.int == 1 && json["AccessKeyId"]?.string == "ASIAEXAMPLE123456789")
    #expect(json["SecretAccessKey"]?.string == "wJalr/K7MDENG+bPxRfiCY=")
    #expect(json["SessionToken"]?.string == "FwoGZXIvYXdzEJr//////////wEaDA==")
    #expect(json["Expiration"]?.string == "2026-11-28T17:05:32Z")
    #expect(AWSCredentialProcess.answer(credentials).hasSuffix("}\n"))
    // With an XML declaration first, as STS may write it.
    #expect(try read("<?xml version=\"1.0\"?>\n" + Self.good) == credentials)
  }

  @Test func anythingButOneOfEachFieldAdmittedIsRefused() {
    let fields = [
      "<AccessKeyId>ASIAEXAMPLE123456789</AccessKeyId>", "<SecretAccessKey>c2VjcmV0</SecretAccessKey>",
      "<SessionToken>dG9rZW4=</SessionToken>", "<Expiration>2026-11-28T17:05:32Z</Expiration>",
    ]
    var bodies: [String] = []
    for i in fields.indices {
      var without = fields
      without.remove(at: i)
      bodies.append(Self.result(without.joined()))  // one missing
      bodies.append(Self.result((fields + [fields[i]]).joined()))  // one twice
    }
    bodies += [
      Self.result(fields.joined().replacing("ASIAEXAMPLE123456789", with: "asia\"},{\"x")),
      Self.result(fields.joined().replacing("c2VjcmV0", with: "se cret")),
      Self.result(fields.joined().replacing("dG9rZW4=", with: "tok\nen")),
      Self.result(fields.joined().replacing("dG9rZW4=", with: String(repeating: "A", count: 16 * 1024 + 1))),
      Self.result(fields.joined().replacing("2026-11-28T17:05:32Z", with: "tomorrow")),
      Self.result(fields.joined().replacing("2026-11-28T17:05:32Z", with: "2026-02-30T17:05:32Z")),
      Self.result(fields.joined().replacing("2026-11-28T17:05:32Z", with: "2026-11-28T17:05:32+01:00")),
      "<!DOCTYPE x [<!ENTITY a \"b\">]>" + Self.result(fields.joined()),
      Self.result("<!-- <AccessKeyId>X</AccessKeyId> -->" + fields.joined()),
      Self.result("<![CDATA[" + fields.joined() + "]]>"),
      "<Credentials>" + fields.joined() + "</Credentials>",
      Self.result(fields.joined()) + String(repeating: " ", count: 64 * 1024),
      "", "not xml", "{\"Credentials\":{}}",
    ]
    for body in bodies {
      #expect(throws: AWSCredentialError.self, "\(body.prefix(300))") { try read(body) }
    }
    #expect(throws: AWSCredentialError.self) {
      try AWSCredentialProcess.credentials(HTTPResponse(status: 200, body: [0xFF, 0xFE]), role: Self.role)
    }
  }

  @Test func aRefusalIsSaidInSTSsWordsMadeInertWithTheFix() {
    let body = """
      <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>
      <Code>AccessDenied</Code>
      <Message>Not authorized to perform sts:AssumeRoleWithWebIdentity &amp; \u{1b}]52;c;x\u{7}</Message>
      </Error><RequestId>r</RequestId></ErrorResponse>
      """
    do {
      _ = try read(body, status: 403)
      Issue.record("accepted")
    } catch {
      #expect(error.status == .server)
      #expect(error.message.contains("(AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity & ^["))
      #expect(!error.message.contains("\u{1b}") && !error.message.contains("\n"))
      #expect(error.message.contains("aws_role_arn (arn:aws:iam::123456789012:role/ci/deploy)"))
    }
    do {
      _ = try read(
        "<ErrorResponse><Error><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>",
        status: 400)
      Issue.record("accepted")
    } catch {
      #expect(error.status == .transient && error.message.contains("try again later"))
    }
    do {
      _ = try read(String(repeating: "x", count: 1000), status: 502)
      Issue.record("accepted")
    } catch {
      #expect(error.status == .transient && error.message.contains("(HTTP 502)"))
    }
  }

  @Test func theCacheAnswersOnlyForTheSameTokenWellBeforeExpiry() throws {
    let credentials = try read(Self.good)
    let record = AWSCredentialProcess.record(credentials, token: Self.token)
    let now = credentials.expiration - 3600
    #expect(AWSCredentialProcess.cached(record, token: Self.token, now: now) == credentials)
    #expect(AWSCredentialProcess.cached(record, token: "other", now: now) == nil, "a renewed token")
    #expect(
      AWSCredentialProcess.cached(record, token: Self.token, now: credentials.expiration - AWSCredentialProcess.margin)
        == nil)
    #expect(AWSCredentialProcess.cacheSeconds(credentials, now: now) == 3600 - AWSCredentialProcess.margin)
    #expect(AWSCredentialProcess.cacheSeconds(credentials, now: credentials.expiration - 60) == nil)
    var tampered = String(decoding: record, as: UTF8.self)
    tampered += "access_key_id=AKIAOTHER00000000000\n"
    #expect(AWSCredentialProcess.cached(Array(tampered.utf8), token: Self.token, now: now) == nil)
    let hostile = String(decoding: record, as: UTF8.self).replacing("ASIAEXAMPLE123456789", with: "ASIA\",\"X\":\"1")
    #expect(AWSCredentialProcess.cached(Array(hostile.utf8), token: Self.token, now: now) == nil)
  }

  @Test func theCacheSlotChangesWithTheRoleTheSessionAndTheEndpoint() throws {
    let key = StoreKey(profile: "work", issuer: "https://work.example.com", clientID: "cli")
    let api = API(name: "aws", url: try HostEntry(admitting: "https://sts.amazonaws.com/"))
    func slot(_ role: AWSRole, _ endpoint: String = "https://sts.amazonaws.com/") -> TokenSlot {
      AWSCredentialProcess.cacheKey(key, api: api, role: role, profile: "work", endpoint: endpoint).slot
    }
    let base = slot(Self.role)
    #expect(base != api.slot && base.name?.hasPrefix("adhoc.") == true)
    #expect(base == slot(Self.role))
    #expect(base != slot(AWSRole(roleARN: "arn:aws:iam::123456789012:role/other")))
    #expect(base != slot(AWSRole(roleARN: Self.role.roleARN, sessionName: "alice")))
    #expect(base != slot(Self.role, "http://127.0.0.1:9/"))
  }

  @Test func theSmallBinaryReadsOnlyThePlainForms() {
    let plain = AWSCredentialProcess.plainArguments(["--api", "aws"])
    #expect(plain?.api == "aws" && plain?.profile == nil)
    let both = AWSCredentialProcess.plainArguments(["--profile", "p", "--api", "aws"])
    #expect(both?.api == "aws" && both?.profile == "p")
    for arguments: ArraySlice<String> in [
      [], ["--api"], ["--api=aws"], ["--api", "a", "--api", "b"], ["--profile", "p"], ["--api", "a", "--verbose"],
      ["--api", "a", "--store", "file"], ["--api", "--profile"],
    ] {
      #expect(AWSCredentialProcess.plainArguments(arguments) == nil, "\(arguments)")
    }
  }

  /// Through the seam: the API and its role found (or said, exit 2, in the helper's voice), the
  /// answer made from the token (a Derivation), kept and read back only for that token.
  @Test func theHelperRoutesToADerivationOfTheAPIsToken() throws {
    let config = try Config.parse(
      """
      [profiles.work]
      tenant = "https://work.example.com"
      client_id = "cli"

      [profiles.work.apis.aws]
      url = "https://sts.amazonaws.com/"
      aws_role_arn = "arn:aws:iam::123456789012:role/ci"

      [profiles.work.apis.plain]
      url = "https://api.example.com/"
      """, path: "config.toml")
    func route(_ words: [String], _ environment: [String: String] = [:]) -> HelperRoute? {
      AWSHelper.route(words, [], config: config, environment: environment)
    }
    for (words, said) in [
      (["--api", "nope", "--profile", "work"], "has no API 'nope'"),
      (["--api", "plain", "--profile", "work"], "[profiles.work.apis.plain]"),
    ] {
      guard case .reply(let reply)? = route(words) else {
        Issue.record("\(words) answered")
        continue
      }
      #expect(reply.stdout.isEmpty && reply.status == .usage && reply.stderr?.contains(said) == true, "\(reply)")
      #expect(reply.stderr?.hasPrefix("strivacity: error: aws credential_process: ") == true)
    }
    guard case .reply(let bad)? = route(["--api", "aws", "--profile", "work"], ["AWS_ENDPOINT_URL_STS": "http://x/"])
    else {
      Issue.record("a bad endpoint answered")
      return
    }
    #expect(bad.status == .usage && bad.stderr?.contains("AWS_ENDPOINT_URL_STS: ") == true)
    #expect(route(["--api", "aws", "--verbose"]) == nil && AWSHelper.asksForToken(["--api", "aws"]))
    guard case .token(let ask)? = route(["--profile", "work", "--api", "aws"]), let derived = ask.derived else {
      Issue.record("no derivation")
      return
    }
    #expect(ask.api?.name == "aws" && ask.resolved.name == "work")
    let request = derived.request(Self.token)
    #expect(request.url == "https://sts.amazonaws.com/" && request.sentSecrets == [Self.token.value])
    let made = try derived.made(HTTPResponse(status: 200, body: Array(Self.good.utf8)), Self.token, 0)
    #expect(made.answer.hasPrefix(#"{"Version":1,"AccessKeyId":"ASIAEXAMPLE123456789""#) && made.seconds != nil)
    #expect(derived.cached(made.record, Self.token, 0) == made.answer)
    #expect(derived.cached(made.record, "another", 0) == nil)
    do {
      _ = try derived.made(HTTPResponse(status: 403, body: []), Self.token, 0)
      Issue.record("a refusal made credentials")
    } catch {
      #expect(error.status == .server)
    }
  }

  @Test func rfc3339ReadsUTCTimesOnly() {
    #expect(RFC3339.parse("1970-01-01T00:00:00Z") == 0)
    #expect(RFC3339.parse("2026-11-28T17:05:32Z").map(RFC3339.format) == "2026-11-28T17:05:32Z")
    #expect(RFC3339.parse("2024-02-29T00:00:00.5Z") == RFC3339.parse("2024-02-29T00:00:00Z"))
    for bad in [
      "2023-02-29T00:00:00Z", "2026-11-28 17:05:32Z", "2026-11-28T17:05:32", "2026-13-01T00:00:00Z",
      "2026-11-28T24:00:00Z", "2026-11-28T17:05:32.Z", "+026-11-28T17:05:32Z", "",
    ] {
      #expect(RFC3339.parse(bad) == nil, "\(bad)")
    }
  }
}

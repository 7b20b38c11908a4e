// Machine profiles (issue 28) against an authorization server nobody here wrote: the glewlwyd of
// Scripts/outside-as (OutsideAuthorizationServer), whose machine clients use the client
// credentials grant with a client secret (Basic or in the form) or a private key (RFC 7523). The
// emulator's tests say what strivacity does; these say that a real server understands it the same
// way. Each run has no session bus at all (no D-Bus variable): a machine profile needs no keyring.
//
// What glewlwyd 2.7.5 does that these tests lean on, seen with plain curl (the first test):
// - it refuses a client (a wrong secret, an unknown client, no scope asked) with a bare 403: no
//   body, no `invalid_client`, no WWW-Authenticate;
// - it does not form-urlencode-decode Basic's id and secret (RFC 6749 §2.3.1 says the client
//   encodes them), so a secret with ":", "%", "+" or non-ASCII works only in the form (Post),
//   and the machine client used with Basic has a secret the encoding leaves alone;
// - its record of an access token (gpo_access_token) has the grant (5: client credentials) and
//   the resource, and the client id only when the client authenticated with Basic.
import Foundation
import OAuthCore
import StrivacityCore
import StrivacityTestSupport
import Testing

extension OutsideAuthorizationServer {
  /// glewlwyd's own record of the access token with this `jti`: its grant (5: client
  /// credentials), the client id it recorded ("-" unless the client used Basic) and its resource.
  func issuedToMachine(jti: String) throws -> String {
    try accessTokenRecord(
      jti: jti,
      "gpoa_authorization_type || ' ' || ifnull(nullif(gpoa_client_id, ''), '-') || ' ' || ifnull(gpoa_resource, '-')")
  }

  /// How many lines of glewlwyd's log contain `text` (one per token issued, or per refusal).
  func logLines(containing text: String) -> Int {
    let log = (try? String(contentsOfFile: self["log"], encoding: .utf8)) ?? ""
    return log.split(separator: "\n").filter { $0.contains(text) }.count
  }

  func issuedCount(_ clientID: String) -> Int {
    logLines(containing: "Access token generated for client '\(clientID)' with scope list")
  }
  func refusedCount(_ clientID: String) -> Int {
    logLines(containing: "Security - Authorization invalid for client_id \(clientID) at")
  }

  func secret(_ key: String) throws -> String {
    try String(contentsOfFile: self[key], encoding: .utf8)
  }
}

@Suite(.serialized, .outsideServerInstalled)
struct OutsideClientCredentialsTests {
  static let orders = "https://api.example.com/orders/"
  /// The issue-27 suite's readers of a JWT (claims, audiences, scopes).
  let jwt = OutsideAuthorizationServerTests()

  /// A CI job's environment: no HOME keyring, no session bus, the secret (if any) in `secret`.
  func environment(home: ScratchDirectory, secret: String? = nil) -> [String: String] {
    var env = ["HOME": home.path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "NO_COLOR": "1"]
    env["CC_SECRET"] = secret
    return env
  }

  /// A machine profile on the server: `auth` is its client authentication lines.
  func profile(_ name: String, _ server: OutsideAuthorizationServer, client: String, _ auth: String) -> String {
    "\n"
      + StrivacityConfig.profile(
        name, tenant: server["issuer"], clientID: client, grant: "client_credentials",
        auth + "\nscopes = [\"orders:read\"]\n\n")
  }

  /// A machine profile whose secret is in CC_SECRET, sent by `method` (token_endpoint_auth).
  func secretProfile(_ name: String, _ server: OutsideAuthorizationServer, client: String, _ method: String) -> String {
    profile(name, server, client: client, "client_secret_env = \"CC_SECRET\"\ntoken_endpoint_auth = \"\(method)\"")
  }

  func strivacity(_ arguments: [String], _ env: [String: String]) throws -> ProcessResult {
    try run([TestEnvironment.binary("strivacity")] + arguments, environment: env)
  }

  /// RFC 6749 §2.3.1 / Appendix B: application/x-www-form-urlencoded, byte by byte of UTF-8.
  static func formEncoded(_ text: String) -> String { TestFormEncoding.encode(text) }

  static func basic(_ id: String, _ secret: String) -> String {
    "Authorization: " + TestFormEncoding.basic(id, secret)
  }

  /// One request to the token endpoint with plain curl, the credentials through stdin and a
  /// 0600 file (never argv): its status, WWW-Authenticate and body.
  func curlToken(
    _ server: OutsideAuthorizationServer, scratch: ScratchDirectory, header: String? = nil, body: String
  ) throws -> (status: String, challenge: String, body: String) {
    let headerFile = try scratch.write("header", header ?? "X-None: 1")
    let result = try run(
      [
        "/usr/bin/curl", "-sS", "-D", scratch.file("answer-headers"), "-w", "\n%{http_code}", "-H", "@" + headerFile,
        "--data-binary", "@-", server["issuer"] + "/token",
      ], environment: ["PATH": "/usr/bin:/bin"], stdin: body)
    #expect(result.status == 0, "\(result.stderr)")
    let headers = (try? String(contentsOfFile: scratch.file("answer-headers"), encoding: .utf8)) ?? ""
    let challenge = headers.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("www-authenticate:") }
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    return (String(lines.last ?? ""), challenge.joined(separator: "; "), lines.dropLast().joined(separator: "\n"))
  }

  /// The server as the other tests need it, with nothing but curl: client credentials with
  /// Basic (encoded as RFC 6749 §2.3.1 says) and in the form, a resource-bound token, its
  /// refusals as they are, and discovery naming the methods.
  @Test func theServerIssuesClientCredentialsTokens() throws {
    let server = try OutsideAuthorizationServer()
    defer { server.stop() }
    let scratch = try ScratchDirectory("outside-cc-curl")
    for key in ["cc_secret_file", "cc_basic_secret_file", "cc_jwt_rsa_key", "cc_jwt_ec_key"] {
      let mode = try FileManager.default.attributesOfItem(atPath: server[key])[.posixPermissions] as? Int
      #expect(mode == 0o600, "\(key) has mode \(String(mode ?? 0, radix: 8))")
    }
    let hard = try server.secret("cc_secret_file"), plain = try server.secret("cc_basic_secret_file")
    #expect(hard.contains(":") && hard.contains("%") && hard.contains("+") && hard.contains("ü"))
    #expect(Self.formEncoded(plain) == plain, "the Basic client's secret is the same encoded")
    let grant = "grant_type=client_credentials&scope=orders%3Aread"

    let basic = try curlToken(
      server, scratch: scratch, header: Self.basic(server["cc_basic_client_id"], plain),
      body: grant + "&resource=" + Self.formEncoded(Self.orders))
    #expect(basic.status == "200", "\(basic.body)")
    let basicClaims = try jwt.claims(JSONValue.parse(basic.body)?["access_token"]?.string ?? "")
    #expect(
      try server.issuedToMachine(jti: basicClaims["jti"]?.string ?? "")
        == "5 \(server["cc_basic_client_id"]) \(Self.orders)")
    #expect(jwt.audiences(basicClaims) == [Self.orders], "\(basicClaims)")

    let post = try curlToken(
      server, scratch: scratch,
      body: grant + "&client_id=\(server["cc_client_id"])&client_secret=" + Self.formEncoded(hard))
    #expect(post.status == "200", "\(post.body)")
    let postClaims = try jwt.claims(JSONValue.parse(post.body)?["access_token"]?.string ?? "")
    #expect(postClaims["client_id"]?.string == server["cc_client_id"])
    #expect(try server.issuedToMachine(jti: postClaims["jti"]?.string ?? "") == "5 - -")

    // The hard secret in Basic, encoded as the RFC says: glewlwyd compares it undecoded.
    let encodedBasic = try curlToken(
      server, scratch: scratch, header: Self.basic(server["cc_client_id"], hard), body: grant)
    #expect(encodedBasic.status == "403" && encodedBasic.body.isEmpty, "\(encodedBasic)")

    // A wrong secret: a bare 403, both ways.
    for wrong in [
      try curlToken(server, scratch: scratch, header: Self.basic(server["cc_basic_client_id"], "wrong"), body: grant),
      try curlToken(server, scratch: scratch, body: grant + "&client_id=\(server["cc_client_id"])&client_secret=x"),
    ] {
      #expect(wrong.status == "403" && wrong.body.isEmpty && wrong.challenge.isEmpty, "\(wrong)")
    }

    let discovery = try run(
      ["/usr/bin/curl", "-sSf", server["issuer"] + "/.well-known/openid-configuration"],
      environment: ["PATH": "/usr/bin:/bin"])
    let methods = JSONValue.parse(discovery.stdout)?["token_endpoint_auth_methods_supported"]?.array ?? []
    #expect(
      methods.compactMap(\.string) == [
        "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
      ])
  }

  /// `strivacity token` for a machine profile, each way of giving it the secret: Basic (the
  /// secret from CC_SECRET), Post (the hard secret, from CC_SECRET and from a 0600 file). The
  /// token is the server's, issued by client credentials to that client — Basic or in the form,
  /// as glewlwyd's record shows — and asked again, it comes from the cache, not the server.
  @Test func clientSecretBasicAndPost() throws {
    let server = try OutsideAuthorizationServer()
    defer { server.stop() }
    let home = try ScratchDirectory("outside-cc-home")
    let hard = try server.secret("cc_secret_file"), plain = try server.secret("cc_basic_secret_file")
    let secretFile = try home.write("secrets/cc", hard + "\n")
    try home.writeConfig(
      secretProfile("cc-basic", server, client: server["cc_basic_client_id"], "client_secret_basic")
        + """

        [profiles.cc-basic.apis.orders]
        url = "\(Self.orders)"
        resource = ["\(Self.orders)"]
        scopes = ["orders:read"]

        """
        + secretProfile("cc-post", server, client: server["cc_client_id"], "client_secret_post")
        + profile(
          "cc-file", server, client: server["cc_client_id"],
          "client_secret_file = \"\(secretFile)\"\ntoken_endpoint_auth = \"client_secret_post\""))

    let cases: [(profile: String, secret: String?, client: String, recorded: String)] = [
      ("cc-basic", plain, server["cc_basic_client_id"], server["cc_basic_client_id"]),
      ("cc-post", hard, server["cc_client_id"], "-"),
      ("cc-file", nil, server["cc_client_id"], "-"),
    ]
    for (profile, secret, client, recorded) in cases {
      let env = environment(home: home, secret: secret)
      let before = server.issuedCount(client)
      let token = try strivacity(["token", "--profile", profile], env)
      #expect(token.status == 0 && !token.stdout.isEmpty, "\(profile): \(token.stderr)")
      #expect(!token.stderr.contains(hard) && !token.stderr.contains(plain), "\(profile): a secret in stderr")
      let claims = try jwt.claims(token.stdout)
      #expect(claims["client_id"]?.string == client, "\(profile): \(claims)")
      #expect(jwt.scopes(claims) == ["orders:read"], "\(profile): \(claims)")
      #expect(try server.issuedToMachine(jti: claims["jti"]?.string ?? "") == "5 \(recorded) -", "\(profile)")
      let again = try strivacity(["token", "--profile", profile], env)
      #expect(again.status == 0 && again.stdout == token.stdout, "\(profile): \(again.stderr)")
      #expect(server.issuedCount(client) == before + 1, "\(profile): one token request for two calls")
    }

    // The API's token: for its resource, by client credentials, kept apart from the profile's own.
    let env = environment(home: home, secret: plain)
    let orders = try strivacity(["token", "--profile", "cc-basic", "--api", "orders"], env)
    #expect(orders.status == 0, "\(orders.stderr)")
    let ordersClaims = try jwt.claims(orders.stdout)
    #expect(jwt.audiences(ordersClaims) == [Self.orders], "\(ordersClaims)")
    #expect(
      try server.issuedToMachine(jti: ordersClaims["jti"]?.string ?? "")
        == "5 \(server["cc_basic_client_id"]) \(Self.orders)")
    #expect(try strivacity(["token", "--profile", "cc-basic"], env).stdout != orders.stdout)
  }

  /// A secret the server refuses: exit 9, one line saying so, nothing on stdout, the secret
  /// nowhere in what strivacity says, and one request, not a retry loop. The hard secret in
  /// Basic is one too, here: strivacity encodes it as RFC 6749 §2.3.1 says, which glewlwyd
  /// does not decode (sent as `curl -u` sends it, unencoded, glewlwyd would take it).
  @Test func aRefusedSecret() throws {
    let server = try OutsideAuthorizationServer()
    defer { server.stop() }
    let home = try ScratchDirectory("outside-cc-home")
    let hard = try server.secret("cc_secret_file")
    let wrong = "wr0ng:s3cr%t+ü"
    try home.writeConfig(
      secretProfile("cc-wrong-basic", server, client: server["cc_basic_client_id"], "client_secret_basic")
        + secretProfile("cc-wrong-post", server, client: server["cc_client_id"], "client_secret_post")
        + secretProfile("cc-hard-basic", server, client: server["cc_client_id"], "client_secret_basic"))
    let cases = [
      ("cc-wrong-basic", wrong, server["cc_basic_client_id"]), ("cc-wrong-post", wrong, server["cc_client_id"]),
      ("cc-hard-basic", hard, server["cc_client_id"]),
    ]
    for (profile, secret, client) in cases {
      let before = server.refusedCount(client)
      let refused = try strivacity(["token", "--profile", profile], environment(home: home, secret: secret))
      #expect(refused.status == 9, "\(profile): \(refused.status) \(refused.stderr)")
      #expect(refused.stdout.isEmpty, "\(profile)")
      #expect(refused.stderr.contains("the tenant refused the client secret"), "\(profile): \(refused.stderr)")
      #expect(refused.stderr.split(separator: "\n").count == 1, "\(profile): \(refused.stderr)")
      for form in [secret, Self.formEncoded(secret), Data(secret.utf8).base64EncodedString()] {
        #expect(!refused.stderr.contains(form), "\(profile): the secret in stderr")
      }
      #expect(server.refusedCount(client) == before + 1, "\(profile): one request")
      #expect(server.issuedCount(client) == 0, "\(profile)")
    }
  }

  /// private_key_jwt (RFC 7523): RS256 and ES256, each key in both PEM forms (PKCS#8, and
  /// PKCS#1 or SEC 1), no secret anywhere; glewlwyd checks the signature, `aud` (its token
  /// endpoint), `exp` and that the `jti` is new.
  @Test func privateKeyJWT() throws {
    let server = try OutsideAuthorizationServer()
    defer { server.stop() }
    let home = try ScratchDirectory("outside-cc-home")
    // The script's keys are PKCS#8 (RSA) and SEC 1 (EC); the other form of each, made here.
    func otherForm(_ key: String, _ name: String, traditional: Bool) throws -> String {
      let converted = try run(
        ["/usr/bin/openssl", "pkey", "-in", server[key]] + (traditional ? ["-traditional"] : []),
        environment: ["PATH": "/usr/bin:/bin"])
      try #require(converted.status == 0, "\(converted.stderr)")
      return try home.write("keys/\(name)", converted.stdout)
    }
    let keys: [(profile: String, client: String, file: String, header: String)] = [
      ("cc-rsa", server["cc_jwt_rsa_client_id"], server["cc_jwt_rsa_key"], "-----BEGIN PRIVATE KEY-----"),
      (
        "cc-rsa-pkcs1", server["cc_jwt_rsa_client_id"], try otherForm("cc_jwt_rsa_key", "rsa.pem", traditional: true),
        "-----BEGIN RSA PRIVATE KEY-----"
      ),
      ("cc-ec", server["cc_jwt_ec_client_id"], server["cc_jwt_ec_key"], "-----BEGIN EC PRIVATE KEY-----"),
      (
        "cc-ec-pkcs8", server["cc_jwt_ec_client_id"], try otherForm("cc_jwt_ec_key", "ec.pem", traditional: false),
        "-----BEGIN PRIVATE KEY-----"
      ),
    ]
    try home.writeConfig(
      keys.map {
        profile(
          $0.profile, server, client: $0.client,
          "token_endpoint_auth = \"private_key_jwt\"\nprivate_key_file = \"\($0.file)\"")
      }.joined())
    for key in keys {
      let pem = try String(contentsOfFile: key.file, encoding: .utf8)
      #expect(pem.hasPrefix(key.header), "\(key.profile): \(pem.prefix(40))")
      let before = server.issuedCount(key.client)
      let token = try strivacity(["token", "--profile", key.profile], environment(home: home))
      #expect(token.status == 0 && !token.stdout.isEmpty, "\(key.profile): \(token.stderr)")
      let claims = try jwt.claims(token.stdout)
      #expect(claims["client_id"]?.string == key.client, "\(key.profile): \(claims)")
      #expect(try server.issuedToMachine(jti: claims["jti"]?.string ?? "") == "5 - -", "\(key.profile)")
      #expect(server.issuedCount(key.client) == before + 1, "\(key.profile)")
    }
    // Two assertions of the same client in a row: a fresh jti each (glewlwyd refuses a replay).
    #expect(server.logLines(containing: "jti already used") == 0)
  }

  /// private_key_jwt with the client's keys as a JWKS, where glewlwyd picks the key by the
  /// assertion's kid alone: an assertion without one is refused (a bare 403, what strivacity
  /// sent before it named the key); by default the kid is the key's RFC 7638 thumbprint, which
  /// the server's JWKS has under the thumbprint Scripts/outside-as computed with openssl and
  /// Python; `private_key_id` sends another name, here the one the "named" client registered.
  @Test func privateKeyJWTWithAJWKS() throws {
    let server = try OutsideAuthorizationServer()
    defer { server.stop() }
    let home = try ScratchDirectory("outside-cc-home")
    let scratch = try ScratchDirectory("outside-cc-jwks")
    let cases: [(profile: String, client: String, key: String, keyID: String?, kid: String)] = [
      ("jwks-rsa", server["cc_jwks_rsa_client_id"], "cc_jwt_rsa_key", nil, server["cc_jwks_rsa_kid"]),
      ("jwks-ec", server["cc_jwks_ec_client_id"], "cc_jwt_ec_key", nil, server["cc_jwks_ec_kid"]),
      (
        "named-rsa", server["cc_jwks_named_client_id"], "cc_jwt_rsa_key", server["cc_jwks_named_rsa_kid"],
        server["cc_jwks_named_rsa_kid"]
      ),
      (
        "named-ec", server["cc_jwks_named_client_id"], "cc_jwt_ec_key", server["cc_jwks_named_ec_kid"],
        server["cc_jwks_named_ec_kid"]
      ),
      // The named client's keys under their thumbprints: not a kid it registered.
      ("named-default", server["cc_jwks_named_client_id"], "cc_jwt_rsa_key", nil, server["cc_jwks_rsa_kid"]),
    ]
    try home.writeConfig(
      cases.map {
        profile(
          $0.profile, server, client: $0.client,
          "token_endpoint_auth = \"private_key_jwt\"\nprivate_key_file = \"\(server[$0.key])\""
            + ($0.keyID.map { "\nprivate_key_id = \"\($0)\"" } ?? ""))
      }.joined())

    // The server as it is, with curl: the same assertion with the kid and without.
    let grant =
      "grant_type=client_credentials&scope=orders%3Aread&client_assertion_type="
      + Self.formEncoded(
        ClientAssertion.type)
    let rsa = try ClientAssertion.SigningKey(pem: String(contentsOfFile: server["cc_jwt_rsa_key"], encoding: .utf8))
    for (keyID, expected) in [(ClientAssertion.KeyID.omitted, "403"), (.thumbprint, "200")] {
      let assertion = try ClientAssertion.make(
        clientID: server["cc_jwks_rsa_client_id"], tokenEndpoint: server["issuer"] + "/token", key: rsa,
        keyID: keyID, now: Int64(Date().timeIntervalSince1970))
      let answer = try curlToken(server, scratch: scratch, body: grant + "&client_assertion=" + assertion)
      #expect(answer.status == expected, "\(keyID): \(answer)")
    }

    for (profile, client, _, _, kid) in cases {
      let env = environment(home: home)
      let status = try strivacity(["status", "--profile", profile, "--json"], env)
      #expect(status.status == 0, "\(profile): \(status.stderr)")
      #expect(JSONValue.parse(status.stdout)?["machine"]?["kid"]?.string == kid, "\(profile): \(status.stdout)")
      let before = server.issuedCount(client)
      let token = try strivacity(["token", "--profile", profile], env)
      if profile == "named-default" {
        #expect(token.status == 9 && token.stdout.isEmpty, "\(profile): \(token.stderr)")
        #expect(token.stderr.contains("with kid \(kid)"), "\(profile): \(token.stderr)")
        #expect(server.issuedCount(client) == before, "\(profile)")
        continue
      }
      #expect(token.status == 0 && !token.stdout.isEmpty, "\(profile): \(token.stderr)")
      let claims = try jwt.claims(token.stdout)
      #expect(claims["client_id"]?.string == client, "\(profile): \(claims)")
      #expect(server.issuedCount(client) == before + 1, "\(profile)")
    }
  }
}

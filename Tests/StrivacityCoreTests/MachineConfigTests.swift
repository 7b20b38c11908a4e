// Machine profiles in the config (issue 28): `grant`, the secret's one source, the client
// authentication and its private key, each admitted with an error naming the line.
import StrivacityConfig
import StrivacityCore
import Testing

@Suite struct MachineConfigTests {
  func profile(_ body: String) throws -> Profile {
    let config = try Config.parse(
      "[profiles.ci]\ntenant = \"https://t.example\"\nclient_id = \"bot\"\n" + body, path: "c")
    return try #require(config.profile(named: "ci"))
  }

  func refusal(_ body: String) -> String {
    do {
      _ = try profile(body)
      return "accepted"
    } catch {
      return "\(error)"
    }
  }

  @Test func aSignedInProfileIsTheDefault() throws {
    let plain = try profile("")
    #expect(plain.grant == .signIn && plain.machine == nil)
    #expect(try profile("grant = \"authorization_code\"\n").grant == .signIn)
  }

  @Test func machineProfilesReadTheirSourceAndAuthentication() throws {
    let bare = try profile("grant = \"client_credentials\"\n")
    #expect(bare.grant == .clientCredentials && bare.machine == MachineCredentials())
    let env = try profile("grant = \"client_credentials\"\nclient_secret_env = \"CI_BOT_SECRET\"\n")
    #expect(env.machine?.secret == .environment("CI_BOT_SECRET"))
    let file = try profile(
      "grant = \"client_credentials\"\nclient_secret_file = \"$CREDENTIALS_DIRECTORY/bot\"\n"
        + "token_endpoint_auth = \"client_secret_post\"\n")
    #expect(file.machine == MachineCredentials(secret: .file("$CREDENTIALS_DIRECTORY/bot"), auth: .clientSecretPost))
    let jwt = try profile(
      "grant = \"client_credentials\"\ntoken_endpoint_auth = \"private_key_jwt\"\nprivate_key_file = \"/etc/bot.pem\"\n"
    )
    #expect(jwt.machine?.auth == .privateKeyJWT && jwt.machine?.privateKeyFile == "/etc/bot.pem")
  }

  /// `private_key_id`: the kid the assertions carry (default: the key's thumbprint), admitted as
  /// printable ASCII of at most 256 bytes, and only beside private_key_jwt.
  @Test func aPrivateKeyIDNamesTheKey() throws {
    let jwt =
      "grant = \"client_credentials\"\ntoken_endpoint_auth = \"private_key_jwt\"\nprivate_key_file = \"/k.pem\"\n"
    #expect(try profile(jwt).machine?.privateKeyID == nil)
    for kid in ["ci-bot-2025", "urn:example:key 1", String(repeating: "k", count: 256), "~!\"#"] {
      let quoted = kid.replacing("\"", with: "\\\"")
      let named = try profile(jwt + "private_key_id = \"\(quoted)\"\n")
      #expect(
        named.machine
          == MachineCredentials(auth: .privateKeyJWT, privateKeyFile: "/k.pem", privateKeyID: kid))
    }
    // Known: no warning about an unknown key.
    let config = try Config.parse(
      "[profiles.ci]\ntenant = \"https://t.example\"\nclient_id = \"bot\"\n" + jwt + "private_key_id = \"k\"\n",
      path: "c")
    #expect(config.warnings.isEmpty, "\(config.warnings)")
    for (value, why) in [
      ("\"\"", "a key id has 1 to 256 characters"),
      ("\"\(String(repeating: "k", count: 257))\"", "a key id has 1 to 256 characters"),
      ("\"tab\\there\"", "a key id is printable ASCII"), ("\"kéy\"", "a key id is printable ASCII"),
      ("\"line\\nbreak\"", "a key id is printable ASCII"),
    ] {
      #expect(
        refusal(jwt + "private_key_id = \(value)\n").hasPrefix("c:7:1: [profiles.ci] private_key_id: \(why)"),
        "\(value)")
    }
    #expect(refusal(jwt + "private_key_id = 7\n") == "c:7:1: 'private_key_id' must be a string, not an integer")
    #expect(
      refusal("grant = \"client_credentials\"\nclient_secret_env = \"S\"\nprivate_key_id = \"k\"\n")
        == "c:6:1: [profiles.ci]: private_key_id goes with token_endpoint_auth = \"private_key_jwt\", and only with it")
    #expect(
      refusal("private_key_id = \"k\"\n")
        == "c:4:1: [profiles.ci]: private_key_id is for machine profiles: add grant = \"client_credentials\"")
  }

  @Test func mistakesNameTheLine() {
    #expect(
      refusal("grant = \"password\"\n")
        == "c:4:1: grant must be \"authorization_code\" (a person signs in) or \"client_credentials\" (a machine)")
    #expect(
      refusal("grant = \"client_credentials\"\nclient_secret_env = \"A\"\nclient_secret_file = \"/s\"\n")
        == "c:6:1: [profiles.ci] has both client_secret_env and client_secret_file: the secret comes from exactly one")
    #expect(
      refusal("grant = \"client_credentials\"\nclient_secret_env = \"1BAD\"\n").hasPrefix(
        "c:5:1: [profiles.ci] client_secret_env: '1BAD' is not"))
    #expect(
      refusal("grant = \"client_credentials\"\nclient_secret_file = \"secret.txt\"\n").contains("must be absolute"))
    #expect(
      refusal("grant = \"client_credentials\"\ntoken_endpoint_auth = \"tls_client_auth\"\n").hasPrefix(
        "c:5:1: token_endpoint_auth must be one of"))
    #expect(
      refusal("grant = \"client_credentials\"\ntoken_endpoint_auth = \"private_key_jwt\"\n").contains(
        "private_key_file goes with"))
    #expect(
      refusal("grant = \"client_credentials\"\nprivate_key_file = \"/k.pem\"\n").contains("private_key_file goes with"))
    #expect(
      refusal("client_secret_env = \"X\"\n")
        == "c:4:1: [profiles.ci]: client_secret_env is for machine profiles: add grant = \"client_credentials\"")
  }
}

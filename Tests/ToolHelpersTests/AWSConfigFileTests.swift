// `setup aws`'s edit of the AWS config, as bytes: the credential_process line written into the
// profile's section (added when missing), replaced when it is ours, refused beside another way
// to credentials, removed by --undo back to the file's bytes; every other byte kept (comments,
// other sections, CRLF, bytes that are not UTF-8); and what takes credentials before it.
import StrivacityCore
import Testing

@testable import ToolHelpers

@Suite struct AWSConfigFileTests {
  static let command = "/opt/bin/strivacity aws-credential-process --api aws --profile work"

  func set(_ text: String, _ profile: String = "work", command: String = command) throws -> String {
    String(decoding: try AWSConfigFile.setting(Array(text.utf8), profile: profile, command: command), as: UTF8.self)
  }

  func undo(_ text: String, _ profile: String = "work", api: String = "aws") throws -> String? {
    try AWSConfigFile.removing(Array(text.utf8), profile: profile, api: api).map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func aMissingSectionIsAddedAtTheEndAndUndoTakesItBackByteForByte() throws {
    let line = "credential_process = \(Self.command)"
    for (before, after) in [
      ("", "[profile work]\n\(line)\n"),
      ("[default]\nregion = eu-west-1\n", "[default]\nregion = eu-west-1\n\n[profile work]\n\(line)\n"),
      ("[default]\nregion = eu-west-1\n\n", "[default]\nregion = eu-west-1\n\n\n[profile work]\n\(line)\n"),
      ("[default]\nregion = eu-west-1", "[default]\nregion = eu-west-1\n\n[profile work]\n\(line)"),
      ("[default]\r\nregion = eu-west-1\r\n", "[default]\r\nregion = eu-west-1\r\n\r\n[profile work]\r\n\(line)\r\n"),
    ] {
      #expect(try set(before) == after)
      #expect(try undo(after) == before)
    }
    #expect(try set("", "default").hasPrefix("[default]\ncredential_process = "))
  }

  @Test func anExistingSectionGetsTheLineAfterItsLastKeyEverythingElseKept() throws {
    let hostile = "[profile other]\n; \u{1b}]0;owned\u{07}\nregion = \u{202e}x\n"
    let before = """
      # my AWS config
      [default]
      region = eu-west-1

      [profile work]
      ; work account
      region = us-east-1
      s3 =
        max_concurrent_requests = 20

      # the next one is someone else's
      \(hostile)
      """
    let after = try set(before)
    #expect(
      after
        == before.replacing(
          "max_concurrent_requests = 20\n", with: "max_concurrent_requests = 20\ncredential_process = \(Self.command)\n"
        ))
    #expect(try undo(after) == before)
    // Bytes that are not UTF-8 elsewhere in the file stay as they were.
    let binary = Array("[profile x]\nregion = ".utf8) + [0xFF, 0xFE, 0x00, 0x0A]
    let edited = try AWSConfigFile.setting(binary, profile: "work", command: Self.command)
    #expect(Array(edited.prefix(binary.count)) == binary)
    #expect(try AWSConfigFile.removing(edited, profile: "work", api: "aws") == binary)
    // A header alone: the line right after it; a header without a newline at the end of the file.
    #expect(try set("[profile work]\n[x]\n") == "[profile work]\ncredential_process = \(Self.command)\n[x]\n")
    #expect(try set("[profile  'work' ]") == "[profile  'work' ]\ncredential_process = \(Self.command)")
    #expect(
      try set("[profile work]\r\nregion=x") == "[profile work]\r\nregion=x\r\ncredential_process = \(Self.command)")
  }

  @Test func oursIsReplacedAnotherWayToCredentialsIsRefused() throws {
    let old = "[profile work]\nregion = x\ncredential_process = /usr/bin/strivacity aws-credential-process --api old\n"
    #expect(try set(old) == "[profile work]\nregion = x\ncredential_process = \(Self.command)\n")
    let quoted = "'/home/a b/strivacity' aws-credential-process --api aws"
    #expect(AWSConfigFile.isOurs(quoted, api: "aws") && !AWSConfigFile.isOurs(quoted, api: "other"))
    #expect(!AWSConfigFile.isOurs("/usr/bin/aws-vault export --format=json-credential-process"))
    for (key, value) in [
      ("credential_process", "aws-vault export --format=json-credential-process work"),
      ("aws_access_key_id", "AKIAEXAMPLE"), ("role_arn", "arn:aws:iam::123456789012:role/x"),
      ("web_identity_token_file", "/var/run/token"), ("sso_session", "corp"),
      ("Credential_Process ", "\u{1b}[31mevil"),
    ] {
      let text = "[profile work]\n\(key) = \(value)\n"
      #expect(throws: AdmissionError.self) { try set(text) }
      do {
        _ = try set(text)
      } catch let error as AdmissionError {
        #expect(error.description.contains("[profile work]") && !error.description.contains("\u{1b}"))
        #expect(error.description.contains(key) || error.description.contains("another program"))
      }
      #expect(try undo(text) == nil, "not ours: left")
    }
    // Two sections for one profile: configparser refuses the file, so do we.
    #expect(throws: AdmissionError.self) { try set("[profile work]\n[profile  work]\n") }
    #expect(throws: AdmissionError.self) { try set("[default]\n[profile default]\n", "default") }
    // Another profile's section, a key continuing a value, a comment: none of them is the profile's.
    let near = "[profile workshop]\ncredential_process = x\n[profile other]\ns3 =\n  role_arn = y\n#[profile work]\n"
    #expect(try set(near).hasSuffix(near + "\n[profile work]\ncredential_process = \(Self.command)\n"))
  }

  @Test func undoRemovesOnlyOurLineForThatAPI() throws {
    let ours = "credential_process = /usr/bin/strivacity aws-credential-process --api aws --profile work"
    let kept = "[profile work]\nregion = x\n\(ours)\noutput = json\n"
    #expect(try undo(kept) == "[profile work]\nregion = x\noutput = json\n")
    #expect(try undo(kept, api: "other") == nil)
    #expect(try undo(kept, "other") == nil)
    // A section with a comment before the line stays, without the line.
    #expect(try undo("[profile work]\n# mine\n\(ours)\n") == "[profile work]\n# mine\n")
    // A section amid others: it goes, the blank line before it too.
    #expect(try undo("[a]\nx = 1\n\n[profile work]\n\(ours)\n\n[b]\ny = 2\n") == "[a]\nx = 1\n\n[b]\ny = 2\n")
  }

  @Test func theCommandIsQuotedForAShellAndRefusesControlCharacters() throws {
    #expect(
      try AWSConfigFile.command(program: "/usr/bin/strivacity", api: "aws", profile: "work")
        == "/usr/bin/strivacity aws-credential-process --api aws --profile work")
    let spaced = try AWSConfigFile.command(
      program: "/home/o'neil/my bin/strivacity", api: "aws", profile: "work", config: "/c/config.toml")
    let quoted = "'/home/o'\\''neil/my bin/strivacity'"
    #expect(spaced == quoted + " aws-credential-process --api aws --profile work --config /c/config.toml")
    #expect(AWSConfigFile.shellWords(spaced).first == "/home/o'neil/my bin/strivacity")
    #expect(AWSConfigFile.isOurs(spaced, api: "aws"))
    #expect(throws: AdmissionError.self) {
      try AWSConfigFile.command(program: "/a\nb/strivacity", api: "x", profile: "p")
    }
    #expect(throws: AdmissionError.self) { try AWSConfigFile.admitProfileName("work]\n[default") }
    #expect(throws: AdmissionError.self) { try AWSConfigFile.admitProfileName("") }
    #expect(try AWSConfigFile.admitProfileName("dev-1.eu_x@corp+a") == "dev-1.eu_x@corp+a")
  }

  @Test func whatTheSDKsTakeFirstIsSaid() {
    let credentials = Array("[work]\naws_access_key_id = AKIA\naws_secret_access_key = s\n[other]\n".utf8)
    let found = AWSConfigFile.shadowing(
      ["AWS_ACCESS_KEY_ID": "AKIA", "AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_PROFILE": "other"], profile: "work",
      credentials: credentials, credentialsPath: "/h/.aws/credentials")
    #expect(found.count == 4, "\(found)")
    #expect(found[0].hasPrefix("AWS_ACCESS_KEY_ID is set") && found[1].hasPrefix("AWS_WEB_IDENTITY_TOKEN_FILE"))
    #expect(found[2].contains("AWS_PROFILE=work"))
    #expect(found[3].contains("/h/.aws/credentials has aws_access_key_id, aws_secret_access_key in [work]"))
    #expect(
      AWSConfigFile.shadowing(
        ["AWS_PROFILE": "work", "AWS_ACCESS_KEY_ID": ""], profile: "work", credentials: credentials,
        credentialsPath: "c"
      ).count == 1)
    #expect(AWSConfigFile.shadowing([:], profile: "other", credentials: credentials, credentialsPath: "c").isEmpty)
  }

  /// Files made of INI's own bytes and hostile ones, at random (seeded), half of them after a
  /// section of the profile: an edit never breaks, it leaves the line the SDKs read, and undo
  /// gives back a file that ended with a newline (as editors leave them) byte for byte.
  @Test func randomFilesKeepTheirBytes() throws {
    let alphabet =
      Array("[]profile work default=:#; \t\r\n\n\ncredential_process aws_access_key_id".utf8) + [0x00, 0xFF, 0x1B]
    var seed: UInt64 = 0x5EED
    var (edits, restored) = (0, 0)
    for _ in 0..<3000 {
      var file: [UInt8] = []
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      for _ in 0..<Int(seed >> 58) * 4 {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        file.append(alphabet[Int(seed >> 33) % alphabet.count])
      }
      if (seed >> 40) & 1 == 1 { file.append(0x0A) }
      let prefixed = (seed >> 41) & 1 == 1
      if prefixed { file = Array("[profile work]\nregion = x\n".utf8) + file }
      guard let edited = try? AWSConfigFile.setting(file, profile: "work", command: Self.command) else { continue }
      edits += 1
      #expect(AWSConfigFile.process(edited, profile: "work") == Self.command, "\(file)")
      let undone = try AWSConfigFile.removing(edited, profile: "work", api: "aws")
      #expect(undone != nil, "\(file)")
      if file.isEmpty || file.last == 0x0A, prefixed || (try? INI(file).section("work")) == .some(nil) {
        #expect(undone == file, "\(file)")
        restored += 1
      }
    }
    #expect(edits > 1000 && restored > 500, "\(edits) \(restored)")
  }
}

// What the fuzz targets (Tests/Fuzz/targets.swift, Scripts/fuzz) exercise, replayed for every
// input kept in Tests/Fuzz/TARGET/: the seed corpus and any crash a fuzzing run saved there.
import Agent
import Foundation
import JourneyCore
import LoopbackHTTP
import StrivacityConfig
import StrivacityCore
import StrivacityTestSupport
import TerminalUI
import Testing
import ToolHelpers

func corpus(_ target: String) throws -> [(String, [UInt8])] {
  let directory = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/Fuzz/\(target)")
  return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map {
    ($0, Array(try Data(contentsOf: directory.appendingPathComponent($0))))
  }
}

@Suite struct FuzzRegressionTests {
  @Test func credential() throws {
    let inputs = try corpus("credential")
    #expect(inputs.count >= 10)
    for (name, bytes) in inputs {
      if let request = try? CredentialProtocol.parse(bytes) {
        let answer = CredentialProtocol.answer(
          request: request, token: "t", username: request.attributes["username"] ?? "u", expiresAt: 1)
        #expect(
          answer.utf8.split(separator: UInt8(ascii: "\n")).allSatisfy { $0.contains(UInt8(ascii: "=")) }, "\(name)")
        _ = request.isFor(["h", "git.example.com:443", "https://x.example/p/"].map { try! HostEntry(admitting: $0) })
      }
    }
  }

  /// Tests/Fuzz/targets.swift's helperProperties, for every input kept in Tests/Fuzz/helper/.
  @Test func helper() throws {
    let inputs = try corpus("helper")
    #expect(inputs.count >= 8)
    let profiles = try Config.parse(
      "[profiles.p]\ntenant = \"https://t.example\"\nhosts = [\"registry.example\"]\n"
        + "[profiles.p.apis.r]\nurl = \"https://api.example/r/\"\n", path: "fuzz.toml"
    ).profiles
    for (name, bytes) in inputs {
      if let request = try? CargoProtocol.parse(bytes), let invocation = try? CargoInvocation(request: request) {
        if case .refused(let reason) = invocation.decision(for: profiles[0], tenant: "https://t.example") {
          #expect(!CargoProtocol.errorAnswer(.other, message: reason).dropLast().contains("\n"), "\(name)")
        }
        _ = invocation.challenge
      }
      do {
        let (address, url) = try DockerCredentialProtocol.serverURL(bytes)
        #expect(!address.contains(where: \.isWhitespace) && (try? TokenTarget(url)) != nil, "\(name)")
        _ = API.serving(url, in: profiles)
      } catch {
        let line = DockerCredentialProtocol.errorOutput(error)
        #expect(
          line.filter { $0 == "\n" }.count == 1
            && !line.dropLast().unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) }, "\(name)")
      }
      terraform(name, bytes, profiles)
      aws(name, bytes)
    }
  }

  /// AWS STS's answer, as the fuzz target checks it (Tests/Fuzz/targets.swift, awsProperties).
  func aws(_ name: String, _ bytes: [UInt8]) {
    let role = AWSRole(roleARN: "arn:aws:iam::123456789012:role/fuzz")
    let token: BearerToken = "t"
    for status in [200, 403] {
      do {
        let credentials = try AWSCredentialProcess.credentials(HTTPResponse(status: status, body: bytes), role: role)
        let answer = AWSCredentialProcess.answer(credentials)
        #expect(JSONValue.parse(answer)?["AccessKeyId"]?.string == credentials.accessKeyID, "\(name)")
        let before = credentials.expiration - AWSCredentialProcess.margin - 1
        let record = AWSCredentialProcess.record(credentials, token: token)
        #expect(AWSCredentialProcess.cached(record, token: token, now: before) == credentials, "\(name)")
      } catch {
        #expect(
          !error.message.contains("\n")
            && !error.message.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) }, "\(name)")
      }
    }
  }

  /// Terraform's helper, as the fuzz target checks it (Tests/Fuzz/targets.swift, terraformProperties).
  func terraform(_ name: String, _ bytes: [UInt8], _ profiles: [Profile]) {
    let inert: (String) -> Bool = { line in
      !line.contains("\n") && !line.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) }
    }
    if let text = String(validating: bytes, as: UTF8.self) {
      do {
        let request = try TerraformCredentialProtocol.request(["get", text])
        #expect(request.host == request.host.lowercased() && (try? TokenTarget(request.url)) != nil, "\(name)")
        _ = TerraformCredentialProtocol.api(for: request, in: profiles)
      } catch {
        #expect(error == .hostRefused, "\(name)")
      }
      if let set = try? TerraformConfig.settingHelper(text) {
        #expect((try? TerraformConfig.settingHelper(set)) == set, "\(name)")
        #expect((try? TerraformConfig.removingHelper(set)) != nil, "\(name)")
      }
      _ = TerraformConfig.credentialsHosts(text)
    }
    #expect(inert(TerraformCredentialProtocol.storeRefusal(bytes).message), "\(name)")
  }

  @Test func screen() throws {
    let inputs = try corpus("screen")
    #expect(!inputs.isEmpty)
    var rendered = 0
    for (_, bytes) in inputs {
      var machine = JourneyMachine()
      if case .render(let plan, let ask) = machine.receive(status: 200, body: bytes) {
        for id in ask { machine.setAnswer("x", form: plan.primaryFormID ?? "", widget: id) }
        _ = machine.body(for: plan.primaryFormID ?? "")
        if let screen = machine.screen { _ = ScreenRenderer.transcript(screen) }
        rendered += 1
      }
      _ = machine.receive(status: 400, body: bytes)
      if let text = String(validating: bytes, as: UTF8.self) { _ = HTMLText.plain(text) }
    }
    #expect(rendered > 0)
  }

  @Test func request() throws {
    for (_, bytes) in try corpus("request") {
      var parser = RequestParser()
      parser.append(bytes)
      while let request = try? parser.next() { _ = (request.path, request.query, request.header("Host")) }
    }
  }

  @Test func config() throws {
    for (_, bytes) in try corpus("config") {
      let text = String(decoding: bytes, as: UTF8.self)
      // The narrowed read matches [[contexts]] where the call is made; the text as a remote too.
      let place = Workplace(directory: "/home/u/src/w", environment: ["HOME": "/home/u", "A": "b=c"], remotes: [text])
      _ = try? Config.parse(text, path: "fuzz.toml", onlyProfile: nil, apis: .none, place: place)
      _ = (RemoteURL(text), RemotePattern(text))
      if let config = try? Config.parse(text, path: "fuzz.toml") {
        _ = try? ResolvedProfile.resolve(config: config, overrides: .init(), environment: [:])
        // Every API of every profile is chosen by its own URL (the longest prefix is at least as long).
        for profile in config.profiles {
          for api in profile.apis { #expect((try? profile.api(for: api.url.gitURL)) != nil, "\(api.url)") }
        }
        if let name = config.profiles.first?.name {
          _ = try? ConfigWriter.update(
            text, profile: name, settings: [("tenant", .string("https://t.example"))], path: "fuzz.toml")
        }
      }
    }
  }

  @Test func admission() throws {
    let inputs = try corpus("admission")
    #expect(inputs.count >= 7)
    for (name, bytes) in inputs {
      let text = String(decoding: bytes, as: UTF8.self)
      if let token = try? BearerToken(admitting: text) {
        #expect(!token.value.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "\\" }), "\(name)")
      }
      #expect(!TerminalSafe.text(text).unicodeScalars.contains { TerminalSafe.isUnsafe($0) }, "\(name)")
      for words in [TenantWords.of(bytes), TenantWords.of(bytes, contentType: "text/html")].compactMap({ $0 }) {
        #expect(words.count <= TenantWords.limit, "\(name)")
        #expect(!words.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) }, "\(name)")
      }
      let redacted = Redaction.redact(bytes, [String(decoding: bytes.prefix(8), as: UTF8.self)])
      // (As bytes: a combining mark after it would make "]" another character.)
      #expect(redacted == bytes || redacted.firstRange(of: Array(Redaction.mark.utf8)) != nil, "\(name)")
      do {
        let google = try GoogleExecutableInfo.from(["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": text])
        #expect(GoogleExecutableInfo.tokenTypes.contains(google.tokenType), "\(name)")
      } catch {
        #expect(!error.description.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) }, "\(name)")
      }
      if let exec = try? ExecCredentialInfo.from(["KUBERNETES_EXEC_INFO": text]) {
        #expect(ExecCredentialInfo.versions.contains(exec.apiVersion), "\(name)")
        let listed = ["https://k8s.example:6443", "https://proxy.example/k8s/c-1"]
        switch exec.decision(clusters: listed.compactMap { try? KubeServer(admitting: $0) }, profile: "p") {
        case .allow:
          let server: KubeServer? = exec.server.flatMap { try? KubeServer(admitting: $0) }
          let allowed = server.map { listed.contains($0.description) } ?? !exec.fromKubectl
          #expect(allowed, "\(name)")
        case .refuse(let message):
          #expect(!message.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) }, "\(name)")
        }
      }
      if let server = try? KubeServer(admitting: text) {
        let more = server.description.contains { (c: Character) -> Bool in
          "?#\\".contains(c) || !c.isASCII || c.isWhitespace
        }
        #expect(!more && !server.origin.host.contains("@"), "\(name)")
      }
      if let url = try? BrowserURL(admitting: text, origin: Origin(scheme: "https", host: "t.example", port: 443)) {
        #expect(
          url.value.lowercased().hasPrefix("https://") && !url.value.contains(where: { $0 == " " || $0 == "\\" }),
          "\(name)")
      }
      if let cached = CacheRecord.decode(bytes[...]), let expiresAt = cached.expiresAt {
        #expect(
          CacheRecord.decode(Array(CacheRecord.encode(cached, expiresAt: expiresAt).utf8)[...]) == cached, "\(name)")
      }
      let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
      }
      if let curl = try? CurlArguments.parse(arguments) {
        #expect(curl.urls.allSatisfy { URLParts($0) != nil }, "\(name)")
      }
      if let newline = bytes.firstIndex(of: 10),
        let regex = SafeRegex(String(decoding: bytes[..<newline], as: UTF8.self))
      {
        _ = regex.wholeMatch(String(decoding: bytes[(newline + 1)...], as: UTF8.self))
      }
    }
  }

  @Test func agent() throws {
    let inputs = try corpus("agent")
    #expect(inputs.count >= 5)
    var decoded = 0
    for (name, bytes) in inputs {
      if bytes.count >= 4, let length = AgentProtocol.payloadLength(Array(bytes.prefix(4))) {
        #expect(length <= AgentProtocol.maxFrame, "\(name)")
      }
      guard let message = try? AgentMessage(decoding: bytes[...]) else { continue }
      decoded += 1
      let framed = AgentProtocol.frame(message)
      #expect(AgentProtocol.payloadLength(Array(framed.prefix(4))) == framed.count - 4, "\(name)")
      #expect((try? AgentMessage(decoding: framed.dropFirst(4))) == message, "\(name)")
      if let tokens = message.tokenSet {
        #expect(AgentMessage.answer(tokens, includeIDToken: true).tokenSet == tokens, "\(name)")
      }
    }
    #expect(decoded >= 4, "the seeds decode")
  }

  /// Tests/Fuzz/targets.swift's destinationProperties, for every input kept in Tests/Fuzz/destination/.
  @Test func destination() throws {
    let inputs = try corpus("destination")
    #expect(inputs.count >= 4)
    var permitted = 0
    for (name, bytes) in inputs {
      let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
      }
      guard let url = lines.first else { continue }
      let entries = lines.dropFirst().compactMap { try? HostEntry(admitting: $0) }
      for entry in entries { #expect((try? HostEntry(admitting: entry.description)) == entry, "\(name)") }
      guard TokenDestination.permits(url, allowed: entries), let target = try? TokenTarget(url) else { continue }
      permitted += 1
      #expect(!target.path.contains { [".", ".."].contains($0.prefix { $0 != ";" }) }, "\(name)")
      #expect((try? TokenTarget(target.resolvedURL)) == target, "\(name)")
      #expect(TokenDestination.permits(target.resolvedURL, allowed: entries), "\(name)")
    }
    #expect(permitted >= 1, "a seed is permitted")
  }
}

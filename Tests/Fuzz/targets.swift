// Every fuzz target of Scripts/fuzz, compiled once into one binary with the sources they
// exercise (a single module): the target is chosen when the binary starts, by
// STRIVACITY_FUZZ_TARGET, and libFuzzer's entry point hands each input to its properties.
import Glibc

/// Where a token may go (TokenDestination): the first line is a URL asking for it, the others
/// configured entries. FuzzRegressionTests.destination checks the same of Tests/Fuzz/destination/.
func destinationProperties(_ bytes: [UInt8]) {
  let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
  guard let url = lines.first else { return }
  let entries = lines.dropFirst().compactMap { try? HostEntry(admitting: $0) }
  for entry in entries {
    precondition(
      (try? HostEntry(admitting: entry.description)) == entry, "an entry whose canonical form reads differently")
  }
  guard TokenDestination.permits(url, allowed: entries), let target = try? TokenTarget(url) else { return }
  precondition(
    !target.path.contains { [".", ".."].contains($0.prefix { $0 != ";" }) }, "a dot segment left in a permitted path")
  precondition(
    !target.path.contains { ["%2E", "%2F", "%5C"].contains(where: $0.uppercased().contains) || $0.contains("\\") },
    "an ambiguous permitted path")
  precondition((try? TokenTarget(target.resolvedURL)) == target, "a resolved URL that reads differently")
  precondition(
    TokenDestination.permits(target.resolvedURL, allowed: entries), "a URL permitted but not as the server reads it")
}

/// The agent's socket protocol: any frame either side may receive. What decodes encodes back to
/// the same message, a header over the limit is refused, and a token answer's set is admitted.
/// FuzzRegressionTests.agent checks the same of every input kept in Tests/Fuzz/agent/.
func agentProperties(_ bytes: [UInt8]) {
  if bytes.count >= 4, let length = AgentProtocol.payloadLength(Array(bytes.prefix(4))) {
    precondition(length <= AgentProtocol.maxFrame, "a frame over the limit")
  }
  guard let message = try? AgentMessage(decoding: bytes[...]) else { return }
  let framed = AgentProtocol.frame(message)
  precondition(AgentProtocol.payloadLength(Array(framed.prefix(4))) == framed.count - 4, "a frame whose header lies")
  precondition((try? AgentMessage(decoding: framed.dropFirst(4))) == message, "a message that does not read back")
  if let tokens = message.tokenSet {
    precondition(
      AgentMessage.answer(tokens, includeIDToken: true).tokenSet == tokens, "a token answer that does not read back")
  }
  _ = message.status
}

/// git's credential requests: what parses answers with key=value lines only.
func credentialProperties(_ bytes: [UInt8]) {
  if let request = try? CredentialProtocol.parse(bytes) {
    let answer = CredentialProtocol.answer(
      request: request, token: "t", username: request.attributes["username"] ?? "u", expiresAt: 1)
    // Bytes, as git reads them: "=" followed by a combining mark is one Character, not "=".
    precondition(
      answer.utf8.split(separator: UInt8(ascii: "\n")).allSatisfy { $0.contains(UInt8(ascii: "=")) },
      "an answer line without =")
    _ = request.isFor(["h", "git.example.com:443", "https://x.example/p/"].map { try! HostEntry(admitting: $0) })
  }
}

/// Journey screens through the state machine and the terminal renderer.
func screenProperties(_ bytes: [UInt8]) {
  var machine = JourneyMachine()
  if case .render(let plan, let ask) = machine.receive(status: 200, body: bytes) {
    for id in ask { machine.setAnswer("x", form: plan.primaryFormID ?? "", widget: id) }
    _ = machine.body(for: plan.primaryFormID ?? "")
    if let screen = machine.screen { _ = ScreenRenderer.transcript(screen) }
  }
  _ = machine.receive(status: 400, body: bytes)
  if let text = String(validating: bytes, as: UTF8.self) { _ = HTMLText.plain(text) }
}

/// HTTP requests to the loopback listener.
func requestProperties(_ bytes: [UInt8]) {
  var parser = RequestParser()
  bytes.withUnsafeBufferPointer { parser.append($0) }
  while let request = try? parser.next() { _ = (request.path, request.query, request.header("Host")) }
}

/// The config file: what parses resolves, and each API is chosen by its own URL.
func configProperties(_ bytes: [UInt8]) {
  let text = String(decoding: bytes, as: UTF8.self)
  // The narrowed read matches [[contexts]] where the call is made; the text as a remote too.
  let place = Workplace(directory: "/home/u/src/w", environment: ["HOME": "/home/u", "A": "b=c"], remotes: [text])
  _ = try? Config.parse(text, path: "fuzz.toml", onlyProfile: nil, apis: .none, place: place)
  _ = (RemoteURL(text), RemotePattern(text))
  if let config = try? Config.parse(text, path: "fuzz.toml") {
    _ = try? ResolvedProfile.resolve(config: config, overrides: .init(), environment: [:])
    // Every API of every profile is chosen by its own URL (the longest prefix is at least as long).
    for profile in config.profiles {
      for api in profile.apis { precondition((try? profile.api(for: api.url.gitURL)) != nil) }
    }
    if let name = config.profiles.first?.name {
      _ = try? ConfigWriter.update(
        text, profile: name, settings: [("tenant", .string("https://t.example"))], path: "fuzz.toml")
    }
  }
}

/// The trust boundary: whatever the bytes, admission never traps, and what it admits is safe
/// for its sink (no line breaks or controls in tokens and browser URLs, no escape left in text
/// made inert, every URL curl may contact is an http(s) URL we can check). Validator patterns
/// run in linear time: libFuzzer's -timeout turns a slow match into a crash.
func admissionProperties(_ bytes: [UInt8]) {
  let text = String(decoding: bytes, as: UTF8.self)
  if let token = try? BearerToken(admitting: text) {
    precondition(
      !token.value.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "\\" }), "a token that breaks a line")
  }
  _ = try? Admit.tokenType(text)
  _ = try? Admit.refreshToken(text)
  _ = try? Admit.idToken(text)
  _ = try? Admit.scope(text)
  _ = try? Admit.lifetime(JSONValue.parse(bytes))
  _ = try? Admit.unixTime(JSONValue.parse(bytes), what: "exp")
  _ = try? Admit.time(JSONValue.parse(bytes), what: "expires_at")
  _ = try? TokenSet.decode(bytes, source: "fuzz")
  _ = try? Admit.seconds(text, in: 0.1...3600, what: "fuzz")
  // An API's challenge and metadata (strivacity curl): what is admitted is printable tokens,
  // and a refusal never repeats the header's bytes.
  do {
    if let challenge = try BearerChallenge.admit(text.split(separator: "\n").map(String.init)) {
      precondition(challenge.scopes.allSatisfy { $0.value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }, "a raw scope")
      precondition(challenge.acrValues?.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ?? true, "raw acr_values")
      if let url = challenge.resourceMetadata { precondition((try? URLPolicy.check(url)) != nil, "an unchecked URL") }
    }
  } catch {
    precondition(!error.description.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) })
  }
  let called = "https://api.example/v1/x"
  if let metadata = try? ResourceMetadata.admit(bytes, requestURL: called, issuer: "https://t.example") {
    precondition(TokenDestination.permits(called, allowed: [metadata.resourcePrefix]), "metadata of another API")
  }
  // Google's token type: one of the two answered, or a refusal that is one inert line.
  do {
    let google = try GoogleExecutableInfo.from(["GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE": text])
    precondition(GoogleExecutableInfo.tokenTypes.contains(google.tokenType) || text.isEmpty, "a type not ours")
  } catch {
    precondition(!error.description.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) })
  }
  if let exec = try? ExecCredentialInfo.from(["KUBERNETES_EXEC_INFO": text]) {
    precondition(ExecCredentialInfo.versions.contains(exec.apiVersion), "an apiVersion kubectl did not get from us")
    // kube_clusters: a token only for a listed server, and a refusal that is one inert line.
    switch exec.decision(
      clusters: ["https://k8s.example:6443", "https://proxy.example/k8s/c-1"].compactMap {
        try? KubeServer(admitting: $0)
      }, profile: "p")
    {
    case .allow:
      let server = exec.server.flatMap { try? KubeServer(admitting: $0) }
      precondition(
        exec.server != nil || !exec.fromKubectl, "kubectl named no server and kube_clusters is set, yet the token")
      precondition(
        exec.server == nil
          || ["https://k8s.example:6443", "https://proxy.example/k8s/c-1"].contains(server?.description),
        "an unlisted server got the token")
    case .refuse(let message):
      precondition(
        !message.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) }, "an unsafe refusal")
    }
  }
  if let server = try? KubeServer(admitting: text) {
    // ("@" and ":" may be in a path, RFC 3986 pchar; never in the host.)
    precondition(
      !server.description.contains(where: { $0 == "?" || $0 == "#" || $0 == "\\" || !$0.isASCII || $0.isWhitespace }),
      "a kube_clusters entry with more than a server")
    precondition(!server.origin.host.contains("@"), "user info in a kube_clusters host")
  }
  precondition(!TerminalSafe.text(text).unicodeScalars.contains { TerminalSafe.isUnsafe($0) }, "unsafe text left")
  // A tenant's words (a failed answer's body, a page): one inert line within the one bound; what
  // was sent is redacted from it in one pass (libFuzzer's -timeout catches a slow one).
  for words in [TenantWords.of(bytes), TenantWords.of(bytes, contentType: "text/html")].compactMap({ $0 }) {
    precondition(words.count <= TenantWords.limit, "a quotation beyond the bound")
    precondition(!words.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) }, "unsafe words")
  }
  let redacted = Redaction.redact(bytes, [String(decoding: bytes.prefix(8), as: UTF8.self)])
  precondition(redacted == bytes || redacted.firstRange(of: Array(Redaction.mark.utf8)) != nil, "no mark")
  let sunk = TerminalSafe.sink(text)
  for (index, scalar) in sunk.unicodeScalars.enumerated() where scalar == "\u{1B}" {
    let rest = String(String.UnicodeScalarView(sunk.unicodeScalars.dropFirst(index)))
    precondition(TerminalSafe.ownSequences.contains { rest.hasPrefix($0) }, "a foreign escape left by the sink")
  }
  if let url = try? BrowserURL(admitting: text, origin: Origin(scheme: "https", host: "t.example", port: 443)) {
    precondition(
      url.value.lowercased().hasPrefix("https://") && !url.value.contains(where: { $0 == " " || $0 == "\\" }),
      "a browser URL that is not one https word")
  }
  if let cached = CacheRecord.decode(bytes[...]), let expiresAt = cached.expiresAt {
    precondition(
      CacheRecord.decode(Array(CacheRecord.encode(cached, expiresAt: expiresAt).utf8)[...]) == cached,
      "a cache record that does not read back")
  }
  let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
    String(decoding: $0, as: UTF8.self)
  }
  if let curl = try? CurlArguments.parse(arguments) {
    for url in curl.urls {
      precondition(URLParts(url).map { $0.scheme == "https" || $0.scheme == "http" } == true, "an unchecked URL")
    }
  }
  if let newline = bytes.firstIndex(of: 10), let regex = SafeRegex(String(decoding: bytes[..<newline], as: UTF8.self)) {
    _ = regex.wholeMatch(String(decoding: bytes[(newline + 1)...], as: UTF8.self))
  }
}

/// A profile for the helper protocols: its tenant, a host and an API (parsed for each input:
/// a global's one-time initialization is reported as a leak by LeakSanitizer).
func helperProfiles() -> [Profile] {
  (try? Config.parse(
    "[profiles.p]\ntenant = \"https://t.example\"\nhosts = [\"registry.example\"]\n"
      + "[profiles.p.apis.r]\nurl = \"https://api.example/r/\"\n", path: "fuzz.toml"))?.profiles ?? []
}

/// Tools' helper protocols (cargo's provider, Docker's helper): whatever the bytes, a request is
/// admitted or refused in the protocol's one-line shape, what is admitted is decided by the one
/// helper rule, and a refusal is one inert line. FuzzRegressionTests.helper checks the same of
/// every input kept in Tests/Fuzz/helper/.
func helperProperties(_ bytes: [UInt8]) {
  let profiles = helperProfiles()
  precondition(profiles.count == 1, "the helpers' profile does not parse")
  if let request = try? CargoProtocol.parse(bytes), let invocation = try? CargoInvocation(request: request) {
    if case .refused(let reason) = invocation.decision(for: profiles[0], tenant: "https://t.example") {
      precondition(!CargoProtocol.errorAnswer(.other, message: reason).dropLast().contains("\n"), "a two-line error")
    }
    _ = invocation.challenge
  }
  do {
    let (address, url) = try DockerCredentialProtocol.serverURL(bytes)
    precondition(!address.contains(where: \.isWhitespace), "an address of more than one word")
    precondition((try? TokenTarget(url)) != nil, "an admitted registry URL that does not read")
    _ = API.serving(url, in: profiles)
  } catch {
    let line = DockerCredentialProtocol.errorOutput(error)
    precondition(
      line.filter { $0 == "\n" }.count == 1
        && !line.dropLast().unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) },
      "an error that is not one inert line")
  }
  terraformProperties(bytes, profiles)
  awsProperties(bytes)
}

/// AWS STS's answer to AssumeRoleWithWebIdentity (credential_process): the bytes as a 200's
/// body and a refusal's. Credentials admitted answer one JSON line of exactly their fields and
/// read back from the cache's record; anything else is one inert line.
func awsProperties(_ bytes: [UInt8]) {
  let role = AWSRole(roleARN: "arn:aws:iam::123456789012:role/fuzz")
  let token: BearerToken = "t"
  for status in [200, 403] {
    do {
      let credentials = try AWSCredentialProcess.credentials(HTTPResponse(status: status, body: bytes), role: role)
      let answer = AWSCredentialProcess.answer(credentials)
      precondition(answer.filter { $0 == "\n" }.count == 1, "an answer of more than one line")
      guard case .object(let fields)? = JSONValue.parse(answer), fields.count == 5,
        fields["AccessKeyId"] == .string(credentials.accessKeyID)
      else { preconditionFailure("an answer that is not the credentials' JSON") }
      let record = AWSCredentialProcess.record(credentials, token: token)
      let before = credentials.expiration - AWSCredentialProcess.margin - 1
      precondition(
        AWSCredentialProcess.cached(record, token: token, now: before) == credentials,
        "a record that does not read back")
    } catch {
      precondition(
        !error.message.contains("\n")
          && !error.message.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) },
        "a refusal not one inert line")
    }
  }
}

/// Terraform's helper: the bytes as the host argument (`get HOST`) and as what `store` reads:
/// a host is admitted lower case and read as a URL, or refused in one inert line naming none of
/// it; the CLI config's edit, when made, is stable and undone.
func terraformProperties(_ bytes: [UInt8], _ profiles: [Profile]) {
  let inert: (String) -> Bool = { line in
    !line.contains("\n") && !line.unicodeScalars.contains { TerminalSafe.isUnsafe($0, multiline: false) }
  }
  if let text = String(validating: bytes, as: UTF8.self) {
    do {
      let request = try TerraformCredentialProtocol.request(["get", text])
      precondition(request.host == request.host.lowercased(), "a host not in lower case")
      precondition((try? TokenTarget(request.url)) != nil, "an admitted host URL that does not read")
      _ = TerraformCredentialProtocol.api(for: request, in: profiles)
    } catch {
      precondition(error == .hostRefused, "a refusal in other words (which may repeat the host)")
    }
    if let set = try? TerraformConfig.settingHelper(text) {
      precondition((try? TerraformConfig.settingHelper(set)) == set, "setting the helper twice changes the file")
      precondition((try? TerraformConfig.removingHelper(set)) != nil, "the helper set cannot be removed")
    }
    _ = TerraformConfig.credentialsHosts(text)
  }
  precondition(inert(TerraformCredentialProtocol.storeRefusal(bytes).message), "a store refusal not one inert line")
}

/// The targets, by the names Scripts/fuzz takes.
let fuzzTargets: [String: @Sendable ([UInt8]) -> Void] = [
  "credential": credentialProperties, "screen": screenProperties, "request": requestProperties,
  "config": configProperties, "destination": destinationProperties, "agent": agentProperties,
  "admission": admissionProperties, "helper": helperProperties,
]

/// The target this run exercises (STRIVACITY_FUZZ_TARGET), chosen once.
let chosenFuzzTarget: @Sendable ([UInt8]) -> Void = {
  let name = getenv("STRIVACITY_FUZZ_TARGET").map { String(cString: $0) } ?? ""
  guard let target = fuzzTargets[name] else {
    let line = "fuzz: set STRIVACITY_FUZZ_TARGET to one of \(fuzzTargets.keys.sorted().joined(separator: ", "))\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(2)
  }
  return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  chosenFuzzTarget(Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}

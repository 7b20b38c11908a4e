// libFuzzer entry points, one per target; Scripts/fuzz compiles one of them (chosen with
// -D FUZZ_<TARGET>) together with the sources it exercises, as a single module.
#if FUZZ_CREDENTIAL
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if let request = try? CredentialProtocol.parse(bytes) {
    let answer = CredentialProtocol.answer(request: request, token: "t", username: request.attributes["username"] ?? "u", expiresAt: 1)
    precondition(answer.split(separator: "\n").allSatisfy { $0.contains("=") }, "an answer line without =")
    _ = HostMatch.matches(request, entries: ["h", "git.example.com:443", "https://x.example/p/"])
  }
  return 0
}
#elseif FUZZ_SCREEN
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  var machine = JourneyMachine()
  if case .render(let plan, let ask) = machine.receive(status: 200, body: bytes) {
    for id in ask { machine.setAnswer("x", form: plan.primaryFormID ?? "", widget: id) }
    _ = machine.body(for: plan.primaryFormID ?? "")
    if let screen = machine.screen { _ = ScreenRenderer.transcript(screen) }
  }
  _ = machine.receive(status: 400, body: bytes)
  if let text = String(validating: bytes, as: UTF8.self) { _ = HTMLText.plain(text) }
  return 0
}
#elseif FUZZ_REQUEST
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  var parser = RequestParser()
  parser.append(UnsafeBufferPointer(start: data, count: size))
  while let request = try? parser.next() { _ = (request.path, request.query, request.header("Host")) }
  return 0
}
#elseif FUZZ_CONFIG
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  if let config = try? Config.parse(text, path: "fuzz.toml") {
    _ = try? ResolvedProfile.resolve(config: config, overrides: .init(), environment: [:])
    if let name = config.profiles.first?.name {
      _ = try? ConfigWriter.update(text, profile: name, settings: [("tenant", .string("https://t.example"))], path: "fuzz.toml")
    }
  }
  return 0
}
#endif

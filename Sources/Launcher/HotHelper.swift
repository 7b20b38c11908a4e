// Every tool's credential helper in the small binary, through one entry (`helper`): the request
// read as its helper reads it (ToolHelpers), routed by the same function the full command line
// routes it with (`HelperGet.route`), and answered from the access-token cache or the agent.
// A reply without a token (not ours, refused) is written as the helper's protocol wants it; a
// token due, a challenge, the agent's doubt or a config with something to say are the full
// command line's, handed what was read (a line protocol's hello said already).
import StrivacityConfig
import StrivacityCore
import SystemIO
import TokenCache
import ToolHelpers

extension HotPath {
  static func helper(_ helper: any HelperGet.Type, _ words: [String], _ environment: [String: String]) -> Outcome {
    switch helper.session {
    case .one(let limit):
      // The tool writes the request and closes stdin; a person who typed the command gets told.
      if limit != nil && isTerminal(0) {
        writeTerminal(
          2, "strivacity: reading a request (\(helper.names.messagePrefix.dropLast(2))), end it with Ctrl-D\n")
      }
      var input = limit.map { readStdin(limit: $0) } ?? []
      let step = request(helper, words, input, environment)
      switch step {
      case .written(let status):
        input.wipe()
        return status == .ok ? .answered : .failed(status: status)
      case .handOff(let current): return handOffPast(current, stdin: input.isEmpty ? nil : input)
      }
    case .lines(let hello, let handedOn, let maxLine):
      writeStdout(hello)
      var reader = LineReader(fd: 0)
      while var line = reader.next(limit: maxLine) {
        // A line without its end is the full command line's, the hello said, as any other.
        let step =
          line.last == 10
          ? request(helper, words, Array(line.dropLast()), environment) : .handOff(.unknown(askedAgent: false))
        guard case .written = step else {
          // Handed on whole (the full command line zeroes it), the hello said.
          setEnvironmentVariable(handedOn, "1")
          if case .handOff(let current) = step { return handOffPast(current, stdin: line + reader.pending) }
          return .handOff(stdin: line + reader.pending)
        }
        line.wipe()
      }
      return .answered
    }
  }

  /// What became of one request.
  enum HelperStep {
    /// The answer or the reply is written; the exit status it asks for.
    case written(ExitStatus)
    case handOff(Current)
  }

  static func request(
    _ helper: any HelperGet.Type, _ words: [String], _ input: [UInt8], _ environment: [String: String]
  )
    -> HelperStep
  {
    let paths = Paths(environment: environment)
    let scope: ConfigScope =
      switch helper.configScope(words, input, environment: environment) {
      case .whole: .whole
      case .profile(let name): .profile(name, apis: .all)
      }
    let config: Config?
    do {
      config = try Config.load(
        paths.config, scope, place: workplace(environment), read: { readFile($0, regularOnly: true) })
    } catch {
      return .handOff(.unknown(askedAgent: false))
    }
    guard config?.warnings.isEmpty ?? true,
      let route = helper.route(words, input, config: config, environment: environment)
    else { return .handOff(.unknown(askedAgent: false)) }
    switch route {
    case .reply(let reply):
      write(reply)
      return .written(reply.status)
    case .token(let ask):
      guard ask.challenge == nil, let config else { return .handOff(.unknown(askedAgent: false)) }
      let freshness = ask.freshness
      let found = current(
        config: config, resolved: ask.resolved, freshness: freshness, environment: environment, paths: paths,
        api: ask.api)
      switch found {
      case .tokens(let tokens):
        let answer: String
        if let derived = ask.derived {
          // Made from the token (a service's credentials): only a kept one is answered here.
          guard KernelTokenCache.enabled(environment), let key = try? ask.resolved.storeKey(configPath: paths.config),
            var record = KernelTokenCache.record(derived.cacheKey(key))
          else { return .handOff(.unknown(askedAgent: false)) }
          defer { record.wipe() }
          guard let kept = derived.cached(record, tokens.accessToken, wallClockSeconds()) else {
            return .handOff(.unknown(askedAgent: false))
          }
          answer = kept
        } else {
          answer = ask.answer(tokens)
        }
        sayShortfall(tokens, freshness, profile: ask.resolved.name, prefix: helper.names.messagePrefix)
        writeStdout(answer)
        return .written(.ok)
      case .refused(let status, let message) where status != .signInRequired:
        // As the full command line says it: the protocol's failure shape, one line on stderr.
        let reply = helper.reply(.refused(message, status: status))
        write(reply)
        return .written(reply.status)
      default:
        // Sign in again, or the agent's own trouble: the full command line's to handle.
        return .handOff(found)
      }
    }
  }

  static func write(_ reply: HelperReply) {
    if !reply.stdout.isEmpty { writeStdout(reply.stdout) }
    if let line = reply.stderr { writeTerminal(2, line) }
  }
}

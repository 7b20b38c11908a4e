// cargo's credential provider: `strivacity --cargo-plugin` (how cargo runs a provider; the same
// as `strivacity cargo-credential`), protocol v1 on stdin and stdout. The small `strivacity`
// answers cached tokens itself and hands the rest here with the request it read, the hello
// already said. stdout belongs to the protocol; every human word goes to stderr. It never signs
// in: cargo waits, so a refusal names the `strivacity login` to run.
import ArgumentParser
import Broker
import ToolHelpers
import StrivacityConfig
import StrivacityCore
import SystemIO

struct CargoCredential: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cargo-credential",
    abstract: "cargo credential provider: answer cargo's requests on stdin and stdout (protocol v1).",
    discussion: """
      cargo runs it as `strivacity --cargo-plugin` (set it up with `strivacity setup-cargo \
      --registry NAME`). A `get` for a registry whose index URL is under the profile's tenant, \
      git_hosts, hosts or an API's url (the API's own token, as `strivacity curl` chooses) is \
      answered with `Bearer TOKEN`, cached by cargo until the token expires; any other registry \
      is `url-not-supported`, so cargo asks its next provider. A registry's `WWW-Authenticate: \
      Bearer` challenge that cargo passes on is answered as `strivacity curl` answers one: \
      invalid_token gets a new token, insufficient_scope an API token with the scopes added. \
      It never signs in: without a usable token it answers cargo's error, and one line on \
      stderr names the `strivacity login` to run. `cargo login` and `cargo logout` are not \
      supported (sign in and out with strivacity).

      In cargo's config, words after the path are passed in the request: only `--profile NAME` \
      is accepted there.
      """)

  @OptionGroup var global: GlobalOptions

  func run() throws {
    // Handed on by the small binary, which said the hello already (cargo reads it once).
    if environmentVariable(CargoProtocol.helloSentVariable) == nil {
      Console.writeStdout(CargoProtocol.hello)
    } else {
      takeFromEnvironment(CargoProtocol.helloSentVariable)
    }
    var reader = LineReader(fd: 0)
    while var line = reader.next(limit: CargoProtocol.maxLine) {
      defer { line.wipe() }
      let request: CargoRequest
      do {
        if line.last == 10 { line.removeLast() }
        request = try CargoProtocol.parse(line)
      } catch {
        // Not cargo's protocol: said in its error shape, and the stream ends (exit 2).
        Console.writeStdout(CargoProtocol.errorAnswer(.other, message: error.description))
        throw CLIFailure(CargoInvocation.messagePrefix + error.description, status: .usage)
      }
      Console.writeStdout(answer(request))
    }
  }

  /// The answer line to one admitted request; a failure is also said on stderr, in one line.
  private func answer(_ request: CargoRequest) -> String {
    func refused(_ message: String, _ kind: CargoProtocol.ErrorKind = .other) -> String {
      Console.error(CargoInvocation.messagePrefix + message)
      return CargoProtocol.errorAnswer(kind, message: message)
    }
    // The kind first: `cargo login -- ARGS` passes its words (a token, maybe) in a login request,
    // and they are never read, let alone named in an error.
    switch request.kind {
    case .get: break
    case .login:
      return CargoProtocol.errorAnswer(
        .operationNotSupported, message: "strivacity signs in with `strivacity login`, not `cargo login`")
    case .logout:
      return CargoProtocol.errorAnswer(
        .operationNotSupported, message: "strivacity signs out with `strivacity logout`, not `cargo logout`")
    case .other(let kind):
      return CargoProtocol.errorAnswer(
        .operationNotSupported, message: "strivacity does not know cargo's '\(HostEntry.shown(kind))' requests")
    }
    let invocation: CargoInvocation
    do {
      invocation = try CargoInvocation(request: request)
    } catch {
      return refused(error.description)
    }
    do {
      return try get(invocation)
    } catch {
      return refused(CLIFailure.describe(error))
    }
  }

  private func get(_ invocation: CargoInvocation) throws -> String {
    var options = global
    if let profile = invocation.profile { options.profile = profile }
    let context = global.context()
    context.attended = false  // cargo waits: a keyring prompt gets the short bound
    let resolved = try context.resolveProfile(options)
    guard resolved.isConfigured else {
      // A profile named in cargo's config must be there; with none named, nothing of ours is.
      guard invocation.profile == nil else {
        throw ConfigError.profileNotConfigured(
          name: resolved.name, path: context.paths.config, configured: resolved.configuredNames)
      }
      return CargoProtocol.errorAnswer(.urlNotSupported)
    }
    let api: API?
    switch invocation.decision(for: resolved.profile, tenant: resolved.profile.tenant ?? "") {
    case .notOurs: return CargoProtocol.errorAnswer(.urlNotSupported)
    case .refused(let reason): throw CLIFailure(reason, status: .usage)
    case .token(let chosen): api = chosen
    }
    let session = try TokenBroker(context: context, options: options, profile: resolved.name)
    session.signIn = nil  // never a sign-in: cargo is waiting, and may have no terminal
    session.progress = nil
    let freshness = invocation.freshness(session.resolved.profile)
    let tokens = try session.helperTokens(api: api, challenge: invocation.challenge, freshness)
    session.sayShortfall(tokens, freshness, prefix: CargoInvocation.messagePrefix)
    return CargoProtocol.tokenAnswer(tokens.accessToken, expiresAt: tokens.expiresAt)
  }
}

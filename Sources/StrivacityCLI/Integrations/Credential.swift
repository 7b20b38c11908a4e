// git's credential helper: `strivacity credential get|store|erase`, also reachable as
// `git-credential-strivacity` (a link to `strivacity`), so credential.helper=strivacity
// works. stdin and stdout belong to the protocol: every human word goes to stderr or /dev/tty.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerminalUI
import ToolHelpers

struct Credential: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "git credential helper: answer get/store/erase on stdin and stdout (git-credential(1)).",
    discussion: """
      Answers `get` only for hosts (or URL prefixes) in a profile's git_hosts, with a fresh \
      access token as password (or as a Bearer credential when git offers \
      capability[]=authtype); for anything else it prints nothing, so git asks its next \
      helper. `store` is a no-op; `erase` drops the cached access token so the next `get` \
      refreshes. Set it up with `strivacity setup git --host HOST`.
      """)

  @OptionGroup var global: GlobalOptions

  @Argument(help: "get, store or erase.", completion: .list(["get", "store", "erase"]))
  var action: String

  func run() throws {
    // git's request; when the small `strivacity` could not answer it, it handed over what it
    // read as this process's stdin (Launcher.handOff).
    var input = readStdin(limit: CredentialProtocol.maxInput)
    defer { input.wipe() }
    let request: CredentialRequest
    do {
      request = try CredentialProtocol.parse(input)
    } catch {
      Console.error(CredentialInvocation.messagePrefix + "\(error)")
      return
    }
    let context = global.context()
    context.attended = false  // git waits: a keyring prompt gets the short bound
    guard let profile = try matchingProfile(request, context: context) else { return }  // not ours: silent
    switch action {
    case "get": try get(input, context: context)
    case "erase": try erase(request, profile: profile, context: context)
    default: return  // store, and actions of future gits: nothing to do
    }
  }

  /// The profile whose git_hosts cover the request (only --profile's, when given).
  private func matchingProfile(_ request: CredentialRequest, context: Context) throws -> Profile? {
    CredentialInvocation(request: request, profile: global.profile).matchingProfile(
      in: try context.config()?.profiles ?? [])
  }

  /// `get`, routed as the small binary routes it (HelperGet.route); a sign-in on the terminal if
  /// there is one, else one line in the helpers' voice (git shows a helper's stderr) and nothing
  /// on stdout, so git moves on to its next helper or prompt.
  private func get(_ input: [UInt8], context: Context) throws {
    let words = global.profile.map { ["--profile", $0] } ?? []
    guard
      case .token(let ask)? = GitHelper.route(
        words, input, config: try context.config(), environment: context.environment)
    else { return }  // parsed and matched above: not ours is said there
    let tokens: TokenSet
    do {
      tokens = try HelperAnswer.token(GitHelper.self, ask, context: context, options: global, attended: true)
    } catch let failure as BrokerError where failure.status == .signInRequired {
      guard TTY() != nil else {
        HelperAnswer.write(GitHelper.reply(.notSignedIn(profile: ask.resolved.name, why: failure.message)))
        return
      }
      Console.writeStderr("strivacity: \(failure.message)\n")
      let login = try Login.parse(["--profile", ask.resolved.name] + (global.config.map { ["--config", $0] } ?? []))
      try login.run()
      tokens = try HelperAnswer.token(GitHelper.self, ask, context: context, options: global, attended: true)
    } catch {
      HelperAnswer.write(GitHelper.reply(HelperAnswer.failure(error, profile: ask.resolved.name)))
      return
    }
    Console.writeStdout(ask.answer(tokens))
  }

  /// git says the credential failed: if it is our current access token, forget it (expire it),
  /// keeping the refresh token, so the next `get` refreshes.
  private func erase(_ request: CredentialRequest, profile: Profile, context: Context) throws {
    let session = try TokenBroker(context: context, options: global, profile: profile.name)
    let lock = try RefreshLock(directory: context.paths.runtimeDir, profile: profile.name, timeout: 45)
    defer { withExtendedLifetime(lock) {} }
    guard var tokens = try session.store.load(session.key) else { return }
    let rejected = request.password ?? request.attributes["credential"]
    guard rejected == tokens.accessToken.value else { return }  // already replaced: nothing to do
    tokens.expiresAt = min(tokens.expiresAt ?? 0, TokenBroker.now() - 1)
    try session.store.save(tokens, for: session.key)
  }
}

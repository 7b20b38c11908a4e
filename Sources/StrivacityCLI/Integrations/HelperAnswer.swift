// A tool helper's `get` in the full command line: routed by the function the small binary routes
// it with (`HelperGet.route`), the token from the broker, every failure in the helper's voice
// (`ToolHelper.reply`): its protocol's shape on stdout, one line on stderr.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

enum HelperAnswer {
  /// Answers one request (`words` after the subcommand, `input` from stdin); the exit status it
  /// asks for. nil: the route is the caller's to say (cargo's line that is not cargo's, say).
  /// `options`: the command line's global options, for a helper that takes them.
  static func get(
    _ helper: any HelperGet.Type, _ words: [String], _ input: [UInt8], context: Context, options: GlobalOptions? = nil
  ) throws -> ExitStatus? {
    guard let route = helper.route(words, input, config: try context.config(), environment: context.environment)
    else { return nil }
    switch route {
    case .reply(let reply):
      write(reply)
      return reply.status
    case .token(let ask):
      do {
        let tokens = try token(helper, ask, context: context, options: options)
        Console.writeStdout(ask.answer(tokens))
        return .ok
      } catch {
        let reply = helper.reply(failure(error, profile: ask.resolved.name))
        write(reply)
        return reply.status
      }
    }
  }

  /// The tool says the credential failed (`erase`, `forget`): the kept access token of the API
  /// that would answer the request expires, its refresh token and the sign-in stay, so the next
  /// `get` refreshes. False: the request is no API's (nothing to drop).
  static func forget(_ helper: any HelperGet.Type, _ words: [String], _ input: [UInt8], context: Context) throws
    -> Bool
  {
    let route = helper.route(words, input, config: try context.config(), environment: context.environment)
    guard case .token(let ask)? = route, let api = ask.api else { return false }
    try TokenBroker(context: context, overrides: ProfileOverrides(profile: ask.resolved.name), log: Log(verbose: false))
      .expireKept(api)
    return true
  }

  /// The token `ask` needs, never through a sign-in (the tool waits, and may have no terminal)
  /// unless `attended` (git's, on a terminal); a margin the tenant's tokens cannot meet said with
  /// the helper's prefix.
  static func token(
    _ helper: any ToolHelper.Type, _ ask: TokenAsk, context: Context, options: GlobalOptions?, attended: Bool = false
  ) throws -> TokenSet {
    let session: TokenBroker
    if var options {
      options.profile = ask.resolved.name
      session = try TokenBroker(context: context, options: options, profile: ask.resolved.name)
    } else {
      session = try TokenBroker(
        context: context, overrides: ProfileOverrides(profile: ask.resolved.name), log: Log(verbose: false))
    }
    if !attended {
      session.signIn = nil
      session.progress = nil
    }
    let freshness = ask.freshness
    let tokens = try session.helperTokens(api: ask.api, challenge: ask.challenge, freshness)
    session.sayShortfall(tokens, freshness, prefix: helper.names.messagePrefix)
    return tokens
  }

  /// The broker's failure in the helpers' words.
  static func failure(_ error: any Error, profile: String) -> HelperFailure {
    let failure = CLIFailure(recognising: error)
    if let failure, failure.status == .signInRequired { return .notSignedIn(profile: profile, why: failure.message) }
    return .refused(CLIFailure.describe(error), status: failure?.status ?? .failure)
  }

  static func write(_ reply: HelperReply) {
    if !reply.stdout.isEmpty { Console.writeStdout(reply.stdout) }
    if let line = reply.stderr { Console.writeStderr(line) }
  }
}

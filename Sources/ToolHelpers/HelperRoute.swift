// A helper's `get`, written once for both binaries: the request read (argv, stdin), the config
// asked which profile and API answer it, and either the answer for a token (TokenAsk) or the
// reply without one (not ours, refused: in the protocol's shape and one voice). The small binary
// gets the token from the access-token cache or the agent (HotPath.helper); the full command line
// from the broker, answering what the small one hands on.
import StrivacityConfig
import StrivacityCore

/// What a helper does about one request, decided from the request and the config alone.
public enum HelperRoute {
  /// Answered without a token: the reply says what to write.
  case reply(HelperReply)
  /// A token is needed.
  case token(TokenAsk)
}

/// The token a request needs, and its answer once there is one.
public struct TokenAsk {
  /// The profile that answers, resolved.
  public var resolved: ResolvedProfile
  /// Its API whose token answers; nil: the sign-in's.
  public var api: API?
  /// A challenge the tool passed on (cargo's 401): only the full command line answers one.
  public var challenge: BearerChallenge.Demand?
  /// The text on stdout for the token.
  public var answer: (TokenSet) -> String

  public init(
    resolved: ResolvedProfile, api: API?, challenge: BearerChallenge.Demand? = nil,
    answer: @escaping (TokenSet) -> String
  ) {
    self.resolved = resolved
    self.api = api
    self.challenge = challenge
    self.answer = answer
  }

  /// The margin the token must have left: the profile's min_ttl, else the default.
  public var freshness: Freshness { Freshness.asked(nil, profile: resolved.profile) }
}

/// How a helper reads its requests.
public enum HelperSession: Sendable {
  /// One request: the words, and stdin when `stdinLimit` is not nil (read up to it).
  case one(stdinLimit: Int?)
  /// A hello, then one request a line until stdin ends (cargo): `handedOn`, the variable set
  /// when the small binary hands the rest on, the hello said.
  case lines(hello: String, handedOn: String, maxLine: Int)
}

/// How much of the config a request needs (SystemIO's ConfigScope, which loads it).
public enum HelperConfigNeed: Sendable, Equatable {
  case whole
  /// One profile's table, with all its APIs (nil: the config's default profile).
  case profile(String?)
}

/// A helper's `get`, for both binaries.
public protocol HelperGet: ToolHelper {
  static var session: HelperSession { get }
  /// How much of the config the request needs.
  static func configScope(_ words: [String], _ input: [UInt8], environment: [String: String]) -> HelperConfigNeed
  /// The request (`words` after the subcommand, `input` what stdin gave) against `config`.
  /// Throws when only the full command line can tell (a profile it must name, say).
  static func route(_ words: [String], _ input: [UInt8], config: Config?, environment: [String: String]) -> HelperRoute?
}

extension HelperGet {
  public static func configScope(_ words: [String], _ input: [UInt8], environment: [String: String]) -> HelperConfigNeed
  {
    .whole
  }

  /// The reply for `failure`, as a route.
  static func failing(_ failure: HelperFailure) -> HelperRoute { .reply(reply(failure)) }

  /// The token of `found`'s API, answered by `answer`; nil when the profile does not resolve.
  static func ask(
    _ found: (profile: Profile, api: API), config: Config, environment: [String: String],
    answer: @escaping (TokenSet) -> String
  ) -> HelperRoute? {
    guard
      let resolved = try? ResolvedProfile.resolve(
        config: config, overrides: ProfileOverrides(profile: found.profile.name), environment: environment)
    else { return nil }
    return .token(TokenAsk(resolved: resolved, api: found.api, answer: answer))
  }
}

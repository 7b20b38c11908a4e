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
  /// When the answer is made from the token rather than being it: how.
  public var derived: Derivation?

  public init(
    resolved: ResolvedProfile, api: API?, challenge: BearerChallenge.Demand? = nil, derived: Derivation? = nil,
    answer: @escaping (TokenSet) -> String
  ) {
    self.resolved = resolved
    self.api = api
    self.challenge = challenge
    self.derived = derived
    self.answer = answer
  }

  /// The margin the token must have left: the profile's min_ttl, else the default.
  public var freshness: Freshness { Freshness.asked(nil, profile: resolved.profile) }
}

/// An answer made from the token, not the token itself (credentials a service trades for it): made by
/// the full command line's broker with one request (`request`, `made`, sent as every tenant
/// request is), kept in the kernel's access-token cache under `cacheKey` (never in a file), and
/// answered from there by both binaries while `cached` finds it good for the current token.
public struct Derivation {
  /// What `made` gives: the answer, the record kept, for how long (nil: not kept), a note for -v.
  public struct Made {
    public var answer: String
    public var record: [UInt8]
    public var seconds: Int64?
    public var note: String
    public init(answer: String, record: [UInt8], seconds: Int64?, note: String) {
      self.answer = answer
      self.record = record
      self.seconds = seconds
      self.note = note
    }
  }

  /// Its slot in the cache, from the profile's store key.
  public var cacheKey: (StoreKey) -> StoreKey
  /// The answer a kept record holds, if it is still good for `token` at `now`.
  public var cached: (_ record: [UInt8], _ token: BearerToken, _ now: Int64) -> String?
  /// What the broker is doing while it asks.
  public var asking: String
  /// The request that makes it, with the token.
  public var request: (BearerToken) -> HTTPRequest
  /// The response read (outside input, admitted here); a refusal throws HelperFailure.
  public var made: (_ response: HTTPResponse, _ token: BearerToken, _ now: Int64) throws(HelperFailure) -> Made

  public init(
    cacheKey: @escaping (StoreKey) -> StoreKey, cached: @escaping ([UInt8], BearerToken, Int64) -> String?,
    asking: String, request: @escaping (BearerToken) -> HTTPRequest,
    made: @escaping (HTTPResponse, BearerToken, Int64) throws(HelperFailure) -> Made
  ) {
    self.cacheKey = cacheKey
    self.cached = cached
    self.asking = asking
    self.request = request
    self.made = made
  }
}

/// How a helper reads its requests.
public enum HelperSession: Sendable {
  /// One request: the words, and stdin when `stdinLimit` is not nil (read up to it).
  case one(stdinLimit: Int?)
  /// A hello, then one request a line until stdin ends (cargo): `handedOn`, the variable set
  /// when the small binary hands the rest on, the hello said.
  case lines(hello: String, handedOn: String, maxLine: Int)
}

/// What the full command line does with a helper's words and stdin (the small binary answers
/// only the `get` of `asksForToken`).
public enum HelperStep {
  /// The request answered, as `route` says.
  case get
  /// The tool says the credential failed: the kept access token that would answer the request
  /// expires (only when it is `rejected`, if the tool names the one it rejects), its refresh
  /// token kept, so the next `get` renews it; `otherwise` is written when the request is no API's.
  case forget(rejected: String?, otherwise: HelperReply?)
  /// Written as it is (a refusal, a list, a version, nothing), its status the exit status.
  case reply(HelperReply)
  /// The command's help, as `strivacity help SUBCOMMAND` shows it.
  case help
}

/// What the full command line reads from stdin for a request.
public enum HelperInput: Sendable, Equatable {
  case none
  /// Up to this many bytes.
  case upTo(Int)
  /// All of it (the protocol says so), the first this many + 1 bytes kept.
  case drained(Int)
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
  /// What the full command line reads for `words` (a line protocol reads its lines).
  static func input(_ words: [String]) -> HelperInput
  /// What the full command line does with `words` and `input` (`config` loads the config).
  static func step(_ words: [String], _ input: [UInt8], config: () throws -> Config?) throws -> HelperStep
  /// Whether a `get` that needs a sign-in may have one on a terminal (git's: a person waits).
  static var signsInOnTerminal: Bool { get }
}

extension HelperGet {
  public static func configScope(_ words: [String], _ input: [UInt8], environment: [String: String]) -> HelperConfigNeed
  {
    .whole
  }

  public static func input(_ words: [String]) -> HelperInput {
    if case .one(let limit?) = session { return .upTo(limit) }
    return .none
  }

  public static func step(_ words: [String], _ input: [UInt8], config: () throws -> Config?) throws -> HelperStep {
    .get
  }

  public static var signsInOnTerminal: Bool { false }

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

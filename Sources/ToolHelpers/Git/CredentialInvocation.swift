// git's `credential get` as asked, described once: both binaries pick the profile, the margin,
// the warning and the answer through these functions (the small one for a cached token, the full
// command line for the rest), so they answer git alike by construction.
import StrivacityConfig
import StrivacityCore

public struct CredentialInvocation: Sendable, Equatable {
  /// What git asked.
  public var request: CredentialRequest
  /// --profile: only that profile may answer; nil: any whose git_hosts cover the request.
  public var profile: String?

  public init(request: CredentialRequest, profile: String? = nil) {
    self.request = request
    self.profile = profile
  }

  /// Said before a warning or error of ours on stderr, so a person reading git's output knows
  /// whose it is.
  public static let messagePrefix = "git credential: "

  /// The profile whose git_hosts cover the request (the first, in the config's order); nil: not
  /// ours, and git asks its next helper.
  /// Without --profile, a profile a context chooses (`config`'s rules matched where git runs, or,
  /// when git sends the path (credential.useHttpPath), against the request's URL) answers first.
  public func matchingProfile(in profiles: [Profile], config: Config? = nil) -> Profile? {
    let covering = profiles.filter { (profile == nil || $0.name == profile) && request.isFor($0.gitHosts) }
    guard profile == nil, covering.count > 1, let config, let chosen = contextProfile(config) else {
      return covering.first
    }
    return covering.first { $0.name == chosen } ?? covering.first
  }

  /// The profile `config`'s contexts choose for this request.
  func contextProfile(_ config: Config) -> String? {
    guard request.path != nil, let url = request.url, var place = config.place else {
      return config.contextChoice?.rule.profile
    }
    place.remotes = [url]
    return config.choose(at: place, read: { _ in .missing })?.rule.profile
  }

  /// The API of `profile` the request's URL is under (the longest prefix), nil for the profile's
  /// own token: git_hosts say which requests a profile answers, its APIs which token.
  public func api(of profile: Profile) -> API? {
    guard let url = request.url else { return nil }
    return (try? profile.api(for: url)) ?? nil
  }

  /// The margin the access token must have left: the profile's min_ttl, else the default.
  public func freshness(_ profile: Profile) -> Freshness { Freshness.asked(nil, profile: profile) }

  /// What goes to stdout for `get`.
  public func answer(_ tokens: TokenSet, profile: Profile) -> String {
    CredentialProtocol.answer(
      request: request, token: tokens.accessToken, username: profile.gitUser, expiresAt: tokens.expiresAt)
  }
}

// `strivacity token` as asked, described once. The full command line builds it from its parsed
// options, the small binary from argv (`init?(plainArguments:)`); both then answer through the
// same functions here (the API chosen, the refresh margin, the shortfall warning, the output;
// what differs by format, with the context its program gave, is `TokenOutput`'s), so "answers
// as the full command line would" holds by construction rather than by two copies kept alike.
import StrivacityCore

public struct TokenInvocation: Equatable, Sendable {
  /// --profile; nil: STRIVACITY_PROFILE, else the config's default.
  public var profile: String?
  public var format: TokenFormat
  /// --min-ttl: an explicit margin, not capped at half the token's lifetime.
  public var minTTL: Int64?
  /// --refresh.
  public var refresh: Bool
  /// --id-token.
  public var idToken: Bool
  /// --login.
  public var login: Bool
  /// --api NAME: a token for that API of the profile.
  public var api: String?
  /// --for URL: a token for the API that URL is under (else the sign-in's, for its hosts).
  public var forURL: String?
  /// --audience, --resource and --scope without --api or --for: an API named on the command line.
  public var adHoc: AdHocTarget?

  public init(
    profile: String? = nil, format: TokenFormat = .raw, minTTL: Int64? = nil, refresh: Bool = false,
    idToken: Bool = false, login: Bool = false, api: String? = nil, forURL: String? = nil, adHoc: AdHocTarget? = nil
  ) {
    self.api = api
    self.forURL = forURL
    self.adHoc = adHoc
    self.profile = profile
    self.format = format
    self.minTTL = minTTL
    self.refresh = refresh
    self.idToken = idToken
    self.login = login
  }

  /// The margins --min-ttl accepts.
  public static let minTTLRange: ClosedRange<Int64> = 0...Freshness.maxSeconds
  /// What the full command line says of a --min-ttl outside `minTTLRange` (exit 2).
  public static let minTTLRefusal = "--min-ttl must be from 0 to \(Freshness.maxSeconds) seconds"

  /// The small binary's reading of the arguments after `token`: the plain forms only (--profile,
  /// --format, --min-ttl and one of --api and --for, each at most once, or an ad hoc target:
  /// --audience at most once, --resource and --scope repeated; `--name value` or `--name=value`,
  /// with valid values; --login). nil for anything else: the full command line's to parse,
  /// answer or refuse.
  public init?(plainArguments arguments: some Sequence<String>) {
    self.init()
    var seen: Set<String> = []
    var audience: String?
    var resources: [String] = []
    var scopes: [String] = []
    var rest = Array(arguments)[...]
    while let argument = rest.popFirst() {
      let equals = argument.firstIndex(of: "=")
      let name = equals.map { String(argument[..<$0]) } ?? argument
      // --login only matters when there is no usable token: then the full command line signs in.
      if name == "--login", equals == nil {
        login = true
        continue
      }
      let repeatable = name == "--resource" || name == "--scope"
      guard Self.plainOptions.contains(name), repeatable || seen.insert(name).inserted else { return nil }
      guard let value = equals.map({ String(argument[argument.index(after: $0)...]) }) ?? rest.popFirst() else {
        return nil
      }
      switch name {
      case "--profile": profile = value
      case "--audience": audience = value
      case "--resource": resources.append(value)
      case "--scope": scopes.append(value)
      case "--api", "--for":
        // One of them (the full command line refuses both).
        guard api == nil, forURL == nil else { return nil }
        if name == "--api" { api = value } else { forURL = value }
      case "--format":
        guard let known = TokenFormat(rawValue: value) else { return nil }
        format = known
      default:
        guard let seconds = Int64(value), Self.minTTLRange.contains(seconds) else { return nil }
        minTTL = seconds
      }
    }
    // --scope alone, or beside --api or --for, is the full command line's (the kept token's
    // scopes are checked there); an ad hoc target's slot names its scopes.
    if audience != nil || !resources.isEmpty {
      guard api == nil, forURL == nil,
        let target = try? AdHocTarget(audience: audience, resources: resources, scopes: scopes)
      else { return nil }
      adHoc = target
    } else if !scopes.isEmpty {
      return nil
    }
  }

  static let plainOptions: Set<String> = [
    "--profile", "--format", "--min-ttl", "--api", "--for", "--audience", "--resource", "--scope",
  ]

  /// The API the token is for (--api, --for), nil for the sign-in's token; throws what the full
  /// command line refuses with exit 2: an API the profile does not have, a URL under none of its
  /// APIs and on none of its hosts, or one read in more than one way.
  public func chosenAPI(_ profile: Profile, tenant: String) throws(AdmissionError) -> API? {
    if let name = api {
      guard let found = profile.api(named: name) else { throw AdmissionError(profile.noAPI(named: name)) }
      return found
    }
    guard let url = forURL else { return nil }
    do {
      if let found = try profile.api(for: url) { return found }
      try TokenDestination.check(url, allowed: profile.tokenHosts(tenant: tenant))
      return nil
    } catch {
      switch error {
      case .unsafe(let reason): throw AdmissionError("--for: \(reason)")
      case .notAllowed(let shown):
        throw AdmissionError("--for: \(shown) is under none of profile \(profile.name)'s APIs and on none of its hosts")
      }
    }
  }

  /// Which of the profile's API tables the call needs: --api its own, --for all (it chooses by
  /// URL), else none. Both binaries read the config so, and so answer alike.
  public var apiTables: APITables {
    if let api { return .named(api) }
    return forURL == nil ? .none : .all
  }

  /// The margin the access token must have left, else it is refreshed first.
  public func freshness(_ profile: Profile?) -> Freshness {
    Freshness.asked(minTTL, profile: profile, force: refresh)
  }

  /// What goes to stdout (`TokenRenderer`), in `output`: `format` admitted with what the
  /// program running strivacity said (`TokenOutput.init`, before anything else is read).
  public func printed(
    _ token: BearerToken, tokens: TokenSet, as output: TokenOutput, profile: String, now: Int64
  ) -> String {
    TokenRenderer.text(token, of: tokens, to: .stdout(output, profile: profile, idToken: idToken, now: now))
  }
}

extension Freshness {
  /// The warning (without "strivacity: warning: ") when `tokens` do not meet an explicit margin,
  /// as both binaries say it; `prefix` names the caller ("git credential: ").
  public func shortfallWarning(_ tokens: TokenSet, now: Int64, profile: String, prefix: String = "") -> String? {
    tokens.shortfall(now: now, self).map { "\(prefix)\(profile): \($0)" }
  }
}

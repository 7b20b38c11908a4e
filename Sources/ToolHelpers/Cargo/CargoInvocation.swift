// cargo's request as asked, decided once: both binaries pick the profile, the API, the refusal
// and the answer through these functions (the small one for a cached token, the full command
// line for the rest), so they answer cargo alike by construction.
import StrivacityConfig
import StrivacityCore

public struct CargoInvocation: Sendable, Equatable {
  public var request: CargoRequest
  /// `--profile NAME` among the request's args (written by `setup-cargo --profile`); nil: the
  /// profile `strivacity token` would use.
  public var profile: String?

  /// Said before a line of ours on stderr, so a person reading cargo's output knows whose it is.
  public static let messagePrefix = "cargo credential: "

  /// Admits the request's args: only `--profile NAME` (or `--profile=NAME`), once.
  public init(request: CargoRequest) throws(AdmissionError) {
    self.request = request
    var args = request.args[...]
    while let arg = args.popFirst() {
      let value: String
      if arg == "--profile", let next = args.popFirst() {
        value = next
      } else if arg.hasPrefix("--profile=") {
        value = String(arg.dropFirst("--profile=".count))
      } else {
        throw AdmissionError("the provider's arguments may only be --profile NAME (got \(HostEntry.shown(arg)))")
      }
      guard profile == nil else { throw AdmissionError("--profile is given twice in the provider's arguments") }
      guard ProfileName.isValid(value) else {
        throw AdmissionError("--profile \(HostEntry.shown(value)) is not a profile name")
      }
      profile = value
    }
  }

  /// The registry's URL as asked for: the index URL without cargo's `sparse+` marker; nil for
  /// a URL that is not http(s) (a git index over ssh, a local path), which is never ours.
  public var registryURL: String? {
    var url = request.indexURL
    if url.hasPrefix("sparse+") { url.removeFirst("sparse+".count) }
    let lower = url.prefix(8).lowercased()
    return lower.hasPrefix("https://") || lower.hasPrefix("http://") ? url : nil
  }

  /// What a profile does about the request (`notOurs`: cargo asks its next provider).
  public typealias Decision = HelperDecision

  /// Whether `profile` serves the registry: every helper's rule (`Profile.helperDecision`), the
  /// profile's places getting the sign-in's token as for `strivacity curl`.
  public func decision(for profile: Profile, tenant: String) -> Decision {
    guard let url = registryURL else { return .notOurs }
    let decision = profile.helperDecision(for: url, tenant: tenant)
    if case .refused(let reason) = decision { return .refused("refusing the registry's index URL: \(reason)") }
    return decision
  }

  /// The registry's Bearer challenge among the headers of its 401 that cargo passed on; nil
  /// when there is none, or it cannot be admitted (then it is not answered: the usual token goes).
  public var challenge: BearerChallenge.Demand? {
    let values = request.headers.compactMap { line -> String? in
      guard let colon = line.firstIndex(of: ":"),
        String(line[..<colon]).trimming(" \t").lowercased() == "www-authenticate"
      else { return nil }
      return String(line[line.index(after: colon)...]).trimming(" \t")
    }
    guard !values.isEmpty, let challenge = (try? BearerChallenge.admit(values)) ?? nil else { return nil }
    return challenge.demand == .nothing ? nil : challenge.demand
  }

  /// The margin the token must have left: the profile's min_ttl, else the default.
  public func freshness(_ profile: Profile) -> Freshness { Freshness.asked(nil, profile: profile) }
}

// An API's challenge to `strivacity curl`'s token, answered at most once (issue 27, point 5;
// RFC 6750 §3, RFC 9470, RFC 9728): `invalid_token` → a new token; `insufficient_scope` → a
// token with the scopes added; `insufficient_user_authentication` → a step-up sign-in in the
// terminal; `resource_metadata` → the API's metadata, used only when it names this profile's
// issuer. A request is asked again only when curl can send it again (no body from standard
// input) and, for a sign-in, when there is a terminal; otherwise curl's answer stands and one
// line names the command that gets the right token.
import StrivacityConfig
import StrivacityCore

/// What to do about a challenged response, decided when its head arrives (before its body).
package enum ChallengeAnswer: Equatable {
  /// Get a token this way, for `api` (nil: the profile's own), and send the request once more;
  /// `reason` is said first.
  case retry(Action, reason: String, api: API?)
  /// Let curl's answer stand; say this line after it.
  case hint(String)
  /// Let curl's answer stand, say this line, and fail (exit 2): the URL needs an API entry
  /// (`setup-api`), which no new token of the profile's own can stand in for.
  case configure(String)

  package enum Action: Equatable {
    case newToken
    case scopes([Scope])
    case stepUp(acrValues: String?, maxAge: Int64?)
  }
}

extension TokenBroker {
  /// The answer to `head`'s challenge for a request to `url` made with `api`'s token (nil: the
  /// profile's own); nil when there is nothing to answer.
  package func answer(
    _ head: ResponseHead, url: String, api: API?, replayable: Bool, terminal: Bool
  ) -> ChallengeAnswer? {
    guard head.isChallenge, let origin = URLParts(url)?.origin else { return nil }
    // Only a challenge from where the token was sent: a redirect off the URL's origin reached a
    // server that never saw it (curl drops it there; -L is refused where the origin has
    // path-limited places, so a hop that stays on it stays under the same entry).
    guard head.redirects.allSatisfy({ URLPolicy.locationStays($0, on: origin) }) else {
      return .hint(
        "the challenge came from where a redirect led, off \(origin), which was not sent the token: not answered")
    }
    let challenge: BearerChallenge
    do {
      guard let admitted = try BearerChallenge.admit(head.wwwAuthenticate) else { return nil }
      challenge = admitted
    } catch {
      return .hint("the API's WWW-Authenticate challenge was not answered: \(error.description)")
    }
    let demand = challenge.demand
    // A refusal that names nothing but the API's metadata is read for what it says (below).
    if demand == .nothing && (challenge.resourceMetadata == nil || head.status != 401) { return nil }
    let whose = api.map { "API \($0.name)" } ?? "the API at \(origin)"
    let apiFlag = api.map { " --api \($0.name)" } ?? ""
    // The API's metadata, when it names it: only from the URL's own origin, at the well-known
    // place of its resource (RFC 9728 §3.1), this issuer's, and for the URL called.
    var metadata: ResourceMetadata?
    if let metadataURL = challenge.resourceMetadata {
      guard ResourceMetadata.isWellKnown(metadataURL, on: origin) else {
        return .hint(
          "\(whose) challenged the token and named its metadata elsewhere than \(origin)"
            + "/.well-known/oauth-protected-resource: not read, not answered")
      }
      do {
        let read = try resourceMetadata(metadataURL, for: url, quiet: true)
        // RFC 9728 §3.3: read from its resource's own well-known place, or not used.
        guard ResourceMetadata.wellKnownURL(for: read.resource) == metadataURL else {
          throw AdmissionError("the API's metadata names resource \(read.resource), whose metadata is elsewhere")
        }
        metadata = read
      } catch let refusal as AdmissionError {
        if demand == .nothing { return .hint("\(whose) refused the token (HTTP 401): \(refusal.description)") }
        return .hint("\(whose) challenged the token, and its metadata was refused: \(refusal); not answered")
      } catch {
        return .hint("\(whose) challenged the token, and its metadata could not be read; not answered")
      }
    }
    let noRetry = replayable ? "" : " (its body came from standard input, so it was not sent again)"
    // The metadata's resource names the API when its entry names neither an audience nor a resource.
    var api = api
    if let resource = metadata?.resource, var named = api, named.audience == nil, named.resources.isEmpty {
      named.resources = [resource]
      api = named
    }
    // The API's metadata, admitted above (it names this issuer), says which resource and scopes
    // it wants (RFC 9728 §5.1).
    let scopes = metadata?.scopesSupported.map(\.value).joined(separator: " ") ?? ""
    let wants = metadata.map { "resource \($0.resource)" + (scopes.isEmpty ? "" : " with scopes \(scopes)") }
    // A URL under no API entry whose refusal names its metadata: the profile's own token is not
    // this API's, and renewing it would not make it one (an expired token was renewed before it
    // was sent); an entry would.
    if api == nil, let metadata, let wants, demand == .nothing || demand == .newToken {
      return .configure(
        "\(whose) refused the profile's token (HTTP \(head.status)); its metadata names \(wants): run strivacity "
          + "setup api\(profileFlag) \(metadata.resource), then sign in again if it says so")
    }
    switch demand {
    case .nothing:
      guard let api, let wants else { return nil }
      return .hint(
        "\(whose) refused its token (HTTP 401); its metadata names \(wants): check [profiles.\(name).apis."
          + "\(api.name)] against it, then run strivacity token --refresh\(profileFlag)\(apiFlag)")
    case .newToken:
      guard replayable else {
        return .hint(
          "\(whose) refused the token (invalid_token)\(noRetry): run strivacity token --refresh\(profileFlag)\(apiFlag)"
        )
      }
      return .retry(.newToken, reason: "\(whose) refused the token (invalid_token): getting a new one", api: api)
    case .scopes(let scopes):
      let shown = scopes.map(\.value).joined(separator: " ")
      if let allowed = metadata?.scopesSupported, !allowed.isEmpty {
        let foreign = scopes.filter { !allowed.contains($0) }
        guard foreign.isEmpty else {
          let named = foreign.map(\.value).joined(separator: " ")
          return .hint("\(whose) asks for scope \(named), which its metadata does not list; not asked for")
        }
      }
      guard let api else {
        // The profile's own token has the sign-in's scopes; an API with scopes of its own is an
        // apis entry.
        let api = metadata?.resource ?? "URL"
        return .configure(
          "\(whose) needs scope \(shown) (insufficient_scope): run strivacity setup api\(profileFlag) \(api)")
      }
      let command = "strivacity token\(profileFlag) --api \(api.name)" + scopes.map { " --scope \($0.value)" }.joined()
      guard replayable else {
        return .hint("\(whose) needs scope \(shown) (insufficient_scope)\(noRetry): run \(command)")
      }
      return .retry(.scopes(scopes), reason: "\(whose) needs scope \(shown): getting a token with it", api: api)
    case .stepUp(let acrValues, let maxAge):
      let wants = [acrValues.map { "acr_values \($0)" }, maxAge.map { "max_age \($0)" }].compactMap { $0 }
      let command = stepUpCommand(acrValues: acrValues, maxAge: maxAge)
      guard replayable, terminal else {
        let why = replayable ? " (no terminal to sign in on)" : noRetry
        return .hint("\(whose) asks for a stronger sign-in (\(wants.joined(separator: ", ")))\(why): run \(command)")
      }
      // signInAgain says it (adding ": signing in again") and asks first.
      return .retry(
        .stepUp(acrValues: acrValues, maxAge: maxAge),
        reason: "\(whose) asks for a stronger sign-in (\(wants.joined(separator: ", ")))", api: api)
    }
  }

  /// ` --profile NAME` for a command line naming this profile; empty for the default one.
  package var profileFlag: String { ProfileName.flag(name) }

  /// The sign-in a step-up asks for, as a command to run.
  package func stepUpCommand(acrValues: String?, maxAge: Int64?) -> String {
    "strivacity login\(profileFlag)" + (acrValues.map { " --acr-values '\($0)'" } ?? "")
      + (maxAge.map { " --max-age \($0)" } ?? "")
  }

  /// The token a tool's credential helper hands out (a package manager's provider), never through a
  /// sign-in: the tool waits, and may have no terminal. A challenge the tool passed on is
  /// answered as `strivacity curl` answers one (`tokens(answering:)`); a step-up, or scopes for
  /// a URL under no API entry, is a failure naming the command that gets the right token.
  package func helperTokens(api: API?, challenge: BearerChallenge.Demand?, _ freshness: Freshness) throws -> TokenSet {
    let whose = api.map { "API \($0.name)" } ?? "the registry"
    switch challenge {
    case nil, .nothing?:
      return try api.map { try apiTokens($0, freshness) } ?? freshTokens(freshness)
    case .newToken?:
      return try tokens(answering: .newToken, reason: "\(whose) refused the token", api: api, freshness)
    case .scopes(let scopes)?:
      let shown = scopes.map(\.value).joined(separator: " ")
      guard let api else {
        throw BrokerError.configuration(
          "\(whose) needs scope \(shown) (insufficient_scope): give it an API entry, strivacity setup api"
            + "\(profileFlag) URL")
      }
      return try tokens(answering: .scopes(scopes), reason: "\(whose) needs scope \(shown)", api: api, freshness)
    case .stepUp(let acrValues, let maxAge)?:
      throw BrokerError.stepUpNeeded(whose: whose, command: stepUpCommand(acrValues: acrValues, maxAge: maxAge))
    }
  }

  /// The token for the second request; `reason` is the answer's (a step-up's sign-in shows it).
  package func tokens(
    answering action: ChallengeAnswer.Action, reason: String, api: API?, _ freshness: Freshness
  ) throws -> TokenSet {
    var forced = freshness
    forced.force = true
    switch action {
    case .newToken:
      return try api.map { try apiTokens($0, forced) } ?? freshTokens(forced)
    case .scopes(let scopes):
      guard let api else { return try freshTokens(forced) }
      return try apiTokens(api, freshness, extraScopes: scopes)
    case .stepUp(let acrValues, let maxAge):
      try signInAgain(SignInExtras(acrValues: acrValues, maxAge: maxAge.map { Int($0) }), reason: reason)
      return try api.map { try apiTokens($0, forced) } ?? freshTokens(freshness)
    }
  }

  /// The API's protected-resource metadata at `url`, for a request to `requestURL`: at most
  /// 64 KiB in 5 seconds, admitted by `ResourceMetadata.admit`. `quiet` (a challenge's, not the
  /// user's own setup-api): how the fetch failed is not said, only that it did.
  package func resourceMetadata(_ url: String, for requestURL: String, quiet: Bool = false) throws -> ResourceMetadata {
    // Up to 5 s: on a terminal, a spinner says what is awaited.
    progress?.start("reading the API's metadata…")
    defer { progress?.stop() }
    let response: HTTPResponse
    do {
      response = try tenantClient.send(HTTPRequest(url: url, timeout: 5, maxBodyBytes: ResourceMetadata.maxBytes))
    } catch  where quiet {
      throw BrokerError.metadataUnreadable(transient: true)
    }
    guard response.status == 200 else {
      if quiet { throw BrokerError.metadataUnreadable(transient: false) }
      throw AdmissionError("HTTP \(response.status) from \(url)")
    }
    return try ResourceMetadata.admit(response.body, requestURL: requestURL, issuer: tenant)
  }
}

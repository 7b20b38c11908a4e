// An API's challenge to `strivacity curl`'s token, answered at most once (issue 27, point 5;
// RFC 6750 §3, RFC 9470, RFC 9728): `invalid_token` → a new token; `insufficient_scope` → a
// token with the scopes added; `insufficient_user_authentication` → a step-up sign-in in the
// terminal; `resource_metadata` → the API's metadata, used only when it names this profile's
// issuer. A request is asked again only when curl can send it again (no body from standard
// input) and, for a sign-in, when there is a terminal; otherwise curl's answer stands and one
// line names the command that gets the right token.
import StrivacityCore
import TerminalUI

/// What to do about a challenged response, decided when its head arrives (before its body).
enum ChallengeAnswer: Equatable {
  /// Get a token this way, for `api` (nil: the profile's own), and send the request once more;
  /// `reason` is said first.
  case retry(Action, reason: String, api: API?)
  /// Let curl's answer stand; say this line after it.
  case hint(String)

  enum Action: Equatable {
    case newToken
    case scopes([Scope])
    case stepUp(acrValues: String?, maxAge: Int64?)
  }
}

extension ProfileSession {
  /// The answer to `head`'s challenge for a request to `url` made with `api`'s token (nil: the
  /// profile's own); nil when there is nothing to answer.
  func answer(
    _ head: ResponseHead, url: String, api: API?, replayable: Bool, terminal: Bool
  ) -> ChallengeAnswer? {
    guard head.isChallenge else { return nil }
    let challenge: BearerChallenge
    do {
      guard let admitted = try BearerChallenge.admit(head.wwwAuthenticate) else { return nil }
      challenge = admitted
    } catch {
      return .hint("the API's WWW-Authenticate challenge was not answered: \(error.description)")
    }
    let demand = challenge.demand
    if demand == .nothing { return nil }
    let whose = api.map { "API \($0.name)" } ?? "the API at \(URLParts(url).map { "\($0.origin)" } ?? "that URL")"
    let profileFlag = name == "default" ? "" : " --profile \(name)"
    let apiFlag = api.map { " --api \($0.name)" } ?? ""
    // The API's metadata, when it names it: only this issuer's, and only for the URL called.
    var metadata: ResourceMetadata?
    if let metadataURL = challenge.resourceMetadata {
      do {
        metadata = try resourceMetadata(metadataURL, for: url)
      } catch {
        return .hint("\(whose) challenged the token, and its metadata was refused: \(error); not answered")
      }
    }
    let noRetry = replayable ? "" : " (its body came from standard input, so it was not sent again)"
    // The metadata's resource names the API when its entry names neither an audience nor a resource.
    var api = api
    if let resource = metadata?.resource, var named = api, named.audience == nil, named.resources.isEmpty {
      named.resources = [resource]
      api = named
    }
    switch demand {
    case .nothing:
      return nil
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
        return .hint(
          "\(whose) needs scope \(shown) (insufficient_scope): run strivacity setup-api\(profileFlag) \(api)")
      }
      let command = "strivacity token\(profileFlag) --api \(api.name)" + scopes.map { " --scope \($0.value)" }.joined()
      guard replayable else {
        return .hint("\(whose) needs scope \(shown) (insufficient_scope)\(noRetry): run \(command)")
      }
      return .retry(.scopes(scopes), reason: "\(whose) needs scope \(shown): getting a token with it", api: api)
    case .stepUp(let acrValues, let maxAge):
      let wants = [acrValues.map { "acr_values \($0)" }, maxAge.map { "max_age \($0)" }].compactMap { $0 }
      let command =
        "strivacity login\(profileFlag)" + (acrValues.map { " --acr-values '\($0)'" } ?? "")
        + (maxAge.map { " --max-age \($0)" } ?? "")
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

  /// The token for the second request; `reason` is the answer's (a step-up's sign-in shows it).
  func tokens(
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

  /// The API's protected-resource metadata at `url` (from its challenge), for a request to
  /// `requestURL`: at most 64 KiB in 5 seconds, admitted by `ResourceMetadata.admit`.
  func resourceMetadata(_ url: String, for requestURL: String) throws -> ResourceMetadata {
    // Up to 5 s: on a terminal, a spinner says what is awaited.
    let spinner = Spinner()
    spinner.start("reading the API's metadata…")
    defer { spinner.stop() }
    let response = try tenantClient.send(HTTPRequest(url: url, timeout: 5, maxBodyBytes: ResourceMetadata.maxBytes))
    guard response.status == 200 else { throw AdmissionError("HTTP \(response.status) from \(url)") }
    return try ResourceMetadata.admit(response.body, requestURL: requestURL, issuer: tenant)
  }
}

// Signing a profile in again in the middle of another command (issue 27, points 3 and 5): when
// the tenant refuses an API's token for a scope, resource or audience the sign-in never asked
// for, or an API demands a stronger or more recent authentication (RFC 9470), a person at the
// terminal goes through the journey once more, asked for what was missing; a script gets one
// line naming the `strivacity login` that would do it (exit 3) and is never prompted.
import JourneyCore
import OAuthCore
import StrivacityConfig
import StrivacityCore

/// What a sign-in asks for besides the profile's usual: an API's resources/audience and scopes
/// refused by the tenant, or an API's step-up demand (RFC 9470).
package struct SignInExtras: Equatable {
  package var scopes: [Scope] = []  // added to the profile's sign-in scopes
  /// RFC 8707 resource at the authorization endpoint (besides the configured APIs')
  package var resources: [String] = []
  package var audience: String? = nil
  package var acrValues: String? = nil  // admitted: Admit.acrValues
  package var maxAge: Int? = nil  // admitted: Admit.maxAge (0 to ten years)

  package init(
    scopes: [Scope] = [], resources: [String] = [], audience: String? = nil, acrValues: String? = nil,
    maxAge: Int? = nil
  ) {
    self.scopes = scopes
    self.resources = resources
    self.audience = audience
    self.acrValues = acrValues
    self.maxAge = maxAge
  }

  /// Whether the sign-in asks about the authentication itself (a step-up).
  package var stepsUp: Bool { acrValues != nil || maxAge != nil }
}

/// What became of a sign-in offered in the middle of a command (`TokenBroker.signIn`).
package enum SignInAnswer {
  /// Nobody may be asked: no terminal, git, the agent, kubectl's interactiveMode Never.
  case nobodyToAsk
  /// The person declined, or cancelled the journey.
  case declined
  /// The new sign-in set is stored.
  case signedIn
}

/// The sign-in the command line offers (a journey on the terminal), passed in: the broker knows
/// when one would help and what it asks for, not how to ask a person.
package typealias SignIn = (TokenBroker, SignInExtras, _ reason: String) throws -> SignInAnswer

extension TokenBroker {
  /// Signs the profile in again asking for `extras`, through `signIn` (the command line's: the
  /// usual journey on /dev/tty, the new set stored in place of the old one).
  ///
  /// `reason` is one line saying why, without a verb of what follows ("the tenant refused a
  /// token for API orders (scope orders:write): invalid_scope"): on a terminal it is shown as
  /// "strivacity: REASON: signing in again" before the question; otherwise the failure is
  /// "REASON; run strivacity login --profile P --add-scope …" (exit 3). That same failure is
  /// thrown when there is no terminal to sign in on (no /dev/tty, stderr not a terminal, for
  /// git or inside the agent, or kubectl said interactiveMode Never) and when the person
  /// declines or cancels the journey; it carries `signInOffered` when the person was asked.
  /// Call it without holding the profile's refresh lock: the new set is stored under it.
  package func signInAgain(_ extras: SignInExtras, reason: String) throws {
    let command = loginCommand(extras, usual: wholeProfile())
    switch try signIn?(self, extras, reason) ?? .nobodyToAsk {
    case .nobodyToAsk: throw BrokerError.signInNeeded(reason: reason, command: command, offered: false)
    case .declined: throw BrokerError.signInNeeded(reason: reason, command: command, offered: true)
    case .signedIn: return
    }
  }

  /// The profile with all its APIs: `token --api` reads only the one API's table, and a sign-in
  /// must still consent to every API (else the others' tokens are refused next).
  package func wholeProfile() -> Profile {
    var profile = resolved.profile
    if let whole = (try? context.config(onlyProfile: name, warn: false))?.profile(named: name) {
      profile.apis = whole.apis
    }
    return profile
  }

  /// The `strivacity login` that asks for `extras`, naming only what the profile's own sign-in
  /// (its scopes, its APIs' scopes and resources) does not ask for already.
  package func loginCommand(_ extras: SignInExtras, usual profile: Profile) -> String {
    var words = ["strivacity", "login"]
    if name != "default" { words += ["--profile", name] }
    let scopes = (profile.scopes ?? Profile.defaultScopes) + profile.apis.flatMap(\.scopes).map(\.value)
    for scope in extras.scopes.map(\.value) where !scopes.contains(scope) { words += ["--add-scope", scope] }
    let resources = profile.apis.flatMap(\.resources)
    for resource in extras.resources where !resources.contains(resource) { words += ["--resource", resource] }
    if let audience = extras.audience { words += ["--audience", audience] }
    if let acr = extras.acrValues { words += ["--acr-values", acr] }
    if let maxAge = extras.maxAge { words += ["--max-age", String(maxAge)] }
    return words.map(Shell.word).joined(separator: " ")
  }
}

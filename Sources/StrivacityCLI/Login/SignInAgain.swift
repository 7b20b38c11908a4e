// Signing a profile in again in the middle of another command (issue 27, points 3 and 5): when
// the tenant refuses an API's token for a scope, resource or audience the sign-in never asked
// for, or an API demands a stronger or more recent authentication (RFC 9470), a person at the
// terminal goes through the journey once more, asked for what was missing; a script gets one
// line naming the `strivacity login` that would do it (exit 3) and is never prompted.
import Glibc
import JourneyCore
import OAuthCore
import StrivacityCore
import TerminalUI

/// What a sign-in asks for besides the profile's usual: an API's resources/audience and scopes
/// refused by the tenant, or an API's step-up demand (RFC 9470).
struct SignInExtras: Equatable {
  var scopes: [Scope] = []  // added to the profile's sign-in scopes
  var resources: [String] = []  // RFC 8707 resource at the authorization endpoint (besides the configured APIs')
  var audience: String? = nil
  var acrValues: String? = nil  // admitted: Admit.acrValues
  var maxAge: Int? = nil  // admitted: Admit.maxAge (0 to ten years)

  /// Whether the sign-in asks about the authentication itself (a step-up).
  var stepsUp: Bool { acrValues != nil || maxAge != nil }
}

extension ProfileSession {
  /// Signs the profile in again in the terminal (the usual journey: prompts on /dev/tty) asking
  /// for `extras`, and stores the new sign-in set (replacing the old one; the API tokens kept are
  /// dropped when another user signed in or the sign-in was a step-up: `Login.signIn`).
  ///
  /// `reason` is one line saying why, without a verb of what follows ("the tenant refused a
  /// token for API orders (scope orders:write): invalid_scope"): on a terminal it is shown as
  /// "strivacity: REASON: signing in again" before the question; otherwise the failure is
  /// "REASON; run strivacity login --profile P --add-scope …" (exit 3). That same failure is
  /// thrown when there is no terminal to sign in on (no /dev/tty, stderr not a terminal, for
  /// git or inside the agent, or kubectl said interactiveMode Never) and when the person
  /// declines or cancels the journey; it carries `signInOffered` when the person was asked.
  /// Call it without holding the profile's refresh lock: the new set is stored under it.
  func signInAgain(_ extras: SignInExtras, reason: String) throws {
    let profile = wholeProfile()
    let command = loginCommand(extras, usual: profile)
    func refusal(offered: Bool) -> CLIFailure {
      var failure = CLIFailure("\(reason); run \(command)", status: .signInRequired)
      failure.signInOffered = offered
      return failure
    }
    guard let terminal = signInTerminal() else { throw refusal(offered: false) }
    Console.writeStderr("strivacity: \(TerminalSafe.text(reason, multiline: false)): signing in again\n")
    let answer = (try? terminal.readLine(prompt: "Sign in to \(name) now? [Y/n]: ", hidden: false)) ?? "n"
    guard answer.isEmpty || answer.lowercased().hasPrefix("y") else { throw refusal(offered: true) }

    let settings = LoginSettings(
      tenant: tenant, clientID: clientID, scopes: profile.scopes ?? Profile.defaultScopes,
      redirectURI: profile.redirectURI, sdkMode: profile.sdkMode ?? "web", browserOnly: false, openBrowser: true,
      browserTimeout: 300, apis: profile.apis, extras: extras)
    let style = Style(colour: colourWanted(fd: 2, environment: context.environment))
    let prompter = Prompter(terminal: terminal, style: style, provided: [:], fromArguments: [], actions: [])
    let result: LoginResult
    do {
      result = try Login.signIn(
        settings, prompter: prompter, context: context, profile: name, key: key, store: store, log: log)
    } catch JourneyError.cancelled {  // a cancel action, or Ctrl-D at a prompt
      throw refusal(offered: true)
    }
    Console.writeStderr("strivacity: signed in to \(tenant) as \(Login.who(result.claims)) (profile \(name))\n")
  }

  /// The terminal a person signs in on, or nil when nobody may be asked: the rule of `token`'s
  /// offer to sign in (/dev/tty, with stderr on a terminal so the person sees why), never for
  /// git or inside the agent (unattended: they answer another program that waits), never when
  /// kubectl forbids talking to the user.
  func signInTerminal() -> TTY? {
    guard !isMachine, context.agentStore == nil, context.attended, isatty(2) == 1 else { return nil }
    if (try? ExecCredentialInfo.from(context.environment))?.interactive == false { return nil }
    return TTY()
  }

  /// The profile with all its APIs: `token --api` reads only the one API's table, and a sign-in
  /// must still consent to every API (else the others' tokens are refused next).
  private func wholeProfile() -> Profile {
    var profile = resolved.profile
    if let whole = (try? context.config(onlyProfile: name, warn: false))?.profile(named: name) {
      profile.apis = whole.apis
    }
    return profile
  }

  /// The `strivacity login` that asks for `extras`, naming only what the profile's own sign-in
  /// (its scopes, its APIs' scopes and resources) does not ask for already.
  func loginCommand(_ extras: SignInExtras, usual profile: Profile) -> String {
    var words = ["strivacity", "login"]
    if name != "default" { words += ["--profile", name] }
    let scopes = (profile.scopes ?? Profile.defaultScopes) + profile.apis.flatMap(\.scopes).map(\.value)
    for scope in extras.scopes.map(\.value) where !scopes.contains(scope) { words += ["--add-scope", scope] }
    let resources = profile.apis.flatMap(\.resources)
    for resource in extras.resources where !resources.contains(resource) { words += ["--resource", resource] }
    if let audience = extras.audience { words += ["--audience", audience] }
    if let acr = extras.acrValues { words += ["--acr-values", acr] }
    if let maxAge = extras.maxAge { words += ["--max-age", String(maxAge)] }
    return words.map(Self.shellWord).joined(separator: " ")
  }

  /// A word as a POSIX shell reads it back: as is when plain, else in single quotes.
  static func shellWord(_ word: String) -> String {
    let plain =
      !word.isEmpty
      && word.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
          || "_-./:@%+=,".utf8.contains(byte)
      }
    if plain { return word }
    return "'" + word.replacing("'", with: "'\\''") + "'"
  }
}

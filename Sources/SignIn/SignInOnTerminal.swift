// The sign-in's half of signing in again (Broker/SignInAgain.swift decides when): the
// journey on the terminal, when there is a person at one to ask.
import Broker
import JourneyCore
import OAuthCore
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerminalUI

extension TokenBroker {
  /// Signs `broker`'s profile in again in the terminal (the usual journey: prompts on /dev/tty)
  /// asking for `extras`, and stores the new sign-in set (replacing the old one; the API tokens
  /// kept are dropped when another user signed in or the sign-in was a step-up: `LoginFlow.signIn`).
  /// On a terminal `reason` is shown as "strivacity: REASON: signing in again" before the
  /// question. Nobody is asked when there is no terminal to sign in on (`signInTerminal`).
  package static func signInOnTerminal(_ broker: TokenBroker, _ extras: SignInExtras, reason: String) throws
    -> SignInAnswer
  {
    guard let terminal = broker.signInTerminal() else { return .nobodyToAsk }
    Console.writeStderr("strivacity: \(TerminalSafe.text(reason, multiline: false)): signing in again\n")
    guard terminal.confirm("Sign in to \(broker.name) now?") else { return .declined }

    let profile = broker.wholeProfile()
    let settings = LoginSettings(
      tenant: broker.tenant, clientID: broker.clientID, scopes: profile.scopes ?? Profile.defaultScopes,
      redirectURI: profile.redirectURI, sdkMode: profile.sdkMode ?? "web", browserOnly: false, openBrowser: true,
      browserTimeout: 300, apis: profile.apis, extras: extras)
    let style = Style(colour: colourWanted(fd: 2, environment: broker.context.environment))
    let prompter = Prompter(terminal: terminal, style: style, provided: [:], fromArguments: [], actions: [])
    let result: LoginResult
    do {
      result = try LoginFlow.signIn(
        settings, prompter: prompter, context: broker.context, profile: broker.name, key: broker.key,
        store: broker.store, log: broker.log)
    } catch JourneyError.cancelled {  // a cancel action, or Ctrl-D at a prompt
      return .declined
    }
    Console.writeStderr(
      "strivacity: signed in to \(broker.tenant) as \(LoginFlow.who(result.claims)) (profile \(broker.name))\n")
    return .signedIn
  }

  /// The terminal a person signs in on, or nil when nobody may be asked: the rule of `token`'s
  /// offer to sign in (/dev/tty, with stderr on a terminal so the person sees why), never for
  /// git or inside the agent (unattended: they answer another program that waits), never when
  /// kubectl forbids talking to the user.
  package func signInTerminal() -> TTY? {
    guard renewal.personSignsIn, context.agentStore == nil, context.attended, isTerminal(2) else { return nil }
    if (try? ExecCredentialInfo.from(context.environment))?.interactive == false { return nil }
    return TTY()
  }
}

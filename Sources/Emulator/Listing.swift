// What the tenant offers, printed on stderr when the emulator starts, so that everything can be
// tried without reading the journey file (docs/emulator.md, "Try everything"): the users and
// their passwords, every code the journey may ask for, the clients (a confidential one's secret
// or keys), the APIs with their protected resources here, and the tokens' lifetimes. One line
// per thing, each starting `strivacity-emulator: ` (`make demo` picks the `user` lines).
import Foundation
import StrivacityCore

extension Journey {
  /// The start-up listing for this journey served at `issuer` (with its trailing slash): the
  /// lines as printed, without their newlines.
  package func startupListing(issuer: String) -> [String] {
    var lines = ["journey \"\(name)\" on \(issuer) (Ctrl-C stops)"]
    for user in users {
      // Every code the journey may ask this user for, by what the screens call it.
      var codes = user.factors.map { "\($0.label): passcode \($0.passcode)" }
      if let activation = user.activationCode { codes.append("activation code \(activation)") }
      if user.passkey { codes.append("a passkey") }
      lines.append(
        "user \(user.identifier)" + (user.password.map { " / password \(Self.shellWord($0))" } ?? "")
          + (codes.isEmpty ? "" : "; " + codes.joined(separator: "; ")))
    }
    lines += journeyCodes
    lines.append(
      "step-up passcode \(Emulator.stepUpPasscode) "
        + "(asked when acr_values names mfa and the sign-in had no second factor)")
    lines += clients.map(Self.clientLine)
    for api in apis {
      var parts = [
        "audience \(api.audience)", "scopes \(api.scopes.joined(separator: " "))",
        "protected resource \(issuer)resources/\(api.name)/",
      ]
      if !api.resources.isEmpty { parts.append("also resource \(api.resources.joined(separator: ", "))") }
      if let acr = api.acr { parts.append("needs acr \(acr)") }
      if let maxAge = api.maxAge { parts.append("a sign-in at most \(maxAge) s old") }
      lines.append("API \(api.name): " + parts.joined(separator: "; "))
    }
    // In a profile of its own: a sign-in to another tenant replaces a profile's tokens.
    if let client = clients.first(where: { $0.grantTypes.contains("authorization_code") }) {
      lines.append(
        "try: strivacity login --profile emulator --tenant \(issuer) --client-id \(client.clientID) "
          + "(docs/emulator.md, \"Try everything\")")
    }
    // A journey file is the operator's own, but its texts still reach a terminal.
    return lines.map { TerminalSafe.text("strivacity-emulator: " + $0, multiline: false) }
  }

  /// The codes a screen expects of anyone (`code` and `enroll` checks), and the activation code
  /// of accounts without their own.
  private var journeyCodes: [String] {
    var lines: [String] = []
    for (id, screen) in screens.sorted(by: { $0.key < $1.key }) {
      for transition in screen.transitions {
        if transition.check == .code || transition.check == .enroll, let code = transition.expect {
          lines.append("passcode \(code) on screen \(id)")
        }
      }
    }
    let activates = screens.values.contains { $0.transitions.contains { $0.check == .activation } }
    if activates { lines.append("activation code \(Emulator.defaultActivationCode) for new accounts") }
    return lines
  }

  private static func clientLine(_ client: Client) -> String {
    var head = "client \(client.clientID)"
    var parts: [String] = []
    if client.isConfidential {
      if let secret = client.secret, client.authMethods.contains(where: { $0 != "private_key_jwt" }) {
        head += " / secret \(shellWord(secret))"
      }
      var methods = client.authMethods.joined(separator: ", ")
      let kids = client.assertionKeys?.keys.compactMap(\.kid) ?? []
      if client.authMethods.contains("private_key_jwt"), !kids.isEmpty {
        methods += " (keys \(kids.joined(separator: ", ")))"
      }
      parts.append(methods)
    } else {
      parts.append("public")
    }
    var grants = client.grantTypes.joined(separator: ", ")
    if client.grantTypes.contains("client_credentials"), !client.audiences.isEmpty {
      grants += " for \(client.audiences.joined(separator: ", "))"
    }
    if !client.scopes.isEmpty { grants += " (\(client.scopes.joined(separator: " ")))" }
    parts.append(grants)
    var lifetimes = ["access tokens \(client.accessTokenTTL) s"]
    if client.grantTypes.contains("refresh_token") || client.grantTypes.contains("authorization_code") {
      lifetimes.append("refresh tokens \(client.refreshTokenTTL) s")
    }
    if client.grantTypes.contains("authorization_code") { lifetimes.append("ID tokens \(client.idTokenTTL) s") }
    parts.append(lifetimes.joined(separator: ", "))
    return head + ": " + parts.joined(separator: "; ")
  }

  /// `text` as one shell word: as it is when it holds only characters no shell treats specially,
  /// else in single quotes (a quote inside as `'\''`), so a secret can be pasted into a command.
  static func shellWord(_ text: String) -> String { Shell.word(text) }
}

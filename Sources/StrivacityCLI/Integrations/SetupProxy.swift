// `strivacity setup proxy`: a profile's proxy settings written to its table, and the proxy
// user's password kept beside its tokens (keyring, or the file store), checked first by
// reaching the tenant through the proxy: a refused password is not kept. A tenant reached
// directly (loopback, no_proxy) checks nothing: the password is kept, and said to be unchecked.
import ArgumentParser
import Broker
import CurlTransport
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore

struct SetupProxy: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "proxy",
    abstract: "Set a profile's proxy and keep the proxy's password (never shown).",
    discussion: """
      Writes proxy, proxy_user and proxy_auth (those given) to [profiles.PROFILE]. With \
      --password-stdin, reads the proxy user's password from stdin (typed without echo on a \
      terminal), reaches the tenant's discovery document through the proxy with it, and keeps \
      it in the keyring beside the profile's tokens (in a file of its own with store = "file"); \
      a password the proxy refuses is not kept (exit 4). A tenant on loopback (never proxied) \
      or in no_proxy is reached directly: the password is then kept unchecked, and the line \
      says so. STRIVACITY_PROXY_PASSWORD, when set, is used instead. `strivacity logout` \
      deletes the kept password; `revoke` keeps it. --undo removes proxy, proxy_user and \
      proxy_auth from the profile (the kept password goes with `strivacity logout`).

      EXAMPLES:
        strivacity setup proxy --profile work --proxy http://proxy.corp.example:3128 --user alice --password-stdin
        strivacity setup proxy --profile work --proxy ""     # direct, whatever https_proxy says
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("The proxy's URL (\"\" for a direct connection).", valueName: "url"))
  var proxy: String?

  @Option(help: ArgumentHelp("The user the proxy is told (proxy_user).", valueName: "name"))
  var user: String?

  @Option(help: ArgumentHelp("basic (the default) or any (Negotiate, NTLM… as libcurl has them).", valueName: "auth"))
  var auth: String?

  @Flag(name: .customLong("password-stdin"), help: "Read the proxy user's password from stdin, check it, keep it.")
  var passwordStdin = false

  @OptionGroup var change: SetupChange

  func validate() throws {
    do {
      if let proxy { _ = try ProxyEntry.admit(proxy) }
      if let user { _ = try ProxySettings.admitUser(user) }
      if let auth { _ = try ProxySettings.admitAuth(auth) }
    } catch {
      throw ValidationError(error.description)
    }
    if change.undo, proxy != nil || user != nil || auth != nil || passwordStdin {
      throw ValidationError("--undo removes the profile's proxy settings: give nothing else")
    }
    if proxy == nil, user == nil, auth == nil, !passwordStdin, !change.undo {
      throw ValidationError("give --proxy, --user, --auth or --password-stdin")
    }
  }

  func run() throws {
    let context = global.context()
    let before = try TokenBroker.configured(context: context, options: global)
    if change.undo {
      try change.remove(context, table: ["profiles", before.name], keys: ["proxy", "proxy_user", "proxy_auth"])
      change.note("proxy settings removed from profile \(before.name) (\(context.paths.config))")
      return
    }
    var settings: [(key: String, value: ConfigValue)] = []
    if let proxy { settings.append(("proxy", .string(proxy))) }
    if let user { settings.append(("proxy_user", .string(user))) }
    if let auth { settings.append(("proxy_auth", .string(auth))) }
    if !settings.isEmpty {
      try change.config(context, table: ["profiles", before.name], settings)
      change.note("proxy settings written to profile \(before.name) (\(context.paths.config))")
    }
    guard passwordStdin else { return }
    if change.dryRun {
      return Console.writeStdout("would read the proxy password from stdin, try it through the proxy, and keep it\n")
    }
    // The profile as the file now says, with the password typed: the tenant through the proxy.
    let session = try TokenBroker(context: global.context(), options: global)
    let choice = try session.proxy().choice
    guard let proxyUser = choice.user else {
      throw CLIFailure("profile \(session.name) has no proxy_user: give --user", status: .usage)
    }
    let password = try SecretInput.read(
      prompt: "Password of \(proxyUser) at the proxy: ", what: "proxy password", limit: 1024)
    guard Context.isProxyPassword(password) else {
      throw CLIFailure("the proxy password must be text without control characters", status: .usage)
    }
    var options = try context.httpClient(for: session.resolved.profile, config: session.config).options
    options.proxyPassword = password
    options.proxyPasswordSource = "the password given (it was not kept)"
    _ = try TenantClient(tenant: session.tenant, log: session.log) { CurlHTTPClient(options: options) }
      .fetchDiscovery()
    try context.secretStore(for: session.resolved.store).save(
      Array(password.utf8), for: SecretKey(session.key, .proxyPassword))
    let kept = session.resolved.store == .file ? "in a private file" : "in the keyring"
    if let direct = Self.directReason(tenant: session.tenant, choice: choice) {
      // Nothing was asked of the proxy: the password is kept as given, and said to be unchecked.
      Console.note(
        "reached \(session.tenant) directly, \(direct), so the password was not tried against the proxy; "
          + "it is kept \(kept), unchecked")
    } else {
      Console.note(
        "reached \(session.tenant) through \(choice.description) as \(proxyUser); the password is kept \(kept)")
    }
  }

  /// Why requests to `tenant` do not go through the proxy `choice` names, or nil when they do.
  static func directReason(tenant: String, choice: ProxyChoice) -> String? {
    guard let parts = URLParts(tenant), choice.proxy(forHost: parts.host, loopback: parts.isLoopback) == nil else {
      return nil
    }
    guard let proxy = choice.proxy else {
      return choice.source == "no proxy variable" ? "no proxy being set" : "\(choice.source) saying direct"
    }
    let why =
      parts.isLoopback ? "loopback addresses are never proxied" : "\(choice.noProxySource ?? "no_proxy") names it"
    return "not through the proxy \(proxy.address): \(why)"
  }
}

import Agent
// `strivacity status`: what a profile is configured for and what it holds, never a secret.
import ArgumentParser
import Broker
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore
import SystemIO

struct Status: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a profile's tenant, client, user, token expiry and store (never a secret).",
    discussion:
      "Exits 0 when signed in, 3 when not (with --all: when no profile is), 2 when the profile is not configured "
      + "(with --json, after printing JSON that says so). --jwk and --jwks exit 0 when they printed the key, 2 when "
      + "the profile has none."
  )

  @OptionGroup var global: GlobalOptions

  @Flag(help: "Every configured profile.")
  var all = false

  @Flag(help: "Print JSON instead of a table.")
  var json = false

  @Flag(
    help: ArgumentHelp(
      "Print the public key of a private_key_jwt profile as a JWK, with the kid its assertions carry, to register at "
        + "the tenant."))
  var jwk = false

  @Flag(help: "The same as a JWK Set: {\"keys\": [...]}.")
  var jwks = false

  func validate() throws {
    if all && global.profile != nil { throw ValidationError("use either --profile or --all") }
    if jwk && jwks { throw ValidationError("use either --jwk or --jwks") }
    if (jwk || jwks) && (all || json) { throw ValidationError("--jwk and --jwks print one profile's key, as JSON") }
  }

  func run() throws {
    let context = global.context()
    if jwk || jwks { return try printJWK(context) }
    let names: [String?] = all ? (try context.config()?.profiles.map(\.name) ?? []) : [nil]
    var reports: [JSONValue] = []
    var agentPing: AgentMessage??  // asked once, for the first profile that uses the agent
    for name in names {
      let session: TokenBroker
      do {
        session = try TokenBroker(context: context, options: global, profile: name)
      } catch let error as ConfigError where json {
        guard case .profileNotConfigured(let missing, _, _) = error else { throw error }
        // Scripts asking for JSON get JSON, saying so, and the same exit code.
        let object: JSONValue = .object([
          "profile": .string(missing), "configured": false, "signed_in": false, "error": .string(error.description),
        ])
        Console.writeStdout(String(decoding: object.serialized(pretty: true), as: UTF8.self) + "\n")
        throw CLIFailure("", status: .usage)
      }
      // (The file store's warning is given once, when it is chosen at sign-in; the table
      // shows the store.)
      let tokens = try session.store.load(session.key)
      // A person's APIs' tokens come from the sign-in's set; a machine's are its own.
      let apis =
        tokens == nil && session.renewal.personSignsIn
        ? [] : try session.resolved.profile.apis.map { try apiReport(session, $0) }
      var report = report(session, tokens: tokens, agent: agentState(session, &agentPing), apis: apis)
      if session.renewal.clientProvesItself { report = machineReport(session, report) }
      let sinks = Self.sinkReports(session.resolved.profile)
      if !sinks.isEmpty, var object = report.object {
        object["sinks"] = .array(sinks)
        report = .object(object)
      }
      reports.append(report)
    }
    let signedIn = reports.contains { $0["signed_in"] == true || $0["machine"]?["ready"] == true }
    if json {
      let output = all ? JSONValue.array(reports) : reports.first ?? .object([:])
      Console.writeStdout(String(decoding: output.serialized(pretty: true), as: UTF8.self) + "\n")
    } else {
      Console.writeStdout(reports.map(table).joined(separator: "\n"))
    }
    // The output already says so; the exit code tells scripts.
    if !signedIn { throw CLIFailure("", status: .signInRequired) }
  }

  /// `--jwk` and `--jwks`: the public half of a `private_key_jwt` profile's key, with the `kid`
  /// its assertions carry (never a private part: the JWK is built from the public numbers only).
  private func printJWK(_ context: Context) throws {
    let session = try TokenBroker(context: context, options: global, profile: nil)
    guard session.renewal.clientProvesItself, session.resolved.profile.machine?.auth == .privateKeyJWT else {
      throw CLIFailure(
        "profile \(session.name) does not sign with a private key (token_endpoint_auth = \"private_key_jwt\"), "
          + "so it has no public key to register", status: .usage)
    }
    let key = try session.signingKey()
    let document = key.publicJWK.document(keyID: session.assertionKeyID.value(for: key) ?? key.thumbprint)
    let output: JSONValue = jwks ? ["keys": [document]] : document
    Console.writeStdout(String(decoding: output.serialized(pretty: true), as: UTF8.self) + "\n")
  }

  /// "off" (the profile does not ask it), "running (pid N)" or "not running" (no answer).
  private func agentState(_ session: TokenBroker, _ ping: inout AgentMessage??) -> String {
    guard session.asksAgent else { return "off" }
    if ping == nil { ping = .some(AgentClient.ping(session.context.environment)) }
    return (ping ?? nil).map { "running (pid \($0["pid"] ?? "?"))" } ?? "not running"
  }

  private func report(_ session: TokenBroker, tokens: TokenSet?, agent: String, apis: [JSONValue]) -> JSONValue {
    var object: [String: JSONValue] = [
      "profile": .string(session.name), "tenant": .string(session.tenant), "client_id": .string(session.clientID),
      "agent": .string(agent),
      "store": .string(session.resolved.store.rawValue), "configured": .bool(session.resolved.isConfigured),
      "signed_in": .bool(tokens != nil),
    ]
    if !all { object["chosen_by"] = .string(session.resolved.reason.description) }
    guard let tokens else { return .object(object) }
    if !apis.isEmpty { object["apis"] = .array(apis) }
    let now = wallClockSeconds()
    if let expiresAt = tokens.expiresAt {
      object["access_token_expires_at"] = .string(RFC3339.format(expiresAt))
      object["access_token_expires_in"] = .number(Double(expiresAt - now))
    }
    object["refresh_token"] = .bool(tokens.refreshToken != nil)
    object["scope"] = tokens.scope.map { JSONValue.string($0.value) } ?? .null
    // Claims for display only: the ID token was verified when it was received (at sign-in, or
    // at a refresh: an unverified one is never stored).
    if let idToken = tokens.idToken, let claims = try? JWT(compact: idToken.value).claims {
      for key in ["sub", "name", "email"] { if let value = claims[key] { object[key] = value } }
    }
    return .object(object)
  }

  /// A machine profile: how it gets tokens and whether its credentials are at hand (read, never
  /// shown); `ready` stands for "signed in" in the exit code.
  private func machineReport(_ session: TokenBroker, _ report: JSONValue) -> JSONValue {
    guard var object = report.object else { return report }
    let configured = session.resolved.profile.machine?.auth
    var machine: [String: JSONValue] = [
      "grant": "client_credentials",
      "token_endpoint_auth": .string(
        configured?.rawValue ?? "client_secret_basic or client_secret_post (as the tenant lists)"),
    ]
    var problem: String?
    do {
      if configured == .privateKeyJWT {
        machine["private_key_file"] = .string(session.resolved.profile.machine?.privateKeyFile ?? "")
        // The kid the assertions carry: the configured one even when the key is not at hand.
        let named = session.resolved.profile.machine?.privateKeyID
        machine["kid_from"] = named == nil ? "thumbprint" : "private_key_id"
        if let named { machine["kid"] = .string(named) }
        let key = try session.signingKey()
        machine["kid"] = .string(session.assertionKeyID.value(for: key) ?? key.thumbprint)
      } else {
        machine["secret_from"] = .string(session.secretSource.map { "\($0)" } ?? "")
        _ = try session.clientSecret()
      }
    } catch {
      problem = CLIFailure.describe(error)
    }
    machine["ready"] = .bool(problem == nil)
    if let problem { machine["problem"] = .string(problem) }
    // Where the tokens are when not in the kernel's keyring (a container refusing keyctl, the
    // cache turned off): the store named is that place, the note says why.
    let place = MachineTokenStore.Place(environment: session.context.environment)
    if session.resolved.store == .kernel { object["store"] = .string(place.storeName) }
    if let note = place.note { machine["tokens"] = .string(note) }
    object["machine"] = .object(machine)
    return .object(object)
  }

  /// The profile's token files the agent keeps ([profiles.P.sinks.NAME]): where, what, when
  /// last written and whether a token is there now (never the token).
  static func sinkReports(_ profile: Profile) -> [JSONValue] {
    profile.sinks.map { sink in
      var object: [String: JSONValue] = [
        "name": .string(sink.name), "path": .string(sink.path), "api": sink.api.map(JSONValue.string) ?? .null,
        "format": .string(sink.format.rawValue), "mode": .string("0" + String(sink.mode, radix: 8)),
      ]
      if let look = SinkFile.look(sink.path) {
        object["written_at"] = .string(RFC3339.format(look.modified))
        object["holds_token"] = .bool(look.holdsToken)
      } else {
        object["written_at"] = .null
        object["holds_token"] = false
      }
      return .object(object)
    }
  }

  /// A sink's row: "/path (api orders, json, 0640): holds a token, written 12 s ago".
  static func sinkLine(_ sink: JSONValue, now: Int64) -> String {
    let what = [sink["api"]?.string.map { "api \($0)" }, sink["format"]?.string, sink["mode"]?.string]
      .compactMap { $0 }.joined(separator: ", ")
    let state =
      SinkFile.look(sink["path"]?.string ?? "").map { $0.described(now: now) }
      ?? "not written yet (strivacity agent writes it)"
    return "\(sink["path"]?.string ?? "") (\(what)): \(state)"
  }

  /// An API's token as kept: valid for how long, which scopes (nothing when none is kept yet).
  private func apiReport(_ session: TokenBroker, _ api: API) throws -> JSONValue {
    var object: [String: JSONValue] = ["name": .string(api.name), "url": .string(api.url.description)]
    guard let tokens = try session.store.load(session.key(for: api)) else {
      object["token"] = false
      return .object(object)
    }
    object["token"] = true
    if let expiresAt = tokens.expiresAt {
      object["access_token_expires_at"] = .string(RFC3339.format(expiresAt))
      object["access_token_expires_in"] = .number(Double(expiresAt - wallClockSeconds()))
    }
    object["scope"] = tokens.scope.map { JSONValue.string($0.value) } ?? .null
    return .object(object)
  }

  private func table(_ report: JSONValue) -> String {
    var rows: [(String, String)] = [
      ("profile", (report["profile"]?.string ?? "") + (report["chosen_by"]?.string.map { ", \($0)" } ?? "")),
      ("tenant", report["tenant"]?.string ?? ""),
      ("client", report["client_id"]?.string ?? ""), ("store", report["store"]?.string ?? ""),
    ]
    if let agent = report["agent"]?.string, agent != "off" { rows.append(("agent", agent)) }
    if let machine = report["machine"] {
      let auth = machine["token_endpoint_auth"]?.string ?? ""
      let source =
        machine["secret_from"]?.string.map { "secret from \($0)" } ?? "key \(machine["private_key_file"]?.string ?? "")"
      rows.append(("kind", "machine profile: client credentials, \(auth), \(source)"))
      if let kid = machine["kid"]?.string {
        let from = machine["kid_from"] == "private_key_id" ? "private_key_id" : "the key's RFC 7638 thumbprint"
        rows.append(("key id", "\(kid) (\(from))"))
      }
      if let problem = machine["problem"]?.string { rows.append(("credentials", "not usable: \(problem)")) }
      if let note = machine["tokens"]?.string { rows.append(("tokens", note)) }
      if report["signed_in"] != true { rows.append(("access token", "none yet (strivacity token asks for one)")) }
    } else {
      guard report["signed_in"] == true else {
        let name = report["profile"]?.string ?? "default"
        rows.append(("signed in", "no (run `strivacity login\(ProfileName.flag(name))`)"))
        return format(rows + sinkRows(report))
      }
      rows.append(("signed in", "yes"))
      let who = [report["name"]?.string, report["email"]?.string.map { "<\($0)>" }].compactMap { $0 }.joined(
        separator: " ")
      if !who.isEmpty { rows.append(("user", who)) }
      if let sub = report["sub"]?.string { rows.append(("subject", sub)) }
    }
    if let left = report["access_token_expires_in"]?.int {
      rows.append(
        (
          "access token",
          left > 0
            ? "expires in \(Elapsed.describe(seconds: Int64(left)))"
            : "expired \(Elapsed.describe(seconds: Int64(-left))) ago"
        ))
    }
    if report["machine"] == nil { rows.append(("refresh token", report["refresh_token"] == true ? "held" : "none")) }
    if let scope = report["scope"]?.string { rows.append(("scopes", scope)) }
    for api in report["apis"]?.array ?? [] {
      let name = api["name"]?.string ?? ""
      guard api["token"] == true else {
        rows.append(("api " + name, "no token yet (strivacity token --api \(name))"))
        continue
      }
      var text = "token"
      if let left = api["access_token_expires_in"]?.int {
        text += left > 0 ? " expires in \(Elapsed.describe(seconds: Int64(left)))" : " expired"
      }
      if let scope = api["scope"]?.string { text += "; scopes \(scope)" }
      rows.append(("api " + name, text))
    }
    return format(rows + sinkRows(report))
  }

  private func sinkRows(_ report: JSONValue) -> [(String, String)] {
    (report["sinks"]?.array ?? []).map {
      ("sink " + ($0["name"]?.string ?? ""), Self.sinkLine($0, now: wallClockSeconds()))
    }
  }

  /// The table for people: claims and settings come from the tenant and the config file, so
  /// each value is made inert (`TerminalSafe`), whether stdout is a terminal or a pager.
  private func format(_ rows: [(String, String)]) -> String {
    rows.map { $0.0.padding(to: 13) + "  " + TerminalSafe.text($0.1, multiline: false) }.joined(separator: "\n") + "\n"
  }
}

extension String {
  func padding(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

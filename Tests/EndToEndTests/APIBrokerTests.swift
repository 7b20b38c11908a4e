// API tokens everywhere in the broker (issue 27, points 2 and 7): ad hoc targets (`token
// --audience/--resource/--scope`), the agent keeping API tokens per (profile, API), and `revoke`
// revoking every API's access token, against the emulator with the real keyring.
import Foundation
import StrivacityConfig
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite(.serialized) struct APIBrokerTests {
  static let orders = "https://api.example.com/orders"
  static let billing = "https://api.example.com/billing/"

  /// Signed in with the emulator's APIs in the config, so consent covers their resources (and
  /// orders:write too, with `consentingToWrite`, though the API asks for orders:read alone).
  func signedIn(consentingToWrite: Bool = false) throws -> Harness {
    let h = try Harness(journey: "password")
    let apis = APITokenTests.apis.replacingOccurrences(of: "PROFILE", with: h.profile)
    let wider = apis.replacingOccurrences(of: "[\"orders:read\"]", with: "[\"orders:read\", \"orders:write\"]")
    try h.writeProfile("\n" + (consentingToWrite ? wider : apis))
    try h.signIn()
    try h.writeProfile("\n" + apis)
    return h
  }

  func apiRequests(_ h: Harness, _ name: String) throws -> Int {
    try h.stats()["api_token_requests"]?[name]?.int ?? 0
  }

  func claims(_ token: String) throws -> JSONValue { try APITokenTests().claims(token) }

  /// What the small binary did: its status, stdout, stderr without LD_DEBUG's lines, and
  /// whether libsecret was loaded (by the full command line it handed over to).
  struct SmallRun {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// The small binary, with LD_DEBUG to see whether it loaded libsecret.
  func small(_ h: Harness, _ arguments: [String], environment more: [String: String] = [:]) throws -> (
    SmallRun, keyring: Bool
  ) {
    var environment = h.environment.merging(more) { _, new in new }
    environment["LD_DEBUG"] = "files"
    let result = try run(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile] + arguments, environment: environment)
    let loaded = result.stderr.contains("file=libsecret")
    let own = result.stderr.split(separator: "\n").filter { !$0.contains("file=") && !$0.hasPrefix(" ") }
    return (SmallRun(status: result.status, stdout: result.stdout, stderr: own.joined(separator: "\n")), loaded)
  }

  /// `--audience`/`--resource` with `--scope`, no config entry: a token for that target, kept in a
  /// slot of its own and answered from the kernel's cache next time, whatever the options' order.
  @Test func anAdHocTargetIsAskedForOnceAndKept() throws {
    let h = try signedIn()
    let first = try h.strivacity(["token", "--profile", h.profile, "--audience", Self.orders, "--scope", "orders:read"])
    #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
    let firstClaims = try claims(first.stdout)
    #expect(firstClaims["aud"]?.array?.first?.string == Self.orders)
    #expect(firstClaims["scope"] == "orders:read")
    #expect(try apiRequests(h, "orders") == 1)
    // The same target, options in another order, both forms: the small binary answers from the cache.
    for arguments in [
      ["--scope", "orders:read", "--audience", Self.orders], ["--audience=\(Self.orders)", "--scope=orders:read"],
    ] {
      let (again, keyring) = try small(h, arguments)
      #expect(again.status == 0 && again.stdout == first.stdout, "\(arguments): \(again.stderr)")
      #expect(!keyring, "\(arguments): from the kernel's cache")
    }
    // The full command line reads it from its slot in the keyring.
    let full = try run(
      [
        TestEnvironment.binary("strivacity-cli"), "token", "--profile", h.profile, "--audience", Self.orders, "--scope",
        "orders:read",
      ], environment: h.environment)
    #expect(full.stdout == first.stdout, "\(full.stderr)")
    #expect(try apiRequests(h, "orders") == 1)
    // Another target is another slot: a token of its own, for its resource.
    let billing = try h.strivacity([
      "token", "--profile", h.profile, "--resource", Self.billing, "--scope", "billing:read", "--format", "json",
    ])
    #expect(billing.status == 0, "\(billing.stderr)")
    let billingToken = try #require(JSONValue.parse(Array(billing.stdout.utf8))?["access_token"]?.string)
    #expect(try claims(billingToken)["aud"]?.array?.compactMap(\.string).contains(Self.billing) == true)
    #expect(try apiRequests(h, "billing") == 1)
    // A token format like any: kubectl's ExecCredential (no KUBERNETES_EXEC_INFO: v1), both binaries.
    for cache in ["on", "off"] {
      let (exec, _) = try small(
        h, ["--audience", Self.orders, "--scope", "orders:read", "--format", "exec-credential"],
        environment: ["STRIVACITY_TOKEN_CACHE": cache])
      #expect(exec.status == 0, "\(exec.stderr)")
      let credential = try #require(JSONValue.parse(Array(exec.stdout.utf8)), "\(exec.stdout)")
      #expect(credential["kind"] == "ExecCredential")
      #expect(credential["status"]?["token"]?.string.map { $0 + "\n" } == first.stdout, "cache \(cache)")
    }
    #expect(try apiRequests(h, "orders") == 1)
    // The sign-in's own token is untouched, and logout removes every slot.
    #expect(try h.strivacity(["token", "--profile", h.profile, "--refresh"]).status == 0)
    #expect(try h.strivacity(["logout", "--profile", h.profile]).status == 0)
    let search = try run(["/usr/bin/secret-tool", "search", "--all", "profile", h.profile], environment: h.environment)
    #expect(!search.stdout.contains("adhoc.") && !search.stderr.contains("adhoc."), "\(search.stdout)")
    let (after, _) = try small(h, ["--audience", Self.orders, "--scope", "orders:read"])
    #expect(after.status == 3 && after.stdout.isEmpty, "\(after.stderr)")
  }

  /// Values are admitted as an `apis` table's are; an ad hoc target with --api or --for is a
  /// usage error; the tenant's refusal names the parameter.
  @Test func adHocMistakesAreExitTwoAndRefusalsNameTheParameter() throws {
    let h = try signedIn()
    let usage: [([String], String)] = [
      (["--audience", Self.orders, "--api", "orders"], "use them without --api and --for"),
      (["--resource", Self.billing, "--for", "https://api.example.com/billing/x"], "use them without --api and --for"),
      (["--audience", "two words"], "the audience must be"),
      (["--resource", "no-scheme"], "absolute URI"),
      (["--resource", "https://api.example.com/#frag"], "must not have a fragment"),
      (["--audience", Self.orders, "--scope", "a b"], "more than one scope"),
      (["--audience", Self.orders, "--id-token"], "--id-token is the sign-in's"),
      (["--scope", "orders:read"], "--scope needs --api or --for"),
    ]
    for (arguments, expected) in usage {
      let result = try h.strivacity(["token", "--profile", h.profile] + arguments)
      #expect(result.status == 2 && result.stdout.isEmpty, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
    }
    let unknown = try h.strivacity(["token", "--profile", h.profile, "--resource", "https://api.example.com/shipping/"])
    #expect(unknown.status == 3 && unknown.stdout.isEmpty)
    #expect(
      unknown.stderr.hasPrefix(
        "strivacity: error: the tenant refused a token for the ad hoc API "
          + "(resource https://api.example.com/shipping/): invalid_target"), "\(unknown.stderr)")
    #expect(unknown.stderr.split(separator: "\n").count == 1)
  }

  /// With the agent running (and the kernel's cache off), API tokens come from the agent's memory,
  /// configured and ad hoc, through both binaries; a logout elsewhere clears them.
  @Test func theAgentKeepsAPITokensAndForgetsThemAtLogout() throws {
    let h = try signedIn(consentingToWrite: true)
    try h.startAgent()
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let orders = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(orders.status == 0, "\(orders.stderr)")
    #expect(try claims(orders.stdout)["aud"]?.array?.first?.string == Self.orders)
    let adHoc = try h.strivacity(["token", "--profile", h.profile, "--resource", Self.billing])
    #expect(adHoc.status == 0, "\(adHoc.stderr)")
    // The agent holds them: with their keyring items gone behind its back, it still answers
    // (a minute, AgentStore.revalidateAfter); the small binary does not open the keyring.
    let adHocSlot = try #require(try AdHocTarget(audience: nil, resources: [Self.billing], scopes: []).slot.name)
    let ordersSlot = try #require(
      API(
        name: "orders", url: try HostEntry(admitting: "https://api.example.com/orders/"), audience: Self.orders,
        resources: [Self.orders + "/"], scopes: [try Scope(admitting: "orders:read")]
      ).slot.name)
    for slot in [ordersSlot, adHocSlot] {
      #expect(try stored(h, slot: slot))
      let clear = try run(
        ["/usr/bin/secret-tool", "clear", "profile", h.profile, "slot", slot], environment: h.environment)
      let still = try stored(h, slot: slot)
      #expect(clear.status == 0 && !still, "\(slot): \(clear.stderr)")
    }
    for _ in 0..<3 {
      let (again, keyring) = try small(h, ["--api", "orders"])
      #expect(again.status == 0 && again.stdout == orders.stdout, "\(again.stderr)")
      #expect(!keyring, "from the agent")
      let (adHocAgain, _) = try small(h, ["--resource", Self.billing])
      #expect(adHocAgain.stdout == adHoc.stdout, "\(adHocAgain.stderr)")
    }
    // git's get asks it too, for a URL under the API (both binaries; the keyring item is gone).
    let apis = APITokenTests.apis.replacingOccurrences(of: "PROFILE", with: h.profile)
    try h.writeProfile("git_hosts = [\"https://api.example.com/\"]\n\n" + apis)
    let token = orders.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    for binary in ["strivacity", "strivacity-cli"] {
      let get = try run(
        [TestEnvironment.binary(binary), "credential", "get"], environment: h.environment,
        stdin: "protocol=https\nhost=api.example.com\npath=orders/repo.git\n\n")
      #expect(get.status == 0 && get.stdout.contains("password=\(token)\n"), "\(binary): \(get.stderr)")
    }
    // The full command line asks it too (--scope is its form), for a wider token it fetches.
    let wider = try run(
      [
        TestEnvironment.binary("strivacity-cli"), "token", "--profile", h.profile, "--api", "orders", "--scope",
        "orders:write", "--verbose",
      ], environment: h.environment)
    #expect(wider.status == 0 && !wider.stderr.contains("doing without it"), "\(wider.stderr)")
    #expect(try claims(wider.stdout)["scope"] == "orders:read orders:write")
    #expect(try apiRequests(h, "orders") == 2 && apiRequests(h, "billing") == 1)
    // An API the profile does not have: the client's own error, listing the names.
    let nope = try h.strivacity(["token", "--profile", h.profile, "--api", "nope"])
    #expect(nope.status == 2 && nope.stderr.contains("its APIs: orders, billing"), "\(nope.stderr)")
    // A logout in a process that does not ask the agent (it tells it): nothing stale is handed out.
    let logout = try run(
      [TestEnvironment.binary("strivacity"), "logout", "--profile", h.profile, "--local"],
      environment: h.environment.merging(["STRIVACITY_AGENT": "0"]) { _, new in new })
    #expect(logout.status == 0, "\(logout.stderr)")
    for arguments in [["--api", "orders"], ["--resource", Self.billing]] {
      let after = try h.strivacity(["token", "--profile", h.profile] + arguments)
      #expect(after.status == 3 && after.stdout.isEmpty, "\(arguments): \(after.stdout) \(after.stderr)")
    }
  }

  /// Whether the keyring holds the profile's item for `slot`.
  func stored(_ h: Harness, slot: String) throws -> Bool {
    let lookup = try run(
      ["/usr/bin/secret-tool", "lookup", "profile", h.profile, "slot", slot], environment: h.environment)
    return lookup.status == 0 && !lookup.stdout.isEmpty
  }

  /// An agent from before APIs refuses an `api-token` request as unknown (status 2, not final):
  /// both binaries then do the work themselves, and hand out the API's token, never the
  /// sign-in's. A stand-in answers as such an agent does.
  @Test func anAgentFromBeforeAPIsIsDoneWithout() throws {
    let h = try signedIn()
    h.useOwnRuntimeDirectory(strivacityDirectory: true)
    h.extraEnvironment["STRIVACITY_AGENT"] = "1"
    h.extraEnvironment["STRIVACITY_TOKEN_CACHE"] = "off"
    let log = h.home.file("old-agent.log")
    let script = """
      import os, socket, struct, sys
      s = socket.socket(socket.AF_UNIX)
      s.bind(sys.argv[1]); s.listen(16)
      open(sys.argv[2], "a").close()
      while True:
          c, _ = s.accept()
          n = struct.unpack(">I", c.recv(4, socket.MSG_WAITALL))[0]
          body = c.recv(n, socket.MSG_WAITALL).decode()
          op = [l for l in body.split("\\n") if l.startswith("op=")]
          with open(sys.argv[2], "a") as f: f.write((op[0] if op else "op=?") + "\\n")
          reply = b"v=1\\nstatus=2\\nmessage=agent: unknown request\\n"
          c.sendall(struct.pack(">I", len(reply)) + reply); c.close()
      """
    let agent = Process()
    agent.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    agent.arguments = ["-c", script, h.agentSocket, log]
    // Its output is not the test's (an open pipe would keep the test runner's reader waiting).
    agent.standardOutput = FileHandle.nullDevice
    agent.standardError = FileHandle.nullDevice
    try agent.run()
    // SIGKILL: a SIGTERM may be blocked in what it inherited.
    defer { kill(agent.processIdentifier, SIGKILL) }
    waitUntil(timeout: 5, every: 0.05) { FileManager.default.fileExists(atPath: log) }
    for binary in ["strivacity", "strivacity-cli"] {
      for arguments in [["--api", "orders"], ["--audience", Self.orders, "--scope", "orders:read"]] {
        let result = try run(
          [TestEnvironment.binary(binary), "token", "--profile", h.profile] + arguments, environment: h.environment)
        #expect(result.status == 0, "\(binary) \(arguments): \(result.stderr)")
        #expect(try claims(result.stdout)["aud"]?.array?.first?.string == Self.orders, "\(binary) \(arguments)")
      }
    }
    let asked = try String(contentsOfFile: log, encoding: .utf8)
    #expect(asked.contains("op=api-token"), "\(asked)")
    #expect(!asked.contains("op=token"), "an API's request is never the sign-in's op: \(asked)")
  }

  /// `revoke` revokes every API access token (configured and ad hoc) at the revocation endpoint
  /// with token_type_hint=access_token, besides the sign-in's, and deletes them all here.
  @Test func revokeRevokesEveryAPIsAccessToken() throws {
    let h = try signedIn()
    let orders = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    let adHoc = try h.strivacity(["token", "--profile", h.profile, "--resource", Self.billing])
    #expect(orders.status == 0 && adHoc.status == 0, "\(orders.stderr)\(adHoc.stderr)")
    let before = try h.stats()["revocations"]?.int ?? 0
    let revoke = try h.strivacity(["revoke", "--profile", h.profile])
    #expect(revoke.status == 0, "\(revoke.stderr)")
    #expect(
      revoke.stderr
        == "strivacity: \(h.profile): revoked the refresh token, revoked the access token, "
        + "revoked 2 API access tokens, deleted the stored tokens\n")
    #expect(try h.stats()["revocations"]?.int == before + 4)
    // The last request was an API's access token, hinted as one.
    let last = try #require(try h.stats()["last_bodies"]?["revoke"]?.string)
    let form = Dictionary(
      uniqueKeysWithValues: last.split(separator: "&").map {
        let pair = $0.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
        return (pair[0], pair.count > 1 ? pair[1] : "")
      })
    #expect(form["token_type_hint"] == "access_token")
    let apiTokens = [orders.stdout, adHoc.stdout].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    #expect(apiTokens.contains(form["token"] ?? ""), "\(last.prefix(60))")
    // The tenant says they are no longer active, and nothing is left here.
    for token in apiTokens {
      let introspection = try run(
        ["/usr/bin/curl", "-sS", "--data-urlencode", "token@-", h.emulator.issuer + "oauth2/introspect"],
        environment: h.environment, stdin: token)
      #expect(JSONValue.parse(Array(introspection.stdout.utf8))?["active"] == false, "\(introspection.stdout)")
    }
    let search = try run(["/usr/bin/secret-tool", "search", "--all", "profile", h.profile], environment: h.environment)
    #expect(search.stdout.isEmpty && !search.stderr.contains("[/"), "\(search.stdout)")
    let after = try h.strivacity(["token", "--profile", h.profile, "--api", "orders"])
    #expect(after.status == 3, "\(after.stderr)")
  }

  /// `--api` completes the API names of the profile on the command line (else the default one).
  @Test func apiNamesComplete() throws {
    let h = try signedIn()
    // As bash asks for `strivacity token --profile P --api o<TAB>` (word 5, cursor 1 into it).
    let result = try run(
      [
        TestEnvironment.binary("strivacity"), "---completion", "token", "--", "--api", "5", "1", "strivacity", "token",
        "--profile", h.profile, "--api", "o",
      ], environment: h.environment)
    #expect(result.stdout == "orders\n", "\(result.stdout) \(result.stderr)")
    let all = try run(
      [
        TestEnvironment.binary("strivacity"), "---completion", "token", "--", "--api", "4", "0", "strivacity", "token",
        "--profile=\(h.profile)", "--api", "",
      ], environment: h.environment)
    #expect(all.stdout == "orders\nbilling\n", "\(all.stdout) \(all.stderr)")
  }
}

// The token broker against the emulator and the real keyring: every format, refresh (and its
// single flight across processes), every exit path, status, userinfo, logout and revoke.
import CurlTransport
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

@Suite struct BrokerTests {
  @Test func everyFormat() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let stored = try #require(try h.storedSecret()?["tokens"])
    let access = try #require(stored["access_token"]?.string)
    let expiry = RFC3339.format(Int64(try #require(stored["expires_at"]?.int)))
    func token(_ arguments: [String]) throws -> String {
      let result = try h.strivacity(["token", "--profile", h.profile] + arguments)
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stderr.isEmpty, "nothing but data: \(result.stderr)")
      return result.stdout
    }
    #expect(try token([]) == access + "\n")
    #expect(try token(["--format", "header"]) == "Authorization: Bearer \(access)\n")
    let json = try #require(JSONValue.parse(try token(["--format", "json"])))
    #expect(
      json == [
        "access_token": .string(access), "token_type": "Bearer", "expires_at": .string(expiry),
        "scope": "openid profile offline_access", "profile": .string(h.profile),
      ])
    let env = try token(["--format", "env"])
    let evaluated = try run(
      [
        "/bin/sh", "-c", "eval \"$1\"; printf '%s|%s' \"$STRIVACITY_ACCESS_TOKEN\" \"$STRIVACITY_TOKEN_EXPIRES_AT\"",
        "sh", env,
      ], environment: [:])
    #expect(evaluated.stdout == "\(access)|\(expiry)")
    #expect(try token(["--format", "curl"]) == "header = \"Authorization: Bearer \(access)\"\n")
    let credential = try #require(JSONValue.parse(try token(["--format", "exec-credential"])))
    #expect(credential["apiVersion"] == "client.authentication.k8s.io/v1")
    #expect(credential["kind"] == "ExecCredential")
    #expect(credential["status"] == ["token": .string(access), "expirationTimestamp": .string(expiry)])
    #expect(try token(["--id-token"]) == (stored["id_token"]?.string ?? "") + "\n")
    #expect(try h.grants("refresh_token") == 0, "a fresh token needs no refresh")
    // The token really works at the tenant.
    let info = try h.strivacity(["userinfo", "--profile", h.profile])
    #expect(info.status == 0)
    #expect(JSONValue.parse(info.stdout)?["email"] == "demo@example.com")
  }

  @Test func notSignedInIsExitThree() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    let result = try h.strivacity(["token", "--profile", h.profile])
    #expect(result.status == 3)
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr == "strivacity: error: not signed in to \(h.profile): run strivacity login --profile \(h.profile)\n"
    )
    let login = try h.strivacity(["token", "--profile", h.profile, "--login"])
    #expect(login.status == 3, "--login without a terminal cannot sign in")
  }

  @Test func anExpiringTokenIsRefreshedAndTheRotatedSetStored() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let before = try #require(try h.storedSecret()?["tokens"])
    try h.expireStoredAccessToken(in: 30)
    let result = try h.strivacity(["token", "--profile", h.profile])
    #expect(result.status == 0, "\(result.stderr)")
    let after = try #require(try h.storedSecret()?["tokens"])
    #expect(result.stdout == (after["access_token"]?.string ?? "") + "\n")
    #expect(after["access_token"] != before["access_token"])
    #expect(after["refresh_token"] != before["refresh_token"], "rotated")
    #expect(after["refresh_token"]?.string != nil)
    #expect(try h.grants("refresh_token") == 1)
    // An explicit --min-ttl is a promise (a 45-minute job asks for 2700 s): refreshed with 1700
    // s left, which the default margin would not; then fresh enough for it.
    try h.expireStoredAccessToken(in: 1_700)
    let job = try h.strivacity(["token", "--profile", h.profile, "--min-ttl", "2700"])
    #expect(job.status == 0 && job.stderr.isEmpty, "\(job.stderr)")
    #expect(try h.grants("refresh_token") == 2)
    #expect(try h.strivacity(["token", "--profile", h.profile, "--min-ttl", "2700"]).status == 0)
    #expect(try h.grants("refresh_token") == 2)
    // More than the tenant's tokens live: refreshed, printed, and said on stderr.
    let long = try h.strivacity(["token", "--profile", h.profile, "--min-ttl", "7200"])
    #expect(long.status == 0)
    #expect(long.stdout == (try h.storedSecret()?["tokens"]?["access_token"]?.string ?? "-") + "\n")
    #expect(long.stderr.hasPrefix("strivacity: warning: \(h.profile): the access token has 3"), "\(long.stderr)")
    #expect(
      long.stderr.contains(
        "s left, less than the 7200 s asked (--min-ttl, min_ttl): the tenant issues 3600-s tokens\n"), "\(long.stderr)")
    #expect(long.stderr.split(separator: "\n").count == 1)
    #expect(try h.grants("refresh_token") == 3)
  }

  /// `token --refresh`: a new token now, whatever the expiry (roles changed at the tenant);
  /// the small binary hands it to the full command line, which refreshes once.
  @Test func refreshNowWhateverTheExpiry() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let before = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    let result = try h.strivacity(["token", "--profile", h.profile, "--refresh"])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
    let after = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    #expect(after != before && result.stdout == after + "\n")
    #expect(try h.grants("refresh_token") == 1)
    #expect(
      try h.strivacity(["token", "--profile", h.profile]).stdout == after + "\n", "then the new one, from the cache")
    #expect(try h.grants("refresh_token") == 1)
  }

  /// Forced refreshes are single-flight as every refresh: 16 `token --refresh` held at the
  /// refresh lock (all have read the store) make one refresh, and all print its token.
  @Test func forcedRefreshesAtOnceMakeOne() throws {
    let h = try Harness(journey: "password")
    let runtime = h.useOwnRuntimeDirectory(strivacityDirectory: true)
    try h.signIn()
    let lockPath = runtime + "/strivacity/\(h.profile).lock"
    let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
    let outputs = Mutex<[ProcessResult]>([])
    let done = DispatchGroup()
    let callers = 16
    for _ in 0..<callers {
      done.enter()
      Thread.detachNewThread {
        if let result = try? h.strivacity(["token", "--profile", h.profile, "--refresh"]) {
          outputs.withLock { $0.append(result) }
        }
        done.leave()
      }
    }
    // Every caller has read the store and waits at the lock (it has the lock file open).
    waitUntil(timeout: 30) { openers(of: lockPath) >= callers + 1 }
    #expect(openers(of: lockPath) == callers + 1, "all callers at the lock")
    flock(lock, LOCK_UN)
    close(lock)
    done.wait()
    let results = outputs.withLock { $0 }
    #expect(results.count == callers && results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
    #expect(Set(results.map(\.stdout)).count == 1, "one token for all")
    #expect(try h.grants("refresh_token") == 1)
  }

  /// How many open file descriptions of processes of ours name `path` (/proc/PID/fd).
  private func openers(of path: String) -> Int {
    var count = 0
    for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where pid.allSatisfy(\.isNumber) {
      for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) == path { count += 1 }
      }
    }
    return count
  }

  @Test func aRefusedRefreshTokenIsDiscarded() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let refresh = try #require(try h.storedSecret()?["tokens"]?["refresh_token"]?.string)
    try h.revokeAtTheTenant(refresh)
    try h.expireStoredAccessToken(in: 5)
    let result = try h.strivacity(["token", "--profile", h.profile])
    #expect(result.status == 3)
    #expect(
      result.stderr.contains(
        "the tenant refused the refresh token for \(h.profile) (invalid_grant: refresh token has been revoked); it "
          + "was discarded: run strivacity login"
      ))
    #expect(!result.stderr.contains(refresh))
    #expect(try h.storedSecret()?["tokens"]?["refresh_token"] == nil)
    let again = try h.strivacity(["token", "--profile", h.profile])
    #expect(again.status == 3, "no more attempts with a dead token")
    #expect(try h.grants("refresh_token") == 1)
  }

  @Test(arguments: [
    (
      ["endpoint": "token", "kind": "status", "status": 503] as JSONValue,
      "the refresh failed with HTTP 503; stored tokens are unchanged"
    ),
    (["endpoint": "token", "kind": "drop"] as JSONValue, "HTTP failure with http://127.0.0.1:"),
    (
      ["endpoint": "discovery", "kind": "status", "status": 502] as JSONValue, "discovery document failed with HTTP 502"
    ),
  ])
  func networkTroubleLeavesTheStoreAsItWas(_ fault: JSONValue, _ message: String) throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try h.expireStoredAccessToken(in: 5)
    // Discovery is only asked when no endpoints were kept at sign-in.
    if fault["endpoint"] == "discovery" { try h.rewriteStored { $0["endpoints"] = nil } }
    let before = try h.storedSecret()
    try h.control("faults", fault)
    let result = try h.strivacity(["token", "--profile", h.profile])
    #expect(result.status == 4, "\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(try h.storedSecret() == before)
  }

  @Test func aStormOfCallersMakesOneRefresh() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try h.expireStoredAccessToken(in: 5)
    let results = h.tokenStorm(32)
    #expect(results.count == 32)
    #expect(results.allSatisfy { $0.status == 0 }, "\(results.filter { $0.status != 0 }.map(\.stderr))")
    #expect(Set(results.map(\.stdout)).count == 1, "all 32 print the same new token")
    #expect(try h.grants("refresh_token") == 1, "exactly one refresh")
    #expect(results.first?.stdout == (try h.storedSecret()?["tokens"]?["access_token"]?.string ?? "") + "\n")
  }

  @Test func aRefreshKilledMidwayLeavesAUsableSetAndNoStuckLock() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    try h.expireStoredAccessToken(in: 20)
    let before = try h.storedSecret()
    try h.control("faults", ["endpoint": "token", "kind": "delay", "delay": 5])
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile], environment: h.environment)
    usleep(700_000)  // inside the refresh, waiting on the slow tenant, holding the lock
    kill(tty.pid, SIGKILL)
    #expect(try tty.wait() == 128 + SIGKILL)
    #expect(try h.storedSecret() == before, "the old set, whole")
    _ = try CurlHTTPClient().send(HTTPRequest(method: "DELETE", url: h.emulator.issuer + "_emulator/faults"))
    let started = Date()
    let next = try h.strivacity(["token", "--profile", h.profile])
    #expect(next.status == 0, "\(next.stderr)")
    #expect(Date().timeIntervalSince(started) < 10, "the lock died with its holder")
  }

  @Test func statusShowsWhoAndNeverASecret() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let table = try h.strivacity(["status", "--profile", h.profile])
    #expect(table.status == 0)
    #expect(table.stdout.contains("user           Demo User <demo@example.com>"))
    #expect(table.stdout.contains("refresh token  held"))
    let json = try #require(JSONValue.parse(try h.strivacity(["status", "--profile", h.profile, "--json"]).stdout))
    #expect(json["email"] == "demo@example.com")
    #expect(json["signed_in"] == true)
    #expect(json["refresh_token"] == true)
    #expect(json["tenant"] == .string(h.emulator.issuer))
    let stored = try #require(try h.storedSecret()?["tokens"])
    for key in ["access_token", "refresh_token", "id_token"] {
      let secret = try #require(stored[key]?.string)
      #expect(!table.stdout.contains(secret) && !json.text.contains(secret), "\(key) shown")
    }
    let all = try h.strivacity(["status", "--all", "--json"])
    #expect(JSONValue.parse(all.stdout)?.array?.count == 1)
  }

  @Test func logoutRevokesEndsTheSessionAndDeletes() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let access = try #require(try h.storedSecret()?["tokens"]?["access_token"]?.string)
    let result = try h.strivacity(["logout", "--profile", h.profile])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "\(h.profile): revoked the refresh token, revoked the access token, ended the session, deleted the stored "
          + "tokens"
      ))
    #expect(try h.stats()["revocations"]?.int == 2)
    #expect(try h.stats()["logouts"]?.int == 1)
    #expect(try h.storedSecret() == nil)
    let introspection = try CurlHTTPClient().send(
      HTTPRequest(
        method: "POST", url: h.emulator.issuer + "oauth2/introspect", body: Array("token=\(access)".utf8)))
    #expect(JSONValue.parse(introspection.body)?["active"] == false)
    #expect(try h.strivacity(["token", "--profile", h.profile]).status == 3)
  }

  @Test func localLogoutContactsNoServer() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let requests = try h.stats()["requests"]
    let result = try h.strivacity(["logout", "--profile", h.profile, "--local"])
    #expect(result.status == 0)
    #expect(try h.storedSecret() == nil)
    var after = try h.stats()["requests"]?.object ?? [:]
    after["control"] = requests?["control"]
    #expect(JSONValue.object(after) == requests)
  }

  @Test func logoutWithoutTheTenantStillDeletesAndSaysWhatStaysValid() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    h.emulator.stop()
    let result = try h.strivacity(["logout", "--profile", h.profile])
    #expect(result.status == 4)
    #expect(result.stderr.contains("deleted the stored tokens"))
    #expect(
      result.stderr.contains(
        "strivacity: warning: \(h.profile): could not revoke anything at \(h.emulator.issuer) (cannot connect to "
          + "\(h.emulator.issuer.dropLast()): connection refused); those may stay valid until they expire"
      ))
    #expect(try h.storedSecret() == nil)
  }

  @Test func revokeKeepsTheProfile() throws {
    let h = try Harness(journey: "password")
    try h.signIn()
    let result = try h.strivacity(["revoke", "--profile", h.profile])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try h.stats()["revocations"]?.int == 2)
    #expect(try h.stats()["logouts"] == 0)
    #expect(try h.storedSecret() == nil)
    let status = try h.strivacity(["status", "--profile", h.profile])
    #expect(status.status == 3)
    #expect(status.stdout.contains("tenant         \(h.emulator.issuer)"), "the profile's settings remain")
  }

  @Test func tokenLoginSignsInOnTheTerminal() throws {
    let h = try Harness(journey: "password")
    try h.writeProfile()
    let tty = try PTYSession(
      [TestEnvironment.binary("strivacity"), "token", "--profile", h.profile, "--login"], environment: h.environment)
    try tty.typeDemoSignIn()
    #expect(try tty.wait() == 0)
    #expect(
      tty.stdout == (try h.storedSecret()?["tokens"]?["access_token"]?.string ?? "") + "\n", "the token, on stdout only"
    )
  }
}

// The fault matrix: every endpoint the CLI calls × every way an answer can go wrong. Each cell
// must end within the timeouts with a documented exit code, at most one error line, and the
// stored tokens as they should be (unchanged, or nothing stored after a failed sign-in).
import CurlTransport
import Foundation
import StrivacityCore
import StrivacityTestSupport
import Synchronization
import Testing

struct Scenario: Sendable, CustomTestStringConvertible {
  /// The emulator's endpoint that gets the fault.
  var endpoint: String
  /// What the CLI does: login, refresh, userinfo, revoke or logout.
  var command: String
  var testDescription: String { "\(endpoint) (\(command))" }
}

let faults: [(name: String, spec: JSONValue)] = [
  ("5xx", ["kind": "status", "status": 503]),
  ("4xx, no body", ["kind": "empty", "status": 400]),
  ("timeout", ["kind": "delay", "delay": 4]),
  ("slow", ["kind": "delay", "delay": .number(0.4)]),
  ("dropped", ["kind": "drop"]),
  ("malformed JSON", ["kind": "malformed-json"]),
  ("truncated JSON", ["kind": "truncated-json"]),
  ("wrong content type", ["kind": "wrong-content-type"]),
  ("10 MB body", ["kind": "huge"]),
  ("wrong types", ["kind": "wrong-types"]),
  ("unknown fields", ["kind": "unknown-fields"]),
]

let scenarios: [Scenario] = [
  Scenario(endpoint: "discovery", command: "login"), Scenario(endpoint: "jwks", command: "login"),
  Scenario(endpoint: "auth", command: "login"), Scenario(endpoint: "init", command: "login"),
  Scenario(endpoint: "form", command: "login"), Scenario(endpoint: "finalize", command: "login"),
  Scenario(endpoint: "token", command: "login"), Scenario(endpoint: "token", command: "refresh"),
  Scenario(endpoint: "revoke", command: "revoke"), Scenario(endpoint: "logout", command: "logout"),
  Scenario(endpoint: "userinfo", command: "userinfo"),
]

/// Pass counts per scenario, printed as the matrix at the end of the run.
let matrix = Mutex<[String: [String: Bool]]>([:])

@Suite(.serialized) struct FaultMatrixTests {
  @Test(arguments: scenarios) func faultsAt(_ scenario: Scenario) throws {
    let h = try Harness(journey: "password")
    h.extraEnvironment = ["STRIVACITY_TIMEOUT": "1.5", "PW": "Demo-pass-1"]
    for fault in faults {
      var ok = true
      func check(_ condition: Bool, _ what: String) {
        if !condition {
          ok = false
          Issue.record("\(scenario.testDescription) × \(fault.name): \(what)")
        }
      }
      // Set up: signed in (except for login), faults cleared.
      _ = try CurlHTTPClient().send(HTTPRequest(method: "DELETE", url: h.emulator.issuer + "_emulator/faults"))
      // A refresh whose answer was lost may have rotated the token at the tenant anyway: every
      // refresh cell starts from a fresh sign-in, so cells do not inherit each other's damage.
      if scenario.command == "login" {
        _ = try h.strivacity(["logout", "--profile", h.profile, "--local"])
      } else if try scenario.command == "refresh" || h.storedSecret() == nil {
        try h.signIn()
      }
      if scenario.command == "refresh" { try h.expireStoredAccessToken(in: 5) }
      let before = try h.storedSecret()
      var spec = fault.spec.object!
      spec["endpoint"] = .string(scenario.endpoint)
      try h.control("faults", .object(spec))

      let started = Date()
      let result: ProcessResult
      switch scenario.command {
      case "login":
        result = try h.automatedLogin(
          sdk: "web", ["--field", "identifier=demo@example.com", "--field-env", "password=PW"])
      case "refresh": result = try h.strivacity(["token", "--profile", h.profile])
      default: result = try h.strivacity([scenario.command, "--profile", h.profile])
      }
      let elapsed = Date().timeIntervalSince(started)
      let after = try h.storedSecret()

      check(elapsed < 12, "took \(Int(elapsed)) s")
      check([0, 3, 4, 5].contains(result.status), "exit \(result.status)")
      let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("strivacity: error:") }
      check(result.status == 0 ? errors.isEmpty : errors.count <= 1, "error lines: \(result.stderr)")
      check(!result.stderr.contains("Fatal error") && !result.stderr.contains("Backtrac"), "crashed: \(result.stderr)")
      if result.status != 0 && ["revoke", "logout"].contains(scenario.command) == false {
        check(errors.count == 1, "no one-line message: \(result.stderr)")
      }
      switch scenario.command {
      case "login":
        check((after != nil) == (result.status == 0), "stored tokens after exit \(result.status)")
      case "refresh":
        if result.status == 0 {
          check(
            after != before && result.stdout == (after?["tokens"]?["access_token"]?.string ?? "") + "\n",
            "success without the new token")
        } else {
          check(after == before, "the store changed on failure")
          check(result.stdout.isEmpty, "stdout on failure")
        }
      case "userinfo":
        check(after == before, "the store changed")
        if result.status != 0 { check(result.stdout.isEmpty, "stdout on failure") }
      default:  // revoke, logout: tokens are deleted locally whatever the tenant says
        check(after == nil, "tokens left after \(scenario.command)")
        check(result.status == 0 || result.status == 4, "exit \(result.status)")
      }
      matrix.withLock { $0[scenario.testDescription, default: [:]][fault.name] = ok }
    }
    if matrix.withLock({ $0.count }) == scenarios.count { printMatrix() }
  }

  private func printMatrix() {
    let table = matrix.withLock { $0 }
    var lines = [
      "fault matrix (✓ = clean outcome):",
      "  " + "endpoint".padding(toLength: 22, withPad: " ", startingAt: 0)
        + faults.map { String($0.name.prefix(9)).padding(toLength: 10, withPad: " ", startingAt: 0) }.joined(),
    ]
    var passed = 0
    for scenario in scenarios {
      let row = table[scenario.testDescription] ?? [:]
      passed += row.values.filter { $0 }.count
      lines.append(
        "  " + scenario.testDescription.padding(toLength: 22, withPad: " ", startingAt: 0)
          + faults.map { (row[$0.name] == true ? "✓" : "✗").padding(toLength: 10, withPad: " ", startingAt: 0) }
          .joined())
    }
    lines.append("  \(passed) of \(scenarios.count * faults.count) cells clean")
    print(lines.joined(separator: "\n"))
  }
}

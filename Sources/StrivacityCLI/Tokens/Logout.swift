// `strivacity logout` and `strivacity revoke`: end sessions and revoke tokens at the tenant
// (RFC 7009, OIDC RP-initiated logout), and delete them locally whatever the tenant says.
import ArgumentParser
import Broker
import OAuthCore
import StrivacityCore

struct Logout: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Revoke the tokens, end the session at the tenant, and delete them locally.",
    discussion: """
      Revokes the refresh and access tokens (RFC 7009), the access tokens of the profile's \
      APIs among them, when the tenant advertises a revocation endpoint, ends the session at \
      its end_session_endpoint with the ID token as hint, then deletes the stored tokens. \
      With --local only the last step happens. If the tenant cannot be reached, the tokens \
      are still deleted here, strivacity says what was not revoked, and exits 4.
      """)

  @OptionGroup var global: GlobalOptions

  @Flag(help: "Sign out of every profile.")
  var all = false

  @Flag(help: "Only delete the tokens stored here; contact no server.")
  var local = false

  func validate() throws {
    if all && global.profile != nil { throw ValidationError("use either --profile or --all") }
  }

  func run() throws {
    try signOut(global: global, all: all, local: local, endSession: true)
  }
}

struct Revoke: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Revoke the tokens at the tenant and delete them, keeping the profile's settings.",
    discussion: """
      Revokes the refresh token, the access token and the access token of each of the \
      profile's APIs (configured or ad hoc) at the tenant's revocation endpoint (RFC 7009), then \
      deletes them all here (a running agent forgets them too). The session at the tenant is \
      not ended (logout does that). If the tenant cannot be reached, the tokens are still \
      deleted here, strivacity says what was not revoked, and exits 4.
      """)

  @OptionGroup var global: GlobalOptions

  func run() throws {
    try signOut(global: global, all: false, local: false, endSession: false)
  }
}

/// Revokes (unless `local`), ends the session (if `endSession`), deletes; for one or all profiles.
private func signOut(global: GlobalOptions, all: Bool, local: Bool, endSession: Bool) throws {
  let context = global.context()
  let names = all ? (try context.config()?.profiles.map(\.name) ?? []) : [nil]
  var incomplete = false
  var any = false
  for name in names {
    let session = try TokenBroker(context: context, options: global, profile: name)
    guard let report = try session.signOut(local: local, endSession: endSession) else {
      if !all {
        Console.writeStderr(
          "strivacity: \(session.name) \(session.renewal.personSignsIn ? "was not signed in" : "holds no tokens")\n")
      }
      continue
    }
    any = true
    if let problem = report.secretsKept {
      incomplete = true
      Console.warning("\(session.name): the stored secrets could not be deleted: \(problem)")
    }
    let summary = (report.done + [report.deleted.joined(separator: " and ")]).joined(separator: ", ")
    Console.writeStderr("strivacity: \(session.name): \(summary)\n")
    if !report.failed.isEmpty {
      incomplete = true
      let failed = report.failed.joined(separator: "; ")
      Console.warning("\(session.name): could not revoke \(failed); those may stay valid until they expire")
    }
  }
  if all && !any { Console.writeStderr("strivacity: no profile was signed in\n") }
  if incomplete { throw CLIFailure("", status: .transient) }
}

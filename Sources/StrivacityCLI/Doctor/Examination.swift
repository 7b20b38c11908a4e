// `strivacity doctor`'s checks (Doctor.swift prints them): one run, in order, from the config to
// the set-up of each tool that asks strivacity, each with its fix; a group of rows a file. The
// credentials are tried (by the broker: CredentialTry.swift). It never prompts (no keyring unlock
// or access dialog), never shows a secret, and is bounded: the tenant is asked with short
// time-outs, and when it cannot be reached the other network checks, and the credentials' try,
// are skipped.
import Broker
import StrivacityConfig
import StrivacityCore

/// One run of the checks, in order, each adding its row.
final class Examination {
  /// The discovery request's time-outs: connecting, and the whole request. With the certificate
  /// probe of an untrusted certificate (CurlHTTPClient, the connect time-out again), the JWKS
  /// and the keyring's own bound, the whole report stays within 10 s when the tenant is away.
  static let connectTimeout = 3.0
  static let requestTimeout = 4.0
  static let jwksTimeout = 2.0
  static let skewLimit: Int64 = 60

  let context: Context
  let overrides: ProfileOverrides
  let log: Log
  /// What says the tenant is being asked (the command line's spinner).
  let progress: (any ProgressIndicator)?
  var report: DoctorReport

  init(context: Context, overrides: ProfileOverrides, log: Log, progress: (any ProgressIndicator)? = nil) {
    self.context = context
    self.overrides = overrides
    self.log = log
    self.progress = progress
    report = DoctorReport(profile: nil)
  }

  func add(
    _ id: String, _ outcome: DoctorCheck.Outcome, _ detail: String, fix: String = "", status: ExitStatus = .failure
  ) {
    report.add(DoctorCheck(id, outcome, detail, fix: fix, status: status))
  }

  func message(_ error: any Error) -> String { CLIFailure.describe(error) }

  /// `error` as a message and exit status; `status` for an error of no layer of strivacity's.
  func failure(_ error: any Error, else status: ExitStatus) -> CLIFailure {
    CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: status)
  }

  func run() -> DoctorReport {
    guard let session = configAndProfile() else { return report }
    report.profile = DoctorCheck.line(session.name)
    let reached = connection(session)
    let discovery = reached.flatMap { tenant(session, $0.1) }
    jwks(discovery, reached?.0)
    if let (_, response) = reached { clock(response) }
    let inspection = store(session)
    kernelCache(session)
    agent(session)
    sinks(session)
    tokens(session, inspection, discovery)
    integrations(session)
    return report
  }
}

// `strivacity doctor`: one screen of checks, each with its fix, from the config to the set-up of
// each tool that asks strivacity (Examination and its files beside this one), wrapped to the
// terminal's width; or the same as JSON for a support ticket. It never prompts (no keyring unlock
// or access dialog), never prints a secret, and is bounded: the tenant is asked with short
// time-outs, and when it cannot be reached the other network checks (and the credentials' try)
// are skipped.
import ArgumentParser
import Broker
import StrivacityCore
import TerminalUI

struct Doctor: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check the config, the tenant, the keyring, the agent and the set-up, each with its fix.",
    discussion: """
      Checks, in order: the config file and the profile; the CA bundle and the proxy in use (and \
      where each came from); the tenant (DNS, TCP, TLS) by fetching its discovery document; the \
      document's issuer; the JWKS; the clock against the tenant's Date header (a warning past 60 \
      s); the token store (the keyring's provider, whether it is locked, whether the profile's \
      item is there; the file or kernel store); the kernel's access-token cache; the agent; each \
      token file the agent keeps for the profile (sink.NAME: when last written, whether it holds \
      a token); the profile's tokens and each API's (never the tokens themselves); the \
      credentials, tried: a machine profile's client secret or key by one client-credentials \
      request (its token is not kept), a person's refresh token by one refresh (the new tokens \
      are kept, as every refresh keeps them); the set-up of each tool found asking strivacity: git \
      and kubectl (from the profile), Docker and containers (credHelpers), cargo \
      (credential-provider), Terraform and OpenTofu (credentials_helper), Google's clients (the \
      configuration GOOGLE_APPLICATION_CREDENTIALS names), the AWS CLI and SDKs (credential_process \
      in the AWS config): that its config names strivacity, that nothing the tool takes first \
      shadows it (another git helper, a saved login, a TF_TOKEN_… variable, AWS keys), and that \
      each host or registry it sends is under the profile's APIs or places (each API it names is \
      there, with its role for AWS). Nothing is unlocked and no dialog is asked for. When the \
      tenant cannot be reached, the whole report takes at most about 10 s.

      Long rows wrap to the terminal's width (80 columns when not on a terminal). --format json \
      prints the same for a support ticket, each detail whole: no token, password or client \
      secret is ever in it.

      Exits 0 when no check failed (warnings allowed); otherwise with the status of the first \
      failed check: 2 the config, the profile, the CA bundle, the proxy, a machine profile's \
      secret or key not found, or a tool's set-up; 4 the tenant cannot be reached; 5 its discovery document or JWKS \
      is wrong; 6 the token store cannot be used; 7 the keyring is locked; 3 the profile is not \
      signed in, or the tenant refused its refresh token; 9 the tenant refused the machine \
      profile's client secret or key.
      """
  )

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("How to print the report.", valueName: "format"))
  var format: DoctorFormat = .text

  func run() throws {
    let context = global.context()
    let report = Examination(context: context, overrides: global.overrides, log: global.log, progress: Spinner()).run()
    switch format {
    case .json: Console.writeStdout(String(decoding: report.json.serialized(pretty: true), as: UTF8.self) + "\n")
    case .text:
      Console.writeStdout(
        report.text(
          colour: colourWanted(fd: 1, environment: context.environment),
          columns: terminalColumns(fd: 1) ?? DoctorReport.defaultColumns))
    }
    // The report says why; the exit status tells scripts.
    if report.exitStatus != .ok { throw CLIFailure("", status: report.exitStatus) }
  }
}

enum DoctorFormat: String, ExpressibleByArgument, CaseIterable {
  case text, json
}

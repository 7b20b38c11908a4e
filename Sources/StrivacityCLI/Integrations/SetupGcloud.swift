// `strivacity setup gcloud`: a Google credential configuration (GOOGLE_APPLICATION_CREDENTIALS)
// whose subject token is a profile's API token, from `strivacity token --format google-executable`
// (the small binary answers it from the cache). The content is ToolHelpers'
// (`GoogleCredentialConfiguration`, Google/GcloudCredentialFile.swift); here: the profile and
// API checked, the file written 0600 atomically where it was read (ToolConfigFile), and a file
// that is not such a configuration left alone without --force.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct SetupGcloud: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "gcloud",
    abstract: "Write a Google credential configuration whose token comes from strivacity.",
    discussion: """
      Writes FILE (mode 0600, replaced atomically): an "external_account" credential \
      configuration for Google's workload (or workforce) identity federation. Google's client \
      libraries and gcloud run `strivacity token --format google-executable --api NAME --profile \
      PROFILE` (the small strivacity by absolute path) and exchange the API's token at Google's \
      Security Token Service (--token-url) for a Google access token; with \
      --service-account-impersonation-url, for one of that service account. NAME is an API of \
      the profile ([profiles.PROFILE.apis.NAME]) whose audience is one the identity pool \
      provider (--audience) accepts. A machine profile (client credentials) is the usual case \
      in CI. The command never signs in: without a usable token the client gets the response's \
      error, naming the `strivacity login` to run.

      The clients run the command only when GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1. FILE is \
      replaced only when it is such a configuration already (else --force); --undo removes it \
      (only such a configuration).

      EXAMPLES:
        strivacity setup gcloud --api gcp --audience "$WORKLOAD_IDENTITY_PROVIDER" \\
          --output ~/.config/gcloud/strivacity.json
        export GOOGLE_APPLICATION_CREDENTIALS=~/.config/gcloud/strivacity.json
        export GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1
        gcloud storage ls
      """)

  @OptionGroup var global: GlobalOptions

  @Option(
    help: ArgumentHelp(
      "The identity pool provider (//iam.googleapis.com/projects/N/…/providers/ID).",
      valueName: "audience"))
  var audience: String?

  @Option(
    help: ArgumentHelp("The profile's API whose token is the subject token.", valueName: "name"),
    completion: .custom { words, _, prefix in Context().apiNames(words).filter { $0.hasPrefix(prefix) } })
  var api: String?

  @Option(help: ArgumentHelp("The configuration file to write.", valueName: "file"), completion: .file())
  var output: String

  @Option(
    name: .customLong("token-url"),
    help: ArgumentHelp(
      "Google's Security Token Service.", valueName: "url"))
  var tokenURL = GoogleCredentialConfiguration.defaultTokenURL

  @Option(
    name: .customLong("service-account-impersonation-url"),
    help: ArgumentHelp("generateAccessToken of a service account to act as.", valueName: "url"))
  var impersonationURL: String?

  @Flag(help: "Replace FILE even when it is not a configuration strivacity wrote.")
  var force = false

  @OptionGroup var change: SetupChange

  func validate() throws {
    if change.undo { return }
    guard let audience, let api else { throw ValidationError("give --api and --audience (or --undo)") }
    do {
      try GoogleCredentialConfiguration.checkOptions(
        audience: audience, tokenURL: tokenURL, impersonationURL: impersonationURL)
    } catch {
      throw ValidationError(error.description)
    }
    do { _ = try API.admitName(api) } catch { throw ValidationError("--api: \(error.description)") }
  }

  func configuration(binary: String, profile: String) -> GoogleCredentialConfiguration {
    let command = GoogleCredentialConfiguration.command(
      binary: binary, api: api ?? "", profile: profile, config: global.config.map(absolutePath))
    return GoogleCredentialConfiguration(
      audience: audience ?? "", command: command, tokenURL: tokenURL, impersonationURL: impersonationURL)
  }

  func run() throws {
    let file = absolutePath(output)
    let edited = try ToolConfigFile.open(file)
    let ours = edited.bytes.map { GoogleCredentialConfiguration.isOurs(String(decoding: $0, as: UTF8.self)) }
    if change.undo {
      guard ours != false else {
        throw CLIFailure("\(file) is not a credential configuration strivacity wrote: left as it is", status: .usage)
      }
      if ours == true { change.other("remove \(file)") { removeFile(file) } }
      change.note(ours == true ? "\(file) removed" : "\(file) is not there")
      return
    }
    let context = global.context()
    let resolved = try context.configuredProfile(global)
    let profile = resolved.profile
    guard let api, let audience, profile.api(named: api) != nil else {
      throw CLIFailure(
        profile.noAPI(named: api ?? "", adding: " with the audience the identity pool provider accepts"), status: .usage
      )
    }
    let configuration = configuration(binary: Executable.commandPath(), profile: resolved.name)
    do {
      try configuration.check()
    } catch {
      throw CLIFailure(error.description, status: .usage)
    }
    if ours == false, !force {
      throw CLIFailure(
        "\(file) is there and is not a credential configuration strivacity wrote: "
          + "name another file, or replace it with --force", status: .usage)
    }
    try change.write(Array(configuration.json.utf8), to: edited, mode: 0o600)
    change.note(
      "wrote \(file): API \(api) of profile \(resolved.name) for \(audience); use it with "
        + "GOOGLE_APPLICATION_CREDENTIALS=\(file) GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1")
  }
}

// `strivacity setup aws`: make the AWS CLI and SDKs get a role's credentials from strivacity:
// the role (aws_role_arn, aws_session_name) in the API's table of strivacity's config (the API
// added, through RoutedAPI, when missing), and `credential_process = strivacity
// aws-credential-process --api NAME --profile P` in the AWS profile's section of the AWS config
// (AWSConfigFile keeps every other byte; the file opened once, through ToolConfigFile).
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct SetupAWS: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "aws",
    abstract: "Make the AWS CLI and SDKs get a role's credentials from strivacity (or --undo it).",
    discussion: """
      Writes aws_role_arn (and aws_session_name) into [profiles.PROFILE.apis.NAME] of the config \
      (when the profile has no API NAME, adds it with url = "https://sts.amazonaws.com/" and \
      --audience, --scope: the audience is the one the role's identity provider accepts), and \
      credential_process = strivacity aws-credential-process --api NAME --profile PROFILE (the \
      small strivacity by absolute path) into the AWS profile's section of the AWS config \
      ($AWS_CONFIG_FILE, else ~/.aws/config), keeping the rest of the file as it is. The AWS \
      profile is --aws-profile, else the one named as the strivacity profile: [profile PROFILE], \
      [default] for the profile default. A section with another way to credentials (static \
      keys, role_arn, web_identity_token_file, SSO, another credential_process) is left alone, \
      and nothing is written. What the AWS CLI and SDKs take first is said when found: \
      AWS_ACCESS_KEY_ID or AWS_WEB_IDENTITY_TOKEN_FILE in the environment, the profile's keys \
      in the credentials file ($AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials), \
      AWS_PROFILE naming another profile. --undo removes the credential_process line (the section \
      too when nothing else is in it) and the API's aws_role_arn and aws_session_name; the API \
      stays.

      EXAMPLES:
        strivacity setup aws --api aws --audience sts.amazonaws.com \\
          --role-arn arn:aws:iam::123456789012:role/dev --profile work
        aws sts get-caller-identity --profile work
      """)

  @OptionGroup var global: GlobalOptions

  @OptionGroup var routed: RoutedAPI

  @Option(
    name: .customLong("role-arn"),
    help: ArgumentHelp("The role to assume (arn:aws:iam::ACCOUNT:role/NAME).", valueName: "arn"))
  var roleARN: String?

  @Option(
    name: .customLong("session-name"),
    help: ArgumentHelp("Its session name (default: strivacity-PROFILE).", valueName: "name"))
  var sessionName: String?

  @Option(
    name: .customLong("aws-profile"),
    help: ArgumentHelp("The AWS profile (default: the strivacity profile's name).", valueName: "name"))
  var awsProfile: String?

  @OptionGroup var change: SetupChange

  func validate() throws {
    guard routed.api != nil else { throw ValidationError("give --api NAME: the API whose token is exchanged") }
    if change.undo {
      if roleARN != nil || sessionName != nil || routed.audience != nil || !routed.scopes.isEmpty {
        throw ValidationError("--undo takes --api and --aws-profile alone")
      }
    } else {
      guard let roleARN else { throw ValidationError("give --role-arn ARN (or --undo)") }
      do { _ = try AWSRole.admitRoleARN(roleARN) } catch { throw ValidationError("--role-arn: \(error.description)") }
    }
    if let sessionName {
      do { _ = try AWSRole.admitSessionName(sessionName) } catch {
        throw ValidationError("--session-name: \(error.description)")
      }
    }
    if let awsProfile {
      do { _ = try AWSConfigFile.admitProfileName(awsProfile) } catch {
        throw ValidationError("--aws-profile: \(error.description)")
      }
    }
  }

  func run() throws {
    let context = global.context()
    let environment = context.environment
    let home = ToolConfigFile.home(environment)
    let resolved = try context.configuredProfile(global)
    let profile = resolved.profile
    let apiName = routed.api ?? ""
    let awsProfile = try awsProfile ?? AWSConfigFile.admitProfileName(resolved.name)
    let section = AWSConfigFile.header(awsProfile)
    let path = try ToolConfigFile.environmentPath("AWS_CONFIG_FILE", environment) ?? home + "/.aws/config"
    let file = try ToolConfigFile.open(path)
    let bytes = file.bytes ?? []
    let table = ["profiles", resolved.name, "apis", apiName]
    if change.undo {
      let edited = try edit(path) { try AWSConfigFile.removing(bytes, profile: awsProfile, api: apiName) }
      if let edited {
        try change.write(edited, to: file, shown: ["remove credential_process from \(section)"])
      } else if AWSConfigFile.process(bytes, profile: awsProfile) != nil {
        Console.warning("\(section) of \(path) runs another credential_process: left as it is")
      }
      if let role = profile.api(named: apiName)?.aws {
        if role.stsEndpoint == nil {
          try change.remove(context, table: table, keys: ["aws_role_arn", "aws_session_name"])
        } else {
          Console.warning("API \(apiName) keeps aws_role_arn: its aws_sts_endpoint needs one (remove both by hand)")
        }
      }
      change.note(
        edited == nil
          ? "\(section) of \(path) has no credential_process of strivacity's for API \(apiName)"
          : "the AWS CLI and SDKs no longer ask strivacity for \(section) (\(path))")
      return
    }
    let role = roleARN ?? ""
    let command = try edit(path) {
      try AWSConfigFile.command(
        program: Executable.commandPath(), api: apiName, profile: resolved.name,
        config: global.config.map(absolutePath))
    }
    // The AWS config checked (and refused) before strivacity's is written.
    let edited = try edit(path) { try AWSConfigFile.setting(bytes, profile: awsProfile, command: command) }
    var settings: [(key: String, value: ConfigValue)] = [("aws_role_arn", .string(role))]
    if let sessionName { settings.append(("aws_session_name", .string(sessionName))) }
    if let existing = profile.api(named: apiName) {
      if routed.audience != nil || !routed.scopes.isEmpty { throw RoutedAPI.notAdded(existing, profile: profile) }
      if existing.aws?.roleARN != role || (sessionName != nil && existing.aws?.sessionName != sessionName) {
        try change.config(context, table: table, settings)
      }
    } else {
      let sts = try HostEntry(admitting: AWSRole.defaultEndpoint)
      try routed.add(apiName, url: sts, profile: profile, context: context, change: change, settings)
    }
    if edited != bytes { try change.write(edited, to: file, shown: [section, "credential_process = " + command]) }
    change.note(
      "the AWS CLI and SDKs get \(role)'s credentials from strivacity (API \(apiName) of profile \(resolved.name)) "
        + "for \(section) in \(path): try aws sts get-caller-identity"
        + (awsProfile == "default" ? "" : " --profile \(awsProfile)"))
    let credentials =
      try ToolConfigFile.environmentPath("AWS_SHARED_CREDENTIALS_FILE", environment)
      ?? home + "/.aws/credentials"
    let shadows = AWSConfigFile.shadowing(
      environment, profile: awsProfile, credentials: (try? EditedFile.open(credentials))?.bytes,
      credentialsPath: credentials)
    for shadow in shadows { Console.warning(shadow) }
  }

  /// `body`'s result; its refusal said naming the AWS config, nothing written.
  private func edit<T>(_ path: String, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as AdmissionError {
      throw CLIFailure("cannot edit \(path): \(error.description); nothing written", status: .usage)
    }
  }
}

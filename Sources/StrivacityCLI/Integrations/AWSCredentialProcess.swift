import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
// AWS's credential_process: `credential_process = strivacity aws-credential-process --api NAME`
// in ~/.aws/config makes the AWS CLI and every AWS SDK run it for credentials. The small
// `strivacity` answers kept ones itself (HotPath.awsCredentialProcess); this is the rest: the
// API's token exchanged at STS (TokenBroker.awsCredentials). stdout is the protocol's; a failure
// is one line on stderr and a documented non-zero status, nothing on stdout; nobody is asked to
// sign in here.
import ToolHelpers

struct AWSCredentialProcessCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "aws-credential-process",
    abstract: "AWS credential_process: credentials for an API's AWS role.",
    discussion: """
      Named in ~/.aws/config as `credential_process = strivacity aws-credential-process --api \
      NAME`. Exchanges the API's token for temporary credentials of the role its table names \
      (aws_role_arn; aws_session_name and aws_sts_endpoint optional) with STS's \
      AssumeRoleWithWebIdentity (at aws_sts_endpoint, else AWS_ENDPOINT_URL_STS, \
      AWS_ENDPOINT_URL, else https://sts.amazonaws.com/), and prints them as the AWS SDKs read \
      them: {"Version": 1, "AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration"}. \
      They are kept in the kernel's keyring, never in a file, and answered from there until 15 \
      minutes before they expire (for at most 15 minutes, and only while the API's token they \
      were made from is current). It never signs in: without a usable token it fails (exit 3), \
      naming the `strivacity login` to run; an API without aws_role_arn is exit 2, STS's \
      refusal exit 5 (4 when it is transient), in STS's words.
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("The API whose token is exchanged (its table names aws_role_arn).", valueName: "name"))
  var api: String

  func run() throws {
    let prefix = AWSCredentialProcess.messagePrefix
    do {
      let context = global.context()
      context.attended = false  // the SDK waits: a keyring prompt gets the short bound
      let session = try TokenBroker(context: context, overrides: global.overrides, log: global.log)
      let profile = session.resolved.profile
      guard let found = profile.api(named: api) else {
        throw CLIFailure(profile.noAPI(named: api, adding: " with aws_role_arn"), status: .usage)
      }
      guard let role = found.aws else {
        throw CLIFailure(
          "API \(api) has no AWS role: add aws_role_arn = \"arn:aws:iam::ACCOUNT:role/NAME\" to "
            + "[profiles.\(profile.name).apis.\(api)]", status: .usage)
      }
      Console.writeStdout(AWSCredentialProcess.answer(try session.awsCredentials(found, role: role)))
    } catch let refusal as AWSCredentialError {
      Console.error(prefix + refusal.message)
      exitProcess(refusal.status.rawValue)
    } catch {
      Console.error(prefix + CLIFailure.describe(error))
      exitProcess((CLIFailure(recognising: error)?.status ?? .failure).rawValue)
    }
  }
}

// AWS's credential_process in the registry (ToolHelper.swift): `strivacity aws-credential-process
// --api NAME [--profile P]`, answered not with the API's token but with credentials made from it
// at STS (a Derivation: AWSCredentialProcess's request and answer, kept in the kernel's cache).
import StrivacityConfig
import StrivacityCore

public enum AWSHelper: ToolHelper {
  public static let names = HelperNames(
    tool: "aws", subcommand: "aws-credential-process", link: nil, flag: nil,
    messagePrefix: AWSCredentialProcess.messagePrefix)

  public static let help = HelperHelp(
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
      """, takes: .api, words: "The API whose token is exchanged (its table names aws_role_arn).")

  /// The plain forms only (the full command line passes its options as these words too).
  public static func asksForToken(_ words: [String]) -> Bool { AWSCredentialProcess.plainArguments(words[...]) != nil }
  public static var maxInput: Int { 0 }
  public static func setupCommand(host: String) -> String { "strivacity setup aws --api NAME" }

  /// The SDKs read stdout only on success: a failure is the line on stderr and its status.
  public static func reply(_ failure: HelperFailure) -> HelperReply {
    HelperReply(stdout: "", stderr: line(failure), status: failure.status)
  }
}

extension AWSHelper: HelperGet {
  public static var session: HelperSession { .one(stdinLimit: nil) }

  public static func configScope(_ words: [String], _ input: [UInt8], environment: [String: String]) -> HelperConfigNeed
  {
    let profile = AWSCredentialProcess.plainArguments(words[...])?.profile
    return .profile(
      ResolvedProfile.requestedName(overrides: ProfileOverrides(profile: profile), environment: environment))
  }

  /// The API named, its role, and where STS is; nil: the profile does not resolve (the full
  /// command line says why).
  public static func route(_ words: [String], _ input: [UInt8], config: Config?, environment: [String: String])
    -> HelperRoute?
  {
    guard let asked = AWSCredentialProcess.plainArguments(words[...]),
      let resolved = try? ResolvedProfile.resolve(
        config: config, overrides: ProfileOverrides(profile: asked.profile), environment: environment)
    else { return nil }
    let profile = resolved.profile
    guard let api = profile.api(named: asked.api) else {
      return failing(.refused(profile.noAPI(named: asked.api, adding: " with aws_role_arn"), status: .usage))
    }
    guard let role = api.aws else {
      return failing(
        .refused(
          "API \(api.name) has no AWS role: add aws_role_arn = \"arn:aws:iam::ACCOUNT:role/NAME\" to "
            + "[profiles.\(profile.name).apis.\(api.name)]", status: .usage))
    }
    let endpoint: String
    do {
      endpoint = try AWSCredentialProcess.endpoint(role, environment: environment)
    } catch {
      return failing(.refused(error.message, status: error.status))
    }
    let derived = derivation(role, api: api, profile: resolved.name, endpoint: endpoint)
    return .token(TokenAsk(resolved: resolved, api: api, derived: derived) { _ in "" })
  }

  /// The credentials of `role` made from `api`'s token at `endpoint`, kept and answered from
  /// the kernel's cache while they were made from the current token and have more than
  /// AWSCredentialProcess.margin left.
  static func derivation(_ role: AWSRole, api: API, profile: String, endpoint: String) -> Derivation {
    typealias Process = AWSCredentialProcess
    return Derivation(
      cacheKey: { Process.cacheKey($0, api: api, role: role, profile: profile, endpoint: endpoint) },
      cached: { record, token, now in Process.cached(record, token: token, now: now).map(Process.answer) },
      asking: "Asking AWS STS for credentials",
      request: { Process.stsRequest(role: role, token: $0, profile: profile, endpoint: endpoint) },
      made: { response, token, now throws(HelperFailure) in
        let credentials: AWSCredentials
        do throws(AWSCredentialError) {
          credentials = try Process.credentials(response, role: role)
        } catch {
          throw .refused(error.message, status: error.status)
        }
        return Derivation.Made(
          answer: Process.answer(credentials), record: Process.record(credentials, token: token),
          seconds: Process.cacheSeconds(credentials, now: now), note: "AWS STS answered \(credentials)")
      })
  }
}

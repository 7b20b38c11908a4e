// Terraform's (and OpenTofu's) credentials helper in the registry (ToolHelper.swift).
import StrivacityConfig
import StrivacityCore

public enum TerraformHelper: ToolHelper {
  public static let names = HelperNames(
    tool: "terraform", subcommand: "terraform-credential", link: "terraform-credentials-strivacity", flag: nil,
    messagePrefix: TerraformCredentialProtocol.messagePrefix)

  public static let help = HelperHelp(
    abstract: "Terraform/OpenTofu credentials helper: answer get/store/forget HOST.",
    discussion: """
      Installed as terraform-credentials-strivacity. `get HOST` answers {"token": …} with a \
      fresh token of the API whose url covers the whole host (https://HOST/; the first profile's \
      in the config, as for Docker), and {} (exit 0) for any other host: Terraform then goes on \
      without credentials. It never signs in: without a usable token it fails (exit 3), naming \
      the `strivacity login` to run. `store` reads what Terraform sends and refuses it (the \
      tokens are strivacity's: `terraform login` is not needed), `forget` expires the API's \
      cached access token so the next `get` refreshes it. A host with user info, a path or \
      anything but a host name and port is refused (exit 2). Set it up with `strivacity \
      setup terraform HOST`.
      """, takes: .protocolWords, words: "get, store or forget, then the host.",
    verbs: TerraformVerb.allCases.map(\.rawValue))

  public static func asksForToken(_ words: [String]) -> Bool { words.count == 2 && words[0] == "get" }
  public static var maxInput: Int { TerraformCredentialProtocol.maxInput }
  public static func setupCommand(host: String) -> String { "strivacity setup terraform \(host) --api NAME" }

  /// For a host under no API, the protocol's "no credentials here" (`{}`, exit 0: Terraform goes
  /// on without), the line on stderr saying why; any other failure is the line and a non-zero
  /// status, nothing on stdout.
  public static func reply(_ failure: HelperFailure) -> HelperReply {
    if case .noAPI = failure {
      return HelperReply(stdout: TerraformCredentialProtocol.noCredentials, stderr: line(failure), status: .ok)
    }
    return HelperReply(stdout: "", stderr: line(failure), status: failure.status)
  }
}

extension TerraformHelper: HelperGet {
  public static var session: HelperSession { .one(stdinLimit: nil) }

  /// `store` must read all Terraform writes, whatever it answers (the protocol says so).
  public static func input(_ words: [String]) -> HelperInput {
    words.first == TerraformVerb.store.rawValue ? .drained(TerraformCredentialProtocol.maxInput) : .none
  }

  /// The verbs; --help (not one of them) as `strivacity help terraform-credential`.
  public static func step(_ words: [String], _ input: [UInt8], config: () throws -> Config?) throws -> HelperStep {
    if ["--help", "-h"].contains(words.first) { return .help }
    let request: TerraformRequest
    do {
      request = try TerraformCredentialProtocol.request(words)
    } catch {
      return .reply(reply(.refused(error.message, status: error.status)))
    }
    switch request.verb {
    case .store:
      let refusal = TerraformCredentialProtocol.storeRefusal(input)
      return .reply(reply(.refused(refusal.message, status: refusal.status)))
    case .get: return .get
    // `terraform logout`: the next `get` refreshes. Nothing of ours: nothing to drop.
    case .forget: return .forget(rejected: nil, otherwise: nil)
    }
  }

  /// `get HOST`: the first profile's API that covers the whole host. A host of no API is `{}`;
  /// said on stderr too when a profile names the host among its places (its token was meant for
  /// it), and not otherwise: Terraform asks about every host it meets (its public registry too).
  public static func route(_ words: [String], _ input: [UInt8], config: Config?, environment: [String: String])
    -> HelperRoute?
  {
    let request: TerraformRequest
    do {
      request = try TerraformCredentialProtocol.request(words)
    } catch {
      return failing(.refused(error.message, status: error.status))
    }
    let profiles = config?.profilesContextFirst ?? []
    guard let found = TerraformCredentialProtocol.api(for: request, in: profiles) else {
      let meant = profiles.contains { profile in
        if case .token = profile.helperDecision(for: request.url, tenant: profile.tenant ?? "") { return true }
        return false
      }
      guard meant else {
        return .reply(HelperReply(stdout: TerraformCredentialProtocol.noCredentials, stderr: nil, status: .ok))
      }
      return failing(.noAPI(host: request.host, apis: HelperFailure.apiURLs(profiles)))
    }
    guard let config else { return nil }
    return ask(found, config: config, environment: environment) { tokens in
      TerraformCredentialProtocol.answer(tokens.accessToken)
    }
  }
}

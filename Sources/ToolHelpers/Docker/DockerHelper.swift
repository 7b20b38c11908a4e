// Docker's helper in the registry (ToolHelper.swift).
import StrivacityConfig
import StrivacityCore

public enum DockerHelper: ToolHelper {
  public static let names = HelperNames(
    tool: "docker", subcommand: "docker-credential", link: "docker-credential-strivacity", flag: nil,
    messagePrefix: DockerCredentialProtocol.messagePrefix)

  public static func asksForToken(_ words: [String]) -> Bool { words == ["get"] }
  public static var maxInput: Int { DockerCredentialProtocol.maxInput }
  public static func setupCommand(host: String) -> String {
    "strivacity setup docker --registry \(host) --api NAME"
  }

  /// The protocol's failure is a message on stdout and exit 1: for a registry under no API its
  /// "not found" (clients go on without credentials), the line on stderr saying why.
  public static func reply(_ failure: HelperFailure) -> HelperReply {
    let stdout: DockerCredentialError =
      if case .noAPI = failure { .notFound } else {
        DockerCredentialError(TerminalSafe.text(failure.sentence(self), multiline: false))
      }
    return HelperReply(stdout: DockerCredentialProtocol.errorOutput(stdout), stderr: line(failure), status: .failure)
  }
}

extension DockerHelper: HelperGet {
  public static var session: HelperSession { .one(stdinLimit: DockerCredentialProtocol.maxInput + 1) }

  /// The registry's address on stdin; the first profile's API that covers its whole host.
  public static func route(_ words: [String], _ input: [UInt8], config: Config?, environment: [String: String])
    -> HelperRoute?
  {
    let request: (address: String, url: String)
    do {
      request = try DockerCredentialProtocol.serverURL(input)
    } catch {
      return failing(.refused(error.message, status: .failure))
    }
    let profiles = config?.profiles ?? []
    guard let found = API.serving(request.url, in: profiles) else {
      return failing(.noAPI(host: request.address, apis: HelperFailure.apiURLs(profiles)))
    }
    guard let config else { return nil }
    return ask(found, config: config, environment: environment) { tokens in
      DockerCredentialProtocol.answer(address: request.address, api: found.api, token: tokens.accessToken)
    }
  }
}

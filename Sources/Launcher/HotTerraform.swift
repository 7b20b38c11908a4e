// Terraform's `get` (terraform-credentials-strivacity get HOST) in the small binary: for a host
// an API of a profile covers, that API's cached token as {"token":"…"}; for a host of no API,
// `{}` (exit 0: Terraform goes on without credentials), as the full command line answers. A
// refused host, a token due, the agent's trouble or a config with something to say are the full
// command line's (which says them on stderr, non-zero), handed the same arguments.
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerraformCredential

extension HotPath {
  static func terraformGet(_ host: String, _ environment: [String: String]) -> Outcome {
    let paths = Paths(environment: environment)
    guard let config = try? Config.load(paths.config, .whole, read: { readFile($0) }), config.warnings.isEmpty,
      let request = try? TerraformCredentialProtocol.request(["get", host])
    else { return .handOff(stdin: nil) }
    guard let found = TerraformCredentialProtocol.api(for: request, in: config.profiles) else {
      writeStdout(TerraformCredentialProtocol.noCredentials)
      return .answered
    }
    switch apiTokens(
      found, config: config, environment: environment, paths: paths,
      prefix: TerraformCredentialProtocol.messagePrefix, stdin: nil)
    {
    case .tokens(let tokens):
      writeStdout(TerraformCredentialProtocol.answer(tokens.accessToken))
      return .answered
    case .handOff(let outcome): return outcome
    }
  }
}

// Terraform's and OpenTofu's credentials helper: `strivacity terraform-credential get|store|forget
// HOST`, installed as `terraform-credentials-strivacity` (a link to `strivacity` in Terraform's
// plugin directory, ~/.terraform.d/plugins), which `credentials_helper "strivacity" {}` in the
// CLI config makes Terraform run. The small `strivacity` answers a cached `get` (and `{}` for a
// host of no API) itself (HotPath.helper); this is the rest. stdout belongs to the
// protocol; a failure is one line on stderr and a documented non-zero status, nothing on stdout;
// nobody is ever asked to sign in here.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct TerraformCredentialCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "terraform-credential",
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
      """)

  @Argument(
    parsing: .captureForPassthrough, help: "get, store or forget, then the host.",
    completion: .list(TerraformVerb.allCases.map(\.rawValue)))
  var words: [String] = []

  func run() throws {
    // Not one of the protocol's verbs: as `strivacity help terraform-credential`.
    if ["--help", "-h"].contains(words.first) { throw CleanExit.helpRequest(Self.self) }
    do {
      try answer()
    } catch {
      // One line on stderr, nothing on stdout, the refusal's status.
      let refusal = error as? TerraformCredentialError
      let status = refusal?.status ?? CLIFailure(recognising: error)?.status ?? .failure
      let reply = TerraformHelper.reply(.refused(refusal?.message ?? CLIFailure.describe(error), status: status))
      HelperAnswer.write(reply)
      exitProcess(reply.status.rawValue)
    }
  }

  private func answer() throws {
    // `store` must read all Terraform writes, whatever it answers (the protocol says so).
    var input = words.first == TerraformVerb.store.rawValue ? drainStdin() : []
    defer { input.wipe() }
    let request = try TerraformCredentialProtocol.request(words)
    if request.verb == .store { throw TerraformCredentialProtocol.storeRefusal(input) }
    let context = Context(configPath: nil)
    context.attended = false  // Terraform waits: a keyring prompt gets the short bound
    if request.verb == .get {
      // As the small binary answers it (HelperGet.route), with a fresh token, never a sign-in.
      let status = try HelperAnswer.get(TerraformHelper.self, words, input, context: context) ?? .failure
      if status != .ok { exitProcess(status.rawValue) }
      return
    }
    // `forget` (`terraform logout`): the next `get` refreshes. Nothing of ours: nothing to drop.
    _ = try HelperAnswer.forget(TerraformHelper.self, words, input, context: context)
  }

  /// All of stdin: its first `maxInput` + 1 bytes kept, the rest read and dropped (zeroed).
  private func drainStdin() -> [UInt8] {
    // Terraform writes the object and closes stdin; a person who typed the command gets told.
    if isTerminal(0) {
      Console.writeStderr(
        "strivacity: reading a credentials object (Terraform's credentials helper), end it with Ctrl-D\n")
    }
    let limit = TerraformCredentialProtocol.maxInput
    let kept = readStdin(limit: limit + 1)
    guard kept.count > limit else { return kept }
    while true {
      var more = readStdin(limit: limit)
      let ended = more.count <= limit
      more.wipe()
      if ended { break }
    }
    return kept
  }
}

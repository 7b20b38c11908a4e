// `strivacity setup terraform HOST`: make Terraform (and OpenTofu) ask strivacity for a host's
// token: `credentials_helper "strivacity" { args = [] }` in the CLI config (TerraformConfig keeps
// every other byte), and `terraform-credentials-strivacity`, a link to `strivacity`, in the
// plugin directory Terraform looks for helpers in (~/.terraform.d/plugins). The host's token is
// that of the profile's API whose url covers the whole host (the helper's rule, `API.serving`).
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct SetupTerraform: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "terraform",
    abstract: "Make terraform and tofu get a host's token from strivacity (or --undo it).",
    discussion: """
      Writes credentials_helper "strivacity" { args = [] } into Terraform's CLI config \
      ($TF_CLI_CONFIG_FILE, else ~/.terraformrc, and ~/.tofurc when there is one), keeping the \
      rest of the file as it is, and links ~/.terraform.d/plugins/terraform-credentials-strivacity \
      to strivacity. Terraform and OpenTofu then run it for every host they need a token for: \
      HOST gets a fresh token of the profile's API whose url covers the whole host (url = \
      "HOST"; --api NAME, with --audience and --scope, adds one when the profile has none), any \
      other host {}. Terraform runs one credentials helper: a file naming another is left \
      alone. A credentials "HOST" block, a TF_TOKEN_… variable or a token saved by `terraform \
      login` is used before any helper (said when found). --undo removes the block and the link \
      (for every host: the block names none).

      EXAMPLES:
        strivacity setup terraform tfe.example.com --api tfe
        terraform init
      """)

  @OptionGroup var global: GlobalOptions

  @Argument(help: ArgumentHelp("The host Terraform asks for (its registry or TFE host).", valueName: "host"))
  var host: String

  @OptionGroup var routed: RoutedAPI

  @OptionGroup var change: SetupChange

  func validate() throws {
    if change.undo && routed.api != nil { throw ValidationError("--undo leaves the APIs alone: leave out --api") }
    do {
      _ = try TerraformCredentialProtocol.host(admitting: host)
    } catch {
      throw ValidationError(error.message)
    }
  }

  func run() throws {
    let context = global.context()
    let environment = context.environment
    let home = ToolConfigFile.home(environment)
    let (host, url) = try TerraformCredentialProtocol.host(admitting: self.host)
    let files = try Self.files(environment, home: home)
    let link = TerraformSetup.link(home: home)
    if change.undo {
      let edits = try ToolConfigFile.open(files).compactMap { file -> (EditedFile, String)? in
        guard let text = try ToolConfigFile.text(file) else { return nil }
        return try Self.edited(file.path, text, undo: true).map { (file, $0) }
      }
      for (file, text) in edits { try write(text, to: file) }
      if Self.isOurs(link) { change.other("remove \(link)") { removeFile(link) } }
      change.note(
        "terraform and tofu no longer ask strivacity for tokens (for any host): "
          + "credentials_helper removed from \(files.joined(separator: ", ")), \(link) removed if it was ours")
      return
    }
    let resolved = try context.configuredProfile(global)
    // Everything checked before anything is written: no file edited when another is refused.
    var edits: [(EditedFile, String)] = []
    var credentialsBlocks: [String] = []
    for file in try ToolConfigFile.open(files) {
      let text = try ToolConfigFile.text(file) ?? ""
      if TerraformConfig.credentialsHosts(text).contains(where: { $0.lowercased() == host }) {
        credentialsBlocks.append(file.path)
      }
      if let edited = try Self.edited(file.path, text, undo: false), edited != text { edits.append((file, edited)) }
    }
    let program = Executable.commandPath()
    let linking = linkTarget(link) != program
    if linking, case .success = FileStatus.of(link, followingLinks: false), !Self.isOurs(link) {
      throw CLIFailure(
        "\(link) is there and is not a link to strivacity: left as it is; nothing written", status: .usage)
    }
    // The API (--api's added) once the files are known to be editable.
    let api = try api(for: host, url: url, profile: resolved.profile, context: context)
    // The link first: a config naming a helper Terraform cannot find would break its every run.
    if linking {
      try change.other("link \(link) -> \(program)") {
        do throws(FileError) {
          try PrivateFiles.makeDirectories(home + "/.terraform.d/plugins")
        } catch {
          throw CLIFailure("cannot create \(error.description)", status: .failure)
        }
        removeFile(link)
        if let failed = makeSymbolicLink(link, to: program) {
          throw CLIFailure("cannot link \(link) to \(program): \(failed); nothing written", status: .failure)
        }
      }
    }
    for (file, text) in edits { try write(text, to: file) }
    change.note(
      "terraform and tofu ask strivacity for \(host) (API \(api) of profile \(resolved.name)): "
        + "credentials_helper in \(files.joined(separator: ", ")), \(link) -> \(program)")
    // What Terraform uses before any helper, said when it is there for the host.
    let saved = TerraformSetup.savedTokens(home: home)
    for warning in TerraformSetup.earlierTokens(
      host, credentialsBlocks: credentialsBlocks, environment: environment,
      saved: (try? EditedFile.open(saved))?.bytes, savedPath: saved)
    {
      Console.warning(warning)
    }
  }

  /// The API of `profile` whose token the helper hands out for `host`: the one whose url
  /// covers https://HOST/ (--api's, added when missing), and that no earlier profile's API
  /// covers (the helper takes the first).
  private func api(for host: String, url: String, profile: Profile, context: Context) throws -> String {
    let request = TerraformRequest(verb: .get, host: host, url: url)
    if let first = TerraformCredentialProtocol.api(for: request, in: try context.config()?.profiles ?? []),
      first.profile.name != profile.name
    {
      throw CLIFailure(
        "\(host) is under API \(first.api.name) of profile \(first.profile.name), which comes first in "
          + "\(context.paths.config): terraform would get its token; nothing written", status: .usage)
    }
    return try routed.choose(
      try HostEntry(admitting: host), url: url, profile: profile, context: context, change: change, tool: "terraform")
  }

  /// `text` written to `file`, or on --dry-run the block said (the file may hold tokens).
  private func write(_ text: String, to file: EditedFile) throws {
    let block = "credentials_helper \"\(TerraformConfig.helperName)\" { args = [] }"
    try change.write(Array(text.utf8), to: file, shown: [change.undo ? "remove " + block : block])
  }

  /// The CLI config files: $TF_CLI_CONFIG_FILE alone when set (both tools read it), else
  /// ~/.terraformrc, and ~/.tofurc when it is there (OpenTofu reads it instead).
  static func files(_ environment: [String: String], home: String) throws -> [String] {
    if let named = try ToolConfigFile.environmentPath("TF_CLI_CONFIG_FILE", environment) { return [named] }
    var files = [home + "/.terraformrc"]
    if case .success = FileStatus.of(home + "/.tofurc") { files.append(home + "/.tofurc") }
    return files
  }

  /// Whether `path` is a link to a strivacity binary (ours to replace or remove).
  static func isOurs(_ path: String) -> Bool { linkTarget(path).map(ToolConfigFile.namesStrivacity) ?? false }

  /// `text` with strivacity's block set (or, `undo`, removed: nil when it has none), a refusal
  /// said naming the file.
  static func edited(_ path: String, _ text: String, undo: Bool) throws -> String? {
    do {
      return undo ? try TerraformConfig.removingHelper(text) : try TerraformConfig.settingHelper(text)
    } catch {
      throw CLIFailure("cannot edit \(path): \(error.description)", status: .usage)
    }
  }
}

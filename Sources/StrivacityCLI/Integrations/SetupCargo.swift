// `strivacity setup-cargo`: make cargo ask strivacity for a registry's token
// (`[registries.NAME] credential-provider` in $CARGO_HOME/config.toml), keeping every other
// byte of the file (CargoConfig), or --undo it.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct SetupCargo: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "setup-cargo",
    abstract: "Make cargo get a registry's token from strivacity (or --undo it).",
    discussion: """
      Writes `credential-provider = ["/path/to/strivacity"]` (with `--profile PROFILE` when \
      --profile is given) in the [registries.NAME] table of cargo's config, \
      $CARGO_HOME/config.toml (default ~/.cargo/config.toml), keeping the rest of the file as \
      it is. cargo then runs `strivacity --cargo-plugin` for the registry's token: the profile's \
      token, or the token of the API whose url the registry's index URL is under. The registry's \
      index URL must be under the profile's tenant, git_hosts, hosts or an API's url; the \
      registry's own table (its `index`) is cargo's, written by you.

      EXAMPLES:
        strivacity setup-cargo --registry internal
        strivacity setup-cargo --profile work --registry internal --undo
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("The registry's name in cargo's config ([registries.NAME]).", valueName: "name"))
  var registry: String

  @Flag(help: "Remove the credential-provider setup-cargo wrote.")
  var undo = false

  func validate() throws {
    do {
      _ = try CargoConfig.admitRegistry(registry)
    } catch {
      throw ValidationError("--registry: \(error.description)")
    }
  }

  func run() throws {
    let context = global.context()
    let resolved = try context.configuredProfile(global)
    let path = try Self.cargoConfigPath(context.environment)
    let file = try ToolConfigFile.open(path)
    let text = try ToolConfigFile.text(file) ?? ""
    // The profile asked for (--profile, or STRIVACITY_PROFILE) is written down: cargo runs the
    // provider with its own environment, where neither may be.
    let asked = ResolvedProfile.requestedName(
      overrides: ProfileOverrides(profile: global.profile), environment: context.environment)
    let provider = [Executable.commandPath()] + (asked.map { _ in ["--profile", resolved.name] } ?? [])
    let edited: String?
    do {
      edited =
        undo
        ? try CargoConfig.removingProvider(text, registry: registry) { words in
          words.first.map(ToolConfigFile.namesStrivacity) ?? false
        }
        : try CargoConfig.settingProvider(text, registry: registry, provider: provider)
    } catch {
      throw CLIFailure("cannot edit \(path): \(error.description)", status: .usage)
    }
    guard let edited else {
      Console.writeStderr("strivacity: registry \(registry) has no credential-provider of strivacity's in \(path)\n")
      return
    }
    // cargo's config holds no secret of ours: a new one is readable, as cargo makes it.
    if edited != text { try ToolConfigFile.write(Array(edited.utf8), to: file, newMode: 0o644) }
    if undo {
      Console.writeStderr("strivacity: cargo no longer asks strivacity for registry \(registry) (\(path))\n")
      return
    }
    Console.writeStderr(
      "strivacity: cargo asks strivacity (profile \(resolved.name)) for registry \(registry): "
        + "\(CargoConfig.providerLine(provider)) in \(path)\n")
    // The registry's index URL, when the file names it: said plainly if the profile will not serve it.
    guard let index = CargoConfig.index(edited, registry: registry) else {
      Console.note("add the registry's index to [registries.\(registry)] in \(path): index = \"sparse+https://…\"")
      return
    }
    let request = CargoRequest(kind: .get(operation: "read"), indexURL: index)
    if let invocation = try? CargoInvocation(request: request),
      invocation.decision(for: resolved.profile, tenant: resolved.profile.tenant ?? "") == .notOurs
    {
      Console.warning(
        "registry \(registry)'s index (\(HostEntry.shown(index))) is under none of profile \(resolved.name)'s "
          + "places: add it to hosts, or give it an API (strivacity setup-api)")
    }
  }

  /// cargo's own config file: $CARGO_HOME (else ~/.cargo)/config.toml, or the older `config`
  /// when only that one is there (cargo reads it then).
  static func cargoConfigPath(_ environment: [String: String]) throws -> String {
    let home =
      try ToolConfigFile.environmentPath("CARGO_HOME", environment) ?? ToolConfigFile.home(environment) + "/.cargo"
    let current = home + "/config.toml"
    let older = home + "/config"
    // Whether each is there, by stat(2) alone (a FIFO put there is not opened): EditedFile reads.
    if case .failure(let error) = FileStatus.of(current), error.isNoSuchFile, case .success = FileStatus.of(older) {
      return older
    }
    return current
  }
}

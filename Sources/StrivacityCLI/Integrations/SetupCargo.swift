// `strivacity setup cargo`: make cargo ask strivacity for a registry's token
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
    commandName: "cargo",
    abstract: "Make cargo get a registry's token from strivacity (or --undo it).",
    discussion: """
      Writes `credential-provider = ["/path/to/strivacity"]` (with `--profile PROFILE` when \
      --profile is given) in the [registries.NAME] table of cargo's config, \
      $CARGO_HOME/config.toml (default ~/.cargo/config.toml), keeping the rest of the file as \
      it is. cargo then runs `strivacity --cargo-plugin` for the registry's token: the profile's \
      token, or the token of the API whose url the registry's index URL is under. The registry's \
      index URL must be under the profile's tenant, git_hosts, hosts or an API's url: \
      --add-host adds it to the profile's hosts (the profile's token), --api NAME names the API \
      whose token it gets (added with url = the index URL, --audience and --scope when \
      missing). The registry's own table (its `index`) is cargo's, written by you.

      EXAMPLES:
        strivacity setup cargo --registry internal --add-host
        strivacity setup cargo --profile work --registry internal --undo
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("The registry's name in cargo's config ([registries.NAME]).", valueName: "name"))
  var registry: String

  @Flag(name: .customLong("add-host"), help: "Add the registry's index URL to the profile's hosts.")
  var addHost = false

  @OptionGroup var routed: RoutedAPI

  @OptionGroup var change: SetupChange

  func validate() throws {
    if change.undo && (addHost || routed.api != nil) {
      throw ValidationError("--undo leaves the profile's hosts and APIs alone: leave out --add-host and --api")
    }
    if addHost && routed.api != nil { throw ValidationError("use either --add-host or --api") }
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
    // The profile asked for (--profile, or STRIVACITY_PROFILE) is written down.
    let asked = ResolvedProfile.requestedName(
      overrides: ProfileOverrides(profile: global.profile), environment: context.environment)
    let provider = CargoSetup.provider(program: Executable.commandPath(), profile: asked.map { _ in resolved.name })
    let edited: String?
    do {
      edited =
        change.undo
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
    let line = CargoConfig.providerLine(provider)
    if change.undo {
      try write(edited, was: text, to: file, shown: "remove " + line)
      change.note("cargo no longer asks strivacity for registry \(registry) (\(path))")
      return
    }
    // The registry's index URL, when the file names it: said plainly if the profile will not serve it.
    let found = CargoSetup.index(edited, registry: registry, profile: resolved.profile)
    let (index, notOurs) = (found.index, found.unserved)
    // What --add-host or --api adds, checked before anything is written.
    var place: HostEntry?
    if addHost || routed.api != nil {
      guard let url = found.url, let entry = try? HostEntry(admitting: url) else {
        throw CLIFailure(
          "registry \(registry) has no https index in \(path) to add: write index = \"sparse+https://…\" in "
            + "[registries.\(registry)] first; nothing written", status: .usage)
      }
      place = entry
      if routed.api != nil {
        _ = try routed.choose(
          entry, url: url, profile: resolved.profile, context: context, change: change, tool: "cargo",
          wholeHost: false)
      }
    }
    try write(edited, was: text, to: file, shown: line)
    change.note("cargo asks strivacity (profile \(resolved.name)) for registry \(registry): \(line) in \(path)")
    if let place, addHost, notOurs {
      let hosts = (resolved.profile.hosts + [place]).map(\.description)
      try change.config(context, table: ["profiles", resolved.name], [("hosts", .strings(hosts))])
      change.note("\(place) added to profile \(resolved.name)'s hosts (\(context.paths.config))")
    } else if place == nil, let index, notOurs {
      Console.warning(CargoSetup.unserved(registry: registry, index: index, profile: resolved.name))
    } else if index == nil {
      Console.note("add the registry's index to [registries.\(registry)] in \(path): index = \"sparse+https://…\"")
    }
  }

  /// `edited` written over `text` in `file`; on --dry-run only the provider line said (cargo's
  /// config may hold a registry's token). cargo's config holds no secret of ours: a new one is
  /// readable, as cargo makes it.
  private func write(_ edited: String, was text: String, to file: EditedFile, shown: String) throws {
    if edited != text { try change.write(Array(edited.utf8), to: file, shown: [shown], newMode: 0o644) }
  }

  /// cargo's own config file: $CARGO_HOME (else ~/.cargo)/config.toml, or the older `config`
  /// when only that one is there (cargo reads it then).
  static func cargoConfigPath(_ environment: [String: String]) throws -> String {
    let (current, older) = CargoSetup.configPaths(
      cargoHome: try ToolConfigFile.environmentPath("CARGO_HOME", environment), home: ToolConfigFile.home(environment))
    // Whether each is there, by stat(2) alone (a FIFO put there is not opened): EditedFile reads.
    if case .failure(let error) = FileStatus.of(current), error.isNoSuchFile, case .success = FileStatus.of(older) {
      return older
    }
    return current
  }
}

// `strivacity setup docker`: make Docker (and podman and skopeo, through containers'
// auth.json) ask docker-credential-strivacity for a registry: `credHelpers` in their JSON
// configs, everything else in them kept. The registry's token is that of the profile's API whose
// url covers its whole host (the helper's rule, `API.serving`: docker sends one credential to
// every path of a registry); --api NAME adds such an API when there is none.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct SetupDocker: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "docker",
    abstract: "Make docker, podman and skopeo get a registry's token from strivacity (or --undo it).",
    discussion: """
      Writes "credHelpers": {"HOST": "strivacity"} into Docker's config ($DOCKER_CONFIG/config.json, \
      else ~/.docker/config.json) and containers' auth file ($REGISTRY_AUTH_FILE, else \
      $XDG_CONFIG_HOME/containers/auth.json), keeping everything else in them. Docker then runs \
      docker-credential-strivacity, which answers with a fresh token of the profile's API whose \
      url covers the registry's whole host (the user name is the API's username, default \
      oauth2accesstoken); docker sends one credential to every path of a registry, so an API \
      whose url names a path is refused. When no API of the profile covers HOST, --api NAME adds \
      [profiles.PROFILE.apis.NAME] with url = HOST, and --audience and --scope as the \
      registry's token service wants them. HOST may be given as https://HOST too. --undo removes the \
      two credHelpers entries; the API stays.

      EXAMPLES:
        strivacity setup docker --registry registry.example.com --api registry
        docker pull registry.example.com/team/app:1.0
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("The registry (host or host:port, as in image names).", valueName: "host"))
  var registry: String

  @OptionGroup var routed: RoutedAPI

  @OptionGroup var change: SetupChange

  static var helperName: String { DockerConfig.helperName }

  func validate() throws {
    _ = try entry()
    if change.undo && routed.api != nil { throw ValidationError("--undo leaves the APIs alone: leave out --api") }
  }

  /// --registry, as Docker names a registry (DockerSetup).
  private func entry() throws -> HostEntry {
    do {
      return try DockerSetup.admitRegistry(registry)
    } catch {
      throw ValidationError("--registry: \(error.description)")
    }
  }

  func run() throws {
    let context = global.context()
    let resolved = try context.resolveProfile(global)
    guard let profile = try context.config()?.profile(named: resolved.name) else {
      throw ConfigError.profileNotConfigured(
        name: resolved.name, path: context.paths.config, configured: resolved.configuredNames)
    }
    let entry = try entry()
    let host = entry.description
    let files = try Self.files(context.environment)
    if change.undo {
      try write(
        Self.edits(files) { bytes throws(DockerConfig.Refusal) in
          try DockerConfig.removingHelper(bytes, host: host)
        })
      change.note("docker, podman and skopeo no longer ask strivacity for \(host) (\(files.joined(separator: ", ")))")
      return
    }
    // The helper answers with the first profile's API (config order): it must be the one this
    // profile's (covering, or --api's to be added) — checked before anything is written.
    let url = entry.gitURL + "/"
    let wanted = (try? profile.api(for: url))??.name ?? routed.api
    if let first = API.serving(url, in: try context.config()?.profiles ?? []),
      first.profile.name != resolved.name || first.api.name != wanted
    {
      throw CLIFailure(
        "\(host) is under API \(first.api.name) of profile \(first.profile.name), which comes first in "
          + "\(context.paths.config): docker would get its token; nothing written", status: .usage)
    }
    // The files read and edited (or refused) before --api's entry is added.
    let edits = try Self.edits(files) { bytes throws(DockerConfig.Refusal) in
      try DockerConfig.settingHelper(bytes, host: host)
    }
    let apiName = try routed.choose(
      entry, url: url, profile: profile, context: context, change: change, tool: "docker")
    try write(edits)
    change.note(
      "docker, podman and skopeo ask strivacity for \(host) (API \(apiName) of profile \(resolved.name)): "
        + "credHelpers in \(files.joined(separator: ", "))")
    if !isOnPath(DockerSetup.link) { Console.warning(DockerSetup.linkMissing(program: Executable.commandPath())) }
  }

  /// Docker's config and containers' auth file, as their tools find them.
  static func files(_ environment: [String: String]) throws -> [String] {
    let home = ToolConfigFile.home(environment)
    let docker = try ToolConfigFile.environmentPath("DOCKER_CONFIG", environment) ?? home + "/.docker"
    let configHome = try ToolConfigFile.environmentPath("XDG_CONFIG_HOME", environment) ?? home + "/.config"
    let containers =
      try ToolConfigFile.environmentPath("REGISTRY_AUTH_FILE", environment) ?? configHome + "/containers/auth.json"
    return [docker + "/config.json", containers]
  }

  /// Each JSON file at `paths` (missing: an empty object) as `change` makes it (DockerConfig):
  /// the files opened and their new bytes (those the change changes), for `write`. A file that
  /// is refused or is not a JSON object is said, and nothing is written.
  static func edits(_ paths: [String], _ change: ([UInt8]?) throws(DockerConfig.Refusal) -> [UInt8]?) throws
    -> [(EditedFile, [UInt8])]
  {
    try ToolConfigFile.open(paths).compactMap { file -> (EditedFile, [UInt8])? in
      do {
        return try change(file.bytes).map { (file, $0) }
      } catch let refusal as DockerConfig.Refusal {
        throw CLIFailure(refusal.sentence(file.path), status: .failure)
      }
    }
  }

  /// Writes `edits` back atomically, 0600 (the files may hold other registries' passwords); on
  /// --dry-run, says the credHelpers entry alone.
  private func write(_ edits: [(EditedFile, [UInt8])]) throws {
    let host = try entry().description
    let shown = change.undo ? "remove credHelpers.\(host)" : "credHelpers.\(host) = \"\(Self.helperName)\""
    for (file, bytes) in edits { try change.write(bytes, to: file, shown: [shown], mode: 0o600) }
  }
}

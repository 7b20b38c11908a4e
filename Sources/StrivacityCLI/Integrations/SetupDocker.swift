// `strivacity setup-docker`: make Docker (and podman and skopeo, through containers'
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
    commandName: "setup-docker",
    abstract: "Make docker, podman and skopeo get a registry's token from strivacity (or --undo it).",
    discussion: """
      Writes "credHelpers": {"HOST": "strivacity"} into Docker's config ($DOCKER_CONFIG/config.json, \
      else ~/.docker/config.json) and containers' auth file ($REGISTRY_AUTH_FILE, else \
      $XDG_CONFIG_HOME/containers/auth.json), keeping everything else in them. Docker then runs \
      docker-credential-strivacity, which answers with a fresh token of the profile's API whose \
      url covers the registry's whole host (the user name is the API's username, default \
      oauth2accesstoken); docker sends one credential to every path of a registry, so an API \
      whose url names a path is refused. When no API of the profile covers HOST, --api NAME adds \
      [profiles.PROFILE.apis.NAME] with url = HOST (add its audience, resource or scopes as the \
      registry's token service wants). --undo removes the two credHelpers entries; the API stays.

      EXAMPLES:
        strivacity setup-docker --registry registry.example.com --api registry
        docker pull registry.example.com/team/app:1.0
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("The registry (host or host:port, as in image names).", valueName: "host"))
  var registry: String

  @Option(
    help: ArgumentHelp("The profile's API whose token the registry gets (added if missing).", valueName: "name"),
    completion: .custom { words, _, prefix in Context().apiNames(words).filter { $0.hasPrefix(prefix) } })
  var api: String?

  @Flag(help: "Remove the credHelpers entries setup-docker added.")
  var undo = false

  static var helperName: String { DockerConfig.helperName }

  func validate() throws {
    _ = try entry()
    if let api {
      do { _ = try API.admitName(api) } catch { throw ValidationError("--api: \(error.description)") }
    }
    if undo && api != nil { throw ValidationError("--undo leaves the APIs alone: leave out --api") }
  }

  /// --registry, admitted as every host of the config is (HostEntry), and a host: Docker names a
  /// registry by host[:port] alone.
  private func entry() throws -> HostEntry {
    let entry: HostEntry
    do {
      entry = try HostEntry(admitting: registry)
    } catch {
      throw ValidationError("--registry: \(error.description)")
    }
    guard case .host = entry.form else {
      throw ValidationError(
        "--registry: a registry is a host or host:port (as in image names), without a scheme or path")
    }
    return entry
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
    if undo {
      try Self.write(
        Self.edits(files) { bytes throws(DockerConfig.Refusal) in
          try DockerConfig.removingHelper(bytes, host: host)
        })
      Console.note("docker, podman and skopeo no longer ask strivacity for \(host) (\(files.joined(separator: ", ")))")
      return
    }
    // The helper answers with the first profile's API (config order): it must be the one this
    // profile's (covering, or --api's to be added) — checked before anything is written.
    let url = entry.gitURL + "/"
    let wanted = (try? profile.api(for: url))??.name ?? api
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
    let apiName = try chooseAPI(entry, profile: profile, context: context)
    try Self.write(edits)
    Console.note(
      "docker, podman and skopeo ask strivacity for \(host) (API \(apiName) of profile \(resolved.name)): "
        + "credHelpers in \(files.joined(separator: ", "))")
    if !isOnPath("docker-credential-\(Self.helperName)") {
      Console.warning(
        "docker-credential-\(Self.helperName) is not on PATH, so docker cannot run it: link it to strivacity, e.g. "
          + "ln -s '\(Executable.commandPath())' ~/.local/bin/docker-credential-\(Self.helperName)")
    }
  }

  /// The API of `profile` whose url covers the registry: --api's (added with url = HOST when
  /// the profile has no API of that name), else the one that does.
  private func chooseAPI(_ entry: HostEntry, profile: Profile, context: Context) throws -> String {
    let url = entry.gitURL + "/"
    let covering = try? profile.api(for: url)
    switch (covering ?? nil, api) {
    case (let found?, nil):
      return found.name
    case (let found?, let named?):
      guard found.name == named else {
        throw CLIFailure(
          "\(entry) is under API \(found.name) of profile \(profile.name), not \(named): the helper gives "
            + "\(found.name)'s token; leave out --api, or change the APIs' urls", status: .usage)
      }
      return named
    case (nil, let named?):
      if let existing = profile.api(named: named) {
        if !existing.coversWholeHost { throw Self.onlyPart(existing, of: entry, profile: profile) }
        throw CLIFailure(
          "API \(named) of profile \(profile.name) has url \(existing.url), which does not cover \(entry)",
          status: .usage)
      }
      try context.updateConfig(
        table: ["profiles", profile.name, "apis", named], settings: [("url", .string(entry.description))])
      Console.note(
        "API \(named) added to profile \(profile.name): url = \(entry) (\(context.paths.config)); give it the "
          + "audience, resource or scopes the registry's token service wants")
      return named
    case (nil, nil):
      if let partial = profile.apiOnPartOfHost(of: url) { throw Self.onlyPart(partial, of: entry, profile: profile) }
      throw CLIFailure(
        "no API of profile \(profile.name) covers \(entry): name one to add with --api NAME, or add it with "
          + "`strivacity setup-api` or a [profiles.\(profile.name).apis.NAME] section", status: .usage)
    }
  }

  /// The refusal of an API on only a path of the registry's host: Docker sends one credential to
  /// every path of a registry, so the helper never answers with such an API (`API.serving`).
  private static func onlyPart(_ api: API, of entry: HostEntry, profile: Profile) -> CLIFailure {
    CLIFailure(
      "API \(api.name) of profile \(profile.name) covers only \(api.url), and docker sends one credential to "
        + "every path of \(entry): the helper would not answer with it; give an API url = \"\(entry)\" "
        + "(--api NAME adds one)", status: .usage)
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

  /// Writes `edits` back atomically, 0600 (the files may hold other registries' passwords).
  static func write(_ edits: [(EditedFile, [UInt8])]) throws {
    for (file, bytes) in edits { try ToolConfigFile.write(bytes, to: file, mode: 0o600) }
  }
}

// `strivacity use`: the profile by default (gh's `auth switch`), or, with --here, the profile
// for this repository or directory (a `[[contexts]]` rule; Contexts.swift).
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO

struct Use: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Choose the profile used by default, or (--here) in this repository or directory.",
    discussion: """
      Sets default_profile in the config file. With --here, adds a [[contexts]] rule instead, \
      before the others: git_remote with this repository's first remote (host and path) when \
      the directory is in a repository that has one, else directory with this directory; every \
      call made here or below then uses PROFILE, whatever other shells do. --profile and \
      STRIVACITY_PROFILE still come first.
      """)

  @Argument(help: "A profile of the config file.", completion: .custom { _, _, _ in Context().profileNames() })
  var profile: String

  @Flag(help: "Only here: this repository (by its git remote) or this directory.")
  var here = false

  @Option(help: ArgumentHelp("Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).", valueName: "path"))
  var config: String?

  func run() throws {
    let context = Context(configPath: config)
    let names = try context.config()?.profiles.map(\.name) ?? []
    guard names.contains(profile) else {
      throw ConfigError.profileNotConfigured(name: profile, path: context.paths.config, configured: names)
    }
    guard here else {
      try context.editConfig { text, path throws(ConfigError) in
        try ConfigWriter.settingTopLevel(text, key: "default_profile", value: .string(profile), path: path)
      }
      Console.writeStderr(
        "strivacity: profile \(profile) is the default (contexts, --profile and STRIVACITY_PROFILE come first)\n")
      return
    }
    let place = workplace(context.environment)
    let remotes =
      place.directory.map { Contexts.repositoryRemotes(from: $0, read: { readFile($0, regularOnly: true) }) } ?? []
    guard let rule = Contexts.ruleHere(place, remotes: remotes) else {
      throw CLIFailure("cannot name this directory; run `strivacity use --here` from another", status: .failure)
    }
    try context.editConfig { text, path throws(ConfigError) in
      try ConfigWriter.addingContext(text, match: rule, profile: profile, path: path)
    }
    Console.writeStderr("strivacity: profile \(profile) here: [[contexts]] \(rule.key) = \"\(rule.value)\"\n")
  }
}

// `strivacity setup git`: configure git to ask strivacity for a host's credentials, next to
// whatever other helpers the user has, and remember the host on the profile (what is written:
// GitConfigEntry).
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct SetupGit: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "git",
    abstract: "Make git use strivacity for a host's credentials (or --undo it).")

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("The git host (host, host:port, or an https:// URL prefix).", valueName: "host"))
  var host: String

  @Flag(name: .customLong("global"), help: "Write the user's git config (default).")
  var globalScope = false

  @Flag(help: "Write this repository's git config.")
  var local = false

  @OptionGroup var change: SetupChange

  func validate() throws {
    if globalScope && local { throw ValidationError("use either --global or --local") }
    _ = try entry()
  }

  /// --host, admitted as every host entry of the config is (HostEntry): no user info, query or
  /// fragment; plain http only on loopback.
  private func entry() throws -> HostEntry {
    do {
      return try HostEntry(admitting: host)
    } catch {
      throw ValidationError("--host: \(error.description)")
    }
  }

  func run() throws {
    let context = global.context()
    let resolved = try context.resolveProfile(global)
    let configured = try context.config()?.profile(named: resolved.name)
    guard configured != nil else {
      throw ConfigError.profileNotConfigured(
        name: resolved.name, path: context.paths.config, configured: resolved.configuredNames)
    }
    // Before anything is written: --local means this directory's repository.
    if local, (try? runProgram(["git", "rev-parse", "--git-dir"], quiet: true))?.status != 0 {
      throw CLIFailure(
        "--local needs a git repository: run it inside one, or leave it out for your global git config", status: .usage)
    }
    let entry = try entry()
    var hosts = configured?.gitHosts ?? []
    if change.undo { hosts.removeAll { $0 == entry } } else if !hosts.contains(entry) { hosts.append(entry) }
    if hosts != configured?.gitHosts ?? [] {
      try change.config(
        context, table: ["profiles", resolved.name], [("git_hosts", .strings(hosts.map(\.description)))])
    }

    let written = GitConfigEntry(entry, given: host)
    let (url, key, pathKey, needsPath) = (written.url, written.helperKey, written.pathKey, written.needsPath)
    let helper = GitConfigEntry.helper(
      linkOnPath: isOnPath("git-credential-strivacity"), program: Executable.commandPath())
    let scope = local ? "--local" : "--global"
    let existing = try git(["config", scope, "--get-all", key]).output.split(separator: "\n").map(String.init)
    if change.undo {
      if existing.contains(helper) {
        try change.run("git", ["config", scope, "--fixed-value", "--unset-all", key, helper]) { try git($0) }
      }
      if needsPath { try change.run("git", ["config", scope, "--unset-all", pathKey]) { try git($0) } }
      change.note("git no longer asks strivacity for \(url)")
    } else {
      if !existing.contains(helper) { try change.run("git", ["config", scope, "--add", key, helper]) { try git($0) } }
      if needsPath { try change.run("git", ["config", scope, pathKey, "true"]) { try git($0) } }
      change.note("git asks strivacity (profile \(resolved.name)) for \(url): \(key) = \(helper)")
    }
  }

  @discardableResult private func git(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let result = try runProgram(["git"] + arguments)
    if result.status != 0 && !(result.status == 1 || result.status == 5) {
      throw CLIFailure(
        "git \(arguments.prefix(3).joined(separator: " ")) failed (exit \(result.status))", status: .failure)
    }
    return result
  }
}

// doctor's first rows: the config file parses, and the profile in use resolves.
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO

extension Examination {
  // MARK: 1. the config and the profile

  func configAndProfile() -> TokenBroker? {
    let path = context.paths.config
    let config: Config?
    do {
      config = try context.config(warn: false)
    } catch {
      // Another profile's mistake: the one in use still parses (as `token` reads it), and is examined.
      let requested = ResolvedProfile.requestedName(overrides: overrides, environment: context.environment)
      let narrowed = try? context.config(onlyProfile: requested, warn: false)
      let inUse = requested ?? narrowed?.chosenProfile ?? "default"
      guard let other = error.profileTable, other != inUse, narrowed != nil else {
        add("config", .fail, message(error), fix: "correct \(path) where the message says", status: .usage)
        return nil
      }
      add(
        "config", .fail, message(error),
        fix: "correct [profiles.\(other)] in \(path); the profile in use, '\(inUse)', parses, but commands that "
          + "read every profile (status --all, setup) fail until then", status: .usage)
      return profile(in: narrowed, path: path)
    }
    guard let config else {
      add(
        "config", .fail, "no config file at \(path)",
        fix: "create one: strivacity login --profile NAME --tenant URL --client-id ID", status: .usage)
      return nil
    }
    let warnings = config.warnings.count
    add(
      "config", warnings == 0 ? .pass : .warn,
      "\(path) parses (\(config.profiles.count) profile\(config.profiles.count == 1 ? "" : "s"))"
        + (warnings == 0 ? "" : "; \(warnings) warning\(warnings == 1 ? "" : "s"): \(config.warnings[0].description)"),
      fix: warnings == 0 ? "" : "correct \(path) as the warning says")
    return profile(in: config, path: path)
  }

  func profile(in config: Config?, path: String) -> TokenBroker? {
    do {
      let session = try TokenBroker(context: context, overrides: overrides, log: log)
      let kind =
        switch session.renewal {
        case .refreshToken: "signs in"
        case .clientCredentials: "machine profile (client credentials)"
        }
      add(
        "profile", .pass,
        "\(session.name)\(session.resolved.reason == .flag ? "" : " (\(session.resolved.reason))"): "
          + "\(session.tenant), client \(session.clientID), \(kind)")
      if let choice = config?.choose(
        at: workplace(context.environment), everyMatch: true, read: { readFile($0, regularOnly: true) }),
        !choice.alsoMatching.isEmpty
      {
        add(
          "contexts", .warn, ContextChoice.overlap(choice),
          fix: "remove or narrow one of the rules in \(path) (the first that matches wins)")
      }
      return session
    } catch {
      let name = ResolvedProfile.requestedName(overrides: overrides, environment: context.environment)
      add(
        "profile", .fail, message(error),
        fix:
          "add [profiles.\(name ?? config?.chosenProfile ?? "default")] to \(path), or choose another with --profile",
        status: .usage)
      return nil
    }
  }
}

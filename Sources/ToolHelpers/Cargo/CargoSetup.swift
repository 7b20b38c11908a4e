// What `strivacity setup cargo` writes besides the provider line (CargoConfig), and what it says
// after, as values: the provider's words, cargo's config file, and whether the profile serves the
// registry's index.
import StrivacityConfig
import StrivacityCore

public enum CargoSetup {
  /// The provider's words: strivacity by absolute path, and `--profile NAME` when a profile was
  /// asked for (cargo runs the provider with its own environment, where neither may be).
  public static func provider(program: String, profile: String?) -> [String] {
    [program] + (profile.map { ["--profile", $0] } ?? [])
  }

  /// cargo's own config: `cargoHome` (else ~/.cargo)/config.toml, or the older `config` (cargo
  /// reads it when only it is there).
  public static func configPaths(cargoHome: String?, home: String) -> (current: String, older: String) {
    let base = cargoHome ?? home + "/.cargo"
    return (base + "/config.toml", base + "/config")
  }

  /// The registry's index in cargo's config `text`, as `profile` sees it.
  public struct Index: Sendable, Equatable {
    /// The index as written; nil when the registry's table has none.
    public var index: String?
    /// Its https URL (what --add-host and --api add); nil when it has none.
    public var url: String?
    /// Whether it is under none of the profile's places.
    public var unserved: Bool
  }

  public static func index(_ text: String, registry: String, profile: Profile) -> Index {
    let index = CargoConfig.index(text, registry: registry)
    let invocation = index.flatMap {
      try? CargoInvocation(request: CargoRequest(kind: .get(operation: "read"), indexURL: $0))
    }
    let unserved = invocation?.decision(for: profile, tenant: profile.tenant ?? "") == .notOurs
    return Index(index: index, url: invocation?.registryURL, unserved: unserved)
  }

  /// What is said of a registry whose index the profile does not serve.
  public static func unserved(registry: String, index: String, profile: String) -> String {
    "registry \(registry)'s index (\(HostEntry.shown(index))) is under none of profile \(profile)'s "
      + "places: add it to hosts (--add-host), or give it an API (--api NAME)"
  }
}

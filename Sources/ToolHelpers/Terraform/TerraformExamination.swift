// What `strivacity doctor` reads of Terraform's (and OpenTofu's) set-up, as pure functions: which
// credentials helper a CLI config names, and what Terraform uses before asking any helper for a
// host: a `credentials "HOST"` block (in the CLI config, or in credentials.tfrc.json, where
// `terraform login` saves tokens) and a TF_TOKEN_… variable.
import StrivacityConfig
import StrivacityCore

public enum TerraformExamination {
  /// What a CLI config says of credentials helpers.
  public enum Helper: Sendable, Equatable {
    case none
    case ours
    /// Another helper's block (Terraform runs one).
    case other(String)
    /// A file the scan cannot place blocks in (JSON syntax, unbalanced): nothing is known.
    case unreadable
  }

  /// The credentials helper the CLI config `text` names.
  public static func helper(_ text: String) -> Helper {
    do {
      if try TerraformConfig.removingHelper(text) != nil { return .ours }
      _ = try TerraformConfig.settingHelper(text)
      return .none
    } catch .otherHelper(let name) {
      return .other(name)
    } catch {
      return .unreadable
    }
  }

  /// The hosts (host or host:port) Terraform gets `profile`'s tokens for: those of its APIs that
  /// cover a whole host and that no earlier profile's API serves (`API.serving`).
  public static func hosts(of profile: Profile, in profiles: [Profile]) -> [String] {
    profile.apis.filter(\.coversWholeHost).compactMap { api in
      let url = api.url.gitURL
      guard let parts = URLParts(url), let served = API.serving(url + "/", in: profiles),
        served.profile.name == profile.name, served.api.name == api.name
      else { return nil }
      return parts.host + (parts.port.map { ":\($0)" } ?? "")
    }
  }

  /// The hosts (lowercased) a credentials.tfrc.json holds tokens for; nothing for bytes that
  /// are not its JSON.
  public static func savedHosts(_ bytes: [UInt8]) -> [String] {
    guard let hosts = JSONValue.parse(bytes)?["credentials"]?.object else { return [] }
    return hosts.keys.map { $0.lowercased() }.sorted()
  }

  /// The TF_TOKEN_… variables of `environment` that give `host` a token, as Terraform reads
  /// their names: after the prefix, `__` is a dash and `_` a dot, compared without case.
  public static func tokenVariables(for host: String, in environment: [String: String]) -> [String] {
    let prefix = "TF_TOKEN_"
    return environment.keys.filter { name in
      guard name.hasPrefix(prefix), environment[name]?.isEmpty == false else { return false }
      let named = String(name.dropFirst(prefix.count)).replacing("__", with: "-").replacing("_", with: ".")
      return named.lowercased() == host.lowercased()
    }.sorted()
  }
}

// What `strivacity setup docker` admits and says besides the credHelpers entry (DockerConfig), as
// values: a registry as Docker names it, and the helper's link when it is not on PATH.
import StrivacityCore

public enum DockerSetup {
  /// A registry as every host of the config is admitted (HostEntry), and a host: Docker names a
  /// registry by host[:port] alone (https://HOST is taken as HOST).
  public static func admitRegistry(_ text: String) throws(AdmissionError) -> HostEntry {
    let entry = try HostEntry(admitting: text)
    if case .prefix(let origin, let path) = entry.form, path.isEmpty {
      return try HostEntry(admitting: String(origin.description.split(separator: "://")[1]))
    }
    guard case .host = entry.form else {
      throw AdmissionError("a registry is a host or host:port (as in image names; https://HOST too), without a path")
    }
    return entry
  }

  /// The helper's link, which docker runs.
  public static var link: String { "docker-credential-\(DockerConfig.helperName)" }

  /// What is said when the link is not on PATH: how to make it, to `program`.
  public static func linkMissing(program: String) -> String {
    "\(link) is not on PATH, so docker cannot run it: link it to strivacity, e.g. "
      + "ln -s '\(program)' ~/.local/bin/\(link)"
  }
}

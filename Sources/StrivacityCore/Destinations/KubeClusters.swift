// Which Kubernetes API servers a profile's token is for: the profile's `kube_clusters`, checked
// against the server kubectl names in KUBERNETES_EXEC_INFO (spec.cluster.server, sent when the
// kubeconfig user has provideClusterInfo: true). One decision (`ExecCredentialInfo.decision`),
// taken by the small binary and the full command line alike.

/// An API server URL as `kube_clusters` lists it and kubectl names it: admitted as every host
/// entry is (`HostEntry`: https, or http only on loopback; a plain host[:port]; no user info,
/// query, fragment, encoded dot, slash or backslash), and written as a URL. Two are the same
/// server when scheme, host (lowercased), port (defaulted by scheme) and path segments (dot
/// segments resolved, trailing slashes aside, case kept) are equal: exactly that server, not a
/// prefix.
public struct KubeServer: Sendable, Hashable, CustomStringConvertible {
  public let origin: Origin
  public let path: [String]

  public init(admitting text: String) throws(AdmissionError) {
    guard text.contains("://") else {
      throw AdmissionError("'\(Self.shown(text))' is not an API server URL (https://host[:port][/path])")
    }
    let entry: HostEntry
    do {
      entry = try HostEntry(admitting: text)
    } catch {
      throw AdmissionError("\(error.description) (an API server is https://host[:port][/path])")
    }
    guard case .prefix(let origin, let path) = entry.form else {
      throw AdmissionError("'\(Self.shown(text))' is not an API server URL (https://host[:port][/path])")
    }
    self.origin = origin
    self.path = path
  }

  /// `https://host[:port][/path]`, the port written only when it is not the scheme's default;
  /// reads back as the same server.
  public var description: String { origin.description + (path.isEmpty ? "" : URLPath.text(of: path)) }

  /// `text` for a message, as host entries are shown (user info hidden, cut short, inert).
  static func shown(_ text: String) -> String { HostEntry.shown(text) }
}

/// Whether kubectl gets the profile's token, as `ExecCredentialInfo.decision` takes it.
public enum KubeClusterDecision: Sendable, Equatable {
  case allow
  /// Not for this call: the one-line message (exit 2, as `strivacity curl` for a host it may
  /// not send the token to).
  case refuse(String)
}

extension ExecCredentialInfo {
  /// Whether the token of `profile` (whose `kube_clusters` are `listed`) may be answered to
  /// this kubectl call (`token --format exec-credential`). The one rule, for both binaries:
  ///
  /// - kubectl names the API server (spec.cluster.server): a token only when it is among
  ///   `listed`; with none listed, none (kubectl said where the token goes, and nothing
  ///   allows it there).
  /// - KUBERNETES_EXEC_INFO without spec.cluster (a kubeconfig user written with
  ///   provideClusterInfo: false): a token when `listed` is empty (as before kube_clusters
  ///   existed); refused when it is not, since the server cannot be checked.
  /// - No KUBERNETES_EXEC_INFO (a person running the command, or a kubectl before 1.20): a
  ///   token, as for `strivacity token`: it goes to whoever runs it.
  public func decision(clusters listed: [KubeServer], profile: String) -> KubeClusterDecision {
    guard fromKubectl else { return .allow }
    let advice = "strivacity setup kubectl --profile \(profile) --context CONTEXT"
    guard let server else {
      if listed.isEmpty { return .allow }
      return .refuse(
        "refusing the token to kubectl: it does not say which API server it is for (the kubeconfig user has "
          + "provideClusterInfo: false), "
          + "and profile \(profile) is only for its kube_clusters; run \(advice) again for the context")
    }
    let wanted: KubeServer
    do {
      wanted = try KubeServer(admitting: server)
    } catch {
      return .refuse("refusing the token to kubectl: its API server \(error.description)")
    }
    if listed.contains(wanted) { return .allow }
    if listed.isEmpty {
      return .refuse(
        "refusing the token to kubectl for \(wanted): profile \(profile) lists no kube_clusters; to allow the "
          + "context's API server: \(advice)"
      )
    }
    return .refuse(
      "refusing the token to kubectl for \(wanted): profile \(profile) allows only its kube_clusters ("
        + listed.map(\.description).joined(separator: ", ") + "); to allow the context's API server: \(advice)")
  }
}

// Which Kubernetes API servers a profile's token is for: the profile's `kube_clusters`, checked
// against the server kubectl names in KUBERNETES_EXEC_INFO (spec.cluster.server, sent when the
// kubeconfig user has provideClusterInfo: true). One decision (`ExecCredentialInfo.decision`),
// taken by the small binary and the full command line alike.

/// An API server URL as `kube_clusters` lists it and kubectl names it: https (http only on
/// loopback), a plain host[:port], a path, and nothing else — no user info, query or fragment.
/// Two are the same server when scheme, host (lowercased), port (defaulted by scheme) and path
/// (trailing slashes dropped; case kept) are equal.
public struct KubeServer: Sendable, Hashable, CustomStringConvertible {
  public let origin: Origin
  /// The path without its trailing slashes: "" for none (or "/").
  public let path: String

  public init(admitting text: String) throws(AdmissionError) {
    // Printable ASCII only: shown in messages and compared as written (no backslash, which some
    // URL readers take for a slash).
    guard !text.isEmpty, text.utf8.count <= 2048, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else {
      throw AdmissionError("'\(Self.shown(text))' is not an API server URL (spaces, backslashes, control or non-ASCII characters)")
    }
    guard let parts = URLParts(text), let schemeEnd = text.firstRange(of: "://") else {
      throw AdmissionError("'\(Self.shown(text))' is not an API server URL (https://host[:port][/path])")
    }
    let rest = text[schemeEnd.upperBound...]
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    if authority.contains("@") { throw AdmissionError("'\(Self.shown(text))' has user info (an API server is https://host[:port][/path])") }
    if text.contains("?") { throw AdmissionError("'\(Self.shown(text))' has a query (an API server is https://host[:port][/path])") }
    if text.contains("#") { throw AdmissionError("'\(Self.shown(text))' has a fragment (an API server is https://host[:port][/path])") }
    guard URLPolicy.hostOfAuthority(authority) != nil else {
      throw AdmissionError("'\(Self.shown(text))' is not an API server URL (https://host[:port][/path])")
    }
    guard parts.scheme == "https" || (parts.scheme == "http" && parts.isLoopback) else {
      throw AdmissionError("'\(Self.shown(text))' is not https (plain http only to a loopback address)")
    }
    var path = Substring(parts.pathAndQuery)
    while path.hasSuffix("/") { path = path.dropLast() }
    origin = parts.origin
    self.path = String(path)
  }

  /// `https://host[:port][/path]`, the port written only when it is not the scheme's default.
  public var description: String { origin.description + path }

  /// `text` for a message: made inert and cut short (it may be anyone's).
  static func shown(_ text: String) -> String {
    TerminalSafe.text(text.count > 100 ? String(text.prefix(100)) + "…" : text, multiline: false)
  }
}

/// Whether kubectl gets the profile's token, as `ExecCredentialInfo.decision` takes it.
public enum KubeClusterDecision: Sendable, Equatable {
  case allow
  /// Not for this call: the one-line message (exit 2, as `strivacity curl` for a host it may
  /// not send the token to).
  case refuse(String)
}

extension ExecCredentialInfo {
  /// Whether the token of `profile` (whose `kube_clusters` are `clusters`) may be answered to
  /// this kubectl call (`token --format exec-credential`). The one rule, for both binaries:
  ///
  /// - kubectl names the API server (spec.cluster.server): a token only when it is among
  ///   `clusters`; with none listed, none (kubectl said where the token goes, and nothing
  ///   allows it there).
  /// - KUBERNETES_EXEC_INFO without spec.cluster (a kubeconfig user written with
  ///   provideClusterInfo: false): a token when `clusters` is empty (as before kube_clusters
  ///   existed); refused when it is not, since the server cannot be checked.
  /// - No KUBERNETES_EXEC_INFO (a person running the command, or a kubectl before 1.20): a
  ///   token, as for `strivacity token`: it goes to whoever runs it.
  public func decision(clusters: [String], profile: String) -> KubeClusterDecision {
    guard fromKubectl else { return .allow }
    let advice = "strivacity setup-kubectl --profile \(profile) --context CONTEXT"
    guard let server else {
      if clusters.isEmpty { return .allow }
      return .refuse(
        "refusing the token to kubectl: it does not say which API server it is for (the kubeconfig user has provideClusterInfo: false), "
          + "and profile \(profile) is only for its kube_clusters; run \(advice) again for the context")
    }
    let wanted: KubeServer
    do {
      wanted = try KubeServer(admitting: server)
    } catch {
      return .refuse("refusing the token to kubectl: its API server \(error.description)")
    }
    let listed = clusters.compactMap { try? KubeServer(admitting: $0) }
    if listed.contains(wanted) { return .allow }
    if listed.isEmpty {
      return .refuse("refusing the token to kubectl for \(wanted): profile \(profile) lists no kube_clusters; to allow the context's API server: \(advice)")
    }
    return .refuse(
      "refusing the token to kubectl for \(wanted): profile \(profile) allows only its kube_clusters ("
        + listed.map(\.description).joined(separator: ", ") + "); to allow the context's API server: \(advice)")
  }
}

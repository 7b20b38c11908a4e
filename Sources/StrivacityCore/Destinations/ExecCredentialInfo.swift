// What kubectl tells an exec credential plugin (KUBERNETES_EXEC_INFO, a JSON ExecCredential):
// the apiVersion to answer in, whether the plugin may talk to a person, and (with
// provideClusterInfo) the API server the credential is for. Outside input: at most 128 KiB, read
// as a JSONValue (FoundationEssentials' JSONDecoder), and only the two known versions admitted.

public struct ExecCredentialInfo: Equatable, Sendable {
  public static let v1 = "client.authentication.k8s.io/v1"
  public static let v1beta1 = "client.authentication.k8s.io/v1beta1"
  public static let versions = [v1, v1beta1]

  /// The apiVersion to answer in.
  public var apiVersion: String
  /// kubectl's spec.interactive; nil when it did not say (no KUBERNETES_EXEC_INFO).
  public var interactive: Bool?
  /// True when KUBERNETES_EXEC_INFO was there: kubectl (1.20 or later) runs the command.
  public var fromKubectl: Bool
  /// kubectl's spec.cluster.server: the API server the credential is for; nil when kubectl did
  /// not say (no spec.cluster: the kubeconfig user has provideClusterInfo false).
  public var server: String?

  public init(
    apiVersion: String = ExecCredentialInfo.v1, interactive: Bool? = nil, fromKubectl: Bool = false,
    server: String? = nil
  ) {
    self.apiVersion = apiVersion
    self.interactive = interactive
    self.fromKubectl = fromKubectl
    self.server = server
  }

  /// From the environment: without KUBERNETES_EXEC_INFO (a person running the command; kubectl
  /// sets it since 1.20), v1 and nothing said of interactivity.
  public static func from(_ environment: [String: String]) throws(AdmissionError) -> ExecCredentialInfo {
    guard let text = environment["KUBERNETES_EXEC_INFO"], !text.isEmpty else { return ExecCredentialInfo() }
    // The most Linux lets one environment string be (kubectl may put the cluster's CA bundle
    // in it, with provideClusterInfo).
    guard text.utf8.count <= 131_072 else { throw AdmissionError("KUBERNETES_EXEC_INFO is over 128 KiB") }
    guard let json = JSONValue.parse(text), json.object != nil else {
      throw AdmissionError("KUBERNETES_EXEC_INFO is not a JSON object")
    }
    guard let version = json["apiVersion"]?.string, versions.contains(version) else {
      let asked =
        json["apiVersion"]?.string.map { "'\(TerminalSafe.text(String($0.prefix(100)), multiline: false))'" }
        ?? "no apiVersion"
      throw AdmissionError(
        "kubectl asks for \(asked); strivacity answers \(v1) or \(v1beta1): set one of them as the user's exec "
          + "apiVersion in the kubeconfig"
      )
    }
    // spec.cluster (provideClusterInfo: true) always carries the server; a cluster without one
    // is not kubectl's.
    var server: String?
    if let cluster = json["spec"]?["cluster"], cluster != .null {
      guard let text = cluster["server"]?.string else {
        throw AdmissionError("KUBERNETES_EXEC_INFO's spec.cluster has no server")
      }
      server = text
    }
    return ExecCredentialInfo(
      apiVersion: version, interactive: json["spec"]?["interactive"]?.bool, fromKubectl: true, server: server)
  }
}

// What `strivacity setup kubectl` writes into a kubeconfig and reads from it, as pure values: the
// user's exec entry (the arguments of `kubectl config set-credentials`, which writes it: no YAML
// is edited here), and the context's API server from `kubectl config view -o json`.
import StrivacityCore

public enum KubeconfigEntry {
  /// The user's name when none is given.
  public static func defaultUser(profile: String) -> String { "strivacity-\(profile)" }

  /// A kubeconfig user's name as `--user` takes it: what kubectl shows and takes back.
  public static func admitUser(_ name: String) throws(AdmissionError) -> String {
    guard !name.isEmpty, name.count <= 128,
      name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-@:".contains($0)) })
    else { throw AdmissionError("--user must be letters, digits, '.', '_', '-', '@' or ':' (at most 128)") }
    return name
  }

  /// A context's name as `--context` takes it.
  public static func admitContext(_ name: String) throws(AdmissionError) -> String {
    guard !name.isEmpty, name.utf8.count <= 1024,
      !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    else { throw AdmissionError("--context must be a context's name (at most 1024 bytes, no control characters)") }
    return name
  }

  /// The words the exec plugin runs after the program: `--login` (the sign-in on kubectl's
  /// terminal when it says the session is interactive, else a failure naming the command), and
  /// `--api` when the cluster has its own API.
  public static func execArguments(profile: String, api: String?) -> [String] {
    ["token", "--profile", profile, "--format", "exec-credential", "--login"] + (api.map { ["--api", $0] } ?? [])
  }

  /// `kubectl`'s arguments that write user `user` running `program` (by absolute path: kubectl's
  /// PATH may differ) with `arguments`. `config`: the config file's absolute path, passed as
  /// STRIVACITY_CONFIG (kubectl runs the plugin from any directory, and the small binary answers
  /// the hot path only for `token --profile --format`); nil removes an earlier run's.
  /// provideClusterInfo: kubectl names the API server on every call, checked against
  /// kube_clusters.
  public static func setCredentials(
    user: String, program: String, arguments: [String], config: String?, kubeconfig: [String]
  ) -> [String] {
    [
      "config", "set-credentials", user, "--exec-api-version=\(ExecCredentialInfo.v1)",
      "--exec-interactive-mode=IfAvailable", "--exec-provide-cluster-info=true", "--exec-command=\(program)",
    ] + arguments.map { "--exec-arg=\($0)" }
      // set-credentials merges: `NAME-` removes an earlier run's.
      + [config.map { "--exec-env=STRIVACITY_CONFIG=\($0)" } ?? "--exec-env=STRIVACITY_CONFIG-"] + kubeconfig
  }

  /// The context (`context`, else the view's current one), its cluster's API server and its
  /// user, from kubectl's JSON view (secrets redacted by kubectl).
  public static func contextCluster(_ view: JSONValue, context: String?) throws(AdmissionError) -> (
    context: String, server: KubeServer, user: String?
  ) {
    guard let contextName = context ?? view["current-context"]?.string.flatMap({ $0.isEmpty ? nil : $0 }) else {
      throw AdmissionError(
        "kubectl has no current context: name the one to use with --context (kubectl config get-contexts)")
    }
    let named = "context \(shown(contextName))"
    guard let entry = view["contexts"]?.array?.first(where: { $0["name"]?.string == contextName }) else {
      throw AdmissionError("kubectl has no \(named) (kubectl config get-contexts)")
    }
    guard let clusterName = entry["context"]?["cluster"]?.string, !clusterName.isEmpty,
      let cluster = view["clusters"]?.array?.first(where: { $0["name"]?.string == clusterName }),
      let text = cluster["cluster"]?["server"]?.string, !text.isEmpty
    else {
      throw AdmissionError(
        "\(named) has no cluster with a server (kubectl config set-context \(shellQuoted(contextName)) --cluster=NAME)")
    }
    do {
      return (contextName, try KubeServer(admitting: text), entry["context"]?["user"]?.string)
    } catch {
      throw AdmissionError("the API server of \(named): \(error.description)")
    }
  }

  /// A kubeconfig name for a message: made inert (a kubeconfig may be anyone's).
  public static func shown(_ text: String) -> String { TerminalSafe.text(text, multiline: false) }

  /// A name as one shell word, quoted only when it needs it; for the commands shown.
  public static func shellQuoted(_ text: String) -> String {
    let plain =
      !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-@:/=+,".contains($0)) }
    return shown(plain ? text : "'" + text.replacing("'", with: "'\\''") + "'")
  }
}

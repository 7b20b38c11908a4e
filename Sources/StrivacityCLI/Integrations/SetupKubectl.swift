// `strivacity setup-kubectl`: a kubeconfig user whose exec credential plugin is strivacity, written
// with the real kubectl (`kubectl config set-credentials`), so no YAML is edited by hand here.
import ArgumentParser
import Glibc
import Launcher
import StrivacityCore

struct SetupKubectl: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "setup-kubectl",
    abstract: "Make a kubeconfig user that gets its tokens from strivacity (or --undo it).",
    discussion: """
      Writes a kubeconfig user (default strivacity-PROFILE) whose exec plugin runs `strivacity \
      token --profile PROFILE --format exec-credential`: kubectl asks for a fresh access token on \
      every call, answered from the access-token cache. Then point a context at it, for example \
      `kubectl config set-context --current --user=strivacity-PROFILE`. When no usable token is \
      left, kubectl shows strivacity's message: run `strivacity login`.
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("The kubeconfig user to write (default: strivacity-PROFILE).", valueName: "name"))
  var user: String?

  @Option(help: ArgumentHelp("The kubeconfig file (default: kubectl's own: $KUBECONFIG, else ~/.kube/config).", valueName: "path"), completion: .file())
  var kubeconfig: String?

  @Flag(help: "Remove the user instead.")
  var undo = false

  func validate() throws {
    // A kubeconfig name: what kubectl shows and takes back on its command line.
    if let user, user.isEmpty || user.count > 128 || !user.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-@:".contains($0)) }) {
      throw ValidationError("--user must be letters, digits, '.', '_', '-', '@' or ':' (at most 128)")
    }
  }

  func run() throws {
    let context = global.context()
    let resolved = try context.resolveProfile(global)
    guard resolved.isConfigured else { throw ConfigError.profileNotConfigured(name: resolved.name, path: context.paths.config) }
    let name = user ?? "strivacity-\(resolved.name)"
    let file = kubeconfig.map { ["--kubeconfig", $0] } ?? []
    if undo {
      try kubectl(["config", "delete-user", name] + file)
      Console.writeStderr("strivacity: kubectl user \(name) removed from \(kubeconfigDescription(context))\n")
      // Contexts are the person's own: say which still name the user, and leave them.
      if let contexts = try? runProgram(["kubectl", "config", "view", "-o", "jsonpath={range .contexts[?(@.context.user==\"\(name)\")]}{.name}{\" \"}{end}"] + file),
        contexts.status == 0
      {
        let names = contexts.output.split(separator: " ").map(String.init)
        if !names.isEmpty {
          Console.writeStderr("strivacity: these contexts still name it (left as they are): \(names.joined(separator: ", "))\n")
        }
      }
      return
    }
    // The small `strivacity` by absolute path (kubectl's PATH may differ from this shell's). A
    // config file other than the default goes in by absolute path as STRIVACITY_CONFIG, not as
    // --config: kubectl runs the plugin from any directory, and the small binary answers the
    // hot path only for `token --profile --format`.
    // --login: when kubectl says the session is interactive and no usable token is left, the
    // sign-in runs on kubectl's terminal; when it is not (interactiveMode Never, no terminal),
    // the call fails at once naming the command to run.
    let arguments = ["token", "--profile", resolved.name, "--format", "exec-credential", "--login"]
    let command = Launcher.commandPath()
    var settings = ["--exec-command=\(command)"]
    settings += arguments.map { "--exec-arg=\($0)" }
    if global.config != nil || context.environment["STRIVACITY_CONFIG"] != nil, let path = realpath(context.paths.config, nil) {
      defer { free(path) }
      settings.append("--exec-env=STRIVACITY_CONFIG=\(String(cString: path))")
    } else {
      settings.append("--exec-env=STRIVACITY_CONFIG-")  // set-credentials merges: an earlier run's goes
    }
    try kubectl(
      ["config", "set-credentials", name, "--exec-api-version=\(ExecCredentialInfo.v1)", "--exec-interactive-mode=IfAvailable",
       "--exec-provide-cluster-info=false"] + settings + file)
    Console.writeStderr(
      "strivacity: kubectl user \(name) written to \(kubeconfigDescription(context)): exec \(command) "
        + arguments.joined(separator: " ") + " (apiVersion \(ExecCredentialInfo.v1), interactiveMode IfAvailable)\n"
        + "strivacity: use it with: kubectl config set-context --current --user=\(name)\n")
  }

  /// Which file kubectl writes: --kubeconfig, else $KUBECONFIG's (kubectl picks among several),
  /// else ~/.kube/config.
  private func kubeconfigDescription(_ context: Context) -> String {
    if let kubeconfig { return kubeconfig }
    if let list = context.environment["KUBECONFIG"], !list.isEmpty {
      return list.contains(":") ? "the kubeconfig of $KUBECONFIG that kubectl chose" : list
    }
    return "~/.kube/config"
  }

  private func kubectl(_ arguments: [String]) throws {
    let result: (status: Int32, output: String)
    do {
      result = try runProgram(["kubectl"] + arguments)
    } catch {
      throw CLIFailure("kubectl is not on PATH: install it, or add the user to your kubeconfig by hand (strivacity(1), EXAMPLES)", status: .usage)
    }
    guard result.status == 0 else {
      throw CLIFailure("kubectl config \(arguments.dropFirst().first ?? "") failed (exit \(result.status))", status: .failure)
    }
  }
}

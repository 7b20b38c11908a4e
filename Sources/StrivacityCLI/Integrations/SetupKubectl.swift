// `strivacity setup kubectl`: a kubeconfig user whose exec credential plugin is strivacity, written
// with the real kubectl (`kubectl config set-credentials`), so no YAML is edited by hand here;
// and the context's API server added to the profile's kube_clusters, the servers kubectl gets
// the token for (ExecCredentialInfo.decision). What is written and read: KubeconfigEntry.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct SetupKubectl: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "kubectl",
    abstract: "Make a kubeconfig user that gets its tokens from strivacity (or --undo it).",
    discussion: """
      Writes a kubeconfig user (default strivacity-PROFILE) whose exec plugin runs `strivacity \
      token --profile PROFILE --format exec-credential`: kubectl asks for a fresh access token on \
      every call, answered from the access-token cache. Then point the context at it, for example \
      `kubectl config set-context --current --user=strivacity-PROFILE`. When no usable token is \
      left, kubectl shows strivacity's message: run `strivacity login`.

      The token goes only to the API servers in the profile's kube_clusters: each run adds the \
      context's (--context, default kubectl's current one); kubectl names the server on every \
      call (provideClusterInfo: true), and another context's cluster is refused. --undo \
      removes the user and empties kube_clusters.
      """)

  @OptionGroup var global: GlobalOptions

  @Option(help: ArgumentHelp("The kubeconfig user to write (default: strivacity-PROFILE).", valueName: "name"))
  var user: String?

  @Option(
    help: ArgumentHelp(
      "The kubeconfig file (default: kubectl's own: $KUBECONFIG, else ~/.kube/config).", valueName: "path"),
    completion: .file())
  var kubeconfig: String?

  @Option(
    help: ArgumentHelp(
      "The kubeconfig context whose API server gets the token (default: kubectl's current context).", valueName: "name")
  )
  var context: String?

  @OptionGroup var change: SetupChange

  @Option(
    help: ArgumentHelp("Give kubectl the token of this API of the profile (its audience).", valueName: "name"),
    completion: .custom { words, _, prefix in Context().apiNames(words).filter { $0.hasPrefix(prefix) } })
  var api: String?

  func validate() throws {
    do {
      _ = try user.map(KubeconfigEntry.admitUser)
      _ = try context.map(KubeconfigEntry.admitContext)
    } catch {
      throw ValidationError(error.description)
    }
    if change.undo && context != nil {
      throw ValidationError(
        "--undo removes the user and all of the profile's kube_clusters; to drop one API server, edit "
          + "kube_clusters in the config file"
      )
    }
  }

  func run() throws {
    let context = global.context()
    let resolved = try context.configuredProfile(global)
    let name = user ?? KubeconfigEntry.defaultUser(profile: resolved.name)
    let file = kubeconfig.map { ["--kubeconfig", $0] } ?? []
    if change.undo {
      // The allow-list first: it goes even when the user is gone already.
      let clusters = resolved.profile.kubeClusters
      if !clusters.isEmpty {
        try change.config(context, table: ["profiles", resolved.name], [("kube_clusters", .strings([]))])
        change.note(
          "profile \(resolved.name) no longer gives kubectl its token (kube_clusters emptied; it held "
            + "\(clusters.map(\.description).joined(separator: ", ")))")
      }
      try change.run("kubectl", ["config", "delete-user", name] + file, kubectl)
      change.note("kubectl user \(name) removed from \(kubeconfigDescription(context))")
      if change.dryRun { return }
      // Contexts are the person's own: say which still name the user, and leave them.
      if let contexts = try? runProgram(
        [
          "kubectl", "config", "view", "-o",
          "jsonpath={range .contexts[?(@.context.user==\"\(name)\")]}{.name}{\" \"}{end}",
        ] + file),
        contexts.status == 0
      {
        let names = contexts.output.split(separator: " ").map(String.init)
        if !names.isEmpty {
          Console.writeStderr(
            "strivacity: these contexts still name it (left as they are): \(names.joined(separator: ", "))\n")
        }
      }
      return
    }
    // The context's API server, read before anything is written: a context that cannot be used
    // changes nothing.
    let target = try contextCluster(file)
    // --api: the cluster's own API (its audience, scopes) gets its token; an API the profile does
    // not have is refused before anything is written.
    if let api, resolved.profile.api(named: api) == nil {
      do {
        _ = try TokenInvocation(api: api).chosenAPI(resolved.profile, tenant: resolved.profile.tenant ?? "")
      } catch {
        throw CLIFailure(error.description, status: .usage)
      }
    }
    let arguments = KubeconfigEntry.execArguments(profile: resolved.name, api: api)
    let command = Executable.commandPath()
    // A config file other than the default, by absolute path.
    let config =
      global.config != nil || context.environment["STRIVACITY_CONFIG"] != nil ? realPath(context.paths.config) : nil
    // Earlier entries stay: each run adds its context's server (the same server once), written
    // as parsed, not as the kubeconfig spells it.
    var clusters = resolved.profile.kubeClusters
    if !clusters.contains(target.server) {
      clusters.append(target.server)
      try change.config(
        context, table: ["profiles", resolved.name], [("kube_clusters", .strings(clusters.map(\.description)))])
    }
    try change.run(
      "kubectl",
      KubeconfigEntry.setCredentials(
        user: name, program: command, arguments: arguments, config: config, kubeconfig: file), kubectl)
    if change.dryRun { return }
    let shownContext = KubeconfigEntry.shown(target.context)
    Console.writeStderr(
      "strivacity: kubectl user \(name) written to \(kubeconfigDescription(context)): exec \(command) "
        + arguments.joined(separator: " ")
        + " (apiVersion \(ExecCredentialInfo.v1), interactiveMode IfAvailable, provideClusterInfo true)\n"
        + "strivacity: profile \(resolved.name) gives kubectl its token for \(target.server) (context "
        + "\(shownContext)); kube_clusters: "
        + clusters.map(\.description).joined(separator: ", ") + "\n")
    if target.user == name {
      Console.writeStderr("strivacity: context \(shownContext) uses it already\n")
    } else {
      let which = self.context.map(KubeconfigEntry.shellQuoted) ?? "--current"
      Console.writeStderr("strivacity: use it with: kubectl config set-context \(which) --user=\(name)\n")
    }
  }

  /// The context (--context, else kubectl's current one) and its cluster's API server, from
  /// `kubectl config view -o json` (secrets redacted by kubectl; not --minify, which refuses a
  /// context whose user is not written yet).
  private func contextCluster(_ file: [String]) throws -> (context: String, server: KubeServer, user: String?) {
    let result: (status: Int32, output: String)
    do {
      result = try runProgram(["kubectl", "config", "view", "-o", "json"] + file)
    } catch {
      throw CLIFailure(
        "kubectl is not on PATH: install it, or add the user to your kubeconfig by hand (strivacity(1), EXAMPLES)",
        status: .usage)
    }
    guard result.status == 0, let view = JSONValue.parse(result.output), view.object != nil else {
      throw CLIFailure("kubectl config view failed (exit \(result.status))", status: .failure)
    }
    do {
      return try KubeconfigEntry.contextCluster(view, context: context)
    } catch {
      throw CLIFailure(error.description, status: .usage)
    }
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
      throw CLIFailure(
        "kubectl is not on PATH: install it, or add the user to your kubeconfig by hand (strivacity(1), EXAMPLES)",
        status: .usage)
    }
    guard result.status == 0 else {
      throw CLIFailure(
        "kubectl config \(arguments.dropFirst().first ?? "") failed (exit \(result.status))", status: .failure)
    }
  }
}

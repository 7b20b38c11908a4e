// doctor's rows for the tools set up to ask strivacity: git and kubectl (from the profile),
// Docker and containers, cargo, Terraform and Google's clients (from their own configs, found
// where they are), each shown only when it names strivacity.
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

extension Examination {
  // MARK: 10. the tools set up to ask strivacity

  func integrations(_ session: TokenBroker) {
    git(session)
    kubectl(session)
    docker(session)
    cargo(session)
    terraform(session)
    gcloud(session)
  }

  /// Each git host asks strivacity (`credential.URL.helper`), and no helper git asks first.
  func git(_ session: TokenBroker) {
    let hosts = session.resolved.profile.gitHosts
    guard !hosts.isEmpty else {
      add("git", .skipped, "not set up (strivacity setup git --host HOST)")
      return
    }
    // Every file's helpers, in the order git reads them (status 1: none).
    guard
      let answer = try? runProgram(
        ["git", "config", "--null", "--get-regexp", #"^credential\..*helper$"#], quiet: true)
    else {
      add("git", .warn, "git is not on PATH", fix: "install git")
      return
    }
    let entries = GitExamination.entries(answer.output)
    let missing = hosts.map(\.gitURL).filter { url in
      !entries.contains { $0.key == "credential.\(url).helper" && $0.value.contains("strivacity") }
    }
    for host in hosts where !missing.contains(host.gitURL) {
      let asked = GitExamination.helpers(for: host.gitURL, in: entries)
      let first = GitExamination.before(strivacity: asked)
      let cleared = first.count == asked.count
      guard !first.isEmpty || cleared else { continue }
      let key = "credential.\(host.gitURL).helper"
      add(
        "git", .fail,
        cleared
          ? "an empty credential helper after strivacity's clears it for \(host.gitURL): git never asks strivacity"
          : "git asks \(first.map { "'\($0)'" }.joined(separator: ", ")) before strivacity for \(host.gitURL): a "
            + "password kept there is sent instead, and strivacity's token is stored there",
        fix: "git config --global --unset-all \(key); git config --global --add \(key) ''; "
          + "strivacity setup git\(session.profileFlag) --host \(host)", status: .usage)
    }
    if missing.isEmpty {
      if !report.failed("git") {
        add("git", .pass, "git asks strivacity for \(hosts.map(\.gitURL).joined(separator: ", "))")
      }
    } else {
      add(
        "git", .warn, "git does not ask strivacity for \(missing.joined(separator: ", "))",
        fix: "strivacity setup git --profile \(session.name) --host \(missing[0])")
    }
  }

  func kubectl(_ session: TokenBroker) {
    guard !session.resolved.profile.kubeClusters.isEmpty else {
      add("kubectl", .skipped, "not set up (strivacity setup kubectl)")
      return
    }
    let fix = "strivacity setup kubectl --profile \(session.name)"
    // kubectl's own view of the merged kubeconfig, with its secrets redacted.
    guard let answer = try? runProgram(["kubectl", "config", "view", "-o", "json"], quiet: true), answer.status == 0,
      let view = JSONValue.parse(Array(answer.output.utf8))
    else {
      add(
        "kubectl", .warn, "kubectl is not on PATH, or cannot read its kubeconfig", fix: "install kubectl; then \(fix)")
      return
    }
    let users = (view["users"]?.array ?? []).filter { entry in
      guard let exec = entry["user"]?["exec"], let command = exec["command"]?.string,
        command.split(separator: "/").last == "strivacity"
      else { return false }
      let arguments = (exec["args"]?.array ?? []).compactMap(\.string)
      return zip(arguments, arguments.dropFirst()).contains { $0 == "--profile" && $1 == session.name }
    }
    if users.isEmpty {
      add("kubectl", .warn, "no kubeconfig user runs strivacity for this profile", fix: fix)
    } else {
      let names = users.compactMap { $0["name"]?.string }
      add("kubectl", .pass, "kubeconfig user \(names.joined(separator: ", ")) runs strivacity for this profile")
    }
  }

  /// A tool's own file as doctor reads it: only a regular file (a FIFO put there never blocks
  /// the report), nil when it is not there; a reason when it cannot be read.
  func toolFile(_ path: String) -> Result<[UInt8], ToolFileProblem>? {
    guard case .success(let status) = FileStatus.of(path) else { return nil }
    guard status.kind == .regular else { return .failure(ToolFileProblem(path: path, why: "is not a regular file")) }
    switch readFile(path) {
    case .contents(let bytes): return .success(bytes)
    case .missing: return nil
    case .failed(let why): return .failure(ToolFileProblem(path: path, why: "cannot be read (\(why))"))
    }
  }

  /// The profile a helper whose command names none uses: as `token` resolves it, from the
  /// environment the tool passes on (STRIVACITY_PROFILE), else the config's default.
  func unnamedProfile() -> String {
    let config = (try? context.config(warn: false)) ?? nil
    return ResolvedProfile.requestedName(overrides: ProfileOverrides(), environment: context.environment)
      ?? config?.defaultProfile ?? "default"
  }

  /// Every API of every profile in the config (a helper that names no profile takes the first
  /// profile's API that covers the host), else the profile's own.
  func allProfiles(_ session: TokenBroker) -> [Profile] {
    ((try? context.config(warn: false)) ?? nil)?.profiles ?? session.config?.profiles ?? []
  }

  /// Docker's config and containers' auth files: each registry whose `credHelpers` names
  /// strivacity is served by an API, and no saved login that podman or skopeo read first
  /// shadows it (DockerExamination); the helper is on PATH.
  func docker(_ session: TokenBroker) {
    let (dockerFile, paths) = DockerExamination.files(context.environment)
    var files: [DockerExamination.File?] = []
    var unreadable: [String] = []
    for path in paths {
      switch toolFile(path) {
      case nil: files.append(nil)
      case .failure(let problem)?:
        files.append(nil)
        unreadable.append("\(problem.path) \(problem.why)")
      case .success(let bytes)?:
        do {
          files.append(try DockerExamination.read(bytes, helper: "strivacity", legacy: path.hasSuffix("/.dockercfg")))
        } catch {
          files.append(nil)
          unreadable.append("\(path) \(error)")
        }
      }
    }
    var registries: [String] = []
    for file in files.compactMap({ $0 }) { registries += file.routed.filter { !registries.contains($0) } }
    guard !registries.isEmpty else { return }
    for problem in unreadable {
      add("docker", .fail, "\(problem): docker, podman or skopeo cannot read it", fix: "correct it", status: .usage)
    }
    let flag = session.profileFlag
    if !isOnPath("docker-credential-strivacity") {
      add(
        "docker", .fail, "docker-credential-strivacity is not on PATH: docker cannot run it",
        fix: "ln -s '\(Executable.commandPath())' ~/.local/bin/docker-credential-strivacity", status: .usage)
    }
    let profiles = allProfiles(session)
    var served: [String] = []
    for registry in registries {
      let fix = "strivacity setup docker --registry \(registry) --api NAME\(flag)"
      guard let entry = try? HostEntry(admitting: registry), case .host = entry.form else {
        add(
          "docker", .fail,
          "credHelpers names strivacity for '\(HostEntry.shown(registry))', which is not a registry "
            + "host (host or host:port)", fix: "remove it from credHelpers", status: .usage)
        continue
      }
      let url = entry.gitURL + "/"
      if let (profile, api) = API.serving(url, in: profiles) {
        let whose = profile.name == session.name ? "API \(api.name)" : "profile \(profile.name)'s"
        served.append("\(registry) (\(whose))")
      } else if let partial = session.resolved.profile.apiOnPartOfHost(of: url) {
        add(
          "docker", .fail,
          "API \(partial.name) covers only \(partial.url), and docker sends one credential to every path "
            + "of \(registry): docker-credential-strivacity answers it with none", fix: fix, status: .usage)
      } else {
        add(
          "docker", .fail, "no API covers \(registry): docker-credential-strivacity answers it with none",
          fix: fix, status: .usage)
      }
      if files[paths.firstIndex(of: dockerFile)!]?.routed.contains(registry) != true {
        add("docker", .warn, "\(dockerFile) does not name strivacity for \(registry): docker does not ask it", fix: fix)
      }
      let routedIn = files.firstIndex { $0?.routed.contains(registry) == true } ?? 0
      if let (index, shadow, saved) = DockerExamination.shadowing(registry, routedIn: routedIn, files: files) {
        add(
          "docker", .fail,
          "\(paths[index]) has \(shadow), which podman and skopeo use before strivacity's entry in \(paths[routedIn])",
          fix: saved
            ? "podman logout --authfile \(paths[index]) \(registry)"
            : "remove \"\(registry)\" from credHelpers in \(paths[index])", status: .usage)
      }
    }
    if !report.failed("docker") {
      add("docker", .pass, "docker, podman and skopeo ask strivacity for \(served.joined(separator: ", "))")
    }
  }

  /// cargo's config: each registry whose credential-provider runs strivacity for this profile
  /// has an index under the profile's places, and nothing cargo reads first names another.
  func cargo(_ session: TokenBroker) {
    let environment = context.environment
    guard let path = try? SetupCargo.cargoConfigPath(environment), let read = toolFile(path) else { return }
    guard case .success(let bytes) = read else { return }
    var served: [String] = []
    for registry in CargoExamination.registries(bytes) {
      guard let provider = registry.provider, CargoExamination.isOurs(provider) else { continue }
      let name = registry.name
      let fix = "strivacity setup cargo --registry \(name)\(session.profileFlag)"
      let request = CargoRequest(
        kind: .get(operation: "read"), indexURL: registry.index ?? "", args: Array(provider.dropFirst()))
      guard let invocation = try? CargoInvocation(request: request) else {
        add(
          "cargo", .fail, "registry \(name)'s credential-provider in \(path) has arguments strivacity refuses",
          fix: fix, status: .usage)
        continue
      }
      guard (invocation.profile ?? unnamedProfile()) == session.name else { continue }
      if !isExecutable(provider[0]) {
        add(
          "cargo", .fail, "registry \(name)'s credential-provider runs \(provider[0]), which is not there", fix: fix,
          status: .usage)
      }
      let variable = CargoExamination.providerVariable(name)
      if let value = environment[variable], !value.isEmpty,
        !CargoExamination.isOurs(value.split(separator: " ").map(String.init))
      {
        add(
          "cargo", .fail, "\(variable) is set, and cargo runs it for registry \(name) instead",
          fix: "unset \(variable)", status: .usage)
      }
      let projects = CargoExamination.projectConfigs(from: currentDirectory() ?? "/").filter { $0 != path }
      for project in projects.compactMap({ p in (try? toolFile(p)?.get()).map { (path: p, bytes: $0) } }) {
        guard let other = CargoExamination.registries(project.bytes).first(where: { $0.name == name }),
          let theirs = other.provider, !CargoExamination.isOurs(theirs)
        else { continue }
        add(
          "cargo", .fail,
          "\(project.path) names another credential-provider for registry \(name), which cargo "
            + "takes there instead", fix: "remove credential-provider from [registries.\(name)] in \(project.path)",
          status: .usage)
      }
      guard let index = registry.index else {
        add(
          "cargo", .warn, "registry \(name) has no index in \(path)",
          fix: "add index = \"sparse+https://…\" to [registries.\(name)]")
        continue
      }
      switch invocation.decision(for: session.resolved.profile, tenant: session.tenant) {
      case .notOurs:
        add(
          "cargo", .fail,
          "registry \(name)'s index (\(HostEntry.shown(index))) is under none of profile \(session.name)'s "
            + "places: cargo gets no token for it", fix: fix, status: .usage)
      case .refused(let reason):
        add("cargo", .fail, "registry \(name): \(reason)", fix: fix, status: .usage)
      default:
        served.append(name)
      }
    }
    if !served.isEmpty, !report.failed("cargo") {
      add(
        "cargo", .pass,
        "cargo asks strivacity for registr\(served.count == 1 ? "y" : "ies") \(served.joined(separator: ", "))")
    }
  }

  /// Terraform's CLI config names strivacity's helper, the helper's link is there, and for each
  /// host an API of this profile serves, nothing Terraform takes first gives a token.
  func terraform(_ session: TokenBroker) {
    let environment = context.environment
    let home = ToolConfigFile.home(environment)
    guard let paths = try? SetupTerraform.files(environment, home: home) else { return }
    var texts: [(path: String, text: String)] = []
    for path in paths {
      if case .success(let bytes)? = toolFile(path), let text = String(validating: bytes, as: UTF8.self) {
        texts.append((path, text))
      }
    }
    let helpers = texts.map { TerraformExamination.helper($0.text) }
    guard helpers.contains(.ours) else { return }
    let flag = session.profileFlag
    let profile = session.resolved.profile
    let profiles = allProfiles(session)
    let hosts = TerraformExamination.hosts(of: profile, in: profiles)
    let fix = "strivacity setup terraform \(hosts.first ?? "HOST") --api NAME\(flag)"
    for (file, helper) in zip(texts, helpers) {
      if case .other(let name) = helper {
        add(
          "terraform", .warn,
          "\(file.path) names credentials helper \"\(HostEntry.shown(name))\": the tool that reads it "
            + "asks that one, not strivacity", fix: "remove that block from \(file.path), then \(fix)")
      }
    }
    let link = home + "/.terraform.d/plugins/terraform-credentials-\(TerraformConfig.helperName)"
    if !SetupTerraform.isOurs(link) || !isExecutable(link) {
      add(
        "terraform", .fail, "\(link) is not a link to strivacity: terraform cannot run the helper", fix: fix,
        status: .usage)
    }
    guard !hosts.isEmpty else {
      add(
        "terraform", .fail,
        "terraform and tofu ask strivacity, but no API of profile \(session.name) covers a whole "
          + "host: every host gets no token", fix: fix, status: .usage)
      return
    }
    let saved = home + "/.terraform.d/credentials.tfrc.json"
    let savedHosts = (try? toolFile(saved)?.get()).map(TerraformExamination.savedHosts) ?? []
    for host in hosts {
      for file in texts where TerraformConfig.credentialsHosts(file.text).contains(where: { $0.lowercased() == host }) {
        add(
          "terraform", .fail,
          "\(file.path) has a credentials \"\(host)\" block, which terraform uses before asking "
            + "strivacity", fix: "remove the credentials \"\(host)\" block from \(file.path)", status: .usage)
      }
      for variable in TerraformExamination.tokenVariables(for: host, in: environment) {
        add(
          "terraform", .fail, "\(variable) is set, and terraform uses it for \(host) before asking strivacity",
          fix: "unset \(variable)", status: .usage)
      }
      if savedHosts.contains(host) {
        add(
          "terraform", .fail,
          "\(saved) holds a token for \(host) (terraform login), which terraform uses before "
            + "asking strivacity", fix: "remove \"\(host)\" from \(saved)", status: .usage)
      }
    }
    if !report.failed("terraform") {
      add("terraform", .pass, "terraform and tofu ask strivacity for \(hosts.joined(separator: ", "))")
    }
  }

  /// The Google credential configuration GOOGLE_APPLICATION_CREDENTIALS names, when strivacity
  /// wrote it for this profile: Google's clients may run it, and it runs an API of the profile.
  func gcloud(_ session: TokenBroker) {
    let environment = context.environment
    guard let path = environment["GOOGLE_APPLICATION_CREDENTIALS"], !path.isEmpty,
      case .success(let bytes)? = toolFile(path), let text = String(validating: bytes, as: UTF8.self),
      GoogleCredentialConfiguration.isOurs(text),
      let command = JSONValue.parse(text)?["credential_source"]?["executable"]?["command"]?.string
    else { return }
    let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
    func value(_ flag: String) -> String? {
      words.firstIndex(of: flag).flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
    }
    guard (value("--profile") ?? unnamedProfile()) == session.name else { return }
    let api = value("--api") ?? ""
    let fix = "strivacity setup gcloud --api NAME --audience AUDIENCE --output \(path)\(session.profileFlag)"
    if environment["GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES"] != "1" {
      add(
        "gcloud", .fail,
        "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES is not 1: Google's clients do not run "
          + "strivacity for \(path)", fix: "export GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1", status: .usage)
    }
    if !isExecutable(words[0]) {
      add("gcloud", .fail, "\(path) runs \(words[0]), which is not there", fix: fix, status: .usage)
    }
    if session.resolved.profile.api(named: api) == nil {
      add(
        "gcloud", .fail, "\(path) asks for API \(api), which profile \(session.name) has not", fix: fix, status: .usage)
    }
    if !report.failed("gcloud") { add("gcloud", .pass, "Google's clients ask strivacity for API \(api) (\(path))") }
  }
}

/// A tool's file that is there and cannot be read.
struct ToolFileProblem: Error {
  let path: String
  let why: String
}

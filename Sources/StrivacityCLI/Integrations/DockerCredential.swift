// Docker's credential helper: `strivacity docker-credential get|store|erase|list`, installed as
// `docker-credential-strivacity` (a link to `strivacity`), so `"credHelpers": {"HOST":
// "strivacity"}` in ~/.docker/config.json (or containers' auth.json) makes docker, podman and
// skopeo ask it. The small `strivacity` answers a cached `get` itself (HotPath.helper); this
// is the rest. stdin and stdout belong to the protocol: a failure is its message on stdout and
// exit 1 (docker shows it), plus one line on stderr; nobody is ever asked to sign in here.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct DockerCredentialCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "docker-credential",
    abstract: "Docker credential helper: answer get/store/erase/list on stdin and stdout.",
    discussion: """
      Installed as docker-credential-strivacity. `get` reads a registry's address on stdin and, \
      when an API of a profile covers the registry's whole host (the first such profile; an API \
      whose url names a path answers no registry, since docker sends one credential to every path \
      of a host), answers {"ServerURL","Username","Secret"} with a fresh token of that API \
      (Username: the API's username, default oauth2accesstoken); for any other registry it \
      answers the protocol's "credentials not found in native keychain". It never signs in: \
      without a usable token it fails, naming the `strivacity login` to run. `store` refuses (the \
      tokens are strivacity's), `erase` expires the API's cached access token so the next `get` \
      refreshes it, `list` prints the address of every API that covers a whole host. Set a \
      registry up with `strivacity setup docker --registry HOST`.
      """)

  @Argument(
    parsing: .captureForPassthrough, help: "get, store, erase or list.",
    completion: .list(DockerVerb.allCases.map(\.rawValue)))
  var words: [String] = []

  func run() throws {
    // Not the protocol's verbs: --help (as `strivacity help docker-credential`), and the version
    // as docker-credential-helpers print theirs.
    if ["--help", "-h"].contains(words.first) { throw CleanExit.helpRequest(Self.self) }
    if ["version", "--version", "-v"].contains(words.first) {
      return Console.writeStdout("docker-credential-strivacity (strivacity) \(strivacityVersion)\n")
    }
    do {
      try answer()
    } catch {
      // The protocol's failure: its message on stdout, exit 1, and one line on stderr (none for
      // its own "not found", which says it all).
      let refusal = error as? DockerCredentialError
      var reply = DockerHelper.reply(.refused(refusal?.message ?? CLIFailure.describe(error), status: .failure))
      if refusal == .notFound { reply.stderr = nil }
      HelperAnswer.write(reply)
      exitProcess(reply.status.rawValue)
    }
  }

  private func answer() throws {
    let verb = try DockerCredentialProtocol.verb(words)
    // What the client sent; when the small `strivacity` could not answer `get`, it handed over
    // what it read as this process's stdin (Launcher.handOff).
    var input = verb == .list ? [] : readStdin(limit: DockerCredentialProtocol.maxInput + 1)
    defer { input.wipe() }
    let context = Context(configPath: nil)
    context.attended = false  // the client waits: a keyring prompt gets the short bound
    switch verb {
    case .list:
      Console.writeStdout(DockerCredentialProtocol.list(try context.config()?.profiles ?? []))
    case .store:
      guard input.count <= DockerCredentialProtocol.maxInput else { throw DockerCredentialError.tooLarge }
      throw DockerCredentialError.storeRefused
    case .get:
      // As the small binary answers it (HelperGet.route), with a fresh token, never a sign-in.
      let status = try HelperAnswer.get(DockerHelper.self, words, input, context: context) ?? .failure
      if status != .ok { exitProcess(status.rawValue) }
    case .erase:
      // The client says the credential failed (or `docker logout`): the next `get` refreshes.
      _ = try DockerCredentialProtocol.serverURL(input)
      guard try HelperAnswer.forget(DockerHelper.self, words, input, context: context) else {
        throw DockerCredentialError.notFound
      }
    }
  }
}

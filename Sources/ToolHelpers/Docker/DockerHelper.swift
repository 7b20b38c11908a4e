// Docker's helper in the registry (ToolHelper.swift).
import StrivacityConfig
import StrivacityCore

public enum DockerHelper: ToolHelper {
  public static let names = HelperNames(
    tool: "docker", subcommand: "docker-credential", link: "docker-credential-strivacity", flag: nil,
    messagePrefix: DockerCredentialProtocol.messagePrefix)

  public static let help = HelperHelp(
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
      """, takes: .protocolWords, words: "get, store, erase or list.", verbs: DockerVerb.allCases.map(\.rawValue))

  public static func asksForToken(_ words: [String]) -> Bool { words == ["get"] }
  public static var maxInput: Int { DockerCredentialProtocol.maxInput }
  public static func setupCommand(host: String) -> String {
    "strivacity setup docker --registry \(host) --api NAME"
  }

  /// The protocol's failure is a message on stdout and exit 1: for a registry under no API its
  /// "not found" (clients go on without credentials), the line on stderr saying why.
  public static func reply(_ failure: HelperFailure) -> HelperReply {
    let stdout: DockerCredentialError =
      if case .noAPI = failure { .notFound } else {
        DockerCredentialError(TerminalSafe.text(failure.sentence(self), multiline: false))
      }
    return HelperReply(stdout: DockerCredentialProtocol.errorOutput(stdout), stderr: line(failure), status: .failure)
  }
}

extension DockerHelper: HelperGet {
  public static var session: HelperSession { .one(stdinLimit: DockerCredentialProtocol.maxInput + 1) }

  /// Only `get`, `store` and `erase` read stdin (an address, or what `store` is given).
  public static func input(_ words: [String]) -> HelperInput {
    words.count == 1 && ["get", "store", "erase"].contains(words[0])
      ? .upTo(DockerCredentialProtocol.maxInput + 1) : .none
  }

  /// The verbs; and, not the protocol's, --help (as `strivacity help docker-credential`) and the
  /// version as docker-credential-helpers print theirs.
  public static func step(_ words: [String], _ input: [UInt8], config: () throws -> Config?) throws -> HelperStep {
    if ["--help", "-h"].contains(words.first) { return .help }
    if ["version", "--version", "-v"].contains(words.first) {
      return .reply(
        HelperReply(
          stdout: "docker-credential-strivacity (strivacity) \(strivacityVersion)\n", stderr: nil, status: .ok))
    }
    do {
      switch try DockerCredentialProtocol.verb(words) {
      case .list:
        return .reply(
          HelperReply(stdout: DockerCredentialProtocol.list(try config()?.profiles ?? []), stderr: nil, status: .ok))
      case .store: return .reply(refusing(input.count > DockerCredentialProtocol.maxInput ? .tooLarge : .storeRefused))
      case .get: return .get
      case .erase:
        // The client says the credential failed (or `docker logout`): the next `get` refreshes.
        _ = try DockerCredentialProtocol.serverURL(input)
        return .forget(rejected: nil, otherwise: refusing(.notFound))
      }
    } catch let refusal as DockerCredentialError {
      return .reply(refusing(refusal))
    }
  }

  /// The protocol's failure: its message on stdout, exit 1, and one line on stderr (none for its
  /// own "not found", which says it all).
  static func refusing(_ refusal: DockerCredentialError) -> HelperReply {
    var reply = reply(.refused(refusal.message, status: .failure))
    if refusal == .notFound { reply.stderr = nil }
    return reply
  }

  /// The registry's address on stdin; the first profile's API that covers its whole host (the
  /// profile a context chooses asked first).
  public static func route(_ words: [String], _ input: [UInt8], config: Config?, environment: [String: String])
    -> HelperRoute?
  {
    let request: (address: String, url: String)
    do {
      request = try DockerCredentialProtocol.serverURL(input)
    } catch {
      return failing(.refused(error.message, status: .failure))
    }
    let profiles = config?.profilesContextFirst ?? []
    guard let found = API.serving(request.url, in: profiles) else {
      return failing(.noAPI(host: request.address, apis: HelperFailure.apiURLs(profiles)))
    }
    guard let config else { return nil }
    return ask(found, config: config, environment: environment) { tokens in
      DockerCredentialProtocol.answer(address: request.address, api: found.api, token: tokens.accessToken)
    }
  }
}

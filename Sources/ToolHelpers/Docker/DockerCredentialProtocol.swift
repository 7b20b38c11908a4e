// Docker's credential helper protocol (docker-credential-helpers, as the Docker CLI, podman and
// skopeo call `docker-credential-NAME`): the verb is the only argument; `get` and `erase` read
// the registry's address on stdin, `store` a JSON {"ServerURL","Username","Secret"}; `get`
// answers that JSON on stdout, `list` a JSON object of addresses to user names. Every failure is
// its message on stdout and exit 1, and "credentials not found in native keychain" is the one
// message clients read as "no credentials here" (anonymous pulls go on). Values in, text out:
// both binaries answer through these functions.
import StrivacityConfig
import StrivacityCore

public enum DockerVerb: String, Sendable, CaseIterable {
  case get, store, erase, list
}

/// Why a request is not answered, as the protocol says it: `message` goes to stdout (exit 1).
/// No message holds what was read: a registry's address or a secret sent to `store` never
/// reaches the terminal or a log.
public struct DockerCredentialError: Error, Equatable, Sendable {
  public var message: String
  public init(_ message: String) { self.message = message }

  /// The protocol's own "not found": clients go on without credentials.
  public static let notFound = DockerCredentialError("credentials not found in native keychain")
  /// The protocol's message for an empty address.
  public static let missingServerURL = DockerCredentialError("no credentials server URL")
  public static let tooLarge = DockerCredentialError(
    "the request is larger than \(DockerCredentialProtocol.maxInput / 1024) KiB: refused")
  public static let unknownVerb = DockerCredentialError(
    "unknown action: use get, store, erase or list (docker-credential-helpers' protocol)")
  /// `store`: the tokens are strivacity's, renewed by it; nothing given is kept.
  public static let storeRefused = DockerCredentialError(
    "strivacity does not store registry credentials: `get` hands out a fresh token of the registry's API "
      + "each time (run `strivacity setup docker --registry HOST` instead of `docker login`)")
}

public enum DockerCredentialProtocol {
  /// Most bytes read from stdin: an address, or `store`'s small JSON, is far less.
  public static let maxInput = 64 * 1024

  /// Said before a line of ours on stderr, so a person reading docker's output knows whose it is.
  public static let messagePrefix = "docker credential: "

  /// The verb of the command line (`docker-credential-strivacity VERB`): exactly one argument.
  public static func verb(_ arguments: [String]) throws(DockerCredentialError) -> DockerVerb {
    guard arguments.count == 1, let verb = DockerVerb(rawValue: arguments[0]) else { throw .unknownVerb }
    return verb
  }

  /// The address `get` or `erase` read (`input`, all of stdin as read with a limit of
  /// `maxInput` + 1 bytes), admitted as every helper's host is (`HelperRequest`): the address as
  /// the client wrote it (trimmed), and the URL the destination rule compares.
  public static func serverURL(_ input: [UInt8]) throws(DockerCredentialError) -> (address: String, url: String) {
    guard input.count <= maxInput else { throw .tooLarge }
    guard let text = String(validating: input, as: UTF8.self) else {
      throw DockerCredentialError("the registry's address is not UTF-8 text: refused")
    }
    guard text.contains(where: { !$0.isWhitespace }) else { throw .missingServerURL }
    do {
      let url = try HelperRequest.url(admitting: text)
      let address = text.split(whereSeparator: { $0.isWhitespace }).first.map(String.init) ?? ""
      return (address, url)
    } catch {
      throw DockerCredentialError("the registry's address is refused: \(error.description)")
    }
  }

  /// The API whose token answers `url` (the first profile's, in the config's order, whose API
  /// covers all of the URL's host: `API.serving`; Docker sends one credential to every path of
  /// a registry); `.notFound` for a registry of no such API.
  public static func api(for url: String, in profiles: [Profile]) throws(DockerCredentialError) -> (
    profile: Profile, api: API
  ) {
    guard let found = API.serving(url, in: profiles) else { throw .notFound }
    return found
  }

  /// `get`'s answer: the address as asked, the API's user name and the token, one JSON line.
  public static func answer(address: String, api: API, token: BearerToken) -> String {
    "{\"ServerURL\":\(JSONValue.quoted(address)),\"Username\":\(JSONValue.quoted(api.user)),"
      + "\"Secret\":\(JSONValue.quoted(token.value))}\n"
  }

  /// `list`'s answer: every API of every profile that covers a whole host (each an address `get`
  /// answers) with its user name; the first profile's wins for an address two name.
  public static func list(_ profiles: [Profile]) -> String {
    var seen: Set<String> = []
    var pairs: [String] = []
    for api in profiles.flatMap(\.apis) where api.coversWholeHost && seen.insert(api.url.description).inserted {
      pairs.append("\(JSONValue.quoted(api.url.description)):\(JSONValue.quoted(api.user))")
    }
    return "{" + pairs.joined(separator: ",") + "}\n"
  }

  /// What goes to stdout for a failure.
  public static func errorOutput(_ error: DockerCredentialError) -> String { error.message + "\n" }
}

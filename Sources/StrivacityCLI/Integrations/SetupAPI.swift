// `strivacity setup api URL`: an `apis` entry from the API's own protected-resource metadata
// (RFC 9728): its resource identifier, which must be the URL given (§3.3), becomes the entry's
// url and resource, its scopes_supported the scopes (or --scope's). The metadata is used only
// when it names this profile's issuer among its authorization servers.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore

struct SetupAPI: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "api",
    abstract: "Add an API to a profile from its protected-resource metadata (RFC 9728).",
    discussion: """
      Reads URL's metadata (/.well-known/oauth-protected-resource, after the host), checks that \
      it names the profile's tenant as an authorization server and that its resource is URL \
      itself (RFC 9728 §3.3: metadata for a wider or another resource is refused, exit 5, and \
      nothing is written), and writes [profiles.PROFILE.apis.NAME] with url and resource set to \
      URL, and scopes to its scopes_supported (or to --scope's). NAME is --name, else the \
      metadata's resource_name, else the URL's last path segment. `strivacity curl`, git and \
      `token --for` then get the API's own token for URLs under it. With --dry-run the entry is \
      printed, not written; --undo removes the API whose url is URL (or --name's).

      EXAMPLES:
        strivacity setup api https://api.example.com/orders/ --dry-run
        strivacity setup api --profile work --name orders --scope orders:read https://api.example.com/orders/
      """)

  @OptionGroup var global: GlobalOptions

  @Argument(help: ArgumentHelp("The API's URL (its resource identifier).", valueName: "url"))
  var url: String

  @Option(help: ArgumentHelp("The API's name in the config (default: from the metadata).", valueName: "name"))
  var name: String?

  @Option(
    name: .customLong("scope"),
    help: ArgumentHelp("A scope its tokens carry (repeatable; default: the metadata's).", valueName: "scope"))
  var scopes: [String] = []

  @OptionGroup var change: SetupChange

  func validate() throws {
    if let name {
      do { _ = try API.admitName(name) } catch { throw ValidationError("--name: \(error.description)") }
    }
    for scope in scopes {
      do { _ = try Admit.scopeToken(scope) } catch { throw ValidationError("--scope \(error.description)") }
    }
    guard (try? HostEntry(admitting: url)) != nil, url.contains("://") else {
      throw ValidationError("the URL must be https:// (http only on loopback), without user info, query or fragment")
    }
  }

  func run() throws {
    let context = global.context()
    if change.undo {
      let profile = try context.configuredProfile(global).profile
      let entry = try? HostEntry(admitting: url)
      guard let api = profile.apis.first(where: { name.map($0.name.elementsEqual) ?? ($0.url == entry) }) else {
        throw CLIFailure("profile \(profile.name) has no API \(name ?? "with url \(url)")", status: .usage)
      }
      try change.remove(context, table: ["profiles", profile.name, "apis", api.name], keys: nil)
      change.note("API \(api.name) removed from profile \(profile.name) (\(context.paths.config))")
      return
    }
    let session = try TokenBroker.configured(context: context, options: global)
    guard let metadataURL = ResourceMetadata.wellKnownURL(for: url) else {
      throw CLIFailure("no metadata URL can be made from \(url)", status: .usage)
    }
    let metadata: ResourceMetadata
    do {
      metadata = try session.resourceMetadata(metadataURL, for: url)
    } catch let error as AdmissionError {
      throw CLIFailure("the API's metadata at \(metadataURL) was refused: \(error.description)", status: .server)
    }
    // §3.3: the resource is the identifier the metadata URL was made from, not one above it
    // (an entry for all of https://h/ from https://h/orders/'s metadata).
    guard metadata.resource == url else {
      throw CLIFailure(
        "the API's metadata at \(metadataURL) names resource \(metadata.resource), not the URL given "
          + "(\(url)): RFC 9728 wants them identical; nothing written", status: .server)
    }
    guard let apiName = name ?? metadata.name ?? Self.lastSegment(metadata.resource) else {
      throw CLIFailure("the metadata gives no usable name: give one with --name", status: .usage)
    }
    let chosen = scopes.isEmpty ? metadata.scopesSupported.map(\.value) : scopes
    let settings: [(key: String, value: ConfigValue)] = [
      ("url", .string(metadata.resource)), ("resource", .strings([metadata.resource])), ("scopes", .strings(chosen)),
    ]
    let table = ["profiles", session.name, "apis", apiName]
    try change.config(context, table: table, settings)
    guard !change.dryRun else { return }
    Console.note(
      "API \(apiName) added to profile \(session.name): url = \(metadata.resource) (\(context.paths.config))")
    Console.note(session.signInNeeded(forResource: metadata.resource, scopes: chosen, apiName: apiName))
  }

  /// The resource's last path segment when it is a usable name (`orders` of `…/orders/`).
  static func lastSegment(_ resource: String) -> String? {
    let segment = resource.split(separator: "/").last.map(String.init) ?? ""
    return !segment.contains(":") && TokenSlot(apiName: segment) != nil && segment.count <= 64 ? segment : nil
  }
}

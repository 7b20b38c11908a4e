// What `strivacity doctor` reads in Docker's config.json and containers' auth.json files, as
// pure functions over their bytes. Docker takes a registry's `credHelpers` entry before its
// `credsStore` and its `auths`, so in Docker's file nothing shadows strivacity's entry. Podman,
// skopeo and buildah read several files in turn (their primary one first: $REGISTRY_AUTH_FILE,
// else $XDG_RUNTIME_DIR/containers/auth.json, where `podman login` saves), and use the first
// that has a `credHelpers` entry or an `auths` entry for the registry: a saved login in an
// earlier file shadows strivacity's entry in a later one.
import StrivacityCore

public enum DockerExamination {
  /// One file as Docker and containers read it.
  public struct File: Sendable, Equatable {
    /// The registries whose `credHelpers` entry names `helper`, in the file's order.
    public var routed: [String] = []
    /// Every registry with a `credHelpers` entry (any helper's).
    public var helpers: [String: String] = [:]
    /// The registries (host[:port], lowercased) an `auths` key names, with the keys themselves.
    public var saved: [(registry: String, key: String)] = []

    public static func == (a: File, b: File) -> Bool {
      a.routed == b.routed && a.helpers == b.helpers && a.saved.map(\.key) == b.saved.map(\.key)
    }
  }

  /// Why a file is not read: it is not a JSON object, or its credHelpers is not one.
  public enum Unreadable: Error, Sendable, Equatable, CustomStringConvertible {
    case notAnObject, credHelpersNotAnObject
    public var description: String {
      switch self {
      case .notAnObject: return "is not a JSON object"
      case .credHelpersNotAnObject: return "has a credHelpers that is not a JSON object"
      }
    }
  }

  /// The file's bytes read (blank: an empty file, as both tools take it). `legacy`: ~/.dockercfg,
  /// whose top level is the `auths` object itself.
  public static func read(_ bytes: [UInt8], helper: String, legacy: Bool = false) throws(Unreadable) -> File {
    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return File() }
    guard case .object(let document)? = JSONValue.parse(bytes) else { throw .notAnObject }
    var file = File()
    if !legacy, let helpers = document["credHelpers"] {
      guard case .object(let entries) = helpers else { throw .credHelpersNotAnObject }
      for (registry, value) in entries.sorted(by: { $0.key < $1.key }) {
        guard let name = value.string else { continue }
        file.helpers[registry] = name
        if name == helper { file.routed.append(registry) }
      }
    }
    let auths = legacy ? document : document["auths"]?.object ?? [:]
    file.saved = auths.keys.sorted().map { (registry(ofAuthKey: $0), $0) }
    return file
  }

  /// Docker's config.json, and every file podman and skopeo read, in their order (Docker's among
  /// them); a variable that is not an absolute path is taken as unset.
  public static func files(_ environment: [String: String]) -> (docker: String, containers: [String]) {
    func variable(_ name: String) -> String? { environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil } }
    let home = variable("HOME") ?? ""
    let docker = (variable("DOCKER_CONFIG") ?? home + "/.docker") + "/config.json"
    let primary = variable("REGISTRY_AUTH_FILE") ?? variable("XDG_RUNTIME_DIR").map { $0 + "/containers/auth.json" }
    let configured = (variable("XDG_CONFIG_HOME") ?? home + "/.config") + "/containers/auth.json"
    var files: [String] = []
    for path in [primary, configured, docker, home + "/.dockercfg"] {
      if let path, !files.contains(path) { files.append(path) }
    }
    return (docker, files)
  }

  /// The registry an `auths` key is for: its host[:port], lowercased, without a scheme or a
  /// path (`https://index.docker.io/v1/` is docker.io's, as containers reads it).
  public static func registry(ofAuthKey key: String) -> String {
    var rest = Substring(key)
    for scheme in ["https://", "http://"] where rest.lowercased().hasPrefix(scheme) {
      rest = rest.dropFirst(scheme.count)
    }
    let host = rest.split(separator: "/", maxSplits: 1).first.map { $0.lowercased() } ?? ""
    return host == "index.docker.io" || host == "registry-1.docker.io" ? "docker.io" : host
  }

  /// What podman and skopeo use for `registry` instead of strivacity's `credHelpers` entry in
  /// `files[routedIn]` (nil: a file not there): the first earlier file, in containers' order,
  /// with an entry for it, what that entry is, and whether it is a saved login (else another
  /// helper); nil when none has one.
  public static func shadowing(_ registry: String, routedIn: Int, files: [File?]) -> (
    file: Int, entry: String, saved: Bool
  )? {
    let wanted = registry.lowercased()
    for (index, file) in files.prefix(routedIn).enumerated() {
      guard let file else { continue }
      if let entry = file.helpers.first(where: { $0.key.lowercased() == wanted }) {
        if file.routed.contains(entry.key) { return nil }
        return (index, "credHelpers \"\(entry.key)\": \"\(entry.value)\"", false)
      }
      let keys = file.saved.filter { $0.registry == wanted }.map { "\"\($0.key)\"" }
      if !keys.isEmpty { return (index, "a saved login (auths \(keys.joined(separator: ", ")))", true) }
    }
    return nil
  }
}

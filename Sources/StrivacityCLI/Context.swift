// The composition root: environment, paths, config file and the chosen store for one run.
import CurlTransport
import Glibc
import SecretStore
import StrivacityCore

final class Context {
  let environment: [String: String]
  let paths: Paths
  private var loadedConfig: Config??

  init(environment: [String: String] = Context.processEnvironment(), configPath: String? = nil) {
    var environment = environment
    if let configPath { environment["STRIVACITY_CONFIG"] = configPath }
    self.environment = environment
    paths = Paths(environment: environment)
  }

  /// The config file, or nil when it does not exist. Warnings are printed once.
  func config(warn: Bool = true) throws(ConfigError) -> Config? {
    if let loadedConfig { return loadedConfig }
    let config = try readConfig(warn: warn) { text, path throws(ConfigError) in try Config.parse(text, path: path) }
    loadedConfig = .some(config)
    return config
  }

  /// Only what one profile needs (`name`, else the default one): the other profiles' tables
  /// are not parsed, so `token` costs the same among thousands of profiles. Not cached.
  func config(onlyProfile name: String?, warn: Bool = true) throws(ConfigError) -> Config? {
    if let loadedConfig { return loadedConfig }
    return try readConfig(warn: warn) { text, path throws(ConfigError) in try Config.parse(text, path: path, onlyProfile: name) }
  }

  private func readConfig(
    warn: Bool = true, _ parse: (String, String) throws(ConfigError) -> Config
  ) throws(ConfigError) -> Config? {
    switch readFile(paths.config) {
    case .missing:
      return nil
    case .failed(let detail):
      throw .unreadable(path: paths.config, detail: detail)
    case .contents(let bytes):
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw .unreadable(path: paths.config, detail: "not UTF-8 text")
      }
      let config = try parse(text, paths.config)
      if warn { for warning in config.warnings { Console.warning(warning.description) } }
      return config
    }
  }

  /// Profile names from the config file, for shell completion (nothing on any error).
  func profileNames() -> [String] {
    ((try? config())??.profiles.map(\.name)) ?? []
  }

  func resolveProfile(_ options: GlobalOptions) throws(ConfigError) -> ResolvedProfile {
    try ResolvedProfile.resolve(config: config(), overrides: options.overrides, environment: environment)
  }

  /// An HTTP client with the user's timeouts: STRIVACITY_TIMEOUT seconds per request (30 by
  /// default, 0.1 to 3600), connecting within a third of that (at most 10 s).
  func httpClient() throws -> CurlHTTPClient {
    var options = CurlHTTPClient.Options()
    options.userAgent = "strivacity/\(strivacityVersion)"
    if let text = environment["STRIVACITY_TIMEOUT"], !text.isEmpty {
      let seconds: Double
      do {
        seconds = try Admit.seconds(text, in: 0.1...3600, what: "STRIVACITY_TIMEOUT")
      } catch {
        throw CLIFailure(error.description, status: .usage)
      }
      options.totalTimeout = seconds
      options.connectTimeout = min(10, max(0.1, seconds / 3))
    }
    return CurlHTTPClient(options: options)
  }

  /// The chosen store; the keyring bounded by STRIVACITY_KEYRING_TIMEOUT seconds per operation
  /// (5 by default, 0.1 to 600), and mirrored into the access-token cache.
  func store(for kind: StoreKind) throws -> TokenStore {
    switch kind {
    case .secretService:
      var keyring = SecretServiceStore()
      if let text = environment["STRIVACITY_KEYRING_TIMEOUT"], !text.isEmpty {
        do {
          keyring = SecretServiceStore(timeout: try Admit.seconds(text, in: 0.1...600, what: "STRIVACITY_KEYRING_TIMEOUT"))
        } catch {
          throw CLIFailure(error.description, status: .usage)
        }
      }
      // The access-token cache `token` starts from (KernelTokenCache); STRIVACITY_TOKEN_CACHE=off.
      return KernelTokenCache.enabled(environment) ? CachingSecretServiceStore(keyring) { ProfileSession.now() } : keyring
    case .file: return FileStore(stateDirectory: paths.stateDir)
    }
  }

  /// Writes `settings` into the profile's table of the config file, atomically.
  func updateConfig(profile: String, settings: [(key: String, value: ConfigValue)]) throws {
    let path = paths.config
    var text = ""
    switch readFile(path) {
    case .contents(let bytes): text = String(decoding: bytes, as: UTF8.self)
    case .missing: break
    case .failed(let detail): throw ConfigError.unreadable(path: path, detail: detail)
    }
    let updated = try ConfigWriter.update(text, profile: profile, settings: settings, path: path)
    do {
      try PrivateFiles.writeAtomically(Array(updated.utf8), to: path, mode: 0o644)
    } catch {
      throw CLIFailure("cannot write the config file: \(error)", status: .failure)
    }
    loadedConfig = nil
  }

  static func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
      let pair = String(cString: entry)
      if let eq = pair.firstIndex(of: "=") {
        result[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
      }
      pointer += 1
    }
    return result
  }
}

enum FileRead {
  case contents([UInt8])
  case missing
  case failed(String)
}

/// Reads a whole (small) file.
func readFile(_ path: String, limit: Int = 1_048_576) -> FileRead {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  if fd < 0 { return errno == ENOENT ? .missing : .failed(String(cString: strerror(errno))) }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 16_384)
  while true {
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    if n < 0 { return .failed(String(cString: strerror(errno))) }
    if n == 0 { return .contents(bytes) }
    bytes.append(contentsOf: chunk[0..<n])
    if bytes.count > limit { return .failed("larger than \(limit / 1024) KiB") }
  }
}

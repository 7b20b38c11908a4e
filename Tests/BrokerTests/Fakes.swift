// What a broker reaches outside itself through, replaced in-process (Context.stores, .secrets,
// .transport, .now): a tenant that answers from a script, stores in memory, a clock that stands
// still.
import Broker
import Foundation
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore
import Synchronization

/// A tenant at `base`: its discovery document, and a token endpoint that answers with `answer`.
/// Every request is recorded, in order.
final class FakeTenant: HTTPClient, @unchecked Sendable {
  let base: String
  private let lock = NSLock()
  private var log: [HTTPRequest] = []
  /// The token endpoint's answer to a request (its form fields).
  var answer: ([String: String]) -> HTTPResponse
  /// The discovery document's status (404: it is gone).
  var discoveryStatus = 200
  /// Answers slowly (seconds), so that concurrent callers overlap.
  var delay: Double = 0
  /// Other URLs' answers (an API's metadata); 404 for any not here.
  var pages: [String: HTTPResponse] = [:]
  /// What the client sends of its own accord (a proxy's password), as CurlHTTPClient says it.
  var sentSecrets: [String] = []

  init(base: String = "https://tenant.example", answer: @escaping ([String: String]) -> HTTPResponse) {
    self.base = base
    self.answer = answer
  }

  var tokenEndpoint: String { base + "/oauth2/token" }

  var requests: [HTTPRequest] { lock.withLock { log } }
  /// The form fields of each request to the token endpoint.
  var tokenRequests: [[String: String]] {
    requests.filter { $0.url == tokenEndpoint }.map { Self.form($0.body ?? []) }
  }

  func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
    lock.withLock { log.append(request) }
    if delay > 0 { Thread.sleep(forTimeInterval: delay) }
    if request.url == base + "/.well-known/openid-configuration" {
      guard discoveryStatus == 200 else { return HTTPResponse(status: discoveryStatus) }
      return Self.json([
        "issuer": .string(base), "authorization_endpoint": .string(base + "/oauth2/auth"),
        "token_endpoint": .string(tokenEndpoint), "revocation_endpoint": .string(base + "/oauth2/revoke"),
        "jwks_uri": .string(base + "/.well-known/jwks.json"),
      ])
    }
    if request.url == tokenEndpoint { return answer(Self.form(request.body ?? [])) }
    return lock.withLock { pages[request.url] } ?? HTTPResponse(status: 404)
  }

  static func json(_ object: [String: JSONValue], status: Int = 200) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: [HTTPHeader("Content-Type", "application/json")],
      body: JSONValue.object(object).serialized())
  }

  /// A token response: `access` living `lifetime` seconds, with `refresh` if given.
  static func tokens(_ access: String, lifetime: Int = 3600, refresh: String? = nil, scope: String? = nil)
    -> HTTPResponse
  {
    var object: [String: JSONValue] = [
      "access_token": .string(access), "token_type": "Bearer", "expires_in": .number(Double(lifetime)),
    ]
    if let refresh { object["refresh_token"] = .string(refresh) }
    if let scope { object["scope"] = .string(scope) }
    return json(object)
  }

  static func error(_ code: String, status: Int = 400) -> HTTPResponse {
    json(["error": .string(code)], status: status)
  }

  static func form(_ body: [UInt8]) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1).map {
        String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
      }
      fields[parts[0]] = parts.count > 1 ? parts[1] : ""
    }
    return fields
  }
}

/// Token sets in memory, one table for every kind of store.
final class MemoryStore: TokenStore, @unchecked Sendable {
  private let lock = NSLock()
  private var items: [StoreKey: TokenSet] = [:]
  let kind: StoreKind

  init(kind: StoreKind = .secretService) { self.kind = kind }

  func load(_ key: StoreKey) throws(StoreError) -> TokenSet? { lock.withLock { items[key] } }
  func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) { lock.withLock { items[key] = tokens } }
  @discardableResult func delete(profile: String) throws(StoreError) -> Bool {
    lock.withLock {
      let doomed = items.keys.filter { $0.profile == profile }
      doomed.forEach { items[$0] = nil }
      return !doomed.isEmpty
    }
  }
  func keys() throws(StoreError) -> [StoreKey] { lock.withLock { Array(items.keys) } }
}

/// Kept secrets in memory, one table for every kind of store.
final class MemorySecretStore: SecretItemStore, @unchecked Sendable {
  private let lock = NSLock()
  private var items: [SecretKey: [UInt8]] = [:]

  func load(_ key: SecretKey) throws(StoreError) -> [UInt8]? { lock.withLock { items[key] } }
  func contains(_ key: SecretKey) throws(StoreError) -> Bool { lock.withLock { items[key] != nil } }
  func save(_ value: [UInt8], for key: SecretKey) throws(StoreError) { lock.withLock { items[key] = value } }
  @discardableResult func delete(profile: String) throws(StoreError) -> Bool {
    lock.withLock {
      let doomed = items.keys.filter { $0.profile == profile }
      doomed.forEach { items[$0] = nil }
      return !doomed.isEmpty
    }
  }
  /// Every kept secret's key.
  var keys: [SecretKey] { lock.withLock { Array(items.keys) } }
}

/// One profile's broker with its edges replaced: a config written to a temporary directory, the
/// runtime directory there too (the refresh lock), `tenant` for the network, `store` for every
/// store, `secrets` for every kept secret, the clock at `now`.
final class Bench {
  let directory: String
  let tenant: FakeTenant
  let store = MemoryStore()
  let secrets = MemorySecretStore()
  var now: Int64 = 1_800_000_000
  var environment: [String: String]

  init(profile config: String, tenant: FakeTenant, environment: [String: String] = [:]) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("broker-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory + "/run", withIntermediateDirectories: true)
    try config.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
    self.tenant = tenant
    self.environment = environment.merging([
      "XDG_RUNTIME_DIR": directory + "/run", "XDG_STATE_HOME": directory + "/state",
      "XDG_CONFIG_HOME": directory + "/config", "STRIVACITY_CONFIG": directory + "/config.toml",
    ]) { given, _ in given }
  }

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  /// A command's context, its edges replaced.
  func context() -> Context {
    let context = Context(environment: environment, isProcessEnvironment: false)
    context.stores = { [store] _ in store }
    context.secrets = { [secrets] _ in secrets }
    context.transport = { [tenant] in tenant }
    context.now = { [unowned self] in now }
    return context
  }

  /// A broker for `profile`, as a command makes one.
  func broker(_ profile: String? = nil) throws -> TokenBroker {
    try TokenBroker(context: context(), overrides: ProfileOverrides(profile: profile), log: Log(verbose: false))
  }

  /// Stores `tokens` as the sign-in's set of `broker`'s profile.
  func signedIn(_ tokens: TokenSet, _ profile: String? = nil) throws {
    let broker = try broker(profile)
    try store.save(tokens, for: broker.key)
  }
}

/// A person's profile at the fake tenant.
let personProfile = """
  [profiles.work]
  tenant = "https://tenant.example"
  client_id = "cli"

  [profiles.work.apis.orders]
  url = "https://api.example.com/orders/"
  resource = ["https://api.example.com/orders/"]
  scopes = ["orders:read"]

  """

/// A machine profile at the fake tenant, its secret in CI_SECRET.
let machineProfile = """
  [profiles.ci]
  tenant = "https://tenant.example"
  client_id = "ci-bot"
  grant = "client_credentials"
  client_secret_env = "CI_SECRET"

  """

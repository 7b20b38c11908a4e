// A machine profile at work (issue 28, `grant = "client_credentials"`): its tokens come from the
// client-credentials grant (RFC 6749 §4.4), the client proving itself with its secret (Basic or
// in the body) or a signed assertion (`private_key_jwt`, RFC 7523). No refresh token, no ID
// token, no person: a token due for renewal is asked for anew, once however many processes ask
// (the profile's RefreshLock), and kept in the kernel's keyring (MachineTokenStore) or a chosen
// file. The secret is read when a request needs it (from the environment at the session's start,
// which takes it out of the environment), never shown, and the process is not dumpable from the
// moment it holds one.
import Agent
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore
import SystemIO

extension TokenBroker {
  /// No core file, no ptrace, and /proc/PID/environ and mem closed to the user's other
  /// processes, from the moment a secret is held to the process's end.
  package static func holdSecrets() { _ = AgentSocket.makeUndumpable() }

  /// Where `login --client-secret-stdin` keeps a secret, beside the profile's tokens: a kept
  /// secret (SecretItemStore), an item no token slot or API name can be.
  package var secretKey: SecretKey { SecretKey(key, .clientSecret) }

  /// The client authentication it uses: as configured; else the first of Basic and Post that
  /// the tenant's discovery lists.
  package var machineAuthMethod: TokenEndpointAuth {
    TokenEndpointAuth.chosen(
      configured: resolved.profile.machine?.auth,
      discovered: resolved.profile.machine?.auth == nil
        ? (try? tenantClient.discovery())?.tokenEndpointAuthMethods : nil)
  }

  /// The client's proof for one request to the tenant (token or revocation endpoint): a new
  /// assertion each time, for `private_key_jwt`, its audience the token endpoint.
  package func machineClient(tokenEndpoint: String) throws -> ClientAuthentication {
    switch machineAuthMethod {
    case .clientSecretBasic: return .clientSecretBasic(clientID: clientID, secret: try clientSecret())
    case .clientSecretPost: return .clientSecretPost(clientID: clientID, secret: try clientSecret())
    case .privateKeyJWT:
      do {
        let assertion = try ClientAssertion.make(
          clientID: clientID, tokenEndpoint: tokenEndpoint, key: try signingKey(), keyID: assertionKeyID,
          now: now())
        return .privateKeyJWT(clientID: clientID, assertion: assertion)
      } catch let failure as CLIFailure {
        throw failure
      } catch {
        throw CLIFailure("private_key_file: \(error)", status: .usage)
      }
    }
  }

  /// What a `private_key_jwt` profile's assertions name the key by: `private_key_id`, else the
  /// key's thumbprint.
  package var assertionKeyID: ClientAssertion.KeyID { .init(configured: resolved.profile.machine?.privateKeyID) }

  /// The private key of a `private_key_jwt` profile, read as a secret; a missing, open or
  /// unusable file is a configuration error naming it.
  package func signingKey() throws -> ClientAssertion.SigningKey {
    guard let path = resolved.profile.machine?.privateKeyFile else {
      throw CLIFailure(
        "profile \(name) has token_endpoint_auth = \"private_key_jwt\" but no private_key_file", status: .usage)
    }
    Self.holdSecrets()
    do {
      return try ClientAssertion.SigningKey(pem: try SecretFile.readPrivateKey(path, environment: context.environment))
    } catch {
      let message =
        error.description.hasPrefix("private_key_file")
        ? error.description : "private_key_file \(path): \(error.description)"
      throw CLIFailure(message, status: .usage)
    }
  }

  /// The client secret from its source; a missing or unusable one is a configuration error
  /// naming the source, never showing the secret.
  package func clientSecret() throws -> ClientSecret {
    Self.holdSecrets()
    switch secretSource {
    case .environment(let variable)?:
      guard let held = heldSecret, !held.isEmpty else {
        throw CLIFailure(
          "profile \(name) takes its client secret from the environment variable \(variable), which is not set",
          status: .usage)
      }
      return try admitSecret(held, from: "the environment variable \(variable)")
    case .file(let path)?:
      do {
        return try SecretFile.read(path, environment: context.environment)
      } catch {
        throw CLIFailure(error.description, status: .usage)
      }
    case .keyring?:
      if let held = heldSecret { return try admitSecret(held, from: "standard input") }
      guard let stored = try storedSecret() else {
        throw CLIFailure(
          "profile \(name) has no client secret: set \(SecretSource.defaultVariable), or client_secret_env or "
            + "client_secret_file in its config, or store one: "
            + "strivacity login --profile \(name) --client-secret-stdin",
          status: .usage)
      }
      return stored
    case nil:
      throw CLIFailure("profile \(name) signs with its private key and has no client secret", status: .usage)
    }
  }

  private func admitSecret(_ text: String, from source: String) throws -> ClientSecret {
    do {
      return try ClientSecret(admitting: text)
    } catch {
      throw CLIFailure("the client secret from \(source): \(error.description)", status: .usage)
    }
  }

  // MARK: a stored secret

  /// Where a secret given to `login --client-secret-stdin` is kept (and `setup-proxy`'s
  /// password): with `store = "file"`, files of their own (so that deleting the profile's tokens,
  /// as revoke does, leaves them), else the keyring.
  package func secretStore() throws -> SecretItemStore { try context.secretStore(for: resolved.store) }

  /// The stored secret (admitted again as it is read).
  package func storedSecret() throws -> ClientSecret? {
    guard var bytes = try secretStore().load(secretKey) else { return nil }
    defer { bytes.wipe() }
    guard let text = String(validating: bytes, as: UTF8.self), let secret = try? ClientSecret(admitting: text) else {
      throw CLIFailure(
        "the client secret stored for \(name) does not read: store it again with strivacity login --profile \(name) "
          + "--client-secret-stdin", status: .store)
    }
    return secret
  }

  package func storeSecret(_ secret: ClientSecret) throws {
    var bytes = Array(secret.value.utf8)
    defer { bytes.wipe() }
    try secretStore().save(bytes, for: secretKey)
  }

  // MARK: tokens

  /// The profile's own token (`ask` nil: its `scopes`), or one for an API, with at least
  /// `freshness` left: the one kept, else a new one; one request however many processes ask.
  package func machineTokens(_ ask: APIAsk?, _ freshness: Freshness) throws -> TokenSet {
    if asksAgent, !freshness.force,
      let tokens = try agentTokens(freshness, idToken: false, target: ask?.wire ?? .signIn)
    {
      return tokens
    }
    let slotKey = ask.map { key(for: $0.slot) } ?? key
    func serves(_ kept: TokenSet) -> Bool {
      ask?.serves(kept, freshness, now: now()) ?? !kept.needsRefresh(now: now(), freshness)
    }
    if !freshness.force, let kept = try store.load(slotKey), serves(kept) { return kept }
    let lock = try RefreshLock(directory: context.paths.runtimeDir, profile: name, timeout: 45)
    defer { withExtendedLifetime(lock) {} }
    // Someone may have asked while we waited.
    if !freshness.force, let kept = try store.reload(slotKey), serves(kept) {
      log.note("another process got \(name)'s token\(ask.map { " for \($0.label)" } ?? "")")
      return kept
    }
    let (outcome, method) = try clientCredentialsAnswer(ask)
    let tokens = try machineAnswer(outcome, ask: ask, method: method)
    try store.save(tokens, for: slotKey)
    log.note("got \(name)'s token for \(ask?.label ?? "profile \(name)") by client credentials (\(method))")
    return tokens
  }

  /// One client-credentials request (the profile's scopes, or the API's parameters) and the
  /// tenant's answer, read by `machineAnswer`; with the client authentication it was sent with.
  /// The doctor's try of the client's credentials sends it alone and keeps nothing.
  package func clientCredentialsAnswer(_ ask: APIAsk? = nil) throws -> (TokenEndpointOutcome, ClientAuthentication) {
    let url = try tenantClient.endpoint(\.tokenEndpoint, "token endpoint")
    var request = TokenRequest(grant: .clientCredentials, client: try machineClient(tokenEndpoint: url))
    if let ask {
      request.additionalParameters = ask.target.parameters
    } else if let scopes = resolved.profile.scopes, !scopes.isEmpty {
      request.additionalParameters = [FormParameter("scope", scopes.joined(separator: " "))]
    }
    return (try tenantClient.send(request, to: url), request.client)
  }

  /// The tokens of a client-credentials answer (not kept yet), or why there are none: a refused
  /// secret or key (`.clientRefused`, quoting the tenant's error and naming where the secret came
  /// from), a grant the client may not use, a scope or target refused, trouble.
  package func machineAnswer(
    _ outcome: TokenEndpointOutcome, ask: APIAsk?, method: ClientAuthentication
  ) throws -> TokenSet {
    let label = ask?.label ?? "profile \(name)"
    switch outcome {
    case .tokens(let response):
      if let ask, let mismatch = ask.target.mismatch(accessToken: response.accessToken, responseScope: response.scope) {
        throw CLIFailure("\(ask.label): \(mismatch); it was not kept", status: .server)
      }
      let now = now()
      return TokenSet(
        accessToken: response.accessToken, tokenType: response.tokenType, scope: response.scope,
        expiresAt: response.expiresIn.map { now + $0 }, obtainedAt: now)
    case .clientRefused(let error) where error.code == "invalid_client":
      throw CLIFailure(clientRefusal(error, method: method), status: .clientRefused)
    case .clientRefused(let error):
      throw CLIFailure(
        "the tenant does not let client \(clientID) use the client-credentials grant (\(error)): allow it for the "
          + "client at the tenant", status: .clientRefused)
    case .serverError(let status, nil) where status == 401 || status == 403:
      // No OAuth error at all (glewlwyd answers a wrong secret with a bare 403): for this grant
      // the client is what the tenant can be refusing.
      throw CLIFailure(clientRefusal(nil, method: method, status: status), status: .clientRefused)
    case .serverError(200, let error):
      let reason = error.map { "\($0)" } ?? "HTTP 200"
      throw CLIFailure("the answer for \(label) is unusable: \(reason)", status: outcome.failureStatus)
    case _ where outcome.isTransient:
      throw CLIFailure(
        "a token for \(label) failed with HTTP \(outcome.status); try again later", status: outcome.failureStatus)
    case _ where outcome.error != nil:
      let target = ask?.target
      var parameter = ""
      switch outcome.error!.code {
      case "invalid_target":
        parameter =
          target.map {
            " (\($0.audience.map { "audience \($0)" } ?? "resource \($0.resources.joined(separator: " "))"))"
          } ?? ""
      case "invalid_scope", "invalid_grant":
        let scopes = target.map { $0.scopes.map(\.value) } ?? resolved.profile.scopes ?? []
        parameter = scopes.isEmpty ? "" : " (scope \(scopes.joined(separator: " ")))"
      default: break
      }
      throw CLIFailure(
        "the tenant refused a token for \(label)\(parameter) to client \(clientID): \(outcome.error!)",
        status: outcome.failureStatus)
    default:
      throw CLIFailure("a token for \(label) failed with HTTP \(outcome.status)", status: outcome.failureStatus)
    }
  }

  /// "the tenant refused the client secret", naming where the secret came from (never itself).
  private func clientRefusal(_ error: OAuthError?, method: ClientAuthentication, status: Int = 401) -> String {
    let why =
      error.map { " (\($0))" }
      ?? " (HTTP \(status) without an OAuth error: a wrong secret, or a grant or scope this client may not have)"
    if case .privateKeyJWT = method {
      let path = resolved.profile.machine?.privateKeyFile ?? ""
      let kid = (try? signingKey()).flatMap { assertionKeyID.value(for: $0) }.map { " with kid \($0)" } ?? ""
      return "the tenant refused the client's key assertion for \(clientID)\(why): check that \(path) is the key "
        + "registered for the client\(kid) (strivacity status --profile \(name) --jwk prints it)"
    }
    let source = secretSource.map { "\($0)" } ?? "its source"
    return "the tenant refused the client secret for \(clientID)\(why), sent as \(method): check the secret in "
      + "\(source)"
  }
}

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
      } catch let failure as BrokerError {
        throw failure
      } catch {
        throw BrokerError.configuration("private_key_file: \(error)")
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
      throw BrokerError.configuration(
        "profile \(name) has token_endpoint_auth = \"private_key_jwt\" but no private_key_file")
    }
    Self.holdSecrets()
    do {
      return try ClientAssertion.SigningKey(pem: try SecretFile.readPrivateKey(path, environment: context.environment))
    } catch {
      let message =
        error.description.hasPrefix("private_key_file")
        ? error.description : "private_key_file \(path): \(error.description)"
      throw BrokerError.configuration(message)
    }
  }

  /// The client secret from its source; a missing or unusable one is a configuration error
  /// naming the source, never showing the secret.
  package func clientSecret() throws -> ClientSecret {
    Self.holdSecrets()
    switch secretSource {
    case .environment(let variable)?:
      guard let held = heldSecret, !held.isEmpty else {
        throw BrokerError.configuration(
          "profile \(name) takes its client secret from the environment variable \(variable), which is not set")
      }
      return try admitSecret(held, from: "the environment variable \(variable)")
    case .file(let path)?:
      do {
        return try SecretFile.read(path, environment: context.environment)
      } catch {
        throw BrokerError.configuration(error.description)
      }
    case .keyring?:
      if let held = heldSecret { return try admitSecret(held, from: "standard input") }
      guard let stored = try storedSecret() else {
        throw BrokerError.configuration(
          "profile \(name) has no client secret: set \(SecretSource.defaultVariable), or client_secret_env or "
            + "client_secret_file in its config, or store one: strivacity login --profile \(name) --client-secret-stdin"
        )
      }
      return stored
    case nil:
      throw BrokerError.configuration("profile \(name) signs with its private key and has no client secret")
    }
  }

  private func admitSecret(_ text: String, from source: String) throws -> ClientSecret {
    do {
      return try ClientSecret(admitting: text)
    } catch {
      throw BrokerError.configuration("the client secret from \(source): \(error.description)")
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
      throw BrokerError.storedSecretUnreadable(profile: name)
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
    try keptOrRenewed(ask, freshness) {
      let (outcome, method) = try clientCredentialsAnswer(ask)
      let tokens = try machineAnswer(outcome, ask: ask, method: method)
      try store.save(tokens, for: ask.map { key(for: $0.slot) } ?? key)
      log.note("got \(name)'s token for \(ask?.label ?? "profile \(name)") by client credentials (\(method))")
      return tokens
    }
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
    guard case .tokens(let response) = outcome else {
      let asked = ask?.target.narrowed ?? EndpointAsk.Narrowed(scopes: resolved.profile.scopes ?? [])
      throw BrokerError(
        outcome,
        asking: .client(label: ask?.label ?? "profile \(name)", clientID: clientID, asked, proof: clientProof(method)))
    }
    if let ask, let mismatch = ask.target.mismatch(accessToken: response.accessToken, responseScope: response.scope) {
      throw BrokerError.notForTarget(label: ask.label, mismatch: mismatch)
    }
    let now = now()
    return TokenSet(
      accessToken: response.accessToken, tokenType: response.tokenType, scope: response.scope,
      expiresAt: response.expiresIn.map { now + $0 }, obtainedAt: now)
  }

  /// How the client proved itself, as a refusal names it: where the secret came from (never
  /// itself), or the key and its kid.
  private func clientProof(_ method: ClientAuthentication) -> ClientProof {
    if case .privateKeyJWT = method {
      let kid = (try? signingKey()).flatMap { assertionKeyID.value(for: $0) }
      return .key(path: resolved.profile.machine?.privateKeyFile ?? "", keyID: kid, profile: name)
    }
    return .secret(method: "\(method)", source: secretSource.map { "\($0)" } ?? "its source")
  }
}

/// A machine's tokens, asked anew with the client's own proof each time one is due (no refresh
/// token, no person to sign in).
struct ClientCredentialsRenewer: Renewer {
  func tokens(_ broker: TokenBroker, _ freshness: Freshness, idToken: Bool) throws -> TokenSet {
    try broker.machineTokens(nil, freshness)
  }
  func apiTokens(_ broker: TokenBroker, _ ask: TokenBroker.APIAsk, _ freshness: Freshness) throws -> TokenSet {
    try broker.machineTokens(ask, freshness)
  }
  func revocationClient(_ broker: TokenBroker) throws -> ClientAuthentication {
    try broker.machineClient(tokenEndpoint: try broker.tenantClient.endpoint(\.tokenEndpoint, "token endpoint"))
  }
  func signInNeeded(_ broker: TokenBroker, resource: String, scopes: [String], apiName: String) -> String {
    "no sign-in needed: a machine profile asks for its tokens with its own credentials"
  }
}

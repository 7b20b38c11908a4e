// `strivacity doctor`'s try of the credentials, its `credentials` row (the rest of doctor is in
// StrivacityCLI/Doctor/). Nothing prompts: the keyring is asked under a short bound, never unlocked.
import OAuthCore
import SecretStore
import StrivacityConfig
import StrivacityCore

extension TokenBroker {
  /// A keyring that never prompts, under doctor's short bound (not the user's 5 s).
  package static func quietKeyring() -> SecretServiceStore {
    SecretServiceStore(timeout: 2.0, prompts: KeyringPrompts(bound: 0.1, requestUnlock: false), noticeOnTerminal: false)
  }

  private func row(
    _ outcome: DoctorCheck.Outcome, _ detail: String, fix: String = "", status: ExitStatus = .failure
  ) -> DoctorCheck { DoctorCheck("credentials", outcome, detail, fix: fix, status: status) }

  private static func failure(_ error: any Error, else status: ExitStatus) -> CLIFailure {
    CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: status)
  }

  /// A machine's secret or key, read (never shown), then tried by one client-credentials request
  /// whose token is not kept; not tried, for the reason `untried`, without the tenant's `discovery`.
  package func triedMachineCredentials(discovery: Discovery?, untried: String, progress: (any ProgressIndicator)?)
    -> DoctorCheck
  {
    do {
      let found = try machineProof()
      guard let discovery else { throw row(.skipped, "\(found); not tried: \(untried)") }
      // The document just fetched, so that the try is one request.
      tenantClient.keep(endpoints: discovery.cacheable)
      progress?.start("trying the client's credentials…")
      let answer = Result { try clientCredentialsAnswer() }.mapError { Self.failure($0, else: .failure) }
      progress?.stop()
      // A failure before the tenant answered: the secret or key as read, the network.
      if case .failure(let problem) = answer {
        throw row(
          .fail, "\(found); the request failed: \(problem.message)",
          fix: problem.status == .transient ? "try again later" : "correct what the message names",
          status: problem.status)
      }
      let (outcome, method) = try answer.get()
      do {
        _ = try machineAnswer(outcome, ask: nil, method: method)
      } catch {
        let problem = Self.failure(error, else: .server)
        // The grant refused, as the one outcome reading (BrokerError(_:asking:)) decides it.
        let grant: Bool
        if case .grantRefused? = error as? BrokerError { grant = true } else { grant = false }
        let fix =
          switch problem.status {
          case .clientRefused where grant: "allow the client-credentials grant for client \(clientID) at the tenant"
          case .clientRefused: secretFix()
          case .transient: "try again later"
          default: "see the tenant's error in the message"
          }
        throw row(.fail, problem.message, fix: fix, status: problem.status)
      }
      return row(.pass, "\(found): the tenant gave client \(clientID) a token for it (\(method); the token not kept)")
    } catch {
      return error as? DoctorCheck ?? row(.fail, "\(error)")
    }
  }

  /// How to give the client its right secret or key, by where it comes from.
  private func secretFix() -> String {
    let client = "client \(clientID)'s current secret"
    switch secretSource {
    case .environment(let variable)?: return "set \(variable) to \(client)"
    case .file(let path)?: return "write \(client) to \(path), readable only by you"
    case .keyring?:
      return "keep \(client): strivacity login --profile \(name) --client-secret-stdin "
        + "(or set \(SecretSource.defaultVariable))"
    case nil:
      return "register the key's public JWK for client \(clientID) at the tenant (strivacity status "
        + "--profile \(name) --jwk prints it), or set private_key_file to the registered key"
    }
  }

  /// What proves the client (the secret's source, or the key and its kid), read and there; else
  /// the row saying what was looked for and how to set it.
  private func machineProof() throws -> String {
    let keyed = resolved.profile.machine?.auth == .privateKeyJWT
    if !keyed, case .keyring? = secretSource, resolved.store != .file, heldSecret == nil { return try keptSecret() }
    do {
      guard keyed else {
        _ = try clientSecret()
        return "client secret from \(secretSource.map { "\($0)" } ?? "?") (read, not shown)"
      }
      let key = try signingKey()
      return "private key from \(resolved.profile.machine?.privateKeyFile ?? "") (read, not shown), sent as kid "
        + (assertionKeyID.value(for: key) ?? key.thumbprint)
    } catch {
      let fix = keyed ? "correct private_key_file as the message says" : secretFix()
      throw row(.fail, CLIFailure.describe(error), fix: fix, status: .usage)
    }
  }

  /// No secret from the environment or the config: the one `login --client-secret-stdin` kept,
  /// read only if the keyring gives it without asking anyone; what was looked for said first.
  private func keptSecret() throws -> String {
    let variable = SecretSource.defaultVariable
    let looked = "\(variable) is not set and [profiles.\(name)] names no client_secret_env or client_secret_file"
    let configure =
      "set \(variable) to client \(clientID)'s secret, or name client_secret_env or client_secret_file in "
      + "[profiles.\(name)] of \(context.paths.config)"
    // Looked for without a prompt (the keyring's inspection; the context's when a test replaced them).
    let state: KeyringInspection.ItemState?
    do {
      if context.secrets != nil {
        state = try secretStore().contains(secretKey) ? .present(lockedToUs: false) : .absent
      } else {
        let inspection = try KeyringSecretStore(Self.quietKeyring()).inspect([secretKey])
        if inspection.locked {
          throw row(
            .fail,
            "no client secret from the environment or the config (\(looked)); \(inspection.collection), where "
              + "strivacity login --client-secret-stdin keeps one, is locked (not unlocked here)",
            fix: "unlock it, or \(configure)", status: .keyringLocked)
        }
        state = inspection.items.first ?? nil
      }
    } catch let error as StoreError {
      switch error {
      case .noSessionBus, .noSecretService:
        // No keyring here at all (a CI runner, a container): the secret is simply not given.
        let what = if case .noSessionBus = error { "no D-Bus session bus" } else { "no Secret Service" }
        throw row(
          .fail, "no client secret: \(looked), and no keyring is here to keep one (\(what))", fix: configure,
          status: .usage)
      default:
        let problem = Self.failure(error, else: .store)
        throw row(
          .fail,
          "no client secret from the environment or the config (\(looked)); the keyring, where strivacity login "
            + "--client-secret-stdin keeps one, cannot be looked in: \(problem.message)",
          fix: "\(configure); or make the keyring usable as its message says", status: problem.status)
      }
    } catch let stop as DoctorCheck {
      throw stop
    } catch {
      throw row(.fail, CLIFailure.describe(error), fix: configure, status: .store)
    }
    switch state {
    case .present(lockedToUs: true)?:
      throw row(
        .warn,
        "client secret kept in the keyring, locked to this process (access not allowed yet; not asked); not tried",
        fix: "strivacity token --profile \(name) asks for access")
    case .present?:
      do {
        _ = try clientSecret()
        return "client secret kept in the keyring (read, not shown)"
      } catch {
        let problem = Self.failure(error, else: .store)
        throw row(.fail, problem.message, fix: secretFix(), status: problem.status)
      }
    default:
      throw row(
        .fail, "no client secret: \(looked), and the keyring holds none kept by strivacity login",
        fix: "strivacity login --profile \(name) --client-secret-stdin, or \(configure)", status: .usage)
    }
  }

  /// A person's refresh token (`held`: the set as read), tried by one refresh through the broker's
  /// own path (its lock; the new set stored, the agent told), or why not; a refused one is dead.
  package func triedRefreshToken(
    _ held: Result<TokenSet?, CLIFailure>, discovery: Discovery?, untried: String, progress: (any ProgressIndicator)?
  ) -> DoctorCheck {
    let why: String? =
      switch held {
      case .failure: "the profile's tokens cannot be read"
      case .success(nil): "not signed in"
      case .success(let tokens?) where tokens.refreshToken == nil: "no refresh token is held"
      case .success: discovery == nil ? untried : nil
      }
    if let why { return row(.skipped, "refresh token not tried: \(why)") }
    do {
      // Up to the profile's own time-out: on a terminal, said while it waits.
      progress?.start("trying the refresh token…")
      defer { progress?.stop() }
      let tokens = try freshTokens(Freshness(seconds: 0, explicit: false, force: true))
      let left = tokens.expiresAt.map { "; access token valid for \($0 - now()) s" } ?? ""
      return row(.pass, "the tenant took the refresh token (one refresh; the new tokens are kept\(left))")
    } catch {
      let problem = Self.failure(error, else: .failure)
      let fix =
        switch problem.status {
        case .signInRequired: "sign in again: strivacity login\(profileFlag)"
        case .transient: "try again later"
        default: "see the message"
        }
      return row(.fail, problem.message, fix: fix, status: problem.status)
    }
  }
}

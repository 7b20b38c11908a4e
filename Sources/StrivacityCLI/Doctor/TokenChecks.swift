// doctor's rows for the profile's tokens and each API's (never the tokens themselves), and the
// credentials, tried by the broker (TokenBroker.triedMachineCredentials, triedRefreshToken).
import Broker
import OAuthCore
import SecretStore
import StrivacityCore
import TokenCache

extension Examination {
  // MARK: 9. tokens

  /// `discovery`: the tenant's document as fetched above; nil when the tenant was not reached
  /// or its document is unusable (then the credentials are not tried).
  func tokens(_ session: TokenBroker, _ inspection: KeyringInspection?, _ discovery: Discovery?) {
    if report.failed("store") {
      add("tokens", .skipped, "skipped: the store cannot be used")
      if case .refreshToken = session.renewal { add("credentials", .skipped, "not tried: the store cannot be used") }
      return
    }
    let keys = keys(session)
    if session.renewal.clientProvesItself {
      report.add(session.triedMachineCredentials(discovery: discovery, untried: untried, progress: progress))
    }
    let loaded = keys.enumerated().map { index, key in
      load(session, key, state: inspection.flatMap { index < $0.items.count ? $0.items[index] : nil })
    }
    let now = TokenBroker.now()
    switch loaded[0] {
    case .failure(let problem) where problem.status == .keyringDenied:
      // KeePassXC asks before a process reads an item: a person's matter, not a fault.
      add("tokens", .warn, problem.message, fix: "strivacity status --profile \(session.name) asks for access")
    case .failure(let problem):
      add("tokens", .fail, problem.message, fix: "see the store's message", status: problem.status)
    case .success(nil):
      switch session.renewal {
      case .refreshToken:
        add(
          "tokens", .fail, "not signed in",
          fix: "strivacity login\(session.profileFlag)",
          status: .signInRequired)
      case .clientCredentials:
        add("tokens", .pass, "none kept yet (strivacity token asks for one)")
      }
    case .success(let tokens?):
      let left = tokens.expiresAt.map { $0 - now }
      let lifetime = left.map { $0 > 0 ? " valid for \($0) s" : " expired" } ?? " without an expiry"
      let scopes = tokens.scope.map { "; scopes \($0.value)" } ?? ""
      switch session.renewal {
      case .refreshToken:
        // Renewed by its refresh token: expired without one, only a sign-in helps.
        let refresh = tokens.refreshToken != nil
        let detail =
          "signed in; access token" + lifetime + (refresh ? "; refresh token held" : "; no refresh token") + scopes
        if let left, left <= 0, !refresh {
          add(
            "tokens", .fail, detail,
            fix: "strivacity login\(session.profileFlag)",
            status: .signInRequired)
        } else {
          add("tokens", .pass, detail)
        }
      case .clientCredentials:
        // Asked anew whenever it is due: never a failure.
        add("tokens", .pass, "access token" + lifetime + scopes)
      }
    }
    if case .refreshToken = session.renewal {
      report.add(session.triedRefreshToken(loaded[0], discovery: discovery, untried: untried, progress: progress))
    }
    for (api, result) in zip(session.resolved.profile.apis, loaded.dropFirst()) {
      let id = "api \(api.name)"
      switch result {
      case .failure(let problem): add(id, .warn, problem.message)
      case .success(nil): add(id, .skipped, "no token yet (strivacity token --api \(api.name))")
      case .success(let tokens?):
        var detail =
          tokens.expiresAt.map { $0 > now ? "valid for \($0 - now) s" : "expired (renewed on next use)" }
          ?? "token held"
        if let scope = tokens.scope { detail += "; scopes \(scope.value)" }
        add(id, .pass, detail)
      }
    }
  }

  /// A kept set, read without a prompt: an item the keyring keeps locked to this process
  /// (KeePassXC until access is allowed) is not read.
  /// Why the tenant is not asked when there is no discovery document: not reached, or unusable.
  var untried: String {
    let reached = report.checks.contains { $0.id == "tenant" && $0.outcome == .pass }
    return reached ? "the tenant's discovery document is unusable" : "the tenant cannot be reached"
  }

  func load(_ session: TokenBroker, _ key: StoreKey, state: KeyringInspection.ItemState??) -> Result<
    TokenSet?, CLIFailure
  > {
    do {
      switch session.resolved.store {
      case .file: return .success(try FileStore(stateDirectory: context.paths.stateDir).load(key))
      case .kernel:
        return .success(try MachineTokenStore(key, environment: context.environment) { TokenBroker.now() }.load(key))
      case .secretService:
        switch state {
        case .some(.some(.absent)): return .success(nil)
        case .some(.some(.present(lockedToUs: true))):
          return .failure(
            CLIFailure(
              "the keyring keeps the item locked to this process (access not allowed yet; not asked)",
              status: .keyringDenied))
        default: return .success(try TokenBroker.quietKeyring().load(key))
        }
      }
    } catch {
      return .failure(CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .store))
    }
  }
}

// The one place that turns errors into a message and an exit code (ExitStatus, in the core).
import JourneyCore
import OAuthCore
import StrivacityConfig
import StrivacityCore
import SystemIO

/// An error for people: a one-line message and the exit code.
package struct CLIFailure: Error {
  package var message: String
  package var status: ExitStatus

  package init(_ message: String, status: ExitStatus) {
    self.message = message
    self.status = status
  }

  /// `error` as a person reads it: its message when it is of strivacity's layers, else its
  /// description (never a Swift type's dump).
  package static func describe(_ error: any Error) -> String {
    CLIFailure(recognising: error)?.message ?? "\(error)"
  }

  /// The message and exit code for the errors of strivacity's own layers; nil for others
  /// (ArgumentParser's, which print usage).
  package init?(recognising error: any Error) {
    switch error {
    case let failure as CLIFailure:
      self = failure
    case let error as BrokerError:
      self.init(error.message, status: error.status)
    case let error as ProgramFailure:
      self.init(error.description, status: .failure)
    case let error as ConfigError:
      // A profile that does not exist is a configuration error (2) too, for every command; the
      // message says how to create it. 3 means a configured profile holds no usable tokens.
      self.init(error.description, status: .usage)
    case let error as StoreError:
      switch error {
      case .locked, .lockedNoDesktop, .unlockDeclined: self.init(error.description, status: .keyringLocked)
      case .denied, .promptUnanswered: self.init(error.description, status: .keyringDenied)
      default: self.init(error.description, status: .store)
      }
    case let error as JourneyError:
      switch error {
      case .missingFields: self.init(error.description, status: .usage)
      case .cancelled: self.init(error.description, status: .interrupted)
      case .sessionExpired, .rejected: self.init(error.description, status: .signInRequired)
      case .unexpectedStatus(let status, _):
        self.init(error.description, status: HTTPResponse(status: status).failureStatus)
      case .malformedAnswer: self.init(error.description, status: .server)
      }
    case let error as OAuthError:
      self.init(error.description, status: .server)
    case let error as TransportError:
      switch error {
      case .insecureURL, .invalidURL: self.init(error.description, status: .usage)
      case .invalidHeader: self.init(error.description, status: .server)
      default: self.init(error.description, status: .transient)
      }
    default:
      return nil
    }
  }
}

extension CLIFailure {
  /// A config file strivacity edits (a tool's, its own) that `EditedFile` refused or could not
  /// read or replace: one line naming `path` as the user gave it, why, and what to do. Refusals
  /// are usage errors; a file that changed meanwhile or a failed call, failures.
  package init(editing path: String, _ refusal: EditRefusal) {
    let said = "cannot edit \(path): \(refusal.detail(for: path)); left as it is"
    switch refusal {
    case .othersLink, .linkInSharedDirectory, .linkInOthersDirectory, .othersFile:
      self.init(said + ": name a file of your own, in a directory others cannot write", status: .usage)
    case .notRegularFile:
      self.init(said + ": name a regular file (or a place for one)", status: .usage)
    case .tooManyLinks, .tooLarge:
      self.init(said, status: .usage)
    case .changed:
      self.init(said + ": run this again", status: .failure)
    case .failed:
      self.init(said, status: .failure)
    }
  }
}

extension BrokerError {
  /// The one line people read.
  package var message: String {
    switch self {
    case .notSignedIn(let profile):
      return "not signed in to \(profile): run strivacity login\(ProfileName.flag(profile))"
    case .noRefreshToken(let profile, .forced):
      return "no refresh token is held for \(profile), so it cannot be refreshed: run strivacity login for new tokens"
    case .noRefreshToken(let profile, .expired):
      return "the access token for \(profile) has expired and no refresh token is held: run strivacity login"
    case .noRefreshToken(let profile, .api(let label)):
      return "no refresh token is held for \(profile), so no token for \(label) can be asked for: run strivacity login"
    case .signInNeeded(let reason, let command, _): return "\(reason); run \(command)"
    case .stillRefused(let first): return "\(first.message), even after signing in again asking for it"
    case .refreshRefused(let profile, let error):
      return "the tenant refused the refresh token for \(profile) (\(error)); it was discarded: run strivacity login"
    case .unusableAnswer(.refresh, let error):
      return "the refresh answer is unusable: \(Self.why(error, 200)); stored tokens are unchanged"
    case .unusableAnswer(let ask, let error): return "the answer for \(ask.label) is unusable: \(Self.why(error, 200))"
    case .refused(.refresh, let error, let http):
      return "the refresh failed: \(Self.why(error, http)); stored tokens are unchanged"
    case .refused(let ask, let error, let http):
      let client = if case .client(_, let clientID, _, _, _) = ask { " to client \(clientID)" } else { "" }
      return
        "the tenant refused a token for \(ask.label)\(ask.parameter(error?.code))\(client): \(Self.why(error, http))"
    case .failed(.refresh, let http, _): return "the refresh failed with HTTP \(http); stored tokens are unchanged"
    case .failed(let ask, let http, let transient):
      let later = if case .client = ask { "; try again later" } else { "; stored tokens are unchanged" }
      return "a token for \(ask.label) failed with HTTP \(http)\(transient ? later : "")"
    case .clientRefused(let clientID, let error, let http, let proof):
      let why =
        error.map { " (\($0))" }
        ?? " (HTTP \(http) without an OAuth error: a wrong secret, or a grant or scope this client may not have)"
      switch proof {
      case .key(let path, let keyID, let profile):
        return "the tenant refused the client's key assertion for \(clientID)\(why): check that \(path) is the key "
          + "registered for the client\(keyID.map { " with kid \($0)" } ?? "") (strivacity status --profile \(profile) "
          + "--jwk prints it)"
      case .secret(let method, let source):
        return
          "the tenant refused the client secret for \(clientID)\(why), sent as \(method): check the secret in \(source)"
      }
    case .grantRefused(let clientID, let error):
      return "the tenant does not let client \(clientID) use the client-credentials grant (\(error)): allow it for the "
        + "client at the tenant"
    case .notForTarget(let label, let mismatch): return "\(label): \(mismatch); it was not kept"
    case .agentRefused(let message, _): return message
    case .discoveryFailed(let http): return "the tenant's discovery document failed with HTTP \(http)"
    case .tenantUnusable(let message), .configuration(let message), .system(let message): return message
    case .stepUpNeeded(let whose, let command): return "\(whose) asks for a stronger sign-in: run \(command)"
    case .metadataUnreadable: return "the API's metadata could not be read"
    case .busy(let profile, let seconds):
      return "another strivacity has been refreshing profile \(profile) for over \(seconds) s; try again"
    case .storedSecretUnreadable(let profile):
      return "the client secret stored for \(profile) does not read: store it again with strivacity login --profile "
        + "\(profile) --client-secret-stdin"
    }
  }

  /// The exit code it means.
  package var status: ExitStatus {
    switch self {
    case .notSignedIn, .noRefreshToken, .signInNeeded, .stillRefused, .refreshRefused, .stepUpNeeded:
      return .signInRequired
    case .unusableAnswer, .refused, .notForTarget, .tenantUnusable: return .server
    case .failed(_, _, let transient): return transient ? .transient : .server
    case .clientRefused, .grantRefused: return .clientRefused
    case .agentRefused(_, let status): return status
    case .metadataUnreadable(let transient): return transient ? .transient : .server
    case .busy: return .transient
    case .system: return .failure
    case .discoveryFailed(let http): return HTTPResponse(status: http).failureStatus
    case .configuration: return .usage
    case .storedSecretUnreadable: return .store
    }
  }

  /// A sign-in was offered to the person at the terminal already (`signInAgain`) and declined or
  /// did not help: whoever offers one on a `.signInRequired` failure need not ask again.
  package var signInOffered: Bool {
    switch self {
    case .signInNeeded(_, _, let offered): return offered
    case .stillRefused: return true
    default: return false
    }
  }

  private static func why(_ error: OAuthError?, _ http: Int) -> String { error.map { "\($0)" } ?? "HTTP \(http)" }
}

extension TokenAsk {
  /// How messages name what was asked: "API orders", "profile ci".
  package var label: String {
    switch self {
    case .refresh(let profile): return "profile \(profile)"
    case .api(let label, _), .client(let label, _, _, _, _): return label
    }
  }

  /// " (scope a b)", " (audience X)": the parameter a refusal with `code` is about; "" for others.
  func parameter(_ code: String?) -> String {
    let target: APITarget?
    let scopes: [String]
    switch self {
    case .refresh: return ""
    case .api(_, let api): (target, scopes) = (api, api.scopes.map(\.value))
    case .client(_, _, let api, let asked, _): (target, scopes) = (api, asked)
    }
    switch code {
    case "invalid_target":
      guard let target, target.audience != nil || !target.resources.isEmpty else { return "" }
      return " (\(target.audience.map { "audience \($0)" } ?? "resource \(target.resources.joined(separator: " "))"))"
    case "invalid_scope", "invalid_grant": return scopes.isEmpty ? "" : " (scope \(scopes.joined(separator: " ")))"
    default: return ""
    }
  }
}

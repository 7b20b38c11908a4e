// Exit codes and the one place that turns errors into a message and a code.
import JourneyCore
import OAuthCore
import StrivacityCore

/// Documented exit codes (README, `strivacity --help`, man page).
public enum ExitStatus: Int32, CaseIterable, Sendable {
  case ok = 0
  /// An unexpected internal failure.
  case failure = 1
  /// Bad arguments or configuration.
  case usage = 2
  /// No usable tokens: sign in with `strivacity login`.
  case signInRequired = 3
  /// Network trouble or a transient server failure; stored tokens are untouched.
  case transient = 4
  /// The server answered with an error or something that breaks the protocol.
  case server = 5
  /// The credential store (keyring or token file) cannot be used.
  case store = 6
  /// The keyring collection is locked (and was not unlocked, or its unlock was declined): unlock
  /// it and try again.
  case keyringLocked = 7
  /// The keyring provider asked a person (an access or delete confirmation, a new wallet or
  /// keyring) and the answer was no, or nobody answered within the prompt bound.
  case keyringDenied = 8
  /// Interrupted (Ctrl-C).
  case interrupted = 130

  static let helpText = """
    EXIT STATUS:
      0    success
      1    unexpected internal failure
      2    usage or configuration error
      3    sign-in required: run `strivacity login`
      4    network or transient server trouble (stored tokens untouched)
      5    server or protocol error
      6    credential store unavailable (no keyring, stalled keyring, unsafe file)
      7    keyring locked, or its unlock declined (or use --store file)
      8    keyring access denied, or its dialog not answered in time
      130  interrupted
    """
}

/// An error for people: a one-line message and the exit code.
struct CLIFailure: Error {
  var message: String
  var status: ExitStatus

  init(_ message: String, status: ExitStatus) {
    self.message = message
    self.status = status
  }

  /// The message and exit code for the errors of strivacity's own layers; nil for others
  /// (ArgumentParser's, which print usage).
  init?(recognising error: any Error) {
    switch error {
    case let failure as CLIFailure:
      self = failure
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
    case let error as LoginFailure:
      self.init(error.message, status: error.status)
    case let error as JourneyError:
      switch error {
      case .missingFields: self.init(error.description, status: .usage)
      case .cancelled: self.init(error.description, status: .interrupted)
      case .sessionExpired, .rejected: self.init(error.description, status: .signInRequired)
      case .unexpectedStatus(let status, _): self.init(error.description, status: status >= 500 || status == 429 ? .transient : .server)
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

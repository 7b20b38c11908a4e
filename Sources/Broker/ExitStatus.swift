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

// Token lifetimes chosen when the emulator starts (`--access-ttl`, `--refresh-ttl`), over every
// client's own (`access_token_ttl`, `refresh_token_ttl` of the journey file): to watch a token
// expire and be renewed (`strivacity exec --file-env`, the agent's token files) without writing
// a journey file of one's own.
import StrivacityCore

package struct Lifetimes: Sendable, Equatable {
  /// Seconds every access token lives (sign-in, refresh, API and client-credentials tokens).
  package var access: Int?
  /// Seconds every refresh token lives.
  package var refresh: Int?

  /// What an option accepts: a second to ten years, the longest lifetime strivacity admits.
  package static let range = 1...Admit.maxAgeLimit

  package init(access: Int? = nil, refresh: Int? = nil) {
    self.access = access
    self.refresh = refresh
  }

  /// The options' values (nil: not given) as lifetimes; a value that is not a whole number of
  /// seconds within `range` is refused with a message naming its option.
  package static func parse(access: String?, refresh: String?) -> Result<Lifetimes, LifetimeError> {
    var lifetimes = Lifetimes()
    let options = [("--access-ttl", access, \Lifetimes.access), ("--refresh-ttl", refresh, \.refresh)]
    for (option, text, keyPath) in options {
      guard let text else { continue }
      // Digits only: no sign, no spaces, no fractions; at most 10 of them before the range check.
      guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
        let seconds = Int(text), range.contains(seconds)
      else {
        return .failure(
          LifetimeError(
            description:
              "\(option) must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound), "
              + "not \(Emulator.quoted(text))"))
      }
      lifetimes[keyPath: keyPath] = seconds
    }
    return .success(lifetimes)
  }
}

package struct LifetimeError: Error, Equatable, CustomStringConvertible {
  package var description: String
}

extension Journey {
  /// The journey with `lifetimes` in place of every client's own (an unset one keeps the client's).
  package func with(_ lifetimes: Lifetimes) -> Journey {
    var journey = self
    for index in journey.clients.indices {
      if let access = lifetimes.access { journey.clients[index].accessTokenTTL = access }
      if let refresh = lifetimes.refresh { journey.clients[index].refreshTokenTTL = refresh }
    }
    return journey
  }
}

// The numbers read from the environment, admitted by one function for both binaries: the small
// `strivacity` checks them before it answers from the cache, so `STRIVACITY_KEYRING_TIMEOUT=abc`
// is the same usage error (exit 2) whichever binary would have answered.
import StrivacityCore

/// STRIVACITY_TIMEOUT, STRIVACITY_KEYRING_TIMEOUT and STRIVACITY_KEYRING_PROMPT_TIMEOUT, in
/// seconds; nil where unset or empty (the defaults apply).
public struct EnvironmentLimits: Sendable, Equatable {
  /// Per HTTP request, 0.1 to 3600.
  public var httpTimeout: Double?
  /// Per keyring call, 0.1 to 600.
  public var keyringTimeout: Double?
  /// For a keyring's dialog (an unlock, an access prompt), 0.1 to 3600.
  public var keyringPromptBound: Double?

  public init() {}

  public static func admit(_ environment: [String: String]) throws(AdmissionError) -> EnvironmentLimits {
    func seconds(_ name: String, _ range: ClosedRange<Double>) throws(AdmissionError) -> Double? {
      guard let text = environment[name], !text.isEmpty else { return nil }
      return try Admit.seconds(text, in: range, what: name)
    }
    var limits = EnvironmentLimits()
    limits.httpTimeout = try seconds("STRIVACITY_TIMEOUT", 0.1...3600)
    limits.keyringTimeout = try seconds("STRIVACITY_KEYRING_TIMEOUT", 0.1...600)
    limits.keyringPromptBound = try seconds("STRIVACITY_KEYRING_PROMPT_TIMEOUT", 0.1...3600)
    return limits
  }
}

// The documented exit codes, in the core: the full command line, the small binary and the agent
// protocol all say `.signInRequired`, never 3.

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
  /// The tenant refused a machine profile's client credentials (`invalid_client`): the secret
  /// or key is wrong, expired or not this client's. Not retried: a fix is needed, not time.
  case clientRefused = 9
  /// Interrupted (Ctrl-C).
  case interrupted = 130

  public static let helpText = """
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
      9    the tenant refused the client's credentials (machine profile)
      130  interrupted
    """
}

// Terraform's credentials helper protocol (Terraform's and OpenTofu's "credentials helpers":
// `terraform-credentials-NAME [ARGS…] VERB HOSTNAME`), strictly:
// - the verb and the host are the last two arguments; `args` of the CLI config's
//   `credentials_helper` block come before them (strivacity takes none);
// - `get` prints a JSON credentials object, `{"token":"…"}`, or `{}` when it definitively has
//   none for the host, and exits 0;
// - `store` reads a JSON credentials object on stdin (read to its end whatever the answer) and
//   must refuse one it cannot keep whole; `forget` drops what is kept; both print nothing;
// - any failure, an unknown verb among them, is a plain text message on stderr and a non-zero
//   exit status, nothing on stdout.
// The host is Terraform's service host (svchost's comparison form: a DNS name, lower case,
// punycode, and a port when it is not 443), admitted here and read as `https://HOST/` by the
// rule every helper follows (`HelperRequest`, `API.serving`): Terraform sends the token to every
// path on the host, so only an API whose url covers the whole host answers it. Values in, text
// out: both binaries answer through these functions.
import StrivacityConfig
import StrivacityCore

public enum TerraformVerb: String, Sendable, CaseIterable {
  case get, store, forget
}

/// Why a request is not answered: `message` (our own words, never what was read: a host with
/// user info or a token sent to `store` never reaches the terminal) goes to stderr, and the exit
/// status is `status`.
public struct TerraformCredentialError: Error, Equatable, Sendable {
  public var message: String
  public var status: ExitStatus
  public init(_ message: String, status: ExitStatus = .usage) {
    self.message = message
    self.status = status
  }

  public static let unknownVerb = TerraformCredentialError(
    "expected `get HOST`, `store HOST` or `forget HOST` (Terraform's credentials helper protocol)")
  /// Every refused host, in the same words: none of what was read.
  public static let hostRefused = TerraformCredentialError(
    "the host Terraform asked about is not a host name or host:port (no scheme, user info or path): refused")
  public static let tooLarge = TerraformCredentialError(
    "the credentials object is larger than \(TerraformCredentialProtocol.maxInput / 1024) KiB: refused")
  public static let notAnObject = TerraformCredentialError(
    "`store` was not given a JSON credentials object ({\"token\": …}): nothing stored")
  /// `store`: the tokens are strivacity's, renewed by it; nothing given is kept.
  public static let storeRefused = TerraformCredentialError(
    "strivacity does not store Terraform tokens: `get` hands out a fresh token of the host's API each time "
      + "(run `strivacity setup terraform HOST` instead of `terraform login`)")
}

/// One request of Terraform's, admitted.
public struct TerraformRequest: Sendable, Equatable {
  public var verb: TerraformVerb
  /// The host as Terraform named it (lower case).
  public var host: String
  /// `https://HOST/` (plain http on loopback, as every helper's host is read): what the
  /// destination rule compares.
  public var url: String

  public init(verb: TerraformVerb, host: String, url: String) {
    self.verb = verb
    self.host = host
    self.url = url
  }
}

public enum TerraformCredentialProtocol {
  /// Most bytes `store` reads and looks at: a credentials object is far less. More is read to
  /// the end (the protocol wants stdin drained) and refused.
  public static let maxInput = 64 * 1024
  /// Longest host: a DNS name (253) and a port.
  public static let maxHostLength = 253 + 6

  /// Said before a line of ours on stderr, so a person reading Terraform's output knows whose it is.
  public static let messagePrefix = "terraform credentials: "

  /// `get`'s answer when the host is not one of ours: the protocol's "no credentials here".
  public static let noCredentials = "{}\n"

  /// The arguments after the program's name: exactly `VERB HOST` (strivacity's
  /// `credentials_helper` block has no `args`).
  public static func request(_ arguments: [String]) throws(TerraformCredentialError) -> TerraformRequest {
    guard arguments.count == 2, let verb = TerraformVerb(rawValue: arguments[0]) else { throw .unknownVerb }
    let (host, url) = try host(admitting: arguments[1])
    return TerraformRequest(verb: verb, host: host, url: url)
  }

  /// A service host as Terraform names it: DNS labels of letters, digits and `-` joined by dots
  /// (upper case taken as lower), then `:PORT` (1–65535) when there is one; anything else (user
  /// info, a path, a scheme, a query, spaces, controls, non-ASCII, an empty label, over-long)
  /// refused without being repeated. Returned lower case, with the URL every helper's rule reads
  /// (`HelperRequest.url(admitting:)`).
  public static func host(admitting text: String) throws(TerraformCredentialError) -> (host: String, url: String) {
    let refused = TerraformCredentialError.hostRefused
    guard !text.isEmpty, text.utf8.count <= maxHostLength else { throw refused }
    let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count <= 2 else { throw refused }
    let name = parts[0]
    let labels = name.split(separator: ".", omittingEmptySubsequences: false)
    guard name.utf8.count <= 253,
      labels.allSatisfy({ label in
        (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
          && label.utf8.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
      })
    else { throw refused }
    if parts.count == 2 {
      let port = parts[1]
      guard (1...5).contains(port.utf8.count), port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
        port.first != "0", let number = Int(port), number <= 65535
      else { throw refused }
    }
    // ASCII only (admitted above): no Unicode case tables on the hot path.
    let host = String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    do {
      return (host, try HelperRequest.url(admitting: host))
    } catch {
      throw refused
    }
  }

  private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
  }

  /// The API whose token answers the host: of the first profile (in the config's order) whose
  /// API covers `https://HOST/`, that API (`API.serving`); nil: `{}`, never the sign-in's token.
  public static func api(for request: TerraformRequest, in profiles: [Profile]) -> (profile: Profile, api: API)? {
    API.serving(request.url, in: profiles)
  }

  /// `get`'s answer: the token as the credentials object's `token`, one JSON line (written by
  /// hand: the small binary answers it, and builds no JSON tree for one string).
  public static func answer(_ token: BearerToken) -> String {
    "{\"token\":" + JSONValue.quoted(token.value) + "}\n"
  }

  /// What `store` was given (all of stdin as read with a limit of `maxInput` + 1 bytes): never
  /// kept, so always refused, but said plainly when it is not a credentials object at all.
  public static func storeRefusal(_ input: [UInt8]) -> TerraformCredentialError {
    guard input.count <= maxInput else { return .tooLarge }
    guard case .object? = JSONValue.parse(input) else { return .notAnObject }
    return .storeRefused
  }

  /// The name of the variable Terraform reads a host's token from before asking a helper:
  /// `TF_TOKEN_` and the host, dots as `_` and dashes as `__` (nil for a host with a port, which
  /// no variable can name).
  public static func tokenVariable(_ host: String) -> String? {
    guard !host.contains(":") else { return nil }
    var name = "TF_TOKEN_"
    for c in host {
      switch c {
      case ".": name += "_"
      case "-": name += "__"
      default: name.append(c)
      }
    }
    return name
  }
}

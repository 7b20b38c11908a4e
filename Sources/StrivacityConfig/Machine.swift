// Machine profiles (issue 28): `grant = "client_credentials"` in a profile, and where its client
// secret comes from and how the client proves itself. Admitted when the config is read; the
// secret itself is never in the config.
//
//   [profiles.ci]
//   tenant = "https://example.strivacity.com"
//   client_id = "ci-bot"
//   grant = "client_credentials"
//   client_secret_env = "CI_BOT_SECRET"            # or client_secret_file = "/run/secrets/ci-bot"
//   token_endpoint_auth = "client_secret_basic"    # or client_secret_post, private_key_jwt
//   private_key_file = "/etc/ci-bot/key.pem"       # private_key_jwt's key, and optionally
//   private_key_id = "ci-bot-2025"                 # the kid it is registered under (default:
//                                                  # its RFC 7638 thumbprint)
import StrivacityCore

/// How a profile gets its tokens.
public enum Grant: String, Sendable, Equatable {
  /// A person signs in (the journey, or the browser), and the refresh token renews.
  case signIn = "authorization_code"
  /// A machine asks with its own credentials (RFC 6749 §4.4).
  case clientCredentials = "client_credentials"
}

/// How a confidential client authenticates at the token endpoint.
public enum TokenEndpointAuth: String, Sendable, Equatable, CaseIterable {
  case clientSecretBasic = "client_secret_basic"
  case clientSecretPost = "client_secret_post"
  case privateKeyJWT = "private_key_jwt"

  /// The method used: the configured one; else the first of Basic and Post that discovery's
  /// `token_endpoint_auth_methods_supported` lists; else Basic (RFC 8414 §2: the default when
  /// the list is omitted; a list naming neither gets Basic too, and the tenant's answer says).
  public static func chosen(configured: TokenEndpointAuth?, discovered: [String]?) -> TokenEndpointAuth {
    if let configured { return configured }
    let listed = discovered ?? []
    return [.clientSecretBasic, .clientSecretPost].first { listed.contains($0.rawValue) } ?? .clientSecretBasic
  }
}

/// Where a machine profile's secret is.
public enum SecretSource: Sendable, Equatable, CustomStringConvertible {
  /// An environment variable (default `STRIVACITY_CLIENT_SECRET`).
  case environment(String)
  /// A file only its owner can read (`client_secret_file`).
  case file(String)
  /// The keyring (`login --client-secret-stdin` stored it); chosen when the profile names
  /// neither of the others and the variable is not set.
  case keyring

  /// How `status` names it.
  public var description: String {
    switch self {
    case .environment(let name): return name
    case .file(let path): return path
    case .keyring: return "the keyring"
    }
  }

  public static let defaultVariable = "STRIVACITY_CLIENT_SECRET"

  /// An environment variable's name: `[A-Za-z_][A-Za-z0-9_]*`, at most 128.
  public static func admitVariable(_ text: String) throws(AdmissionError) -> String {
    let bytes = Array(text.utf8)
    func isLetter(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x5F }
    guard (1...128).contains(bytes.count), isLetter(bytes[0]),
      bytes.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) })
    else {
      throw AdmissionError("'\(text.prefix(64))' is not an environment variable's name (letters, digits, '_')")
    }
    return text
  }

  /// A secret file's path: absolute, or starting with `$CREDENTIALS_DIRECTORY/` (systemd's
  /// credentials, expanded when read); no NUL, at most 4096 bytes.
  public static func admitPath(_ text: String) throws(AdmissionError) -> String {
    guard (1...4096).contains(text.utf8.count), !text.utf8.contains(0) else {
      throw AdmissionError("the path must be 1 to 4096 bytes")
    }
    guard text.hasPrefix("/") || text.hasPrefix("$CREDENTIALS_DIRECTORY/") else {
      throw AdmissionError("the path must be absolute (or start with $CREDENTIALS_DIRECTORY/)")
    }
    return text
  }
}

/// A machine profile's settings: its secret's source and its client authentication (nil: the
/// first of basic and post that discovery lists), or its private key for `private_key_jwt` and
/// the `kid` its assertions name it by (nil: the key's thumbprint).
public struct MachineCredentials: Sendable, Equatable {
  public var secret: SecretSource?
  public var auth: TokenEndpointAuth?
  public var privateKeyFile: String?
  public var privateKeyID: String?

  public init(
    secret: SecretSource? = nil, auth: TokenEndpointAuth? = nil, privateKeyFile: String? = nil,
    privateKeyID: String? = nil
  ) {
    self.secret = secret
    self.auth = auth
    self.privateKeyFile = privateKeyFile
    self.privateKeyID = privateKeyID
  }

  /// The longest `private_key_id`.
  public static let maxKeyIDBytes = 256

  /// A `kid` as the tenant registered it: printable ASCII (space to "~"), 1 to 256 bytes, so it
  /// goes into a JOSE header and onto a status line as it is.
  public static func admitKeyID(_ text: String) throws(AdmissionError) -> String {
    let bytes = Array(text.utf8)
    guard (1...maxKeyIDBytes).contains(bytes.count) else {
      throw AdmissionError("a key id has 1 to \(maxKeyIDBytes) characters")
    }
    guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
      throw AdmissionError("a key id is printable ASCII (no control character, no non-ASCII letter)")
    }
    return text
  }
}

extension Config {
  /// A machine profile's keys: the secret from exactly one source, a known client
  /// authentication, and a private key (and perhaps its key id) exactly when it is `private_key_jwt`.
  static func parseMachine(
    _ fields: [TOMLTable.Entry], profile: Profile, path: String
  ) throws(ConfigError) -> MachineCredentials {
    let section = "[profiles.\(profile.name)]"
    var machine = MachineCredentials()
    var sourceField: TOMLTable.Entry?
    for field in fields {
      switch field.key {
      case "client_secret_env", "client_secret_file":
        if let first = sourceField {
          throw .invalid(
            path: path, position: field.position,
            message: "\(section) has both \(first.key) and \(field.key): the secret comes from exactly one")
        }
        sourceField = field
        machine.secret =
          field.key == "client_secret_env"
          ? .environment(try admittedString(field, path: path, in: section, SecretSource.admitVariable))
          : .file(try admittedString(field, path: path, in: section, SecretSource.admitPath))
      case "token_endpoint_auth":
        let text = try string(field, path: path)
        guard let auth = TokenEndpointAuth(rawValue: text) else {
          let known = TokenEndpointAuth.allCases.map(\.rawValue).joined(separator: ", ")
          throw .invalid(path: path, position: field.position, message: "token_endpoint_auth must be one of \(known)")
        }
        machine.auth = auth
      case "private_key_id":
        machine.privateKeyID = try admittedString(field, path: path, in: section, MachineCredentials.admitKeyID)
      default:  // private_key_file
        machine.privateKeyFile = try admittedString(field, path: path, in: section, SecretSource.admitPath)
      }
    }
    let position = (fields.first ?? sourceField)?.position
    guard profile.grant == .clientCredentials else {
      throw .invalid(
        path: path, position: position ?? SourcePosition(line: 1, column: 1),
        message: "\(section): \(fields[0].key) is for machine profiles: add grant = \"client_credentials\"")
    }
    if (machine.auth == .privateKeyJWT) != (machine.privateKeyFile != nil) {
      throw .invalid(
        path: path, position: position ?? SourcePosition(line: 1, column: 1),
        message: "\(section): private_key_file goes with token_endpoint_auth = \"private_key_jwt\", and only with it")
    }
    if machine.privateKeyID != nil, machine.auth != .privateKeyJWT,
      let field = fields.first(where: { $0.key == "private_key_id" })
    {
      throw .invalid(
        path: path, position: field.position,
        message: "\(section): private_key_id goes with token_endpoint_auth = \"private_key_jwt\", and only with it")
    }
    return machine
  }
}

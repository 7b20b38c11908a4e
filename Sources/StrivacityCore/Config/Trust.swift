// Which certificate authorities strivacity trusts for its requests (issue 29): `ca_bundle` in
// the profile's table, else at the config's top level, else curl's variables in curl's order
// (CURL_CA_BUNDLE, SSL_CERT_FILE, SSL_CERT_DIR), else the system's store. Behind a company's
// TLS-inspecting proxy the company's CA goes here. Used for every request strivacity makes and
// handed to the curl that `strivacity curl` runs; nothing turns verification off.

public struct CATrust: Sendable, Equatable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// A PEM bundle of CA certificates.
    case file(String)
    /// A directory of CA certificates named by hash (`openssl rehash`), as SSL_CERT_DIR names.
    case directory(String)
    /// libcurl's own default: the system's store.
    case system
  }

  public var kind: Kind
  /// Where the choice came from, as messages name it: "ca_bundle in [profiles.work]",
  /// "ca_bundle in the config", "CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR",
  /// "the system's store".
  public var source: String

  public init(kind: Kind, source: String) {
    self.kind = kind
    self.source = source
  }

  /// The trust for `profile` (nil: none chosen) under `config`, in this environment.
  public static func resolve(profile: Profile?, config: Config?, environment: [String: String]) -> CATrust {
    if let profile, let path = profile.caBundle {
      return CATrust(kind: .file(path), source: "ca_bundle in [profiles.\(profile.name)]")
    }
    if let path = config?.caBundle { return CATrust(kind: .file(path), source: "ca_bundle in the config") }
    for name in ["CURL_CA_BUNDLE", "SSL_CERT_FILE"] {
      if let path = environment[name], !path.isEmpty { return CATrust(kind: .file(path), source: name) }
    }
    if let path = environment["SSL_CERT_DIR"], !path.isEmpty {
      return CATrust(kind: .directory(path), source: "SSL_CERT_DIR")
    }
    return CATrust(kind: .system, source: "the system's store")
  }

  /// A `ca_bundle` value: an absolute path without NUL, at most 4096 bytes.
  public static func admitPath(_ text: String) throws(AdmissionError) -> String {
    guard (1...4096).contains(text.utf8.count), !text.utf8.contains(0), text.hasPrefix("/") else {
      throw AdmissionError("it must be an absolute path to a PEM file of CA certificates")
    }
    return text
  }

  /// What the certificate check uses, for messages: "the CA bundle /etc/corp-ca.pem (from
  /// CURL_CA_BUNDLE)", "the system's store".
  public var description: String {
    switch kind {
    case .file(let path): return "the CA bundle \(path) (from \(source))"
    case .directory(let path): return "the CA directory \(path) (from \(source))"
    case .system: return source
    }
  }

  /// The same trust as lines of a curl config file (`-K`), for the curl that `strivacity curl`
  /// runs: the path quoted as curl's config syntax reads it (a `"`, `\` or line end escaped).
  public var curlConfig: String {
    func quoted(_ path: String) -> String {
      var out = "\""
      for character in path.unicodeScalars {
        switch character {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default: out.unicodeScalars.append(character)
        }
      }
      return out + "\""
    }
    switch kind {
    case .file(let path): return "cacert = \(quoted(path))\n"
    case .directory(let path): return "capath = \(quoted(path))\n"
    case .system: return ""
    }
  }

  /// What fixes an untrusted certificate, for the message that says so.
  public static let fix =
    "if your network's CA signs it (a company proxy), set ca_bundle = \"/path/to/ca.pem\" in the config (or "
    + "CURL_CA_BUNDLE)"
}

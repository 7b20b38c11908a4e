// Which certificate authorities strivacity trusts for its requests (issue 29): `ca_bundle` in
// the profile's table, else at the config's top level, else curl's variables in curl's order
// (CURL_CA_BUNDLE, SSL_CERT_FILE, SSL_CERT_DIR), else the system's store. Behind a company's
// TLS-inspecting proxy the company's CA goes here. Used for every request strivacity makes and
// handed to the curl that `strivacity curl` runs; nothing turns verification off.
import StrivacityCore

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

  /// The trust for `profile` (nil: none chosen) under `config`, in this environment. A
  /// variable's path is admitted as the config's are (`admitPath`); a bad one is an error
  /// naming the variable.
  public static func resolve(profile: Profile?, config: Config?, environment: [String: String]) throws(AdmissionError)
    -> CATrust
  {
    if let profile, let path = profile.caBundle {
      return CATrust(kind: .file(path), source: "ca_bundle in [profiles.\(profile.name)]")
    }
    if let path = config?.caBundle { return CATrust(kind: .file(path), source: "ca_bundle in the config") }
    for name in ["CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"] {
      guard let value = environment[name], !value.isEmpty else { continue }
      let path: String
      do {
        path = try admitPath(value)
      } catch {
        throw AdmissionError("\(name): \(error.description)")
      }
      return CATrust(kind: name == "SSL_CERT_DIR" ? .directory(path) : .file(path), source: name)
    }
    return CATrust(kind: .system, source: "the system's store")
  }

  /// A CA path (`ca_bundle`, curl's variables): absolute, at most 4096 bytes, without a quote, a
  /// backslash or a control character, so that it goes into curl's config file as it is.
  public static func admitPath(_ text: String) throws(AdmissionError) -> String {
    guard (1...4096).contains(text.utf8.count), text.hasPrefix("/"),
      text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 != 0x22 && $0 != 0x5C })
    else {
      throw AdmissionError(
        "it must be an absolute path to a PEM file of CA certificates, without quotes, backslashes or control "
          + "characters")
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

  /// The same trust as a line of a curl config file (`-K`), for the curl that `strivacity curl`
  /// runs (an admitted path needs no escape there).
  public var curlConfig: String {
    switch kind {
    case .file(let path): return "cacert = \"\(path)\"\n"
    case .directory(let path): return "capath = \"\(path)\"\n"
    case .system: return ""
    }
  }

  /// What fixes an untrusted certificate checked against the system's store.
  public static let fix = TransportError.untrustedCertificateFix

  /// What fixes an untrusted certificate under this trust: the setting or variable in use is
  /// the one to change (a variable is read only when no ca_bundle is set).
  public var fix: String {
    switch kind {
    case .system: return Self.fix
    case .directory:
      return "if your network's CA signs it (a company proxy), add it to the directory \(source) names (then "
        + "openssl rehash), or set ca_bundle = \"/path/to/ca.pem\" in the config, which comes first"
    case .file where source.hasPrefix("ca_bundle"):
      return "if your network's CA signs it (a company proxy), make \(source) a bundle that has it"
    case .file:
      return "if your network's CA signs it (a company proxy), point \(source) at a bundle that has it, or set "
        + "ca_bundle = \"/path/to/ca.pem\" in the config, which comes first"
    }
  }
}

// Which CAs strivacity trusts (issue 29): the profile's ca_bundle, the config's, then curl's
// variables in curl's order, then the system's store; and the same trust written for curl's -K.
import StrivacityConfig
import StrivacityCore
import Testing

@Suite struct CATrustTests {
  static let config = """
    ca_bundle = "/etc/top.pem"
    [profiles.work]
    tenant = "https://t.example"
    ca_bundle = "/etc/work.pem"
    [profiles.home]
    tenant = "https://t.example"
    """

  @Test func theOrderIsProfileConfigThenCurlsVariables() throws {
    let config = try Config.parse(Self.config, path: "/c.toml")
    let all = ["CURL_CA_BUNDLE": "/a.pem", "SSL_CERT_FILE": "/b.pem", "SSL_CERT_DIR": "/certs"]
    #expect(
      try CATrust.resolve(profile: config.profile(named: "work"), config: config, environment: all)
        == CATrust(kind: .file("/etc/work.pem"), source: "ca_bundle in [profiles.work]"))
    #expect(
      try CATrust.resolve(profile: config.profile(named: "home"), config: config, environment: all)
        == CATrust(kind: .file("/etc/top.pem"), source: "ca_bundle in the config"))
    #expect(try CATrust.resolve(profile: nil, config: nil, environment: all).source == "CURL_CA_BUNDLE")
    #expect(
      try CATrust.resolve(profile: nil, config: nil, environment: ["SSL_CERT_FILE": "/b.pem", "SSL_CERT_DIR": "/c"])
        == CATrust(kind: .file("/b.pem"), source: "SSL_CERT_FILE"))
    #expect(
      try CATrust.resolve(profile: nil, config: nil, environment: ["SSL_CERT_DIR": "/c", "CURL_CA_BUNDLE": ""])
        == CATrust(kind: .directory("/c"), source: "SSL_CERT_DIR"))
    #expect(try CATrust.resolve(profile: nil, config: nil, environment: [:]).kind == .system)
  }

  @Test func aRelativeBundleIsAConfigErrorNamingTheLine() {
    #expect(throws: ConfigError.self) {
      try Config.parse("[profiles.p]\nca_bundle = \"ca.pem\"\n", path: "/c.toml")
    }
    do {
      _ = try Config.parse("ca_bundle = \"ca.pem\"\n", path: "/c.toml")
      Issue.record("a relative path was taken")
    } catch {
      #expect("\(error)".hasPrefix("/c.toml:1:"), "\(error)")
    }
  }

  /// A path with a quote, a backslash or a line end cannot add a line to curl's config: it is
  /// refused where it enters (a variable, named; a config key, by its line).
  @Test func curlsConfigTakesOnlyAdmittedPaths() throws {
    let hostile = "/tmp/x\"\nurl = \"http://evil/\\"
    #expect(throws: AdmissionError.self) {
      try CATrust.resolve(profile: nil, config: nil, environment: ["CURL_CA_BUNDLE": hostile])
    }
    do {
      _ = try CATrust.resolve(profile: nil, config: nil, environment: ["SSL_CERT_FILE": "/a\\b.pem"])
      Issue.record("a backslash was taken")
    } catch {
      #expect(error.description.hasPrefix("SSL_CERT_FILE: it must be an absolute path"), "\(error)")
    }
    #expect(throws: ConfigError.self) {
      try Config.parse("ca_bundle = \"/a\\\"b.pem\"\n", path: "/c.toml")
    }
    #expect(CATrust(kind: .file("/etc/ca.pem"), source: "x").curlConfig == "cacert = \"/etc/ca.pem\"\n")
    #expect(CATrust(kind: .directory("/certs"), source: "SSL_CERT_DIR").curlConfig == "capath = \"/certs\"\n")
    #expect(CATrust(kind: .system, source: "the system's store").curlConfig.isEmpty)
  }

  /// The fix for an untrusted certificate names what is in use: the variable or table that chose
  /// the bundle, else ca_bundle for the system's store.
  @Test func theFixNamesTheTrustInUse() throws {
    let variable = try CATrust.resolve(profile: nil, config: nil, environment: ["SSL_CERT_FILE": "/etc/x.pem"])
    #expect(variable.fix.contains("point SSL_CERT_FILE at a bundle that has it"))
    let directory = try CATrust.resolve(profile: nil, config: nil, environment: ["SSL_CERT_DIR": "/certs"])
    #expect(directory.fix.contains("add it to the directory SSL_CERT_DIR names"))
    let config = try Config.parse("ca_bundle = \"/etc/corp.pem\"\n", path: "/c.toml")
    #expect(
      try CATrust.resolve(profile: nil, config: config, environment: ["SSL_CERT_FILE": "/etc/x.pem"]).fix
        == "if your network's CA signs it (a company proxy), make ca_bundle in the config a bundle that has it")
    #expect(try CATrust.resolve(profile: nil, config: nil, environment: [:]).fix == CATrust.fix)
  }
}

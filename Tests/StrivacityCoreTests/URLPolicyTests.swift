import Testing

@testable import StrivacityCore

@Suite struct URLPolicyTests {
  @Test(arguments: [
    "localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "127.255.255.254", "::1", "[::1]",
    "0:0:0:0:0:0:0:1", "0::1", "::0:1",
  ])
  func loopbackHosts(_ host: String) {
    #expect(URLPolicy.isLoopbackHost(host))
  }

  @Test(arguments: [
    "example.com", "128.0.0.1", "10.0.0.1", "127.0.0", "127.0.0.1.example.com", "localhost.example.com",
    "::2", "1::1", "::", "0.0.0.0", "127.0.0.256", "::ffff:127.0.0.1", "",
    // With the trailing dot the name goes through DNS.
    "localhost.",
  ])
  func otherHosts(_ host: String) {
    #expect(!URLPolicy.isLoopbackHost(host))
  }

  @Test func httpsIsAllowedAnywhere() throws {
    let parts = try URLPolicy.check("https://Tenant.Example.com:8443/oauth2/auth?x=1#frag")
    #expect(parts.host == "tenant.example.com")
    #expect(parts.port == 8443)
    #expect(parts.pathAndQuery == "/oauth2/auth?x=1")
  }

  @Test(arguments: ["http://127.0.0.1:8080/x", "http://localhost/", "http://[::1]:9/cb"])
  func plainHTTPOnlyToLoopback(_ url: String) throws {
    _ = try URLPolicy.check(url)
  }

  @Test func plainHTTPElsewhereIsRefused() {
    #expect(throws: TransportError.insecureURL(host: "tenant.example.com")) {
      try URLPolicy.check("http://tenant.example.com/.well-known/openid-configuration")
    }
    #expect(throws: TransportError.insecureURL(host: "127.0.0.1.nip.io")) {
      try URLPolicy.check("http://127.0.0.1.nip.io/")
    }
    // userinfo must not smuggle a loopback-looking host past the check
    #expect(throws: TransportError.insecureURL(host: "evil.example")) {
      try URLPolicy.check("http://127.0.0.1@evil.example/")
    }
  }

  @Test func otherSchemesAndGarbageAreRefused() {
    #expect(throws: TransportError.insecureURL(host: "x")) { try URLPolicy.check("ftp://x/") }
    #expect(throws: TransportError.invalidURL) { try URLPolicy.check("not a url") }
    #expect(throws: TransportError.invalidURL) { try URLPolicy.check("https://host:99999/") }
    #expect(throws: TransportError.invalidURL) { try URLPolicy.check("https://[::1/") }
  }

  @Test func pathDefaultsToSlash() throws {
    #expect(try URLPolicy.check("https://a.example").pathAndQuery == "/")
    #expect(try URLPolicy.check("https://a.example?q=1").pathAndQuery == "/?q=1")
  }

  /// A tenant given without its scheme is named with the one it most likely has: https, or http
  /// on a loopback host; nothing for a URL that has one, or that no scheme makes usable.
  @Test(
    arguments: [
      ("tenant.example.com", "https://tenant.example.com"),
      ("tenant.example.com:8443/t/", "https://tenant.example.com:8443/t/"),
      ("127.0.0.1:8080", "http://127.0.0.1:8080"),
      ("localhost:9/", "http://localhost:9/"),
      ("[::1]:8080", "http://[::1]:8080"),
      ("https://tenant.example.com", nil),
      ("http://tenant.example.com", nil),
      ("", nil),
      ("bad host", nil),
    ] as [(String, String?)])
  func aTenantWithoutSchemeIsNamedWithOne(_ given: String, _ suggested: String?) {
    #expect(TenantURL.withScheme(given) == suggested)
  }
}

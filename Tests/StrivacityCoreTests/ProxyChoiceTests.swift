// Which proxy strivacity's requests go through (issue 29): the profile's proxy, the config's,
// then curl's variables for https in curl's order; no_proxy as curl reads it; loopback never;
// hostile values refused where they enter; the same choice written for curl's -K.
import StrivacityConfig
import StrivacityCore
import Testing

@Suite struct ProxyChoiceTests {
  static let config = """
    proxy = "http://top.corp:3128"
    proxy_user = "alice"
    [profiles.work]
    tenant = "https://t.example"
    proxy = "https://work.corp:8443"
    proxy_ca_bundle = "/etc/proxy-ca.pem"
    proxy_auth = "any"
    [profiles.home]
    tenant = "https://t.example"
    [profiles.direct]
    tenant = "https://t.example"
    proxy = ""
    """

  func choice(_ profile: String?, _ environment: [String: String], config text: String? = config) throws
    -> ProxyChoice
  {
    let config = try text.map { try Config.parse($0, path: "/c.toml") }
    return try ProxyChoice.resolve(
      profile: profile.flatMap { config?.profile(named: $0) }, config: config, environment: environment)
  }

  @Test func theOrderIsProfileConfigThenCurlsVariables() throws {
    let all = [
      "https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2", "all_proxy": "http://c:3", "ALL_PROXY": "http://d:4",
    ]
    let work = try choice("work", all)
    #expect(work.description == "https://work.corp:8443 (from proxy in [profiles.work])")
    #expect(work.caBundle == "/etc/proxy-ca.pem" && work.auth == .any && work.user == "alice")
    #expect(try choice("home", all).description == "http://top.corp:3128 (from proxy in the config)")
    #expect(try choice("direct", all).proxy == nil)
    #expect(try choice("direct", all).description == "direct (from proxy in [profiles.direct])")
    var environment = all
    for name in ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
      #expect(try choice(nil, environment, config: nil).source == name)
      environment[name] = ""  // empty is unset, as curl takes it
    }
    #expect(try choice(nil, environment, config: nil).description == "direct (no proxy variable)")
  }

  @Test func upperCaseHTTPProxyAndHTTPVariablesAreNotRead() throws {
    let chosen = try choice(nil, ["HTTP_PROXY": "http://x:1", "http_proxy": "http://y:2"], config: nil)
    #expect(chosen.proxy == nil)
  }

  @Test func noProxyAndLoopbackGoDirect() throws {
    let chosen = try choice(
      nil, ["https_proxy": "proxy:3128", "no_proxy": " .corp.test, api.example.com ,10.0.0.0/8", "NO_PROXY": "*"],
      config: nil)
    #expect(chosen.noProxySource == "no_proxy")
    #expect(chosen.proxy?.address == "http://proxy:3128")
    #expect(chosen.proxy(forHost: "tenant.corp.test", loopback: false) == nil)
    #expect(chosen.proxy(forHost: "corp.test", loopback: false) == nil)
    #expect(chosen.proxy(forHost: "API.example.com", loopback: false) == nil)
    #expect(chosen.proxy(forHost: "10.1.2.3", loopback: false) == nil)
    #expect(chosen.proxy(forHost: "11.1.2.3", loopback: false) != nil)
    #expect(chosen.proxy(forHost: "notcorp.test", loopback: false) != nil)
    #expect(chosen.proxy(forHost: "example.com", loopback: false) != nil)
    #expect(chosen.proxy(forHost: "127.0.0.1", loopback: true) == nil)
    let all = try choice(nil, ["https_proxy": "proxy:3128", "NO_PROXY": "*"], config: nil)
    #expect(all.proxy(forHost: "anything.example", loopback: false) == nil)
  }

  @Test func credentialsInTheURLAreKeptApartFromItsAddress() throws {
    let url = try ProxyURL(admitting: "http://al%40ice:p%3Ass%20w@Proxy.Corp:3128/")
    #expect(url.user == "al@ice" && url.password == "p:ss w")
    #expect(url.address == "http://proxy.corp:3128" && url.description == url.address)
    let chosen = try choice(nil, ["https_proxy": "http://bob:pw@proxy:3128"], config: nil)
    #expect(chosen.user == "bob" && chosen.passwordInURL)
    #expect(!chosen.description.contains("pw"))
    #expect(try ProxyURL(admitting: "socks5h://[::1]:1080").address == "socks5h://[::1]:1080")
    #expect(try ProxyURL(admitting: "proxy.corp").port == nil)
  }

  @Test(arguments: [
    "ftp://proxy:21", "http://proxy:0", "http://proxy:65536", "http://proxy:3128/path", "http://pro xy:1",
    "http://proxy\n:1", "http://[::1:1", "http://a%zz@proxy:1", "http://a%0a@proxy:1", "http://proxy:1?x",
    "http://:3128", "javascript://x", "http://pr\"oxy:1",
  ])
  func hostileProxiesAreRefused(_ text: String) {
    #expect(throws: AdmissionError.self) { try ProxyURL(admitting: text) }
  }

  @Test func aBadVariableIsAnErrorNamingIt() {
    #expect {
      try choice(nil, ["ALL_PROXY": "ftp://x"], config: nil)
    } throws: {
      "\($0)".contains("ALL_PROXY") && "\($0)".contains("unknown proxy scheme 'ftp'")
    }
  }

  @Test func badSettingsAreConfigErrorsNamingThem() {
    for (line, words) in [
      ("proxy = \"gopher://x\"", "proxy: unknown proxy scheme"), ("proxy_user = \"a:b\"", "proxy_user"),
      ("proxy_auth = \"ntlm\"", "proxy_auth"), ("proxy_ca_bundle = \"relative.pem\"", "proxy_ca_bundle"),
    ] {
      #expect {
        try Config.parse("[profiles.p]\ntenant = \"https://t.example\"\n\(line)\n", path: "/c.toml")
      } throws: {
        "\($0)".contains(words) && "\($0)".contains("/c.toml:3")
      }
    }
  }

  @Test func curlIsToldTheSameChoice() throws {
    let chosen = try choice("work", ["no_proxy": "internal.example"])
    #expect(
      chosen.curlConfig(loopback: ["127.0.0.1"], password: #"p"w\d"#)
        == """
        proxy = "https://work.corp:8443"
        noproxy = "internal.example,127.0.0.1"
        proxy-cacert = "/etc/proxy-ca.pem"
        proxy-anyauth
        proxy-user = "alice:p\\"w\\\\d"

        """)
    #expect(
      try choice("direct", ["https_proxy": "http://x:1"]).curlConfig(loopback: [], password: nil) == "proxy = \"\"\n")
  }
}

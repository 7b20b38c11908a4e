import Testing

@testable import StrivacityCore

@Suite struct TokenDestinationTests {
  static let allowed = ["https://h.example/org/", "git.example.com", "api.example.com:8443", "127.0.0.1:9000"]

  func permits(_ url: String, _ entries: [String] = allowed) throws -> Bool {
    TokenDestination.permits(url, allowed: try entries.map { try HostEntry(admitting: $0) })
  }

  @Test(arguments: [
    "https://h.example/org", "https://h.example/org/", "https://h.example/org/x/y?q=1#f", "https://H.EXAMPLE:443/org/x",
    "https://h.example/org/./x", "https://h.example/org/x/../y", "https://h.example/other/../org/x",
    "https://h.example/org/%7euser", "https://git.example.com/", "https://git.example.com:443/anything",
    "https://api.example.com:8443/v1", "http://127.0.0.1:9000/x", "https://127.0.0.1:9000/x",
    // The query is not the path: what it holds is not read as one.
    "https://h.example/org/x?next=/../../other",
  ])
  func permitted(_ url: String) throws {
    #expect(try permits(url))
  }

  @Test(arguments: [
    // Dot segments resolved as curl and servers do: out of the prefix.
    "https://h.example/org/../other/x", "https://h.example/org/..", "https://h.example/org/x/../../other",
    "https://h.example/organisation/x", "https://h.example/", "https://h.example/other/org/",
    // Read more than one way by servers: refused whatever the prefix.
    "https://h.example/org/%2e%2e/other/", "https://h.example/org/%2E%2E/other/", "https://h.example/org/%2e/x",
    "https://h.example/org%2f..%2fother", "https://h.example/org/..%2Fother", "https://h.example/org/%5c../other",
    "https://h.example/org\\..\\other", "https://h.example/org/..;x/other", "https://h.example/org/.;/x",
    "https://h.example/org/%zz", "https://h.example/org/%2",
    // Not that origin.
    "http://h.example/org/x", "https://h.example:8443/org/x", "https://git.example.com:8443/",
    "https://api.example.com/v1",
    "http://git.example.com/", "https://git.example.com.evil.example/", "https://evil.example/git.example.com/",
    // User info, spaces, controls, other schemes.
    "https://git.example.com@evil.example/", "https://evil.example@git.example.com/", "https://git.example.com /",
    "https://git.example.com/\u{0}", "ftp://git.example.com/", "git.example.com", "//git.example.com/", "",
  ])
  func refused(_ url: String) throws {
    #expect(try !permits(url))
  }

  @Test func refusalsSayWhy() throws {
    let entries = [try HostEntry(admitting: "https://h.example/org/")]
    #expect(throws: TokenRefusal.notAllowed("https://h.example/other/x")) {
      try TokenDestination.check("https://h.example/org/../other/x", allowed: entries)
    }
    #expect(throws: TokenRefusal.unsafe("the path has an encoded dot (%2e)")) {
      try TokenDestination.check("https://h.example/org/%2E%2e/", allowed: entries)
    }
  }

  @Test(arguments: [
    ("git.example.com", "git.example.com"), ("GIT.Example.com:8443", "git.example.com:8443"),
    ("[::1]:9000", "[::1]:9000"),
    ("https://h.example", "https://h.example/"), ("https://H.example:443/org/", "https://h.example/org"),
    ("https://h.example/a/./b/../c/", "https://h.example/a/c"), ("http://localhost:8080/x", "http://localhost:8080/x"),
    ("https://h.example/a/%7e", "https://h.example/a/%7E"),
  ])
  func canonicalEntries(_ text: String, _ canonical: String) throws {
    let entry = try HostEntry(admitting: text)
    #expect(entry.description == canonical)
    #expect(try HostEntry(admitting: entry.description) == entry)
  }

  @Test(arguments: [
    // setup-git's --host of the issue: reads like git.example.com, is evil.example.
    "https://git.example.com:443@evil.example/", "git.example.com@evil.example", "https://u:p@h.example/",
    "https://h.example/org?x=1", "https://h.example/org#f", "https://h.example/?", "http://git.example.com/",
    "git.example.com/org", "git.example.com:0", "git.example.com:65536", "git example.com", "git.exämple.com",
    "https://h.example/%2e%2e/", "https://h.example/a\\b", "ftp://h.example/", "", "https://",
  ])
  func refusedEntries(_ text: String) {
    #expect(throws: AdmissionError.self) { try HostEntry(admitting: text) }
  }

  /// A refused entry is named in its message without its user info: that may be a password.
  @Test func userInfoIsNeverEchoed() {
    for text in [
      "https://user:s3cret@h.example/", "https://s3cret@h.example/org?x", "https://u:s3cret@h.example:99999/",
    ] {
      do {
        _ = try HostEntry(admitting: text)
        Issue.record("admitted \(text)")
      } catch {
        #expect(
          !error.description.contains("s3cret") && error.description.contains("…@h.example"), "\(error.description)")
      }
    }
    #expect(
      throws: AdmissionError(
        "'https://…@k.example' has user info (user@): write only the host (an API server is https://host[:port][/path])"
      )
    ) {
      try KubeServer(admitting: "https://admin:s3cret@k.example")
    }
  }

  @Test func gitURLs() throws {
    #expect(try HostEntry(admitting: "git.example.com").gitURL == "https://git.example.com")
    #expect(try HostEntry(admitting: "127.0.0.1:9000").gitURL == "http://127.0.0.1:9000")
    #expect(try HostEntry(admitting: "https://h.example/org/").gitURL == "https://h.example/org")
    #expect(try HostEntry(admitting: "https://h.example/org").hasPath)
    #expect(try !HostEntry(admitting: "https://h.example/").hasPath)
  }
}

extension TokenDestinationTests {
  /// `-L` (issue 37, point 3): followed only where the token's places are all of the URL's
  /// origin and no other token's place is on it.
  @Test func redirectsAreFollowedOnlyOnAnOriginTheTokenHasWhole() throws {
    func refusal(_ url: String, own: [String], others: [String] = []) throws -> RedirectRefusal? {
      TokenDestination.redirectRefusal(
        url, own: try own.map { try HostEntry(admitting: $0) }, others: try others.map { try HostEntry(admitting: $0) })
    }
    let org = try HostEntry(admitting: "https://h.example/org/")
    let orders = try HostEntry(admitting: "https://h.example/orders/")
    // A prefix alone: a hop could leave it.
    #expect(try refusal("https://h.example/org/x", own: ["https://h.example/org/"]) == .partOfOrigin([org]))
    // The origin whole (a host entry, or a URL without a path), a prefix beside it or not.
    for whole in ["h.example", "https://h.example", "https://h.example/"] {
      #expect(try refusal("https://h.example/org/x", own: ["https://h.example/org/", whole]) == nil, "\(whole)")
    }
    // Another token's place on the origin: a hop could carry this token into it.
    #expect(
      try refusal("https://h.example/org/x", own: ["h.example"], others: ["https://h.example/orders/"])
        == .sharedWith([orders]))
    // Places elsewhere do not matter: another host, another port, another scheme.
    #expect(
      try refusal(
        "https://h.example/x", own: ["h.example", "https://g.example/a/"],
        others: ["https://h.example:8443/orders/", "g.example"]) == nil)
    #expect(try refusal("https://h.example:8443/x", own: ["h.example"]) == .partOfOrigin([]))
    // A URL that does not parse is `check`'s to refuse.
    #expect(try refusal("https://user@h.example/", own: ["h.example"]) == nil)
  }
}

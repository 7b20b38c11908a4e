// The APIs of a profile (issue 27): each a named table under the profile,
//
//   [profiles.work.apis.orders]
//   url = "https://api.example.com/orders/"        # URLs under it are this API's
//   audience = "https://api.example.com/orders"     # the `audience` parameter
//   resource = ["https://api.example.com/orders/"]  # RFC 8707 `resource`, zero or more
//   scopes = ["orders:read"]
//
// Everything in it is admitted when the file is read; which API a URL belongs to is decided by
// TokenDestination.bestMatch, the reading curl and git's URLs get too.

/// Which of a profile's `apis` tables a narrowed read of the config keeps (`Config.parse`).
public enum APITables: Sendable, Equatable {
  case all
  case none
  case named(String)
}

/// One API a profile's tokens are asked for.
public struct API: Sendable, Equatable {
  /// Its name (`apis.NAME`): a profile name's alphabet, since it names its stored token set.
  public var name: String
  /// Where it is: URLs under this prefix (or host) are the API's.
  public var url: HostEntry
  /// The `audience` parameter, when the tenant wants one.
  public var audience: String?
  /// RFC 8707 resource indicators: absolute URIs without a fragment.
  public var resources: [String]
  /// The scopes a token for it must carry.
  public var scopes: [Scope]

  public init(name: String, url: HostEntry, audience: String? = nil, resources: [String] = [], scopes: [Scope] = []) {
    self.name = name
    self.url = url
    self.audience = audience
    self.resources = resources
    self.scopes = scopes
  }

  /// The slot its tokens are kept in, beside the sign-in's set.
  public var slot: TokenSlot {
    guard let slot = TokenSlot(name: name) else { preconditionFailure("an API name is admitted as a slot name") }
    return slot
  }
}

extension Profile {
  /// Where the sign-in's token may be sent: the tenant's origin, `git_hosts` and `hosts`.
  public func tokenHosts(tenant: String) -> [HostEntry] {
    (URLParts(tenant).map { [HostEntry(origin: $0.origin)] } ?? []) + gitHosts + hosts
  }

  /// The API named `name`, or nil.
  public func api(named name: String) -> API? { apis.first { $0.name == name } }

  /// The API `url` is under (the longest `url` prefix of the profile's APIs), nil for none;
  /// throws for a URL that is read in more than one way (TokenDestination).
  public func api(for url: String) throws(TokenRefusal) -> API? {
    // Most profiles have none: git's get asks this on every fetch.
    guard !apis.isEmpty else { return nil }
    return try TokenDestination.bestMatch(url, among: apis.map(\.url)).map { apis[$0] }
  }
}

extension Admit {
  /// An `audience` value: 1 to 1,024 printable ASCII characters without spaces (a URI, or a
  /// name the tenant gave the API).
  public static func audience(_ text: String) throws(AdmissionError) -> String {
    guard (1...1024).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw AdmissionError("the audience must be 1 to 1024 printable characters without spaces")
    }
    return text
  }

  /// An RFC 8707 resource indicator: an absolute URI (a scheme, then more), printable ASCII
  /// without spaces, at most 2,048 bytes, without a fragment (§2).
  public static func resource(_ text: String) throws(AdmissionError) -> String {
    guard (1...2048).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw AdmissionError("a resource must be an absolute URI of at most 2048 printable characters")
    }
    guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex,
      text[..<colon].first!.isLetter,
      text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    else {
      throw AdmissionError("a resource must be an absolute URI (scheme:…), as RFC 8707 says")
    }
    guard !text.contains("#") else { throw AdmissionError("a resource must not have a fragment (RFC 8707)") }
    return text
  }

  /// One scope of a list (`scopes = [...]`): one RFC 6749 scope token, no spaces.
  public static func scopeToken(_ text: String) throws(AdmissionError) -> Scope {
    guard !text.contains(" ") else { throw AdmissionError("'\(text.prefix(64))' is more than one scope") }
    return try Scope(admitting: text)
  }
}

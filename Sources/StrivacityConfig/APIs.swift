// The APIs of a profile (issue 27): each a named table under the profile,
//
//   [profiles.work.apis.orders]
//   url = "https://api.example.com/orders/"        # URLs under it are this API's
//   audience = "https://api.example.com/orders"     # the `audience` parameter
//   resource = ["https://api.example.com/orders/"]  # RFC 8707 `resource`, zero or more
//   scopes = ["orders:read"]
//   username = "oauth2accesstoken"                  # what a registry is told beside the token
//
// Everything in it is admitted when the file is read; which API a URL belongs to is decided by
// TokenDestination.bestMatch, the reading curl and git's URLs get too.
import StrivacityCore

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
  /// `username`: the user name a credential helper answers beside the token (a
  /// registry's `Username`), nil for the default (`defaultUsername`).
  public var username: String?
  /// `aws_role_arn` and its companions: the AWS role its token is exchanged for (AWSRole.swift).
  public var aws: AWSRole?

  public init(
    name: String, url: HostEntry, audience: String? = nil, resources: [String] = [], scopes: [Scope] = [],
    username: String? = nil, aws: AWSRole? = nil
  ) {
    self.name = name
    self.url = url
    self.audience = audience
    self.resources = resources
    self.scopes = scopes
    self.username = username
    self.aws = aws
  }

  /// An API's name as a person gives it (--api, --name): what its token slot is named by.
  public static func admitName(_ text: String) throws(AdmissionError) -> String {
    if let prefix = TokenSlot.reservedPrefix(of: text) {
      throw AdmissionError("it may not start with '\(prefix)': such names are kept for strivacity's own items")
    }
    guard TokenSlot(apiName: text) != nil else {
      throw AdmissionError("it must be letters, digits, '.', '_' or '-' (at most 64, not starting with '.')")
    }
    return text
  }

  /// The user name registries that take OAuth access tokens as passwords expect.
  public static let defaultUsername = "oauth2accesstoken"

  /// `username`, else `defaultUsername`.
  public var user: String { username ?? Self.defaultUsername }

  /// A `username` value: 1 to 256 printable ASCII characters without a colon (Basic auth's
  /// separator), a quote or a backslash.
  public static func admitUsername(_ text: String) throws(AdmissionError) -> String {
    guard (1...256).contains(text.utf8.count),
      text.utf8.allSatisfy({
        $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
      })
    else { throw AdmissionError("it must be 1 to 256 printable ASCII characters without a colon, quote or backslash") }
    return text
  }

  /// The API a tool's helper that names no profile (ToolHelpers) answers `url` with.
  /// Such a tool keeps one credential per host and sends it to every path there, so the path of
  /// `url` does not count: only an API covering the root of its origin (a host, or a prefix
  /// without a path) answers. Of the first profile in the config's order whose `helperDecision`
  /// (APIs only) for that root gives an API, that API; nil when none does (nor for a URL that is
  /// not read one way): the helper answers "not mine", never the sign-in's own token.
  public static func serving(_ url: String, in profiles: [Profile]) -> (profile: Profile, api: API)? {
    guard let target = try? TokenTarget(url) else { return nil }
    let root = "\(target.origin)/"
    for profile in profiles {
      if case .token(let api?) = profile.helperDecision(for: root, tenant: nil) { return (profile, api) }
    }
    return nil
  }

  /// Whether `serving` can answer with this API: its url covers all of its origin.
  public var coversWholeHost: Bool { !url.hasPath }

  /// The slot its tokens are kept in, beside the sign-in's: its name and a digest of the settings
  /// its token is asked with (`settings`), so that a token asked before one of them changed in the
  /// config is in another slot, never handed out for the API as it is now, by any store, the
  /// kernel's cache, the agent or the small binary (which computes it too, from the same table).
  public var slot: TokenSlot {
    let digest = String(AdHocTarget.digest(settings).prefix(TokenSlot.settingsDigestLength))
    guard let slot = TokenSlot.api(name, digest: digest) else {
      preconditionFailure("an API name is admitted as a slot name")
    }
    return slot
  }

  /// What aims its token, as an ad hoc target's slot is named from (`AdHocTarget.canonical`): the
  /// audience, resources and scopes the token request sends (OAuthCore's `APITarget.parameters`).
  /// A new parameter of that request that the table names goes in here too; what does not aim
  /// the token (`url`, `username`) stays out, so changing it asks for no new token.
  var settings: String { AdHocTarget.canonical(audience: audience, resources: resources, scopes: scopes.map(\.value)) }

  /// The slot of its token asked with `extraScopes` besides its own: its own slot when they add
  /// none; else an ad hoc slot named from the API and everything asked (its settings with the
  /// scopes added), so that a token wider than the config says is never the one kept for the API
  /// (and handed to git, kubectl, exec), and one asked before the API's settings changed is not
  /// found either.
  public func slot(extraScopes: [Scope]) -> TokenSlot {
    let own = scopes.map(\.value)
    let added = extraScopes.map(\.value).filter { !own.contains($0) }
    guard !added.isEmpty else { return slot }
    let asked = AdHocTarget.canonical(audience: audience, resources: resources, scopes: own + added)
    return .adHoc(digest: AdHocTarget.digest("api \(name)\n" + asked))
  }
}

/// What a tool's credential helper does about a URL it is asked for (a registry, a package
/// index): `Profile.helperDecision`, the one rule of every helper protocol.
public enum HelperDecision: Sendable, Equatable {
  /// A token: `api`'s (the API the URL is under), nil for the profile's own.
  case token(api: API?)
  /// Not this profile's: the helper says "not mine" (the tool asks elsewhere).
  case notOurs
  /// The URL can be read in more than one way (an encoded dot or slash, `..;`): refused, with
  /// the reason for the tool's message.
  case refused(String)
}

extension Profile {
  /// Whether this profile serves a tool's helper asking for `url`, by the rule `strivacity curl`
  /// follows (TokenDestination): the API the URL is under gets its own token; with `tenant`
  /// given, the profile's places (the tenant's origin, git_hosts, hosts) get the sign-in's token
  /// too; nil `tenant`: APIs only (a helper that never hands out the sign-in's token).
  public func helperDecision(for url: String, tenant: String?) -> HelperDecision {
    let allowed = (tenant.map { tokenHosts(tenant: $0) } ?? []) + apis.map(\.url)
    guard !allowed.isEmpty else { return .notOurs }
    do {
      try TokenDestination.check(url, allowed: allowed)
      let api = try self.api(for: url)
      return api == nil && tenant == nil ? .notOurs : .token(api: api)
    } catch .unsafe(let reason) {
      return .refused(reason)
    } catch {
      return .notOurs
    }
  }

  /// An API of this profile on only a path of `url`'s origin (the first), or nil: a helper that
  /// names no profile never answers with it (`API.serving`), since the tool sends its credential
  /// to every path of the host; its setup command says so.
  public func apiOnPartOfHost(of url: String) -> API? {
    guard let origin = try? TokenTarget(url).origin else { return nil }
    return apis.first { api in
      guard api.url.hasPath, case .prefix(let apiOrigin, _) = api.url.form else { return false }
      return apiOrigin == origin
    }
  }

  /// Where the sign-in's token may be sent: the tenant's origin, `git_hosts` and `hosts`.
  public func tokenHosts(tenant: String) -> [HostEntry] {
    (URLParts(tenant).map { [HostEntry(origin: $0.origin)] } ?? []) + gitHosts + hosts
  }

  /// The API named `name`, or nil.
  public func api(named name: String) -> API? { apis.first { $0.name == name } }

  /// Why `name` (given by someone: shown inert, cut short) names none of its APIs, in one line:
  /// the API it most likely meant, else the ones it has, else how to add one. `what` says what
  /// a new API's table needs, after that.
  public func noAPI(named name: String, adding what: String = "") -> String {
    let shown = TerminalSafe.text(String(name.prefix(64)), multiline: false)
    let names = apis.map(\.name)
    let missing = "profile \(self.name) has no API '\(shown)'; "
    if names.isEmpty { return missing + "it has none: add a [profiles.\(self.name).apis.NAME] section\(what)" }
    if let near = Suggestion.nearest(to: name, among: names) { return missing + "did you mean '\(near)'?" }
    return missing + "its APIs: \(names.joined(separator: ", "))"
  }

  /// Why curl may not follow redirects (`-L`) from `url`, which gets `api`'s token (nil: the
  /// profile's own), in one line's words; nil when it may. The token's places are the API's `url`,
  /// else the profile's own (`tokenHosts`); every other API's, and the profile's own beside an
  /// API, are another token's (TokenDestination.redirectRefusal decides).
  public func redirectRefusal(_ url: String, api: API?, tenant: String, name: String) -> String? {
    let own = tokenHosts(tenant: tenant)
    let others =
      apis.filter { $0.name != api?.name }.map { ($0.url, "API \($0.name) \($0.url)") }
      + (api == nil ? [] : own.map { ($0, "\($0)") })
    switch TokenDestination.redirectRefusal(url, own: api.map { [$0.url] } ?? own, others: others.map(\.0)) {
    case nil:
      return nil
    case .partOfOrigin(let places)?:
      let whose = api.map { "API \($0.name)" } ?? "profile \(name)"
      return "\(whose) may have the token on only part of it (\(places.map(\.description).joined(separator: ", ")))"
    case .sharedWith(let places)?:
      let named = others.filter { places.contains($0.0) }.map(\.1)
      return "places of another token are on it too (\(named.joined(separator: ", ")))"
    }
  }

  /// The API `url` is under (the longest `url` prefix of the profile's APIs), nil for none;
  /// throws for a URL that is read in more than one way (TokenDestination).
  public func api(for url: String) throws(TokenRefusal) -> API? {
    // Most profiles have none: git's get asks this on every fetch.
    guard !apis.isEmpty else { return nil }
    return try TokenDestination.bestMatch(url, among: apis.map(\.url)).map { apis[$0] }
  }
}

/// A token target named on the command line instead of in the config (`token --audience A
/// --resource R --scope S`): values admitted by the same rules as an `apis` table's. Its token is
/// kept in a slot named from a digest of what it asks for (audience, resources and scopes, each
/// list sorted and without repeats), so the same call is answered from the store, the kernel's
/// cache or the agent the next time, whatever the order of its options.
public struct AdHocTarget: Sendable, Hashable {
  public let audience: String?
  /// Sorted, each once.
  public let resources: [String]
  /// Sorted, each once.
  public let scopes: [Scope]

  /// Most resources and scopes one ad hoc target names (each list): a request stays one frame.
  public static let maxValues = 16

  public init(audience: String?, resources: [String], scopes: [String]) throws(AdmissionError) {
    guard audience != nil || !resources.isEmpty else {
      throw AdmissionError("an ad hoc API needs --audience or --resource")
    }
    guard resources.count <= Self.maxValues, scopes.count <= Self.maxValues else {
      throw AdmissionError("at most \(Self.maxValues) resources and \(Self.maxValues) scopes")
    }
    self.audience = try audience.map { text throws(AdmissionError) in try Admit.audience(text) }
    self.resources = Array(Set(try resources.map { text throws(AdmissionError) in try Admit.resource(text) })).sorted()
    let admitted = try scopes.map { text throws(AdmissionError) in try Admit.scopeToken(text).value }
    self.scopes = try Array(Set(admitted)).sorted().map { text throws(AdmissionError) in try Scope(admitting: text) }
  }

  /// `adhoc.` and 32 hex digits: the digest of the target's canonical text. A name of the
  /// config's API alphabet, so it is a slot like any API's (and `logout` deletes it with them).
  public var slot: TokenSlot { .adHoc(digest: Self.digest(canonical)) }

  var canonical: String { Self.canonical(audience: audience, resources: resources, scopes: scopes.map(\.value)) }

  /// What a token is asked with, as one text whatever the order and repeats of the lists: one line
  /// per value, each tagged, each list sorted and without repeats (admitted values have no spaces
  /// or line breaks, so the text reads back one way only). An ad hoc target's slot and a
  /// configured API's (`API.slot`) are named from a digest of it.
  /// (Built by appending, not `joined`: the small binary computes it on every `token --api`, and
  /// the unspecialised `joined` costs it more than the rest of the slot.)
  static func canonical(audience: String?, resources: [String], scopes: [String]) -> String {
    var text = ""
    func line(_ tag: String, _ value: String) {
      if !text.isEmpty { text += "\n" }
      text += tag + " " + value
    }
    if let audience { line("audience", audience) }
    for resource in Set(resources).sorted() { line("resource", resource) }
    for scope in Set(scopes).sorted() { line("scope", scope) }
    return text
  }

  /// FNV-1a over 128 bits. Not a cryptographic hash, and it need not be one: the slot only keeps
  /// one person's own targets apart, and the small binary, which computes it too, has no crypto.
  package static func digest(_ text: String) -> String {
    var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
    let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B
    for byte in text.utf8 {
      hash ^= UInt128(byte)
      hash &*= prime
    }
    // 32 lower-case hex digits, most significant first (by hand: `String(_:radix:)` on UInt128
    // is generic code the small binary would pay for at run time).
    let digits = Array("0123456789abcdef".utf8)
    var hex = [UInt8](repeating: 0, count: 32)
    for i in 0..<32 {
      hex[31 - i] = digits[Int(truncatingIfNeeded: hash & 0xF)]
      hash >>= 4
    }
    return String(decoding: hex, as: UTF8.self)
  }
}

extension Config {
  /// `[profiles.P.apis.NAME]` tables: each needs a `url`; every value admitted, or the line is an
  /// error naming the key.
  static func parseAPIs(
    _ field: TOMLTable.Entry, profile: String, path: String, warnings: inout [ConfigWarning]
  ) throws(ConfigError) -> [API] {
    var apis: [API] = []
    for apiEntry in try namedTables(field, "apis", profile: profile, path: path) {
      // Ad hoc targets' slots are `adhoc.<digest>` (AdHocTarget), kept secrets' `machine.…` and
      // `proxy.…` (TokenSlot): an API of such a name would share one.
      let (section, fields) = try namedSection(apiEntry, "apis", "API", profile: profile, path: path) { name in
        TokenSlot.reservedPrefix(of: name).map { prefix in
          "API names starting with '\(prefix)' are kept for strivacity's own items "
            + "(\(TokenSlot.reservedPrefixes.map { "'\($0)'" }.joined(separator: ", ")))"
        }
      }
      var url: HostEntry?
      var audience: String?
      var resources: [String] = []
      var scopes: [Scope] = []
      var username: String?
      var aws: (role: String?, session: String?, endpoint: String?) = (nil, nil, nil)
      for item in fields.entries {
        switch item.key {
        case "url":
          url = try admittedString(item, path: path, in: section) { text throws(AdmissionError) in
            try HostEntry(admitting: text)
          }
        case "audience":
          audience = try admittedString(item, path: path, in: section) { text throws(AdmissionError) in
            try Admit.audience(text)
          }
        case "resource", "resources":
          resources = try admitted(item, path: path) { text throws(AdmissionError) in try Admit.resource(text) }
        case "scopes", "scope":
          scopes = try admitted(item, path: path) { text throws(AdmissionError) in try Admit.scopeToken(text) }
        case "username":
          username = try admittedString(item, path: path, in: section) { text throws(AdmissionError) in
            try API.admitUsername(text)
          }
        case "aws_role_arn":
          aws.role = try admittedString(item, path: path, in: section, AWSRole.admitRoleARN)
        case "aws_session_name":
          aws.session = try admittedString(item, path: path, in: section, AWSRole.admitSessionName)
        case "aws_sts_endpoint":
          aws.endpoint = try admittedString(item, path: path, in: section, AWSRole.admitEndpoint)
        default:
          warnings.append(
            .unknownKey(item.key, in: section, valid: ConfigKeys.api, path: path, position: item.position))
        }
      }
      guard let url else {
        throw .invalid(
          path: path, position: apiEntry.position,
          message:
            "\(section) has no url: write the prefix its URLs start with, e.g. url = \"https://api.example.com/\"")
      }
      if aws.role == nil && (aws.session != nil || aws.endpoint != nil) {
        throw .invalid(
          path: path, position: apiEntry.position,
          message: "\(section) has aws_session_name or aws_sts_endpoint but no aws_role_arn: add the role's ARN")
      }
      apis.append(
        API(
          name: apiEntry.key, url: url, audience: audience, resources: resources, scopes: scopes, username: username,
          aws: aws.role.map { AWSRole(roleARN: $0, sessionName: aws.session, stsEndpoint: aws.endpoint) }))
    }
    return apis
  }
}

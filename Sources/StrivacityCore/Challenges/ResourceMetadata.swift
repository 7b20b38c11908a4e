// An API's OAuth 2.0 Protected Resource Metadata (RFC 9728): where it is (§3.1's well-known URL),
// and the one admission of the document. It is the API's word, not the tenant's: it is used only
// when it names this profile's issuer among its authorization servers, and only for the API it
// describes (its `resource` is a prefix of the URL that was called).

/// The parts of an API's protected-resource metadata strivacity uses.
public struct ResourceMetadata: Sendable, Equatable {
  /// `resource`: the API's resource identifier, a URL prefix (RFC 9728 §2), as a token place.
  public var resource: String
  /// The same, admitted as a place URLs can be under.
  public var resourcePrefix: HostEntry
  /// `scopes_supported`, each one scope token (empty when not given).
  public var scopesSupported: [Scope]
  /// `resource_name` when it is a usable API name (letters, digits, `.`, `_`, `-`; at most 64).
  public var name: String?

  /// The most of a metadata document that is read.
  public static let maxBytes = 64 * 1024

  /// The metadata URL of `resource` (§3.1): `/.well-known/oauth-protected-resource` between
  /// the host and the path (a lone "/" path dropped). nil when `resource` is not an admitted
  /// URL prefix.
  public static func wellKnownURL(for resource: String) -> String? {
    guard (try? HostEntry(admitting: resource)) != nil, let parts = URLParts(resource) else { return nil }
    let origin = "\(parts.origin)"
    let path = parts.pathAndQuery == "/" ? "" : parts.pathAndQuery
    return origin + wellKnownPath + path
  }

  /// Whether `url` (a challenge's `resource_metadata`) is on `origin` under its well-known
  /// metadata path (§3.1): the only place a challenge's metadata is read from, so that an API
  /// cannot have strivacity fetch from another host or port.
  public static func isWellKnown(_ url: String, on origin: Origin) -> Bool {
    guard let parts = URLParts(url), parts.origin == origin else { return false }
    let path = parts.pathAndQuery
    return !path.contains("?") && (path == wellKnownPath || path.hasPrefix(wellKnownPath + "/"))
  }

  static let wellKnownPath = "/.well-known/oauth-protected-resource"

  /// A `resource_metadata` URL from a challenge, or a metadata URL built from one: https, or
  /// http on loopback; no user info or fragment; printable ASCII, at most 2 KiB.
  public static func admitURL(_ text: String) throws(AdmissionError) -> String {
    guard (1...2048).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !text.contains("#")
    else {
      throw AdmissionError("the resource metadata URL is not a printable URL of at most 2048 characters")
    }
    guard let schemeEnd = text.firstRange(of: "://"),
      let authority = Optional(text[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" }),
      !authority.contains("@"), URLPolicy.hostOfAuthority(authority) != nil
    else {
      throw AdmissionError("the resource metadata URL is not an http(s) URL of a host")
    }
    do {
      _ = try URLPolicy.check(text)
    } catch {
      throw AdmissionError("the resource metadata URL must be https (http only on loopback)")
    }
    return text
  }

  /// The one admission of a metadata document fetched for a request to `requestURL`: JSON of at
  /// most `maxBytes`, whose `resource` is an admitted prefix that `requestURL` is under, and
  /// whose `authorization_servers` include `issuer` exactly. Throws a one-line reason (naming the
  /// servers it names instead of ours, as admitted tokens).
  public static func admit(_ bytes: [UInt8], requestURL: String, issuer: String) throws(AdmissionError)
    -> ResourceMetadata
  {
    guard bytes.count <= maxBytes, let json = JSONValue.parse(bytes), json.object != nil else {
      throw AdmissionError("the API's resource metadata is not a JSON object of at most 64 KiB")
    }
    guard let resource = json["resource"]?.string else {
      throw AdmissionError("the API's resource metadata has no resource")
    }
    let prefix: HostEntry
    do {
      _ = try Admit.resource(resource)
      prefix = try HostEntry(admitting: resource)
    } catch {
      throw AdmissionError("the API's resource metadata names an unusable resource: \(error.description)")
    }
    guard TokenDestination.permits(requestURL, allowed: [prefix]) else {
      throw AdmissionError("the API's resource metadata is for \(prefix), not for the URL called")
    }
    guard let servers = json["authorization_servers"]?.array, (1...16).contains(servers.count) else {
      throw AdmissionError("the API's resource metadata names no authorization_servers (1 to 16)")
    }
    let names = servers.compactMap(\.string)
    // The issuer as discovery names it; a trailing slash is the same issuer written two ways.
    let ours = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
    guard names.count == servers.count, names.contains(where: { $0 == ours || $0 == ours + "/" }) else {
      let shown = names.prefix(3).map(Self.shown).joined(separator: ", ")
      throw AdmissionError(
        "the API's resource metadata names authorization server \(shown.isEmpty ? "(none)" : shown), "
          + "not this profile's issuer \(issuer)")
    }
    var scopes: [Scope] = []
    if let list = json["scopes_supported"] {
      guard let items = list.array, items.count <= 64 else {
        throw AdmissionError("the API's scopes_supported is not a list of at most 64 scopes")
      }
      for item in items {
        guard let text = item.string, let scope = try? Admit.scopeToken(text) else {
          throw AdmissionError("the API's scopes_supported has a value that is not one scope")
        }
        scopes.append(scope)
      }
    }
    let name = json["resource_name"]?.string.flatMap { text in
      (1...64).contains(text.utf8.count) && TokenSlot(apiName: text) != nil ? text : nil
    }
    return ResourceMetadata(resource: resource, resourcePrefix: prefix, scopesSupported: scopes, name: name)
  }

  /// A value from the document for a message: printable ASCII, at most 80 characters.
  static func shown(_ text: String) -> String {
    let printable = text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }
    return printable.count > 80 ? String(printable.prefix(77)) + "..." : String(printable)
  }
}

// What a token for one API is asked with, and whether the token the tenant gave is for it
// (issue 27, points 3 and 4): RFC 8707 `resource` (several allowed), an `audience` parameter,
// and scopes; a JWT access token must name the audience (or a resource) in `aud` and carry the
// scopes, an opaque one the token response's `scope` must cover them. A tenant that ignores
// `audience` must not yield, silently, a token the API rejects or one meant for another API.
import StrivacityCore

/// The parameters that aim a token at an API.
public struct APITarget: Sendable, Equatable {
  public var audience: String?
  public var resources: [String]
  public var scopes: [Scope]

  public init(audience: String? = nil, resources: [String] = [], scopes: [Scope] = []) {
    self.audience = audience
    self.resources = resources
    self.scopes = scopes
  }

  /// As a refusal names it (`EndpointAsk`).
  public var narrowed: EndpointAsk.Narrowed {
    EndpointAsk.Narrowed(audience: audience, resources: resources, scopes: scopes.map(\.value))
  }

  /// The token-endpoint parameters (RFC 8707 §2.2: a refresh grant narrowed to the API):
  /// `audience`, each `resource`, then `scope` when there are scopes.
  public var parameters: [FormParameter] {
    var out: [FormParameter] = []
    if let audience { out.append(FormParameter("audience", audience)) }
    out += resources.map { FormParameter("resource", $0) }
    if !scopes.isEmpty { out.append(FormParameter("scope", scopes.map(\.value).joined(separator: " "))) }
    return out
  }

  /// The resources of every API (`resources`: theirs in order), for the authorization request
  /// (RFC 8707 §2.1: consent covers them all), each once, in the order first named.
  public static func authorizationResources(_ resources: [String]) -> [FormParameter] {
    var seen: Set<String> = []
    return resources.filter { seen.insert($0).inserted }.map { FormParameter("resource", $0) }
  }

  public static func union(_ first: [Scope], _ second: [Scope]) -> [Scope] {
    var seen: Set<String> = []
    return (first + second).filter { seen.insert($0.value).inserted }
  }

  /// Why `token` is not a token for this target, or nil when it is. A JWT (three base64url parts
  /// whose middle one is a JSON object) must have the audience, or with none asked a resource,
  /// in `aud` (a string or an array), and its `scope` (space-separated, or `scp` as an array)
  /// must cover the scopes asked; when it has no scope claim, `responseScope` decides, as for an
  /// opaque token. With no audience or resource asked, `aud` is not checked.
  public func mismatch(accessToken token: BearerToken, responseScope: Scope?) -> String? {
    let claims = (try? JWT(compact: token.value))?.claims
    if let claims, audience != nil || !resources.isEmpty {
      let audiences = Self.strings(claims["aud"])
      let wanted = audience.map { [$0] } ?? resources
      guard wanted.contains(where: audiences.contains) else {
        let asked = audience.map { "audience \($0)" } ?? "resource \(resources.joined(separator: ", "))"
        // The token's audiences are the tenant's words: cut to size and made inert.
        let got = audiences.isEmpty ? "no aud" : "aud \(TenantWords.quoted(audiences.joined(separator: ", ")) ?? "")"
        return "the tenant's token is not for \(TerminalSafe.text(asked, multiline: false)) (it has \(got))"
      }
    }
    let granted: [String]?
    if let claims, claims["scope"] != nil || claims["scp"] != nil {
      granted = claims["scope"]?.string.map { $0.split(separator: " ").map(String.init) } ?? Self.strings(claims["scp"])
    } else {
      granted = responseScope.map { $0.value.split(separator: " ").map(String.init) }
    }
    // No scope said anywhere: RFC 6749 §5.1, the scope asked was granted.
    guard let granted else { return nil }
    let missing = scopes.map(\.value).filter { !granted.contains($0) }
    guard missing.isEmpty else {
      return "the tenant's token lacks the scope \(missing.joined(separator: " ")) that was asked"
    }
    return nil
  }

  /// A claim that is a string or an array of strings.
  private static func strings(_ value: JSONValue?) -> [String] {
    if let text = value?.string { return [text] }
    return value?.array?.compactMap(\.string) ?? []
  }
}

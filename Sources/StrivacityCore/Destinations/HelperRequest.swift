// What a tool's credential helper is asked about when it names a host (a registry's
// address, a service host), read as the URL the destination rule compares (TokenDestination): the one
// way in for those hosts, so a registry with user info or a path trick is refused here as curl's
// URLs and git's requests are. A package index's URL is a URL already: TokenDestination admits it
// itself (ToolHelpers).

public enum HelperRequest {
  /// Most bytes of one address: what a registry's or a host's name may be, with room to spare.
  public static let maxLength = 2048

  /// The URL that `text` names: an http(s) URL as given, or a host, `host:port` or `host/path`
  /// with https put before it (plain http on loopback, as `HostEntry.gitURL` reads a host);
  /// surrounding spaces and line breaks are dropped (the container tools' helpers trim them). Throws for
  /// anything TokenTarget does not read one way: user info, a query or fragment, an encoded dot
  /// or slash, spaces, control or non-ASCII characters, another scheme.
  public static func url(admitting text: String) throws(AdmissionError) -> String {
    let trimmed = String(text.trimmingASCIISpace)
    guard !trimmed.isEmpty else { throw AdmissionError("no address was given") }
    guard trimmed.utf8.count <= maxLength, trimmed.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw AdmissionError("the address has spaces, control or non-ASCII characters, or is too long")
    }
    guard !trimmed.contains("?"), !trimmed.contains("#") else {
      throw AdmissionError("the address has a query or a fragment")
    }
    let url: String
    if trimmed.contains("://") {
      url = trimmed
    } else {
      let authority = trimmed.prefix { $0 != "/" }
      guard let host = URLPolicy.hostOfAuthority(authority) else {
        throw AdmissionError("the address is not a host, host:port or http(s) URL (no user info)")
      }
      url =
        (URLPolicy.isLoopbackHost(String(host)) ? "http://" : "https://") + trimmed
        + (authority.count == trimmed.count ? "/" : "")
    }
    _ = try TokenTarget(url)
    return url
  }
}

extension String {
  /// Without leading and trailing ASCII spaces, tabs and line breaks.
  fileprivate var trimmingASCIISpace: Substring {
    let space: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
    guard let first = firstIndex(where: { !space($0) }), let last = lastIndex(where: { !space($0) }) else { return "" }
    return self[first...last]
  }
}

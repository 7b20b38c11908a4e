// An OAuth failure as a value: what the tenant said (RFC 6749 §5.2) or why its answer breaks the
// protocol. Read by OAuthCore, named by the engine's failures (BrokerError).

/// OAuth failures: the server's RFC 6749 §5.2 error, or an answer that breaks the protocol.
public enum OAuthError: Error, Equatable, CustomStringConvertible {
  case server(error: String, description: String?, status: Int)
  case malformed(String)

  /// Parses an error body; nil when it is not an OAuth error document. The tenant's words are
  /// admitted here as every quotation is (`TenantWords.quoted`: one inert line, cut to its
  /// bound), so no message that names the error carries more of them.
  public static func from(status: Int, body: [UInt8]) -> OAuthError? {
    guard let json = JSONValue.parse(body), let error = json["error"]?.string else { return nil }
    return .server(
      error: TenantWords.quoted(error) ?? "",
      description: json["error_description"]?.string.flatMap(TenantWords.quoted),
      status: status)
  }

  /// The server's `error` code; nil for a broken answer.
  public var code: String? {
    if case .server(let error, _, _) = self { return error }
    return nil
  }

  public var description: String {
    switch self {
    case .server(let error, let description, _): return TenantWords.of(error: error, description: description)
    case .malformed(let detail): return detail
    }
  }
}

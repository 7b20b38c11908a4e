// cargo's credential provider protocol, version 1 (cargo ≥ 1.74; the Cargo Book's "Credential
// Provider Protocol"), strictly:
// - cargo runs the provider with `--cargo-plugin`; the provider first writes its hello,
//   `{"v":[1]}`, then answers each request line (one JSON object) with one line, `{"Ok":{…}}` or
//   `{"Err":{"kind":…}}`, until cargo closes stdin;
// - a request is admitted whole here (bounded, JSON, version 1, its fields of the right types)
//   or not at all; the registry's index URL is read as every URL asking for a token is
//   (TokenDestination); the 401's headers cargo passes on are read only as an API's Bearer
//   challenge (BearerChallenge.admit);
// - an answer is built only from an admitted token and our own words, as one JSON line.
import StrivacityConfig
import StrivacityCore

/// One request of cargo's, admitted.
public struct CargoRequest: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    /// A token for `operation` (read, publish, yank, unyank, owners, or one cargo adds later).
    case get(operation: String)
    case login
    case logout
    /// A kind a later cargo may send: answered `operation-not-supported`.
    case other(String)
  }

  public var kind: Kind
  /// `registry.index-url` as cargo sent it (`sparse+https://…/` for a sparse index).
  public var indexURL: String
  /// `registry.name`, when the registry has one in cargo's config.
  public var name: String?
  /// `registry.headers`: the lines of the registry's 401 answer (`name: value`), when cargo passes them.
  public var headers: [String]
  /// `args`: the words after the provider's path in cargo's `credential-provider`, then
  /// `cargo login -- ARGS`.
  public var args: [String]

  public init(kind: Kind, indexURL: String, name: String? = nil, headers: [String] = [], args: [String] = []) {
    self.kind = kind
    self.indexURL = indexURL
    self.name = name
    self.headers = headers
    self.args = args
  }
}

/// Why a line is not a request: the stream is not cargo's protocol (said in the `other` error
/// shape, never with the line's content, which may hold a `cargo login` token).
public enum CargoParseError: Error, Equatable, CustomStringConvertible {
  case tooLarge
  case notJSON
  case unsupportedVersion
  case malformed(String)

  public var description: String {
    switch self {
    case .tooLarge: return "the request is longer than \(CargoProtocol.maxLine) bytes"
    case .notJSON: return "the request is not a JSON object on one line"
    case .unsupportedVersion: return "the request is not of protocol version 1"
    case .malformed(let what): return "the request's \(what)"
    }
  }
}

public enum CargoProtocol {
  /// Set by the small binary when it hands a request on to the full command line: the hello
  /// has been said (cargo reads it once).
  public static let helloSentVariable = "STRIVACITY_CARGO_HELLO_SENT"
  /// The provider's first line: the protocol versions it speaks.
  public static let hello = "{\"v\":[1]}\n"
  /// Longest request line accepted (cargo's are a few hundred bytes; a 401's headers a few KiB).
  public static let maxLine = 1 << 20
  /// At most this many header lines and args are read; more is not cargo.
  static let maxItems = 256

  /// Admits one request line (its newline removed).
  public static func parse(_ line: some Collection<UInt8>) throws(CargoParseError) -> CargoRequest {
    guard line.count <= maxLine else { throw .tooLarge }
    var bytes = Array(line)
    if bytes.last == 13 { bytes.removeLast() }
    guard bytes.first(where: { $0 != 32 && $0 != 9 }) == UInt8(ascii: "{"), let json = JSONValue.parse(bytes),
      let object = json.object
    else { throw .notJSON }
    guard let version = object["v"]?.number, version == 1 else { throw .unsupportedVersion }
    guard let registry = object["registry"]?.object else { throw .malformed("registry is not an object") }
    guard let indexURL = registry["index-url"]?.string, !indexURL.isEmpty else {
      throw .malformed("registry has no index-url")
    }
    let name = try optionalString(registry["name"], "registry name")
    let headers = try strings(registry["headers"], "registry headers")
    let args = try strings(object["args"], "args")
    guard let kindName = object["kind"]?.string else { throw .malformed("kind is not a string") }
    let kind: CargoRequest.Kind
    switch kindName {
    case "get":
      guard let operation = object["operation"]?.string else { throw .malformed("operation is not a string") }
      kind = .get(operation: operation)
    case "login": kind = .login
    case "logout": kind = .logout
    default: kind = .other(kindName)
    }
    return CargoRequest(kind: kind, indexURL: indexURL, name: name, headers: headers, args: args)
  }

  private static func optionalString(_ value: JSONValue?, _ what: String) throws(CargoParseError) -> String? {
    guard let value, !value.isNull else { return nil }
    guard let text = value.string else { throw .malformed("\(what) is not a string") }
    return text
  }

  private static func strings(_ value: JSONValue?, _ what: String) throws(CargoParseError) -> [String] {
    guard let value, !value.isNull else { return [] }
    guard let items = value.array, items.count <= maxItems else {
      throw .malformed("\(what) are not a list of at most \(maxItems) strings")
    }
    var result: [String] = []
    for item in items {
      guard let text = item.string else { throw .malformed("\(what) are not a list of strings") }
      result.append(text)
    }
    return result
  }

  /// `get`'s answer: the token as the value of cargo's Authorization header, kept by cargo for
  /// this run until it expires (never past it: cargo asks again a minute before), for every
  /// operation (reading and publishing take the same token).
  /// Written by hand, keys in order (the encoder's work was a third of a cached answer's).
  public static func tokenAnswer(_ token: BearerToken, expiresAt: Int64?) -> String {
    let cache = expiresAt.map { "\"cache\":\"expires\",\"expiration\":\($0)," } ?? "\"cache\":\"never\","
    return "{\"Ok\":{" + cache + "\"kind\":\"get\",\"operation_independent\":true,\"token\":"
      + JSONValue.quoted("Bearer " + token.value) + "}}\n"
  }

  /// The protocol's error kinds.
  public enum ErrorKind: String, Sendable {
    /// Not a registry of ours: cargo asks its next provider.
    case urlNotSupported = "url-not-supported"
    /// No credential here: cargo asks its next provider.
    case notFound = "not-found"
    /// `login`, `logout`, and kinds a later cargo may send.
    case operationNotSupported = "operation-not-supported"
    /// Everything else: cargo shows `message` and stops.
    case other
  }

  /// An error answer; `message` is our own words (one line, made printable: cargo shows it).
  public static func errorAnswer(_ kind: ErrorKind, message: String? = nil) -> String {
    var error: [String: JSONValue] = ["kind": .string(kind.rawValue)]
    if let message { error["message"] = .string(TerminalSafe.text(message, multiline: false)) }
    return JSONValue.object(["Err": .object(error)]).text + "\n"
  }
}

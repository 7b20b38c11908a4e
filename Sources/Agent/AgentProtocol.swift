// The protocol of `strivacity agent`'s socket: one request and one response per connection,
// each a frame of a 4-byte big-endian length and that many bytes of `name=value` lines (UTF-8,
// no CR or NUL, no name twice). Every frame starts with `v=1`. Frames over `maxFrame` bytes,
// and anything else that does not read as described, are refused whole: the agent answers a
// refusal and closes, the client falls back to doing the work itself.
//
// New kinds of request are new ops, never new meanings of an old op's fields: an agent that does
// not know an op refuses it (`unknown request`, status 2, not a final refusal), and its client
// does the work itself. So a client newer than its agent is only slower, never answered wrongly
// (an `api-token` request read by an agent from before APIs as `token` would get the sign-in's
// token).
//
// Read without Foundation: the small `strivacity` binary speaks it on the hot path.
import StrivacityConfig
import StrivacityCore

public enum AgentProtocol {
  public static let version = "1"
  /// The largest frame either side accepts (a token set is a few KiB).
  public static let maxFrame = 65_536
  /// Most fields in one message.
  public static let maxFields = 64

  /// The environment a request may carry, so the agent resolves the profile as the client
  /// would have: nothing else of the client's environment reaches the agent.
  public static let environmentNames: [String] = [
    "STRIVACITY_PROFILE", "STRIVACITY_TENANT", "STRIVACITY_CLIENT_ID", "STRIVACITY_CONFIG", "STRIVACITY_TIMEOUT",
    "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
  ]

  /// `message` as a frame: length, then its lines.
  public static func frame(_ message: AgentMessage) -> [UInt8] {
    let body = message.encoded()
    let n = UInt32(body.count)
    return [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + body
  }

  /// The payload length a frame header announces; nil when it is over `maxFrame`.
  public static func payloadLength(_ header: [UInt8]) -> Int? {
    guard header.count == 4 else { return nil }
    let n = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
    return n <= maxFrame ? n : nil
  }
}

/// Why a frame was refused.
public struct AgentProtocolError: Error, Equatable, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}

/// One request or response: its fields in order.
public struct AgentMessage: Equatable, Sendable {
  public private(set) var fields: [(name: String, value: String)] = []

  public init() {}

  public static func == (a: AgentMessage, b: AgentMessage) -> Bool {
    a.fields.elementsEqual(b.fields) { $0.name == $1.name && $0.value == $1.value }
  }

  public subscript(name: String) -> String? { fields.first { $0.name == name }?.value }

  /// Adds a field; false (and nothing added) when the name or value cannot be sent: a name that
  /// is not [A-Za-z0-9_.], a value with CR, LF or NUL, a name already there, too many fields.
  @discardableResult
  public mutating func set(_ name: String, _ value: String) -> Bool {
    guard name != "v", Self.isName(name), !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }),
      self[name] == nil, fields.count < AgentProtocol.maxFields
    else { return false }
    fields.append((name, value))
    return true
  }

  /// The lines, `v=1` first.
  func encoded() -> [UInt8] {
    var out = Array("v=\(AgentProtocol.version)\n".utf8)
    for (name, value) in fields where name != "v" {
      out += Array(name.utf8)
      out.append(UInt8(ascii: "="))
      out += Array(value.utf8)
      out.append(UInt8(ascii: "\n"))
    }
    return out
  }

  /// Reads a frame's payload (outside input: the other end may be anything that reached the
  /// socket). The `v` field is checked and not kept.
  public init(decoding payload: ArraySlice<UInt8>) throws(AgentProtocolError) {
    guard payload.count <= AgentProtocol.maxFrame else { throw AgentProtocolError("the message is too large") }
    guard payload.last == UInt8(ascii: "\n") else { throw AgentProtocolError("the message does not end a line") }
    var sawVersion = false
    for line in payload.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
      guard let eq = line.firstIndex(of: UInt8(ascii: "=")),
        let name = String(validating: line[..<eq], as: UTF8.self),
        let value = String(validating: line[line.index(after: eq)...], as: UTF8.self)
      else { throw AgentProtocolError("a line is not name=value in UTF-8") }
      if !sawVersion {
        guard name == "v", value == AgentProtocol.version else {
          throw AgentProtocolError("not version \(AgentProtocol.version) of the protocol")
        }
        sawVersion = true
        continue
      }
      guard set(name, value) else {
        throw AgentProtocolError("a field is malformed or repeated, or there are too many")
      }
    }
    guard sawVersion else { throw AgentProtocolError("the message is empty") }
  }

  static func isName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 64
      && name.utf8.allSatisfy { b in
        (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == UInt8(ascii: "_")
          || b == UInt8(ascii: ".")
      }
  }
}

// MARK: token answers

extension AgentMessage {
  /// A successful answer with `tokens`' access token, its type, times and scope, and the ID
  /// token when asked for: never the refresh token, which stays in the agent and the keyring.
  public static func answer(_ tokens: TokenSet, includeIDToken: Bool) -> AgentMessage {
    var message = AgentMessage()
    message.set("status", "0")
    message.set("access_token", tokens.accessToken.value)
    message.set("token_type", tokens.tokenType)
    message.set("obtained_at", String(tokens.obtainedAt))
    if let expiresAt = tokens.expiresAt { message.set("expires_at", String(expiresAt)) }
    if let scope = tokens.scope { message.set("scope", scope.value) }
    if includeIDToken, let idToken = tokens.idToken { message.set("id_token", idToken.value) }
    return message
  }

  /// A refusal: the exit status the command would have ended with, and its one-line message.
  public static func refusal(status: ExitStatus, message text: String) -> AgentMessage {
    var message = AgentMessage()
    message.set("status", String(status.rawValue))
    // One line: a message is never allowed to break the frame's lines.
    message.set(
      "message", String(text.unicodeScalars.map { $0 == "\n" || $0 == "\r" || $0 == "\0" ? " " : Character($0) }))
    return message
  }

  /// The exit status an answer carries: 0 for tokens, another documented status for a refusal;
  /// nil when there is none that reads (a malformed answer).
  public var status: Int32? {
    guard let text = self["status"], (1...3).contains(text.utf8.count),
      text.utf8.allSatisfy({ (0x30...0x39).contains($0) })
    else { return nil }
    return Int32(text)
  }

  /// The statuses of a refusal that holds for the caller too: sign in again, the tenant or the
  /// network failing (the agent runs on this host, on its network), the tenant refusing.
  /// Anything else (the agent's keyring, its config: usage, store, keyring locked or denied) may
  /// be the agent's own, and the caller does the work itself.
  public static let finalStatuses: Set<ExitStatus> = [.signInRequired, .transient, .server]

  /// A refusal the caller is to take as its own answer: its status and one-line message.
  public var finalRefusal: (status: ExitStatus, message: String)? {
    guard let code = status, let status = ExitStatus(rawValue: code), Self.finalStatuses.contains(status),
      let message = self["message"], !message.isEmpty
    else { return nil }
    return (status, message)
  }

  /// The token set of a successful answer, every field admitted as a stored set's is; nil when
  /// any does not read (the caller does the work itself).
  public var tokenSet: TokenSet? {
    guard status == 0, var tokens = CacheRecord.admitted({ self[$0] }) else { return nil }
    if let text = self["id_token"] {
      guard let idToken = try? IDToken(admitting: text) else { return nil }
      tokens.idToken = idToken
    }
    return tokens
  }
}

// MARK: what a token request is for

/// Which of a profile's tokens a request asks for: the sign-in's (op `token`), or an API's (op
/// `api-token`): a configured one by name (`api`), with scopes besides its own (`scope.0`,
/// `scope.1`, …), or an ad hoc target (`audience`, `resource.N`, `scope.N`). A configured API
/// goes by its name alone: the agent reads its table from the config as the file is now, and
/// keeps its token in the slot that table's settings name (`API.slot`).
public enum AgentTokenTarget: Sendable, Equatable {
  case signIn
  case api(String, extraScopes: [Scope])
  case adHoc(AdHocTarget)

  /// Adds the target's fields; false when they do not fit in one message.
  func write(into message: inout AgentMessage) -> Bool {
    func list(_ name: String, _ values: [String]) -> Bool {
      values.enumerated().allSatisfy { message.set("\(name).\($0.offset)", $0.element) }
    }
    switch self {
    case .signIn: return true
    case .api(let name, let scopes): return message.set("api", name) && list("scope", scopes.map(\.value))
    case .adHoc(let target):
      return (target.audience.map { message.set("audience", $0) } ?? true) && list("resource", target.resources)
        && list("scope", target.scopes.map(\.value))
    }
  }

  /// The target of a request (outside input: every value admitted as the command line's is).
  public init(request: AgentMessage) throws(AgentProtocolError) {
    func list(_ name: String) -> [String] {
      var values: [String] = []
      while let value = request["\(name).\(values.count)"] { values.append(value) }
      return values
    }
    switch request["op"] {
    case "token": self = .signIn
    case "api-token":
      if let name = request["api"] {
        guard ProfileName.isValid(name), request["audience"] == nil, request["resource.0"] == nil,
          let scopes = try? list("scope").map({ text throws(AdmissionError) in try Admit.scopeToken(text) })
        else { throw AgentProtocolError("an api-token request names an API and valid scopes") }
        self = .api(name, extraScopes: scopes)
      } else {
        do {
          self = .adHoc(
            try AdHocTarget(audience: request["audience"], resources: list("resource"), scopes: list("scope")))
        } catch {
          throw AgentProtocolError("an api-token request's ad hoc API: \(error.description)")
        }
      }
    default: throw AgentProtocolError("not a token request")
    }
  }
}

// The loopback redirect listener (RFC 8252 §7.3): bound to 127.0.0.1 or ::1 only, on the
// redirect URI's port, answering exactly one request with the right path and state; anything
// else gets 404 (wrong path), 405 (not GET) or 400 (wrong or missing state, or after the one).
import Broker
import Dispatch
import LoopbackHTTP
import StrivacityCore
import Synchronization
import SystemIO
import TerminalUI

final class RedirectListener: @unchecked Sendable {
  /// The redirect URI to send, with the port actually bound.
  let redirectURI: String
  let path: String
  private var servers: [LoopbackServer] = []
  private let expectedState = Mutex<String?>(nil)
  private let delivered = Mutex<String?>(nil)
  private let signal = DispatchSemaphore(value: 0)

  /// - Parameter requested: the configured redirect URI; nil picks `http://127.0.0.1:<free>/callback`.
  init(requested: String?) throws(CLIFailure) {
    var uri = requested ?? "http://127.0.0.1:0/callback"
    // Port 0 (or none) means "any free port": bind first, then say which.
    var anyPort = false
    if let match = uri.firstMatch(of: /^(http:\/\/[^\/?#]+):0(?=[\/?#]|$)/) {
      uri = String(match.1) + uri[match.range.upperBound...]
      anyPort = true
    }
    guard let parts = URLParts(uri), parts.scheme == "http", parts.isLoopback else {
      throw CLIFailure(
        "the redirect URI must be http:// on a loopback address (127.0.0.1, [::1] or localhost), not \(uri)",
        status: .usage)
    }
    path = String(parts.pathAndQuery.prefix { $0 != "?" })
    var hosts: [String]
    switch parts.host {
    case "localhost": hosts = ["127.0.0.1", "::1"]  // browsers may pick either
    case "::1", "[::1]": hosts = ["::1"]
    default: hosts = ["127.0.0.1"]
    }
    if parts.host != "localhost" && parts.host != "::1" && parts.host != "127.0.0.1" {
      hosts = ["127.0.0.1"]
      guard parts.host == "127.0.0.1" else {
        throw CLIFailure("the redirect URI's host must be 127.0.0.1, [::1] or localhost", status: .usage)
      }
    }
    // Every address of the name must be ours: were [::1]:PORT held by another local user, a
    // browser that resolves localhost to ::1 would hand it the code. With any port, another
    // port is tried; with a fixed one, the sign-in stops. Only a machine without IPv6 (the
    // address cannot exist, so nobody can hold it) may skip ::1.
    let weak = WeakListener()
    var failure: ServerError?
    for _ in 0..<(anyPort ? 20 : 1) {
      do {
        servers = try Self.bindEvery(hosts, port: anyPort ? 0 : (parts.port ?? 80)) { weak.handle($0) }
        break
      } catch {
        failure = error
      }
    }
    guard let port = servers.first?.port else {
      throw CLIFailure(
        "cannot listen for the sign-in redirect: \(failure.map { "\($0)" } ?? "no address")", status: .usage)
    }
    let hostText = parts.host.contains(":") ? "[\(parts.host)]" : parts.host
    redirectURI = "http://\(hostText):\(port)\(parts.pathAndQuery)"
    weak.listener = self
  }

  func stop() { servers.forEach { $0.stop() } }

  /// Binds every address in `hosts` on one port (`port`, or the first free one when 0), or none.
  private static func bindEvery(
    _ hosts: [String], port: Int, handler: @escaping LoopbackServer.Handler
  ) throws(ServerError) -> [LoopbackServer] {
    var servers: [LoopbackServer] = []
    var port = port
    for host in hosts {
      do {
        let server = try LoopbackServer(
          host: host, port: port, maxConnections: 16, requestDeadlineSeconds: 5, handler: handler)
        port = server.port
        servers.append(server)
      } catch {
        if error.isAddressUnavailable, host == "::1", !servers.isEmpty {
          continue  // no IPv6 loopback on this machine
        }
        servers.forEach { $0.stop() }
        throw error
      }
    }
    return servers
  }

  /// Whether `url` is our redirect URI (same scheme, host, port and path; any query). An exact
  /// comparison, not a string prefix: `/callbackX` or another path on our port is not ours.
  func isOurs(_ url: String) -> Bool {
    guard let given = URLParts(url), let ours = URLParts(redirectURI) else { return false }
    func path(_ parts: URLParts) -> Substring { parts.pathAndQuery.prefix { $0 != "?" } }
    return given.scheme == ours.scheme && given.host == ours.host && given.port == ours.port
      && path(given) == path(ours)
  }

  /// Arms the listener for one sign-in attempt.
  func expect(state: String) {
    expectedState.withLock { $0 = state }
    delivered.withLock { $0 = nil }
  }

  fileprivate func handle(_ request: ServerRequest) -> ServerReply {
    guard request.method == "GET" else {
      return page(405, "Method not allowed", "The sign-in redirect is a GET request.")
    }
    guard request.path == path else { return page(404, "Not found", "Nothing here.") }
    let query = FormURLEncoding.dictionary(request.query)
    let expected = expectedState.withLock { $0 }
    guard let expected, query["state"] == expected else {
      return page(
        400, "Unexpected sign-in", "This redirect does not belong to the sign-in in progress in your terminal.")
    }
    let accepted = delivered.withLock { value -> Bool in
      guard value == nil else { return false }
      value = redirectURIBase + request.target
      return true
    }
    guard accepted else {
      return page(400, "Already done", "This sign-in has already completed. You can close this tab.")
    }
    signal.signal()
    if query["error"] != nil {
      return page(200, "Sign-in did not complete", "Return to your terminal for details. You can close this tab.")
    }
    return page(200, "Signed in", "You can close this tab and return to your terminal.")
  }

  private var redirectURIBase: String {
    guard let parts = URLParts(redirectURI) else { return redirectURI }
    let host = parts.host.contains(":") ? "[\(parts.host)]" : parts.host
    return "http://\(host):\(parts.port ?? 80)"
  }

  /// Waits for the redirect, or a URL pasted on `terminal`, for up to `timeout` seconds.
  func wait(timeout: Double, terminal: TTY?) -> String? {
    let done = DoneFlag()
    if let terminal {
      // Poll the terminal so that the reader never outlives the wait (it would steal the
      // next answer typed at a prompt).
      let reader = PasteReader(fd: terminal.fd, done: done) { [self] (line: String) -> Bool in
        guard self.isOurs(line) else { return false }
        let accepted = self.delivered.withLock { value -> Bool in
          guard value == nil else { return false }
          value = line
          return true
        }
        if accepted { self.signal.signal() }
        return accepted
      }
      reader.start()
    }
    defer { done.set() }
    if signal.wait(timeout: .now() + timeout) == .timedOut { return nil }
    return delivered.withLock { $0 }
  }

  private func page(_ status: Int, _ title: String, _ text: String) -> ServerReply {
    ServerReply(
      status: status, contentType: "text/html; charset=utf-8",
      text: "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>strivacity: \(title)</title></head>"
        + "<body style=\"font-family: sans-serif; margin: 3em\"><h1>\(title)</h1><p>\(text)</p></body></html>\n",
      headers: [("Cache-Control", "no-store"), ("Connection", "close")])
  }
}

private final class WeakListener: @unchecked Sendable {
  weak var listener: RedirectListener?
  func handle(_ request: ServerRequest) -> ServerReply {
    listener?.handle(request) ?? ServerReply(status: 503)
  }
}

/// Reads lines from the terminal while a wait lasts.
private final class PasteReader: @unchecked Sendable {
  let fd: Int32
  let done: DoneFlag
  let accept: (String) -> Bool

  init(fd: Int32, done: DoneFlag, accept: @escaping (String) -> Bool) {
    self.fd = fd
    self.done = done
    self.accept = accept
  }

  func start() {
    DispatchQueue.global().async { [self] in
      var line: [UInt8] = []
      while !done.isSet {
        let byte: UInt8
        switch TTY.readByte(fd, waitingMilliseconds: 200) {
        case .nothingYet: continue
        case .ended: return
        case .byte(let read): byte = read
        }
        if byte == 10 {
          let text = String(decoding: line, as: UTF8.self).trimming(" \r\t")
          line = []
          if !text.isEmpty && accept(text) { return }
        } else {
          line.append(byte)
        }
      }
    }
  }
}

final class DoneFlag: Sendable {
  private let value = Mutex(false)
  var isSet: Bool { value.withLock { $0 } }
  func set() { value.withLock { $0 = true } }
}

/// Opens `url` in the user's browser: $BROWSER (its first entry), else xdg-open. The URL is
/// always exactly one argument: a `%s` in $BROWSER is replaced inside the word that holds it,
/// after the command is split into words, and an admitted URL has no spaces and starts with
/// http, so no launcher can take it for an option. Returns false when none could be started.
func openBrowser(_ url: BrowserURL, environment: [String: String]) -> Bool {
  let command = browserCommand(url, environment: environment)
  guard !command.isEmpty else { return false }
  // In a session of its own: the browser outlives us quietly.
  guard
    case .success(let child) = spawnProgram(
      command, descriptors: [.devNull(0), .devNull(1), .devNull(2)], newSession: true)
  else { return false }
  // Reap it when it exits so no zombie stays behind.
  DispatchQueue.global().async { _ = waitForExit(child) }
  return true
}

/// The argv that opens `url`.
func browserCommand(_ url: BrowserURL, environment: [String: String]) -> [String] {
  guard let browser = environment["BROWSER"]?.split(separator: ":").first.map(String.init),
    !browser.trimming(" ").isEmpty
  else { return ["xdg-open", url.value] }
  let words = browser.split(separator: " ").map(String.init)
  guard words.contains(where: { $0.contains("%s") }) else { return words + [url.value] }
  return words.map { $0.replacing("%s", with: url.value) }
}

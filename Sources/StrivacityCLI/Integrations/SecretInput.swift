// A secret a person hands over on stdin: a client secret (`login --client-secret-stdin`), a
// proxy's password (`setup-proxy`).
import Broker
import SystemIO
import TerminalUI

enum SecretInput {
  /// Typed without echo after `prompt` on a terminal, else read whole from stdin (one trailing
  /// line end dropped), at most `limit` bytes. Never shown; empty is an error naming `what`.
  static func read(prompt: String, what: String, limit: Int) throws -> String {
    var text: String
    if isTerminal(0), let tty = TTY() {
      do {
        text = try tty.readLine(prompt: prompt, hidden: true)
      } catch {
        throw CLIFailure("no \(what) was typed", status: .interrupted)
      }
    } else {
      var bytes = readStdin(limit: limit + 3)
      defer { bytes.wipe() }
      if bytes.last == 0x0A { bytes.removeLast() }
      if bytes.last == 0x0D { bytes.removeLast() }
      guard let decoded = String(validating: bytes, as: UTF8.self) else {
        throw CLIFailure("the \(what) on stdin is not UTF-8 text", status: .usage)
      }
      text = decoded
    }
    guard !text.isEmpty else { throw CLIFailure("no \(what) on stdin", status: .usage) }
    return text
  }
}

// Human output. stdout carries data only; messages go to stderr, in one voice:
// `strivacity: error: …`, `strivacity: warning: …`.
import TerminalUI

enum Console {
  static func writeStdout(_ text: String) { writeAll(1, text) }
  static func writeStderr(_ text: String) { writeAll(2, text) }

  static func error(_ message: String) { writeStderr("strivacity: error: \(message)\n") }
  static func warning(_ message: String) { writeStderr("strivacity: warning: \(message)\n") }
}

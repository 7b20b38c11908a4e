// Human output. stdout carries data only; messages go to stderr, in one voice:
// `strivacity: error: …`, `strivacity: warning: …`, `strivacity: …` (what it does next).
import StrivacityCore
import SystemIO

package enum Console {
  /// Data for programs: tokens, JSON, tables, exactly as given; when stdout is a terminal a
  /// person reads it, so it goes through the terminal sink like everything else on a screen.
  package static func writeStdout(_ text: String) { SystemIO.writeStdout(text) }
  /// Text for people, through the terminal sink (escape sequences from outside are made visible).
  package static func writeStderr(_ text: String) { writeTerminal(2, text) }

  /// One line, whatever the message holds (it may quote a tenant's error_description).
  package static func error(_ message: String) {
    writeStderr("strivacity: error: \(TerminalSafe.text(message, multiline: false))\n")
  }
  package static func warning(_ message: String) {
    writeStderr("strivacity: warning: \(TerminalSafe.text(message, multiline: false))\n")
  }
  /// What strivacity does next, on its own (answering an API's challenge).
  package static func note(_ message: String) {
    writeStderr("strivacity: \(TerminalSafe.text(message, multiline: false))\n")
  }
}

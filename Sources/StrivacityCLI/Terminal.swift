// Human output. stdout carries data only; messages go to stderr, in one voice:
// `strivacity: error: …`, `strivacity: warning: …`, `strivacity: hint: …`.
import Glibc

enum Console {
  static func writeStdout(_ text: String) { write(1, text) }
  static func writeStderr(_ text: String) { write(2, text) }

  static func error(_ message: String) { writeStderr("strivacity: error: \(message)\n") }
  static func warning(_ message: String) { writeStderr("strivacity: warning: \(message)\n") }
  static func hint(_ message: String) { writeStderr("strivacity: hint: \(message)\n") }

  private static func write(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { buffer in
      var offset = 0
      while offset < buffer.count {
        let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
      }
    }
  }
}

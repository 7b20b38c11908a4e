// A config file and a repository's git files are read by every `strivacity token` and helper
// `get`: a FIFO (or a device) put at one of those names is refused at once, never waited on for
// a writer that does not come (readFile's regularOnly, SystemIO).
import Foundation
import Glibc
import StrivacityCore
import StrivacityTestSupport
import SystemIO
import Testing

@Suite struct RegularFileReadTests {
  func refusal(_ read: FileRead) -> String? {
    if case .failed(let why) = read { return why }
    return nil
  }

  @Test func aFIFOIsRefusedWithoutWaiting() throws {
    let dir = try ScratchDirectory()
    let fifo = dir.file("config.toml")
    #expect(mkfifo(fifo, 0o600) == 0)
    let started = Date()
    #expect(refusal(readFile(fifo, regularOnly: true)) == "not a regular file")
    #expect(Date().timeIntervalSince(started) < 5, "it waited for a writer")
    #expect(refusal(readFile("/dev/null", regularOnly: true)) == "not a regular file")
    let plain = try dir.write("plain", "x = 1\n", mode: 0o600)
    guard case .contents(let bytes) = readFile(plain, regularOnly: true) else {
      Issue.record("a regular file was refused")
      return
    }
    #expect(bytes == Array("x = 1\n".utf8))
  }
}

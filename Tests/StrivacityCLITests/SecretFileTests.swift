// client_secret_file (issue 28): only a small regular file of this user's that nobody else can
// read; each refusal names the path and what is wrong, never the content.
import Foundation
import StrivacityCore
import StrivacityTestSupport
import SystemIO
import Testing

@Suite struct SecretFileTests {
  func refusal(_ path: String, environment: [String: String] = [:]) -> String {
    do {
      _ = try SecretFile.read(path, environment: environment)
      return "accepted"
    } catch {
      return error.description
    }
  }

  @Test func aPrivateFileIsRead() throws {
    let dir = try ScratchDirectory()
    let path = try dir.write("secret", "s3:cr%et+\u{20AC}\n", mode: 0o600)
    #expect(try SecretFile.read(path, environment: [:]).value == "s3:cr%et+\u{20AC}")
    let crlf = try dir.write("crlf", "line1\nline2\r\n", mode: 0o400)
    #expect(try SecretFile.read(crlf, environment: [:]).value == "line1\nline2", "one trailing line end dropped")
    // systemd's credentials directory.
    _ = try dir.write("creds/bot", "from-systemd", mode: 0o600)
    let viaSystemd = try SecretFile.read(
      "$CREDENTIALS_DIRECTORY/bot", environment: ["CREDENTIALS_DIRECTORY": dir.file("creds")])
    #expect(viaSystemd.value == "from-systemd")
    #expect(refusal("$CREDENTIALS_DIRECTORY/bot").contains("CREDENTIALS_DIRECTORY is not set"))
  }

  @Test func everythingElseIsRefusedNamingWhy() throws {
    let dir = try ScratchDirectory()
    let open = try dir.write("open", "hunter2", mode: 0o644)
    #expect(refusal(open) == "client_secret_file \(open): mode 644 lets others read it: chmod 600 it")
    let group = try dir.write("group", "hunter2", mode: 0o640)
    #expect(refusal(group).contains("mode 640"))
    let big = try dir.write("big", String(repeating: "x", count: 10 * 1_048_576), mode: 0o600)
    #expect(refusal(big) == "client_secret_file \(big): 10485760 bytes, more than the 4096 it may have")
    let link = dir.file("link")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dir.file("group"))
    #expect(refusal(link) == "client_secret_file \(link): it is a symbolic link")
    let fifo = dir.file("fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(refusal(fifo) == "client_secret_file \(fifo): not a regular file")
    #expect(refusal(dir.path) == "client_secret_file \(dir.path): not a regular file")
    #expect(refusal(dir.file("missing")).hasSuffix("No such file or directory"))
    let empty = try dir.write("empty", "\n", mode: 0o600)
    #expect(refusal(empty).contains("the client secret must be 1 to 4096 bytes"))
    for message in [refusal(open), refusal(group), refusal(big)] { #expect(!message.contains("hunter2")) }
  }
}

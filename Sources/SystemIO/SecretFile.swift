// A machine profile's `client_secret_file` (issue 28), read as a secret must be: a regular file
// (not a FIFO, device or directory, and no symlink at the end), owned by this user, readable by
// nobody else, and small. Each refusal names the path and what is wrong (its mode, its owner,
// its size), never the content. One trailing newline (`echo secret > file`) is not part of it.
import Glibc
import StrivacityCore

public enum SecretFile {
  /// `$CREDENTIALS_DIRECTORY/…` (systemd's credentials) is expanded from `environment`.
  public static func read(_ configured: String, environment: [String: String]) throws(AdmissionError) -> ClientSecret {
    var path = configured
    let prefix = "$CREDENTIALS_DIRECTORY/"
    if configured.hasPrefix(prefix) {
      guard let directory = environment["CREDENTIALS_DIRECTORY"], directory.hasPrefix("/") else {
        throw AdmissionError("client_secret_file \(configured): CREDENTIALS_DIRECTORY is not set (systemd sets it)")
      }
      path = directory + "/" + configured.dropFirst(prefix.count)
    }
    // O_NOFOLLOW: a link at the end could point anywhere; O_NONBLOCK: a FIFO must not hang us.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
    guard fd >= 0 else {
      let why = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
      throw AdmissionError("client_secret_file \(path): \(why)")
    }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      throw AdmissionError("client_secret_file \(path): not a regular file")
    }
    guard status.st_uid == geteuid() else {
      throw AdmissionError("client_secret_file \(path): owned by uid \(status.st_uid), not by this user")
    }
    let mode = status.st_mode & 0o777
    guard mode & 0o077 == 0 else {
      throw AdmissionError(
        "client_secret_file \(path): mode \(String(mode, radix: 8)) lets others read it: chmod 600 it")
    }
    guard status.st_size <= ClientSecret.maxBytes + 2 else {
      throw AdmissionError("client_secret_file \(path): \(status.st_size) bytes, more than a client secret")
    }
    var bytes = [UInt8](repeating: 0, count: ClientSecret.maxBytes + 3)
    var count = 0
    while count < bytes.count {
      let n = bytes[count...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n >= 0 else { throw AdmissionError("client_secret_file \(path): \(String(cString: strerror(errno)))") }
      if n == 0 { break }
      count += n
    }
    var content = Array(bytes[..<count])
    for index in bytes.indices { bytes[index] = 0 }
    if content.last == 0x0A { content.removeLast() }
    if content.last == 0x0D { content.removeLast() }
    defer { for index in content.indices { content[index] = 0 } }
    guard let text = String(validating: content, as: UTF8.self) else {
      throw AdmissionError("client_secret_file \(path): not UTF-8 text")
    }
    do {
      return try ClientSecret(admitting: text)
    } catch {
      throw AdmissionError("client_secret_file \(path): \(error.description)")
    }
  }
}

// A machine profile's `client_secret_file` and `private_key_file` (issue 28), read as a secret must be: a regular file
// (not a FIFO, device or directory, and no symlink at the end), owned by this user, readable by
// nobody else, and small. Each refusal names the path and what is wrong (its mode, its owner,
// its size), never the content. One trailing newline (`echo secret > file`) is not part of it.
import Glibc
import StrivacityCore

public enum SecretFile {
  /// A client secret from `client_secret_file`. `$CREDENTIALS_DIRECTORY/…` (systemd's
  /// credentials) is expanded from `environment`.
  public static func read(_ configured: String, environment: [String: String]) throws(AdmissionError) -> ClientSecret {
    try contents(configured, setting: "client_secret_file", maxBytes: ClientSecret.maxBytes, environment: environment) {
      text throws(AdmissionError) in try ClientSecret(admitting: text)
    }
  }

  /// Larger than any PEM key of RSA 8192 or EC.
  public static let maxKeyBytes = 16 * 1024

  /// A `private_key_jwt` profile's key file (`private_key_file`), as PEM text, read as a secret.
  public static func readPrivateKey(_ configured: String, environment: [String: String]) throws(AdmissionError)
    -> String
  {
    try contents(configured, setting: "private_key_file", maxBytes: maxKeyBytes, environment: environment) {
      text throws(AdmissionError) in text
    }
  }

  /// The file's text (one trailing line end dropped) handed to `admit`; every buffer zeroed.
  private static func contents<T>(
    _ configured: String, setting: String, maxBytes: Int, environment: [String: String],
    admit: (String) throws(AdmissionError) -> T
  ) throws(AdmissionError) -> T {
    var path = configured
    let prefix = "$CREDENTIALS_DIRECTORY/"
    if configured.hasPrefix(prefix) {
      guard let directory = environment["CREDENTIALS_DIRECTORY"], directory.hasPrefix("/") else {
        throw AdmissionError("\(setting) \(configured): CREDENTIALS_DIRECTORY is not set (systemd sets it)")
      }
      path = directory + "/" + configured.dropFirst(prefix.count)
    }
    // O_NOFOLLOW: a link at the end could point anywhere; O_NONBLOCK: a FIFO must not hang us.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
    guard fd >= 0 else {
      let why = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
      throw AdmissionError("\(setting) \(path): \(why)")
    }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      throw AdmissionError("\(setting) \(path): not a regular file")
    }
    guard status.st_uid == geteuid() else {
      throw AdmissionError("\(setting) \(path): owned by uid \(status.st_uid), not by this user")
    }
    let mode = status.st_mode & 0o777
    guard mode & 0o077 == 0 else {
      throw AdmissionError("\(setting) \(path): mode \(String(mode, radix: 8)) lets others read it: chmod 600 it")
    }
    guard status.st_size <= maxBytes + 2 else {
      throw AdmissionError("\(setting) \(path): \(status.st_size) bytes, more than the \(maxBytes) it may have")
    }
    var bytes = [UInt8](repeating: 0, count: maxBytes + 3)
    var count = 0
    while count < bytes.count {
      let n = bytes[count...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n >= 0 else { throw AdmissionError("\(setting) \(path): \(String(cString: strerror(errno)))") }
      if n == 0 { break }
      count += n
    }
    var content = Array(bytes[..<count])
    bytes.wipe()
    if content.last == 0x0A { content.removeLast() }
    if content.last == 0x0D { content.removeLast() }
    defer { content.wipe() }
    guard let text = String(validating: content, as: UTF8.self) else {
      throw AdmissionError("\(setting) \(path): not UTF-8 text")
    }
    do {
      return try admit(text)
    } catch {
      throw AdmissionError("\(setting) \(path): \(error.description)")
    }
  }
}

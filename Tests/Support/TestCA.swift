// Certificates for the TLS tests, made with openssl in a scratch directory: a CA of the test's
// own, which no system store trusts, and the server certificates it signs (RSA 2048, valid two
// days). One maker for the emulator's --tls-cert, the TLS front of the corporate-CA tests and
// the corporate network's tenant and proxy.
import Foundation

public struct TestCA: Sendable {
  public let dir: ScratchDirectory
  public let name: String

  /// The CA's certificate (PEM): what a client is told to trust.
  public var pem: String { dir.file(name + ".pem") }
  public var key: String { dir.file(name + ".key") }

  /// Makes `NAME.pem` and `NAME.key` in `dir`: a CA whose subject is `CN=commonName`.
  public init(_ commonName: String, name: String = "ca", in dir: ScratchDirectory) throws {
    self.dir = dir
    self.name = name
    try Self.openssl(
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", pem, "-days", "2",
      "-subj", "/CN=\(commonName)", "-addext", "basicConstraints=critical,CA:TRUE",
      "-addext", "keyUsage=critical,keyCertSign,cRLSign")
  }

  /// Makes `NAME.pem` and `NAME.key` in the CA's directory: a certificate for `CN=host` that this
  /// CA signs, valid for `altNames` (a subjectAltName value; `DNS:host` when not given).
  public func issue(_ name: String, host: String, altNames: String? = nil) throws {
    let request = dir.file(name + ".csr")
    try Self.openssl(
      "req", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.file(name + ".key"), "-out", request,
      "-subj", "/CN=\(host)")
    let extensions = try dir.write(
      name + ".ext", "subjectAltName=\(altNames ?? "DNS:\(host)")\nbasicConstraints=CA:FALSE\n")
    try Self.openssl(
      "x509", "-req", "-in", request, "-CA", pem, "-CAkey", key, "-CAcreateserial",
      "-out", dir.file(name + ".pem"), "-days", "2", "-extfile", extensions)
  }

  /// A directory `NAME` in the CA's directory that holds the CA's certificate under its hash
  /// (openssl rehash): what SSL_CERT_DIR names. Its path.
  @discardableResult
  public func hashedDirectory(_ name: String = "certs") throws -> String {
    let certs = dir.file(name)
    try FileManager.default.createDirectory(atPath: certs, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: pem, toPath: certs + "/" + self.name + ".pem")
    try Self.openssl("rehash", certs)
    return certs
  }

  private static func openssl(_ arguments: String...) throws {
    let made = try run(["/usr/bin/openssl"] + arguments, environment: ["PATH": "/usr/bin:/bin"])
    guard made.status == 0 else { throw TestFailure("openssl \(arguments[0]): \(made.stderr)") }
  }
}

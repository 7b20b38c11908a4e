// Kept secrets in files of their own, for a profile with `store = "file"` (SecretItemStore.swift):
// DIR/secrets/PROFILE+KIND.json (KIND: KeptSecret's raw value), mode 0600 in a 0700 directory,
// apart from the token files (DIR/tokens/), so that deleting a profile's tokens leaves them. A
// file holds the key it was kept for and the secret's bytes (base64), never a token set. Written
// and refused as the token files are (FileStore: temporary file, fsync, rename; a symlink,
// another user's file or one open to others is not read).
//
// An earlier version kept these secrets as token files under DIR/client-secrets/tokens/
// (PROFILE+machine.secret.json, PROFILE+proxy.password.json): such a file is read when there is
// no new one, then moved (the new file written, the old one deleted), and deleted with the
// profile's secrets.
import Glibc
import StrivacityCore
import SystemIO

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

public final class FileSecretStore: SecretItemStore, Sendable {
  /// The directory of the secrets' files.
  public let directory: String
  /// Where an earlier version kept them, as token files.
  let legacyDirectory: String

  /// - Parameter stateDirectory: `$XDG_STATE_HOME/strivacity`.
  public init(stateDirectory: String) {
    directory = stateDirectory + "/secrets"
    legacyDirectory = stateDirectory + "/client-secrets/tokens"
  }

  /// The file of `key`: PROFILE+KIND.json ('+' is in no profile name).
  public func path(for key: SecretKey) -> String { path(profile: key.profile, key.secret) }

  private func path(profile: String, _ secret: KeptSecret) -> String {
    "\(directory)/\(profile)+\(secret.rawValue).json"
  }

  /// An earlier version's file of `secret` for `profile`.
  func legacyPath(profile: String, _ secret: KeptSecret) -> String {
    "\(legacyDirectory)/\(profile)+\(secret.legacySlot).json"
  }

  // MARK: the operations

  public func load(_ key: SecretKey) throws(StoreError) -> [UInt8]? {
    if let record = try read(path(for: key)) {
      guard record.matches(key) else { return nil }
      return try record.bytes(path(for: key))
    }
    guard let value = try readLegacy(key) else { return nil }
    // Moved: the new file first, then the old one goes (save deletes it).
    try? save(value, for: key)
    return value
  }

  public func contains(_ key: SecretKey) throws(StoreError) -> Bool {
    if let record = try read(path(for: key)) { return record.matches(key) }
    return try readLegacy(key) != nil
  }

  public func save(_ value: [UInt8], for key: SecretKey) throws(StoreError) {
    do {
      try PrivateFiles.makeDirectories(directory)
    } catch {
      throw .io(path: error.path, detail: error.detail)
    }
    // Our own directory must stay private even if it existed before.
    _ = chmod(directory, 0o700)
    let record = Record(
      version: 1, kept: key.secret.rawValue, profile: key.profile, issuer: key.issuer, clientID: key.clientID,
      value: Data(value).base64EncodedString())
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard var bytes = try? Array(encoder.encode(record)) else {
      throw .io(path: path(for: key), detail: "cannot encode the secret")
    }
    defer { bytes.wipe() }
    do {
      try PrivateFiles.writeAtomically(bytes, to: path(for: key), mode: 0o600)
    } catch {
      throw .io(path: error.path, detail: error.detail)
    }
    // One per profile and kind: an earlier version's file of it is replaced too.
    if unlink(legacyPath(profile: key.profile, key.secret)) == 0 { PrivateFiles.syncDirectory(legacyDirectory) }
  }

  @discardableResult
  public func delete(profile: String) throws(StoreError) -> Bool {
    var deleted = false
    for secret in KeptSecret.allCases {
      for (file, folder) in [
        (path(profile: profile, secret), directory), (legacyPath(profile: profile, secret), legacyDirectory),
      ] {
        if unlink(file) == 0 {
          deleted = true
          PrivateFiles.syncDirectory(folder)
        } else if errno != ENOENT {
          throw .io(path: file, detail: String(cString: strerror(errno)))
        }
      }
    }
    return deleted
  }

  // MARK: files

  private struct Record: VersionedRecord, Encodable {
    var version: Int
    var kept: String
    var profile: String
    var issuer: String
    var clientID: String
    /// The secret's bytes, base64.
    var value: String
    enum CodingKeys: String, CodingKey {
      case version = "v", kept, profile, issuer, clientID = "client_id", value
    }

    func matches(_ key: SecretKey) -> Bool {
      kept == key.secret.rawValue && profile == key.profile && issuer == key.issuer && clientID == key.clientID
    }

    func bytes(_ file: String) throws(StoreError) -> [UInt8] {
      guard let data = Data(base64Encoded: value) else {
        throw .corrupt(source: file, detail: "not a strivacity secret file")
      }
      return Array(data)
    }
  }

  /// An earlier version's token file (FileStore's layout, in its own directory).
  private struct LegacyRecord: Decodable {
    var issuer: String
    var clientID: String
    var slot: String?
    var tokens: TokenSet
    enum CodingKeys: String, CodingKey { case issuer, clientID = "client_id", slot, tokens }
  }

  private func read(_ file: String) throws(StoreError) -> Record? {
    try FileStore.readRecord(file) { _ in "not a strivacity secret file" }
  }

  /// The secret an earlier version kept for `key`, or nil.
  private func readLegacy(_ key: SecretKey) throws(StoreError) -> [UInt8]? {
    let file = legacyPath(profile: key.profile, key.secret)
    guard var bytes = try FileStore.readPrivate(file) else { return nil }
    defer { bytes.wipe() }
    let record: LegacyRecord
    do {
      record = try JSONDecoder().decode(LegacyRecord.self, from: Data(bytes))
    } catch let error as AdmissionError {
      throw .corrupt(source: file, detail: error.description)
    } catch {
      throw .corrupt(source: file, detail: "not a strivacity token file")
    }
    guard record.issuer == key.issuer, record.clientID == key.clientID, record.slot == key.secret.legacySlot else {
      return nil
    }
    guard let value = KeptSecret.legacyValue(of: record.tokens) else {
      throw .corrupt(source: file, detail: "it holds no \(key.secret)")
    }
    return value
  }
}

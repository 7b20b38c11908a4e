import Glibc
import StrivacityCore
import SystemIO

// Token sets in plain files, for machines without a Secret Service. Chosen explicitly only
// (`store = "file"` or `--store file`), never as a fallback: the tokens are protected by file
// permissions alone.
//
// Layout: DIR/tokens/PROFILE.json (another slot than the sign-in's: PROFILE+SLOT.json), mode
// 0600, in a 0700 directory. Writes go to a temporary
// file that is fsync()ed and renamed over the old one, so a reader (or a crash) sees the old
// set or the new one, never a torn file. A file readable by group or others, a symlink, or a
// file owned by someone else is refused rather than read. The secrets kept for a profile are
// files of their own beside these, never token files (FileSecretStore.swift).
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

public final class FileStore: TokenStore, Sendable {
  public let kind = StoreKind.file
  /// The directory holding one JSON file per profile.
  public let directory: String

  /// - Parameter stateDirectory: `$XDG_STATE_HOME/strivacity`.
  public init(stateDirectory: String) {
    directory = stateDirectory + "/tokens"
  }

  public static let warning =
    "tokens are kept in a file protected only by its permissions (store = \"file\"); prefer the Secret Service "
    + "where one is available"

  /// The sign-in's file of `profile`.
  public func path(for profile: String) -> String { "\(directory)/\(profile).json" }

  /// The file of `key`: the sign-in's is PROFILE.json, another slot's PROFILE+SLOT.json ('+' is
  /// in neither name's alphabet).
  public func path(for key: StoreKey) -> String {
    guard let slot = key.slot.name else { return path(for: key.profile) }
    return "\(directory)/\(key.profile)+\(slot).json"
  }

  public func load(_ key: StoreKey) throws(StoreError) -> TokenSet? {
    guard let record = try read(path(for: key)) else { return nil }
    guard record.issuer == key.issuer, record.clientID == key.clientID, record.slot == key.slot.name else { return nil }
    return record.tokens
  }

  public func save(_ tokens: TokenSet, for key: StoreKey) throws(StoreError) {
    try makeDirectory()
    let record = Record(
      profile: key.profile, issuer: key.issuer, clientID: key.clientID, slot: key.slot.name, version: 1, tokens: tokens)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard var bytes = try? Array(encoder.encode(record)) else {
      throw .io(path: path(for: key), detail: "cannot encode the token set")
    }
    defer { bytes.wipe() }
    try writeAtomically(bytes, to: path(for: key))
  }

  @discardableResult
  public func delete(profile: String) throws(StoreError) -> Bool {
    // The sign-in's file, then every other slot's (names() reads only token slots' names).
    let others = ((try? names()) ?? []).filter { $0.profile == profile && $0.slot != nil }
    var deleted = false
    for file in [path(for: profile)] + others.map({ "\(directory)/\($0.name).json" }) {
      if unlink(file) == 0 {
        deleted = true
        continue
      }
      if errno == ENOENT { continue }
      throw .io(path: file, detail: String(cString: strerror(errno)))
    }
    if deleted { syncDirectory() }
    return deleted
  }

  public func keys() throws(StoreError) -> [StoreKey] {
    var keys: [StoreKey] = []
    for entry in try names() {
      if let record = try read("\(directory)/\(entry.name).json") {
        // A slot that does not read is no token set's (TokenSlot(stored:)).
        guard let slot = record.slot.map({ TokenSlot(stored: $0) }) ?? .signIn else { continue }
        keys.append(StoreKey(profile: record.profile, issuer: record.issuer, clientID: record.clientID, slot: slot))
      }
    }
    return keys
  }

  /// The token files' names without `.json`, sorted, each as its profile and slot: PROFILE, or
  /// PROFILE+SLOT. Other files are not ours.
  private func names() throws(StoreError) -> [(name: String, profile: String, slot: String?)] {
    guard let dir = opendir(directory) else {
      if errno == ENOENT { return [] }
      throw .io(path: directory, detail: String(cString: strerror(errno)))
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name.hasSuffix(".json"), !name.hasPrefix(".") { names.append(String(name.dropLast(5))) }
    }
    return names.sorted().compactMap { name in
      let parts = name.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
      guard ProfileName.isValid(parts[0]) else { return nil }
      guard parts.count == 2 else { return (name, parts[0], nil) }
      return TokenSlot(stored: parts[1]) == nil ? nil : (name, parts[0], parts[1])
    }
  }

  // MARK: files

  private struct Record: VersionedRecord, Encodable {
    var profile: String
    var issuer: String
    var clientID: String
    /// nil (and absent from the file) for the sign-in's set.
    var slot: String?
    var version: Int
    var tokens: TokenSet
    enum CodingKeys: String, CodingKey {
      case profile, issuer, clientID = "client_id", slot, version = "v", tokens
    }
  }

  private func read(_ file: String) throws(StoreError) -> Record? {
    try Self.readRecord(file) { error in
      // A token that fails admission (its sentence names the field, never the value).
      (error as? AdmissionError)?.description ?? "not a strivacity token file"
    }
  }

  /// The record in `file` (nil: there is none), its format version checked, the bytes read wiped
  /// once decoded. `unreadable` says what a file that does not decode is (never its content).
  static func readRecord<Record: VersionedRecord>(
    _ file: String, unreadable: (any Error) -> String
  ) throws(StoreError) -> Record? {
    guard var bytes = try readPrivate(file) else { return nil }
    defer { bytes.wipe() }
    do {
      let record = try JSONDecoder().decode(Record.self, from: Data(bytes))
      guard record.version == 1 else {
        throw StoreError.corrupt(
          source: file, detail: "format version \(record.version) is newer than this strivacity understands")
      }
      return record
    } catch let error as StoreError {
      throw error
    } catch {
      throw .corrupt(source: file, detail: unreadable(error))
    }
  }

  /// The bytes of `file` (the caller zeroes them), or nil when there is none; refused when it is
  /// a symbolic link, not a regular file, another user's, or open to group or others.
  static func readPrivate(_ file: String) throws(StoreError) -> [UInt8]? {
    do {
      return try PrivateFiles.readPrivate(file)
    } catch {
      switch error {
      case .owner: throw .notOwner(path: file)
      case .mode(let mode): throw .insecureFile(path: file, mode: String(mode, radix: 8).leftPadded(to: 4))
      case .symbolicLink, .notRegularFile, .size, .failed: throw .io(path: file, detail: error.detail)
      }
    }
  }

  private func makeDirectory() throws(StoreError) {
    do {
      try PrivateFiles.makeDirectories(directory)
    } catch {
      throw .io(path: error.path, detail: error.detail)
    }
    // Our own directory must stay private even if it existed before.
    _ = chmod(directory, 0o700)
  }

  private func writeAtomically(_ bytes: [UInt8], to file: String) throws(StoreError) {
    do {
      try PrivateFiles.writeAtomically(bytes, to: file, mode: 0o600)
    } catch {
      throw .io(path: error.path, detail: error.detail)
    }
  }

  private func syncDirectory() { PrivateFiles.syncDirectory(directory) }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}

/// What a private file of the file stores holds: JSON with a format version.
protocol VersionedRecord: Decodable {
  var version: Int { get }
}

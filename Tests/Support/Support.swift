// Helpers for the test targets: run the built binaries, make scratch directories, and know
// whether the real keyring harness is around.
import Foundation

public enum TestEnvironment {
  /// Set by Scripts/with-keyring: a real gnome-keyring is on this process's session bus.
  public static var hasRealKeyring: Bool {
    ProcessInfo.processInfo.environment["STRIVACITY_TEST_KEYRING"] == "gnome-keyring"
  }

  /// The repository root (where Package.swift is).
  public static let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
      url.deleteLastPathComponent()
      if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
    }
    fatalError("cannot find the repository root from \(#filePath)")
  }()

  /// The directory that holds the built products (next to the test bundle).
  public static let productsDirectory: URL = {
    if let explicit = ProcessInfo.processInfo.environment["STRIVACITY_PRODUCTS"] {
      return URL(fileURLWithPath: explicit)
    }
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var dir = executable.deletingLastPathComponent()
    // swift-testing on Linux runs PACKAGE.xctest directly from the products directory.
    while dir.path != "/" {
      if FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("strivacity").path) { return dir }
      dir.deleteLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug")
  }()

  public static func binary(_ name: String) -> String {
    productsDirectory.appendingPathComponent(name).path
  }
}

/// The outcome of running a program.
public struct ProcessResult: Sendable {
  public var status: Int32
  public var stdout: String
  public var stderr: String

  /// stderr without noise from helper daemons (dbus-daemon, gcr-prompter) that share it.
  public var ownStderr: String {
    stderr.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("dbus-daemon[") && !$0.contains("gcr-prompter") && !$0.contains("Gtk-WARNING") && !$0.isEmpty }
      .joined(separator: "\n")
  }
}

/// Runs `arguments[0]` with `arguments[1...]`, an explicit environment and optional stdin.
public func run(
  _ arguments: [String], environment: [String: String], stdin: String? = nil,
  currentDirectory: String? = nil, timeout: TimeInterval = 60
) throws -> ProcessResult {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: arguments[0])
  process.arguments = Array(arguments.dropFirst())
  process.environment = environment
  if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
  let outPipe = Pipe()
  let errPipe = Pipe()
  let inPipe = Pipe()
  process.standardOutput = outPipe
  process.standardError = errPipe
  process.standardInput = inPipe
  try process.run()
  if let stdin { inPipe.fileHandleForWriting.write(Data(stdin.utf8)) }
  try? inPipe.fileHandleForWriting.close()
  // Read both pipes concurrently so a chatty child cannot block on a full pipe.
  let group = DispatchGroup()
  nonisolated(unsafe) var outData = Data()
  nonisolated(unsafe) var errData = Data()
  group.enter()
  DispatchQueue.global().async {
    outData = outPipe.fileHandleForReading.readDataToEndOfFile()
    group.leave()
  }
  group.enter()
  DispatchQueue.global().async {
    errData = errPipe.fileHandleForReading.readDataToEndOfFile()
    group.leave()
  }
  if group.wait(timeout: .now() + timeout) == .timedOut {
    process.terminate()
    throw TestFailure("timed out after \(timeout) s: \(arguments.joined(separator: " "))")
  }
  process.waitUntilExit()
  return ProcessResult(
    status: process.terminationStatus,
    stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData, as: UTF8.self))
}

public struct TestFailure: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// A fresh private directory, removed when the returned object is deinitialised.
public final class ScratchDirectory: @unchecked Sendable {
  public let path: String

  public init(_ label: String = "test") throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("strivacity-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    path = base.path
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  public func file(_ relative: String) -> String { path + "/" + relative }

  @discardableResult
  public func write(_ relative: String, _ text: String, mode: Int = 0o600) throws -> String {
    let target = file(relative)
    try FileManager.default.createDirectory(
      atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: target))
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: target)
    return target
  }

  /// Every file below the directory, relative paths, sorted.
  public func listing() -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: path)
    var out: [String] = []
    while let next = enumerator?.nextObject() as? String { out.append(next) }
    return out.sorted()
  }
}

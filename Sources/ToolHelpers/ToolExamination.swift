// What `strivacity doctor` says of each tool set up to ask strivacity, as pure functions: a tool's
// examination reads the machine only through `ExaminedMachine` (files by the safe readers, the
// environment, programs on PATH, a program's output: the command line's, Doctor/IntegrationChecks
// .swift; a table of them in tests) and answers with its rows. The tools examined are the
// registry's helpers that conform (`ToolHelpers.all`), and those not (yet) in it.
import StrivacityConfig
import StrivacityCore

/// The profile doctor examines, and the config around it.
public struct ExaminedProfile: Sendable {
  public var profile: Profile
  /// ` --profile NAME`, or nothing for the default profile (`ProfileName.flag`).
  public var flag: String
  /// Every profile of the config (a helper that names no profile takes the first that serves).
  public var profiles: [Profile]
  /// The profile a helper whose command names none uses (STRIVACITY_PROFILE, else the default).
  public var unnamed: String
  public var tenant: String

  public var name: String { profile.name }

  public init(profile: Profile, profiles: [Profile], unnamed: String, tenant: String) {
    self.profile = profile
    flag = ProfileName.flag(profile.name)
    self.profiles = profiles
    self.unnamed = unnamed
    self.tenant = tenant
  }
}

/// A file as doctor reads it.
public enum ExaminedFile: Sendable, Equatable {
  case bytes([UInt8])
  /// There, and not read: why (`is not a regular file`, `cannot be read (…)`).
  case unreadable(String)

  public var bytes: [UInt8]? { if case .bytes(let b) = self { b } else { nil } }
}

/// The machine as an examination sees it.
public protocol ExaminedMachine {
  var environment: [String: String] { get }
  /// The home directory (HOME, else /).
  var home: String { get }
  /// The directory doctor runs in.
  var currentDirectory: String { get }
  /// The path of the `strivacity` running (what the fixes link to).
  var strivacity: String { get }
  /// The file at `path`; nil when there is nothing there.
  func file(_ path: String) -> ExaminedFile?
  /// `arguments` run (without a terminal or stdin): its exit status and stdout; nil when the
  /// program cannot be run.
  func run(_ arguments: [String]) -> (status: Int32, output: String)?
  /// Whether a program by this name is on PATH.
  func isOnPath(_ name: String) -> Bool
  /// Whether `path` may be run.
  func isExecutable(_ path: String) -> Bool
  /// Where the link `path` leads; nil when it is not a link.
  func linkTarget(_ path: String) -> String?
}

extension ExaminedMachine {
  /// A path the environment names for a tool (absolute only; nil when unset, empty or relative:
  /// where the tool finds a relative one depends on where it runs).
  public func path(_ variable: String) -> String? {
    environment[variable].flatMap { $0.hasPrefix("/") ? $0 : nil }
  }
}

/// A tool doctor examines.
public protocol ToolExamination {
  /// The key of its rows (`docker`).
  static var examinedTool: String { get }
  /// Its rows for `profile`: none when the tool is not set up to ask strivacity for it.
  static func examine(_ profile: ExaminedProfile, on machine: some ExaminedMachine) -> [DoctorCheck]
}

extension ToolExamination where Self: ToolHelper {
  public static var examinedTool: String { names.tool }
}

/// The rows of one tool, as they are made.
public struct ExaminationRows: Sendable {
  public let tool: String
  public private(set) var checks: [DoctorCheck] = []

  public init(_ tool: String) { self.tool = tool }

  public mutating func add(
    _ outcome: DoctorCheck.Outcome, _ detail: String, fix: String = "", status: ExitStatus = .failure
  ) {
    checks.append(DoctorCheck(tool, outcome, detail, fix: fix, status: status))
  }

  /// A ✘ row: a tool's set-up is the person's to correct (exit 2).
  public mutating func fail(_ detail: String, fix: String) { add(.fail, detail, fix: fix, status: .usage) }

  public var failed: Bool { checks.contains { $0.outcome == .fail } }
}

public enum ToolExaminations {
  /// Every tool doctor examines, in the order of its rows: the registry's helpers that conform,
  /// kubectl's after git's, then those not in the registry.
  public static var all: [any ToolExamination.Type] {
    var examined = ToolHelpers.all.compactMap { $0 as? any ToolExamination.Type }
    examined.insert(KubectlExamination.self, at: min(1, examined.count))
    return examined + [GcloudExamination.self]
  }
}

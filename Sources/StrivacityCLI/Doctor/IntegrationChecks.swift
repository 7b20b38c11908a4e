// doctor's rows for the tools set up to ask strivacity: each tool's examination (ToolHelpers:
// `ToolExaminations.all`, pure) run on this machine, read through doctor's safe readers. A
// tool's rows appear only when its config names strivacity (git's and kubectl's: the profile's).
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

extension Examination {
  // MARK: 10. the tools set up to ask strivacity

  func integrations(_ session: TokenBroker) {
    let config = (try? context.config(warn: false)) ?? nil
    let examined = ExaminedProfile(
      profile: session.resolved.profile,
      // Every API of every profile (a helper that names no profile takes the first that serves).
      profiles: config?.profiles ?? session.config?.profiles ?? [],
      // As `token` resolves it: the environment the tool passes on, else the config's default.
      unnamed: ResolvedProfile.requestedName(overrides: ProfileOverrides(), environment: context.environment)
        ?? config?.chosenProfile ?? "default",
      tenant: session.tenant)
    let machine = DoctorMachine(environment: context.environment)
    for tool in ToolExaminations.all {
      for check in tool.examine(examined, on: machine) { report.add(check) }
    }
  }
}

/// This machine as doctor's examinations read it: a tool's file only when it is a regular file
/// (a FIFO put there never blocks the report), programs run without their stderr.
struct DoctorMachine: ExaminedMachine {
  let environment: [String: String]
  var home: String { ToolConfigFile.home(environment) }
  var currentDirectory: String { SystemIO.currentDirectory() ?? "/" }
  var strivacity: String { Executable.commandPath() }

  func file(_ path: String) -> ExaminedFile? {
    // One open: what is checked is what is read (a FIFO is refused without waiting).
    switch readFile(path, regularOnly: true) {
    case .contents(let bytes): return .bytes(bytes)
    case .missing: return nil
    case .failed(let why) where why == "not a regular file": return .unreadable("is not a regular file")
    case .failed(let why): return .unreadable("cannot be read (\(why))")
    }
  }

  /// A program's answer within 5 s and 1 MiB, its stdin /dev/null (a git or kubectl that hangs
  /// never stops the report).
  func run(_ arguments: [String]) -> (status: Int32, output: String)? {
    try? runProgram(arguments, quiet: true, bound: (seconds: 5, limit: 1_048_576))
  }
  func isOnPath(_ name: String) -> Bool { SystemIO.isOnPath(name) }
  func isExecutable(_ path: String) -> Bool { SystemIO.isExecutable(path) }
  func linkTarget(_ path: String) -> String? { SystemIO.linkTarget(path) }
}

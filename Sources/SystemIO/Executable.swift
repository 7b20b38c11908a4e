// Where this program is and how it was called: what the small `strivacity` needs to hand over,
// and what the full command line needs to name itself in the tools' configs. Here, not
// in the small binary's library, so the full command line does not import it.
import Glibc
import ToolHelpers

/// The command line, as the full command line reads it: run under a tool helper's link name
/// (`TOOL-…-strivacity`, a link to `strivacity`) it is that helper's subcommand, and run with a
/// helper's flag alone, as a tool runs a provider, it is that subcommand alone
/// (`ToolHelpers.arguments`, from the registry).
public func commandLineArguments() -> [String] { ToolHelpers.arguments(CommandLine.arguments) }

public enum Executable {
  /// The `strivacity` that hands off to this full command line (when this process is one): what
  /// a tool's config should name, so that the tool reaches the hot path. nil when there is none, or its
  /// path is not UTF-8 text.
  public static func front() -> String? {
    guard let me = path() else { return nil }
    let directory = String(decoding: me[..<(me.lastIndex(of: UInt8(ascii: "/")) ?? me.startIndex)], as: UTF8.self)
    for candidate in [directory + "/strivacity", directory + "/../../bin/strivacity"] where access(candidate, X_OK) == 0
    {
      guard let resolved = realpath(candidate, nil) else { continue }
      defer { free(resolved) }
      return String(validatingCString: resolved)
    }
    return nil
  }

  /// What the tools' configs should run: the small `strivacity` by absolute path, else
  /// this very binary (a helper still, only without the hot path), else the name.
  public static func commandPath() -> String {
    front() ?? path().flatMap { String(validating: $0, as: UTF8.self) } ?? "strivacity"
  }

  /// The real path of this process's binary, as bytes (links resolved: a helper's link
  /// finds the directory of the binary it points to).
  public static func path() -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = buffer.withUnsafeMutableBytes {
      readlink("/proc/self/exe", $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count)
    }
    guard n > 0, n < buffer.count else { return nil }  // n == count: truncated
    return Array(buffer[0..<n])
  }
}

// What `strivacity setup git` writes into git's config (with `git config`, so git's own files
// are edited by git), as values: the URL git matches, the helper's key and value, and the key
// that makes git send the path of a URL prefix.
import StrivacityCore

public struct GitConfigEntry: Sendable, Equatable {
  /// The URL prefix, as git matches it: the parsed entry, never the text given (git reads
  /// `…/org/` as a prefix of `…/org/x` only: a trailing slash given stays).
  public var url: String
  /// Whether git must send the path (a URL prefix with one): credential.useHttpPath for it.
  public var needsPath: Bool

  public init(_ entry: HostEntry, given: String) {
    url = entry.gitURL + (entry.hasPath && given.hasSuffix("/") ? "/" : "")
    needsPath = entry.hasPath
  }

  public var helperKey: String { "credential.\(url).helper" }
  public var pathKey: String { "credential.\(url).useHttpPath" }

  /// The helper git runs: `strivacity` when git finds `git-credential-strivacity` on PATH, else
  /// the `strivacity` at `program` (absolute: the one that answers the hot path itself), quoted
  /// for the shell git runs it with.
  public static func helper(linkOnPath: Bool, program: String) -> String {
    linkOnPath ? "strivacity" : "!'\(program.replacing("'", with: "'\\''"))' credential"
  }
}

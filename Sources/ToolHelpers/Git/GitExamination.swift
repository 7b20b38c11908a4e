// What `strivacity doctor` reads of git's credential helpers, as pure functions over what
// `git config --null --get-regexp '^credential\..*helper$'` prints (every file's entries, in the
// order git reads them). For a URL, git asks each `credential.helper` and matching
// `credential.<url>.helper` in that order, an empty value clearing those before it, and takes
// the first answer with a password: a helper asked before strivacity shadows it (and is handed
// strivacity's token to store afterwards).
public enum GitExamination {
  /// The `(key, value)` entries of `--null` output: `key\nvalue\0` each (a key alone: no value).
  public static func entries(_ output: String) -> [(key: String, value: String)] {
    output.split(separator: "\0").map { record in
      let parts = record.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
      return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
  }

  /// The helpers git asks for `url`, in order (after the last empty value).
  public static func helpers(for url: String, in entries: [(key: String, value: String)]) -> [String] {
    var asked: [String] = []
    for (key, value) in entries {
      let lower = key.lowercased()
      guard lower.hasPrefix("credential."), lower.hasSuffix(".helper") else { continue }
      let middle = key.dropFirst("credential.".count).dropLast(".helper".count)
      guard lower == "credential.helper" || matches(String(middle), url)
      else { continue }
      if value.isEmpty { asked.removeAll() } else { asked.append(value) }
    }
    return asked
  }

  /// The helpers asked before the first one that runs strivacity (all of them when none does).
  public static func before(strivacity helpers: [String]) -> [String] {
    Array(helpers.prefix { !$0.contains("strivacity") })
  }

  /// Whether a `credential.<pattern>` subsection applies to `url`, as git's URL matching reads
  /// it: the same scheme, host (a `*.` label matches one) and port, and the pattern's path a
  /// prefix of the URL's, segment by segment.
  public static func matches(_ pattern: String, _ url: String) -> Bool {
    guard let want = parts(pattern), let have = parts(url), want.scheme == have.scheme, want.port == have.port else {
      return false
    }
    let wantLabels = want.host.split(separator: ".", omittingEmptySubsequences: false)
    let haveLabels = have.host.split(separator: ".", omittingEmptySubsequences: false)
    guard wantLabels.count == haveLabels.count,
      zip(wantLabels, haveLabels).allSatisfy({ $0 == "*" || $0 == $1 })
    else { return false }
    return want.path.isEmpty || have.path.starts(with: want.path)
  }

  /// A URL's scheme, host and port (lowercased, the scheme's default port when none) and
  /// its path's segments; nil when it is not `scheme://host…`.
  static func parts(_ url: String) -> (scheme: String, host: String, port: String, path: [Substring])? {
    guard let separator = url.firstRange(of: "://") else { return nil }
    let scheme = url[..<separator.lowerBound].lowercased()
    let rest = url[separator.upperBound...]
    let authority = rest.prefix { $0 != "/" }
    let path = rest.dropFirst(authority.count).split(separator: "/")
    let hostPort = authority.split(separator: "@").last.map(String.init) ?? ""
    var host = hostPort.lowercased()
    var port = scheme == "https" ? "443" : scheme == "http" ? "80" : ""
    if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
      port = String(host[host.index(after: colon)...])
      host = String(host[..<colon])
    }
    guard !host.isEmpty else { return nil }
    return (scheme, host, port, path)
  }
}

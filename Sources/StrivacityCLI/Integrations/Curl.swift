// `strivacity curl -- ARGS`: the real curl, with the Authorization header handed over on a
// pipe (`-K /dev/fd/N`), never in argv where any process could read it.
import ArgumentParser
import Glibc
import StrivacityCore
import TerminalUI

struct Curl: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run curl with a fresh access token, passed through a pipe, never in argv.",
    discussion: """
      The token goes only to the tenant's host and the profile's git_hosts and hosts:
      every URL among the arguments must be on one of them.

      EXAMPLE:
        strivacity curl -- -sS https://api.example.com/v1/me
      """)

  @OptionGroup var global: GlobalOptions

  @Argument(parsing: .captureForPassthrough, help: "Arguments for curl (after --).")
  var arguments: [String] = []

  func run() throws {
    let curlArguments = arguments.first == "--" ? Array(arguments.dropFirst()) : arguments
    let context = global.context()
    let session = try ProfileSession(context: context, options: global)
    let allowed = [session.tenant] + session.resolved.profile.gitHosts + session.resolved.profile.hosts
    let urls = curlArguments.filter { $0.lowercased().hasPrefix("http://") || $0.lowercased().hasPrefix("https://") }
    guard !urls.isEmpty else {
      throw CLIFailure("no http(s) URL among the curl arguments; strivacity only sends the token to URLs it can check", status: .usage)
    }
    for url in urls where !Self.allowed(url, entries: allowed) {
      throw CLIFailure("refusing to send the token to \(URLParts(url)?.host ?? url): profile \(session.name) allows \(allowed.joined(separator: ", ")) (add it to hosts)", status: .usage)
    }
    let tokens = try session.freshTokens(minTTL: 60)
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw CLIFailure("pipe failed", status: .failure) }
    // The config is a few hundred bytes: it fits the pipe, so write it all before curl starts.
    writeAll(fds[1], TokenFormat.curl.render(token: tokens.accessToken, tokens: tokens, profile: session.name, idToken: false))
    close(fds[1])
    _ = fcntl(fds[0], F_SETFD, 0)  // curl inherits the read end
    let result = try runProgram(["curl", "-K", "/dev/fd/\(fds[0])"] + curlArguments, captureOutput: false)
    close(fds[0])
    throw ExitCode(result.status)
  }

  static func allowed(_ url: String, entries: [String]) -> Bool {
    guard let parts = URLParts(url), parts.scheme == "https" || parts.isLoopback else { return false }
    return entries.contains { entry in
      if let prefix = URLParts(entry) {
        return prefix.host == parts.host && prefix.port == parts.port && parts.pathAndQuery.hasPrefix(prefix.pathAndQuery)
      }
      let hostPort = parts.port.map { "\(parts.host):\($0)" } ?? parts.host
      return entry.lowercased() == hostPort || (parts.port == nil && entry.lowercased() == parts.host)
    }
  }
}

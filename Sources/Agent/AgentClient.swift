// What the command line asks of `strivacity agent`, shared by the small binary and the full one.
import Glibc
import StrivacityConfig
import StrivacityCore
import SystemIO

public enum AgentClient {
  /// Whether to ask the agent: STRIVACITY_AGENT=1 (or 0, for one call), else `agent = true` in
  /// the config.
  public static func enabled(_ environment: [String: String], config: Config?) -> Bool {
    switch environment["STRIVACITY_AGENT"] {
    case "1": return true
    case "0": return false
    default: return config?.agent ?? false
    }
  }

  /// How long a client waits for the agent's answer: a refresh (STRIVACITY_TIMEOUT, 30 s by
  /// default) or a keyring's dialog (15 s) may be on the way. Past it, the client does the work.
  public static let timeout: Double = 60

  /// Said on a terminal when the agent takes more than a second: it is refreshing, or its
  /// keyring is asking (the agent has no terminal to say so on).
  public static let waitNotice =
    "strivacity: waiting for strivacity agent (a refresh, or the keyring asking you in its own window; up to "
    + "\(Int(timeout)) s)…\n"

  /// A request for a profile's fresh tokens, resolved as this process would resolve it: its
  /// profile name, the config file's absolute path, and the environment that resolution reads.
  /// `target`: the sign-in's tokens, or an API's (op `api-token`, which an agent from before
  /// APIs refuses as unknown: its client then does the work itself). nil when the target does
  /// not fit in one request (the caller does the work itself).
  public static func tokenRequest(
    profile: String, freshness: Freshness, idToken: Bool, configPath: String, environment: [String: String],
    target: AgentTokenTarget = .signIn
  ) -> AgentMessage? {
    var request = AgentMessage()
    request.set("op", target == .signIn ? "token" : "api-token")
    guard target.write(into: &request) else { return nil }
    request.set("profile", profile)
    request.set("min_ttl", String(freshness.seconds))
    // An explicit margin is a promise (not capped at half the lifetime).
    if freshness.explicit { request.set("min_ttl_explicit", "1") }
    if idToken { request.set("id_token", "1") }
    for name in AgentProtocol.environmentNames where name != "STRIVACITY_CONFIG" {
      if let value = environment[name] { request.set("env." + name, value) }
    }
    guard request.set("env.STRIVACITY_CONFIG", absolutePath(configPath)) else { return nil }
    return request
  }

  /// Tells a running agent that a profile's stored tokens changed (sign-in, refresh, sign-out,
  /// revocation in this process): it drops what it holds in memory. Best effort, brief.
  public static func forget(profile: String, environment: [String: String]) {
    guard let path = AgentSocket.path(environment), access(path, F_OK) == 0 else { return }
    var request = AgentMessage()
    request.set("op", "forget")
    request.set("profile", profile)
    _ = AgentSocket.ask(request, environment: environment, timeout: 2)
  }

  /// The running agent's answer to a ping (its pid, version, …); nil when none answers.
  public static func ping(_ environment: [String: String], timeout: Double = 2) -> AgentMessage? {
    var request = AgentMessage()
    request.set("op", "ping")
    if case .answered(let answer) = AgentSocket.ask(request, environment: environment, timeout: timeout),
      answer.status == 0
    {
      return answer
    }
    return nil
  }
}

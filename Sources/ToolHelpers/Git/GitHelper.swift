// git's helper in the registry (ToolHelper.swift).
import StrivacityConfig
import StrivacityCore

public enum GitHelper: ToolHelper {
  public static let names = HelperNames(
    tool: "git", subcommand: "credential", link: "git-credential-strivacity", flag: nil,
    messagePrefix: CredentialInvocation.messagePrefix)

  public static let help = HelperHelp(
    abstract: "git credential helper: answer get/store/erase on stdin and stdout (git-credential(1)).",
    discussion: """
      Answers `get` only for hosts (or URL prefixes) in a profile's git_hosts, with a fresh \
      access token as password (or as a Bearer credential when git offers \
      capability[]=authtype); for anything else it prints nothing, so git asks its next \
      helper. `store` is a no-op; `erase` drops the cached access token so the next `get` \
      refreshes. Set it up with `strivacity setup git --host HOST`.
      """, takes: .action, words: "get, store or erase.", verbs: ["get", "store", "erase"])

  public static func asksForToken(_ words: [String]) -> Bool { words == ["get"] }
  public static var maxInput: Int { CredentialProtocol.maxInput }
  public static func setupCommand(host: String) -> String { "strivacity setup git --host \(host)" }

  /// git shows a helper's stderr and reads nothing on stdout as "no answer": it asks its next
  /// helper, or the person.
  public static func reply(_ failure: HelperFailure) -> HelperReply {
    HelperReply(stdout: "", stderr: line(failure), status: .ok)
  }
}

extension GitHelper: HelperGet {
  public static var session: HelperSession { .one(stdinLimit: CredentialProtocol.maxInput) }

  /// git's request on stdin: the first profile whose git_hosts cover it answers, with the token
  /// of its API the URL is under, else its own; a request of no profile's is not answered (git
  /// asks its next helper), silently; nil: a request that is not git's.
  public static func route(_ words: [String], _ input: [UInt8], config: Config?, environment: [String: String])
    -> HelperRoute?
  {
    // One that is not git's is the full command line's to say (it reads it again, whole).
    guard let request = try? CredentialProtocol.parse(input) else { return nil }
    let invocation = CredentialInvocation(request: request, profile: profileOption(words))
    guard let config, let profile = invocation.matchingProfile(in: config.profiles, config: config) else {
      return .reply(HelperReply(stdout: "", stderr: nil, status: .ok))
    }
    guard
      let resolved = try? ResolvedProfile.resolve(
        config: config, overrides: ProfileOverrides(profile: profile.name), environment: environment)
    else { return nil }
    return .token(
      TokenAsk(resolved: resolved, api: invocation.api(of: resolved.profile)) { tokens in
        invocation.answer(tokens, profile: profile)
      })
  }

  /// git's request, then its action: a request of no profile's is not answered (silently), a
  /// request that is not git's is said in git's voice; `erase` expires the token git rejects.
  public static func step(_ words: [String], _ input: [UInt8], config: () throws -> Config?) throws -> HelperStep {
    let request: CredentialRequest
    do {
      request = try CredentialProtocol.parse(input)
    } catch {
      return .reply(reply(.refused("\(error)", status: .ok)))
    }
    let silent = HelperStep.reply(HelperReply(stdout: "", stderr: nil, status: .ok))
    let invocation = CredentialInvocation(request: request, profile: profileOption(words))
    guard invocation.matchingProfile(in: try config()?.profiles ?? []) != nil else { return silent }
    switch words.first {
    case "get": return .get
    case "erase": return .forget(rejected: request.password ?? request.attributes["credential"] ?? "", otherwise: nil)
    default: return silent  // store, and actions of future gits: nothing to do
    }
  }

  /// git waits for its person: a sign-in on the terminal, when there is one.
  public static var signsInOnTerminal: Bool { true }

  /// `--profile NAME` among the words (the full command line's option), if any.
  static func profileOption(_ words: [String]) -> String? {
    guard let index = words.firstIndex(of: "--profile"), index + 1 < words.count else { return nil }
    return words[index + 1]
  }
}

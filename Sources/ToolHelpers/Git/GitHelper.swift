// git's helper in the registry (ToolHelper.swift).
import StrivacityConfig
import StrivacityCore

public enum GitHelper: ToolHelper {
  public static let names = HelperNames(
    tool: "git", subcommand: "credential", link: "git-credential-strivacity", flag: nil,
    messagePrefix: CredentialInvocation.messagePrefix)

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
    guard let config, let profile = invocation.matchingProfile(in: config.profiles) else {
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

  /// `--profile NAME` among the words (the full command line's option), if any.
  static func profileOption(_ words: [String]) -> String? {
    guard let index = words.firstIndex(of: "--profile"), index + 1 < words.count else { return nil }
    return words[index + 1]
  }
}

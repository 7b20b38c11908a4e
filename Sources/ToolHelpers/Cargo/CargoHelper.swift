// cargo's credential provider in the registry (ToolHelper.swift).
import StrivacityConfig
import StrivacityCore

public enum CargoHelper: ToolHelper {
  public static let names = HelperNames(
    tool: "cargo", subcommand: "cargo-credential", link: nil, flag: "--cargo-plugin",
    messagePrefix: CargoInvocation.messagePrefix)

  public static let help = HelperHelp(
    abstract: "cargo credential provider: answer cargo's requests on stdin and stdout (protocol v1).",
    discussion: """
      cargo runs it as `strivacity --cargo-plugin` (set it up with `strivacity setup cargo \
      --registry NAME`). A `get` for a registry whose index URL is under the profile's tenant, \
      git_hosts, hosts or an API's url (the API's own token, as `strivacity curl` chooses) is \
      answered with `Bearer TOKEN`, cached by cargo until the token expires; any other registry \
      is `url-not-supported`, so cargo asks its next provider. A registry's `WWW-Authenticate: \
      Bearer` challenge that cargo passes on is answered as `strivacity curl` answers one: \
      invalid_token gets a new token, insufficient_scope an API token with the scopes added. \
      It never signs in: without a usable token it answers cargo's error, and one line on \
      stderr names the `strivacity login` to run. `cargo login` and `cargo logout` are not \
      supported (sign in and out with strivacity).

      In cargo's config, words after the path are passed in the request: only `--profile NAME` \
      is accepted there.
      """, takes: .options)

  /// cargo's requests come on stdin, one a line: the provider itself is the `get`.
  public static func asksForToken(_ words: [String]) -> Bool { words.isEmpty }
  public static var maxInput: Int { CargoProtocol.maxLine }
  public static func setupCommand(host: String) -> String {
    "strivacity setup cargo --registry NAME --api API"
  }

  /// cargo's error answer: `url-not-supported` for a registry under none of the profile's
  /// places (cargo asks its next provider), `other` with our sentence for the rest (cargo shows
  /// it and stops); the line on stderr either way. The stream goes on (exit 0 at its end).
  public static func reply(_ failure: HelperFailure) -> HelperReply {
    let answer =
      if case .noAPI = failure { CargoProtocol.errorAnswer(.urlNotSupported) } else {
        CargoProtocol.errorAnswer(.other, message: failure.sentence(self))
      }
    return HelperReply(stdout: answer, stderr: line(failure), status: .ok)
  }
}

extension CargoHelper: HelperGet {
  public static var session: HelperSession {
    .lines(hello: CargoProtocol.hello, handedOn: CargoProtocol.helloSentVariable, maxLine: CargoProtocol.maxLine)
  }

  /// Only the profile the request names (else the one `token` would use), with all its APIs.
  public static func configScope(_ words: [String], _ input: [UInt8], environment: [String: String]) -> HelperConfigNeed
  {
    let profile = (try? CargoProtocol.parse(input)).flatMap { try? CargoInvocation(request: $0) }?.profile
    return .profile(
      ResolvedProfile.requestedName(overrides: ProfileOverrides(profile: profile), environment: environment))
  }

  /// A line that is not cargo's protocol: said in its error shape, and the stream ends (exit 2).
  public static func step(_ words: [String], _ input: [UInt8], config: () throws -> Config?) throws -> HelperStep {
    do {
      _ = try CargoProtocol.parse(input)
      return .get
    } catch {
      return .reply(
        HelperReply(
          stdout: CargoProtocol.errorAnswer(.other, message: error.description),
          stderr: line(.refused(error.description, status: .usage)), status: .usage))
    }
  }

  /// One request line (its newline removed). nil: the full command line's to say (a line that is
  /// not cargo's, a profile named in cargo's config that the config lacks).
  public static func route(_ words: [String], _ input: [UInt8], config: Config?, environment: [String: String])
    -> HelperRoute?
  {
    guard let request = try? CargoProtocol.parse(input) else { return nil }
    // The kind first: `cargo login -- ARGS` passes its words (a token, maybe) in a login request,
    // and they are never read, let alone named in an error.
    let unsupported: String
    switch request.kind {
    case .get: unsupported = ""
    case .login: unsupported = "strivacity signs in with `strivacity login`, not `cargo login`"
    case .logout: unsupported = "strivacity signs out with `strivacity logout`, not `cargo logout`"
    case .other(let kind): unsupported = "strivacity does not know cargo's '\(HostEntry.shown(kind))' requests"
    }
    guard unsupported.isEmpty else {
      return .reply(
        HelperReply(
          stdout: CargoProtocol.errorAnswer(.operationNotSupported, message: unsupported), stderr: nil, status: .ok))
    }
    let invocation: CargoInvocation
    do {
      invocation = try CargoInvocation(request: request)
    } catch {
      return failing(.refused(error.description, status: .usage))
    }
    guard
      let resolved = try? ResolvedProfile.resolve(
        config: config, overrides: ProfileOverrides(profile: invocation.profile), environment: environment)
    else { return nil }
    let notOurs = HelperReply(stdout: CargoProtocol.errorAnswer(.urlNotSupported), stderr: nil, status: .ok)
    // A profile named in cargo's config must be there; with none named, nothing of ours is.
    guard resolved.isConfigured else { return invocation.profile == nil ? .reply(notOurs) : nil }
    switch invocation.decision(for: resolved.profile, tenant: resolved.profile.tenant ?? "") {
    case .notOurs:
      guard let url = invocation.registryURL else { return .reply(notOurs) }
      return failing(.noAPI(host: url, apis: HelperFailure.apiURLs([resolved.profile])))
    case .refused(let reason):
      return failing(.refused(reason, status: .usage))
    case .token(let api):
      return .token(
        TokenAsk(resolved: resolved, api: api, challenge: invocation.challenge) { tokens in
          CargoProtocol.tokenAnswer(tokens.accessToken, expiresAt: tokens.expiresAt)
        })
    }
  }
}

// The tools strivacity is a credential helper for, as one registry (`ToolHelpers.all`): the names
// each helper answers to (the link git, Docker or Terraform runs, the subcommand, cargo's flag),
// the `get` the small binary may answer, and what a helper says when it cannot answer: one
// stderr line in one voice (`HelperFailure`), and its protocol's failure shape on stdout. Static
// tables and value types only: the small binary reads them on its hot path.
import StrivacityConfig
import StrivacityCore

/// The names one helper answers to.
public struct HelperNames: Sendable, Equatable {
  /// The tool, as `strivacity setup TOOL` names it.
  public var tool: String
  /// The full command line's subcommand (`strivacity docker-credential get`).
  public var subcommand: String
  /// The link to `strivacity` the tool runs (`docker-credential-strivacity`): argv[0] that means
  /// `strivacity SUBCOMMAND`; nil when the tool runs `strivacity` itself.
  public var link: String?
  /// The only argument by which the tool runs `strivacity` itself (cargo's `--cargo-plugin`).
  public var flag: String?
  /// Said before each of the helper's lines on stderr, so a person reading the tool's output
  /// knows whose it is.
  public var messagePrefix: String
}

/// What `strivacity help SUBCOMMAND` says of a helper (and its man page, from the same command).
public struct HelperHelp: Sendable {
  public var abstract: String
  public var discussion: String
  /// What the full command line's subcommand takes.
  public var takes: HelperWords
  /// The help of those words (or of the option); the verbs, completed.
  public var words: String
  public var verbs: [String]

  public init(abstract: String, discussion: String, takes: HelperWords, words: String = "", verbs: [String] = []) {
    self.abstract = abstract
    self.discussion = discussion
    self.takes = takes
    self.words = words
    self.verbs = verbs
  }
}

/// What a helper's subcommand takes on the full command line, as its help shows it.
public enum HelperWords: Sendable {
  /// The protocol's words, read by the protocol (docker's, Terraform's verbs).
  case protocolWords
  /// The global options and one action (git's).
  case action
  /// The global options only (cargo's: the request names the rest).
  case options
  /// The global options and `--api NAME`.
  case api
}

/// One tool's credential helper.
public protocol ToolHelper {
  static var names: HelperNames { get }
  static var help: HelperHelp { get }
  /// Whether `words` (after the subcommand) ask for a token: the request the small binary
  /// answers from the access-token cache when it can (HotPath.helper).
  static func asksForToken(_ words: [String]) -> Bool
  /// Most bytes read from stdin for one request.
  static var maxInput: Int { get }
  /// The fix for a host of the tool's that no API covers: the setup command to run.
  static func setupCommand(host: String) -> String
  /// What the helper writes for `failure`: the protocol's failure shape on stdout, the one line
  /// on stderr, the exit status.
  static func reply(_ failure: HelperFailure) -> HelperReply
}

/// What a helper writes when it does not answer with a token.
public struct HelperReply: Sendable, Equatable {
  /// The protocol's failure shape ("" when the protocol wants nothing on stdout).
  public var stdout: String
  /// The one line on stderr (with its newline), nil when the protocol's answer says it all.
  public var stderr: String?
  public var status: ExitStatus

  public init(stdout: String, stderr: String?, status: ExitStatus) {
    self.stdout = stdout
    self.stderr = stderr
    self.status = status
  }
}

/// Why a helper cannot answer, in the words every helper uses: what is wrong and what fixes it.
public enum HelperFailure: Error, Sendable, Equatable {
  /// No usable sign-in: `why`, the broker's words when it said them (naming the `login` to run),
  /// else "not signed in".
  case notSignedIn(profile: String, why: String?)
  /// The host (registry) asked for is under no API of the profiles': `apis`, their URLs.
  case noAPI(host: String, apis: [String])
  /// The tenant refused (its words, made safe by whoever quotes them: TenantWords).
  case tenantRefused(String)
  /// The request, or something else: our own words and the exit status.
  case refused(String, status: ExitStatus)

  /// The sentence, for the helper `helper`.
  public func sentence(_ helper: any ToolHelper.Type) -> String {
    switch self {
    case .notSignedIn(let profile, let why):
      let login = "strivacity login --profile \(profile)"
      guard let why else { return "profile \(profile) is not signed in: run `\(login)`" }
      return why.contains("strivacity login") ? why : "\(why): run `\(login)`"
    case .noAPI(let host, let apis):
      let shown = HostEntry.shown(host)
      let known = apis.isEmpty ? "no profile has an API" : "the APIs are " + apis.joined(separator: ", ")
      return "no API covers \(shown) (\(known)): run `\(helper.setupCommand(host: shown))`"
    case .tenantRefused(let words): return "the tenant refused: \(words)"
    case .refused(let words, _): return words
    }
  }

  public var status: ExitStatus {
    switch self {
    case .notSignedIn: .signInRequired
    case .noAPI: .usage
    case .tenantRefused: .server
    case .refused(_, let status): status
    }
  }

  /// The whole-host API URLs of `profiles`, as `.noAPI` names them (at most 8).
  public static func apiURLs(_ profiles: [Profile]) -> [String] {
    var seen: Set<String> = []
    var urls: [String] = []
    for api in profiles.flatMap(\.apis) where seen.insert(api.url.description).inserted {
      urls.append(api.url.description)
    }
    return urls.count > 8 ? Array(urls.prefix(8)) + ["…"] : urls
  }
}

extension ToolHelper {
  /// The one stderr line of `failure`: `strivacity: error: ` and the helper's prefix.
  public static func line(_ failure: HelperFailure) -> String {
    "strivacity: error: " + names.messagePrefix + TerminalSafe.text(failure.sentence(self), multiline: false) + "\n"
  }
}

public enum ToolHelpers {
  /// Every helper, in the order their pages and subcommands are listed.
  public static var all: [any HelperGet.Type] {
    [GitHelper.self, DockerHelper.self, CargoHelper.self, TerraformHelper.self, AWSHelper.self]
  }

  /// The helper whose subcommand is `name`.
  public static func named(_ subcommand: String) -> (any HelperGet.Type)? {
    all.first { $0.names.subcommand == subcommand }
  }

  /// argv (program name first) as the full command line reads it: a helper's link means its
  /// subcommand, and a helper's flag alone means its subcommand alone.
  public static func arguments(_ argv: [String]) -> [String] {
    let rest = Array(argv.dropFirst())
    let name = argv.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
    for helper in all {
      if let link = helper.names.link, link == name { return [helper.names.subcommand] + rest }
      if let flag = helper.names.flag, rest == [flag] { return [helper.names.subcommand] }
    }
    return rest
  }
}

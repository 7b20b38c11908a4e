// `strivacity curl -- ARGS`: the real curl, with the Authorization header handed over on a
// pipe (`-K /dev/fd/N`), never in argv where any process could read it. curl's arguments pass
// an allow-list (`CurlArguments`): every URL curl will contact is known, and each must be on the
// profile's tenant, git_hosts or hosts.
import ArgumentParser
import Broker
import SignIn
import StrivacityConfig
import StrivacityCore
import SystemIO
import TerminalUI

struct Curl: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run curl with a fresh access token, passed through a pipe, never in argv.",
    discussion: """
      The token goes only to the tenant's origin and the profile's git_hosts and hosts: \
      every URL among the arguments must be on one of them. Only curl options that cannot \
      send a request elsewhere are passed (no -K, --next, --connect-to, --resolve, proxies, \
      --location-trusted, -u, -k); every other argument must be a full http(s) URL. curl's \
      exit status is strivacity's, but 2 when the API's refusal shows that the URL needs an API \
      entry (the line names the `setup api` command). For anything else, pipe `strivacity token --format curl` \
      into `curl -K -`.

      -L follows redirects only where the token's places cover all of the URL's origin and \
      no other token's place is on it: curl keeps the token on a redirect within the origin \
      (and drops it when the scheme, host or port changes), so where only a path of the \
      origin is allowed (a hosts prefix, an API's url) or two APIs share a host, -L is \
      refused. An API's challenge is answered only when no redirect left the URL's origin.

      strivacity's own options come first, written in full (--profile, --store, --config, \
      --verbose); curl's start at the first other argument, or after `--`. So \
      `strivacity curl -v URL` passes -v to curl, and `strivacity curl --help` is this help.

      EXAMPLES:
        strivacity curl -sS https://api.example.com/v1/me
        strivacity curl --profile work -- -v -X POST https://api.example.com/v1/items
      """)

  @OptionGroup var global: GlobalOptions

  @Argument(parsing: .captureForPassthrough, help: "Arguments for curl (after --).")
  var arguments: [String] = []

  func run() throws {
    if arguments.first == "--help" || arguments.first == "-h" { throw CleanExit.helpRequest(self) }
    var given = arguments.first == "--" ? Array(arguments.dropFirst()) : arguments
    // `-v` is curl's here: strivacity's --verbose is written in full. (The parser took it for
    // ours before the first curl argument.)
    var global = global
    let own = Strivacity.arguments().dropLast(arguments.count)
    if own.contains("-v") {
      given.insert("-v", at: 0)
      global.verbose = own.contains("--verbose")
    }
    let curl: CurlArguments
    do {
      curl = try CurlArguments.parse(given)
    } catch {
      throw CLIFailure(error.description, status: .usage)
    }
    let context = global.context()
    let session = try TokenBroker(context: context, options: global)
    let profile = session.resolved.profile
    // The profile's own places, and its APIs' (each URL gets the token of the API it is under).
    let allowed = profile.tokenHosts(tenant: session.tenant) + profile.apis.map(\.url)
    var apis: [API?] = []
    var apiOf: [String: API] = [:]
    for url in curl.urls {
      do {
        try TokenDestination.check(url, allowed: allowed)
        let api = try profile.api(for: url)
        apiOf[url] = api
        if !apis.contains(api) { apis.append(api) }
      } catch .unsafe(let reason) {
        let shown = URLParts(url).map { "\($0.origin)" } ?? "that URL"
        throw CLIFailure("refusing to send the token to \(shown): \(reason)", status: .usage)
      } catch .notAllowed(let shown) {
        let list = allowed.map(\.description).joined(separator: ", ")
        throw CLIFailure(
          "refusing to send the token to \(shown): profile \(session.name) allows \(list) (add it to hosts)",
          status: .usage)
      }
    }
    // -L: curl keeps the token on a redirect that stays on the origin, so a hop could leave the
    // places the URL was checked against, or carry its token into another token's (an API's
    // path on a shared host). Followed only where the token's places are all of the origin.
    if curl.followsRedirects {
      for url in curl.urls {
        guard let origin = URLParts(url)?.origin,
          let why = profile.redirectRefusal(url, api: apiOf[url], tenant: session.tenant, name: session.name)
        else { continue }
        throw CLIFailure(
          "refusing -L for \(origin): curl keeps the token on a redirect within it, and \(why): "
            + "call the final URL without -L", status: .usage)
      }
    }
    // One token per curl: URLs of two APIs (or of an API and the profile's own places) would
    // hand one API's token to another.
    guard apis.count <= 1 else {
      let names = apis.map { $0.map { "API \($0.name)" } ?? "the profile's own token" }
      throw CLIFailure(
        "these URLs need different tokens (\(names.joined(separator: ", "))): run one strivacity curl for each",
        status: .usage)
    }
    let freshness = Freshness.asked(nil, profile: profile)
    let api = apis.first.flatMap { $0 }
    let tokens = try api.map { try session.apiTokens($0, freshness) } ?? session.freshTokens(freshness)
    session.sayShortfall(tokens, freshness)
    // URL globbing off (a glob could name another host), and http(s) only, redirects included.
    // Loopback is this machine's: never through a proxy, which would see a plain-http token, and
    // whose loopback is another one.
    let loopback = Set(curl.urls.compactMap { URLParts($0) }.filter(\.isLoopback).map(\.host)).sorted()
    // The API call trusts the CAs the token's own requests trusted (CATrust), and goes through
    // the proxy they went through (ProxyChoice: curl reads no proxy variable of its own).
    let trust = try session.trust()
    let proxy = try session.proxy()
    func config(_ tokens: TokenSet) -> String {
      "globoff\nproto = \"=http,https\"\nproto-redir = \"=http,https\"\n" + trust.curlConfig
        + proxy.choice.curlConfig(loopback: loopback, password: proxy.password)
        + TokenRenderer.text(
          tokens.accessToken, of: tokens, to: .stdout(.curl, profile: session.name, now: TokenBroker.now()))
    }
    // An API's challenge is answered for one transfer whose headers strivacity can read (no -D
    // of the user's: curl writes only the last -D).
    guard curl.urls.count == 1, !curl.dumpsHeaders else {
      throw ExitCode(
        try CurlRun.run(config: config(tokens), arguments: curl.arguments, redactsStderr: curl.isVerbose).status)
    }
    var answer: ChallengeAnswer?
    let first = try CurlRun.run(
      config: config(tokens), arguments: curl.arguments, followsRedirects: curl.followsRedirects,
      redactsStderr: curl.isVerbose
    ) { head in
      answer = session.answer(
        head, url: curl.urls[0], api: api, replayable: !curl.readsStandardInput,
        terminal: session.signInTerminal() != nil)
      if case .retry = answer { return true }
      return false
    }
    switch answer {
    case .retry(let action, let reason, let target)?:
      if case .stepUp = action {} else { Console.note(reason) }
      let second = try session.tokens(answering: action, reason: reason, api: target, freshness)
      throw ExitCode(
        try CurlRun.run(config: config(second), arguments: curl.arguments, redactsStderr: curl.isVerbose).status)
    case .hint(let line)?:
      Console.warning(line)
    case .configure(let line)?:
      Console.error(line)
      throw ExitCode(first.status != 0 ? first.status : ExitStatus.usage.rawValue)
    case nil:
      break
    }
    throw ExitCode(first.status)
  }
}

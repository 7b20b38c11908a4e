// cargo's credential provider: `strivacity --cargo-plugin` (how cargo runs a provider; the same
// as `strivacity cargo-credential`), protocol v1 on stdin and stdout. The small `strivacity`
// answers cached tokens itself and hands the rest here with the request it read, the hello
// already said. stdout belongs to the protocol; every human word goes to stderr. It never signs
// in: cargo waits, so a refusal names the `strivacity login` to run.
import ArgumentParser
import Broker
import StrivacityConfig
import StrivacityCore
import SystemIO
import ToolHelpers

struct CargoCredential: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cargo-credential",
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
      """)

  @OptionGroup var global: GlobalOptions

  func run() throws {
    // Handed on by the small binary, which said the hello already (cargo reads it once).
    if environmentVariable(CargoProtocol.helloSentVariable) == nil {
      Console.writeStdout(CargoProtocol.hello)
    } else {
      takeFromEnvironment(CargoProtocol.helloSentVariable)
    }
    let context = global.context()
    context.attended = false  // cargo waits: a keyring prompt gets the short bound
    var reader = LineReader(fd: 0)
    while var line = reader.next(limit: CargoProtocol.maxLine) {
      defer { line.wipe() }
      if line.last == 10 { line.removeLast() }
      let request: CargoRequest
      do {
        request = try CargoProtocol.parse(line)
      } catch {
        // Not cargo's protocol: said in its error shape, and the stream ends (exit 2).
        Console.writeStdout(CargoProtocol.errorAnswer(.other, message: error.description))
        throw CLIFailure(CargoInvocation.messagePrefix + error.description, status: .usage)
      }
      // As the small binary answers it (HelperGet.route), with a fresh token, never a sign-in; a
      // challenge cargo passed on answered as `strivacity curl` answers one.
      do {
        if try HelperAnswer.get(CargoHelper.self, [], line, context: context, options: global) == nil {
          // The profile cargo's config names is not in ours.
          let named = (try? CargoInvocation(request: request))?.profile
          var options = global
          options.profile = named
          let resolved = try context.resolveProfile(options)
          throw ConfigError.profileNotConfigured(
            name: resolved.name, path: context.paths.config, configured: resolved.configuredNames)
        }
      } catch {
        HelperAnswer.write(CargoHelper.reply(HelperAnswer.failure(error, profile: global.profile ?? "default")))
      }
    }
  }
}

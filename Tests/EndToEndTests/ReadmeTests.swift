// The README's examples, run as written (issue 39): every `sh` block is run, in order, against
// the local tenant, each in a fresh bash on a pseudo-terminal sharing one home (so the quick
// start's sign-in serves the blocks after it), unless the line before it says why not
// (`<!-- not run: REASON -->`); every `toml` block must parse as a config file. An example
// cannot drift from the product without this failing.
//
// What a reader replaces, the test replaces: the tenant https://your-tenant.strivacity.com (the
// local tenant), YOUR_CLIENT_ID (its public client), https://api.example.com/ (its protected
// resources, ISSUER/resources/), and the variables a block names as the reader's ($TENANT,
// $CLIENT, $SMOKE_USER, $SMOKE_PASSWORD). A block that signs in without --field is answered as
// a person would, on its terminal.
import Foundation
import StrivacityConfig
import StrivacityCore
import StrivacityTestSupport
import Testing

@Suite struct ReadmeTests {
  struct Block {
    let line: Int
    let language: String
    let text: String
    /// Why it is not run (the comment on the line before it), or nil.
    let notRun: String?
  }

  static let readme = TestEnvironment.repositoryRoot.appendingPathComponent("README.md")

  /// The fenced blocks of `markdown`, outermost fences only (an indented fence counts too).
  static func blocks(_ markdown: String) -> [Block] {
    var blocks: [Block] = []
    var open: (line: Int, language: String, indent: Int, notRun: String?)?
    var body: [String] = []
    var previous = ""
    for (index, raw) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let trimmed = raw.drop { $0 == " " }
      if let current = open {
        if trimmed.hasPrefix("```") {
          blocks.append(
            Block(
              line: current.line, language: current.language, text: body.joined(separator: "\n"),
              notRun: current.notRun))
          open = nil
          body = []
        } else {
          body.append(String(raw.dropFirst(min(current.indent, raw.prefix { $0 == " " }.count))))
        }
        continue
      }
      if trimmed.hasPrefix("```") {
        let comment = previous.drop { $0 == " " }
        let notRun =
          comment.hasPrefix("<!-- not run: ") && comment.hasSuffix("-->")
          ? String(comment.dropFirst(14).dropLast(3)).trimmingCharacters(in: .whitespaces) : nil
        open = (index + 1, String(trimmed.dropFirst(3)), raw.count - trimmed.count, notRun)
      }
      if !raw.allSatisfy({ $0 == " " }) { previous = String(raw) }
    }
    return blocks
  }

  static func readmeBlocks() throws -> [Block] {
    blocks(try String(contentsOf: readme, encoding: .utf8))
  }

  /// `text` as the local tenant at `issuer` runs it: an API's address is the local tenant's
  /// protected resources where something is sent to it (curl, `setup api`'s metadata), and stays
  /// the API's name elsewhere (its audience, an address `--for` looks up).
  static func substituted(_ text: String, issuer: String) -> String {
    text.replacingOccurrences(of: "https://your-tenant.strivacity.com", with: String(issuer.dropLast()))
      .replacingOccurrences(of: "YOUR_CLIENT_ID", with: "strivacity-cli")
      .split(separator: "\n", omittingEmptySubsequences: false).map { line in
        line.contains("curl") || line.contains("setup api")
          ? line.replacingOccurrences(of: "https://api.example.com/", with: issuer + "resources/") : String(line)
      }.joined(separator: "\n")
  }

  @Test func blocksAreFoundWithTheirReasons() {
    let found = Self.blocks(
      "a\n```sh\necho 1\n```\n<!-- not run: needs X -->\n\n```sh\necho 2\n```\n  ```toml\n  a = 1\n  ```\n")
    #expect(found.map(\.line) == [2, 7, 10])
    #expect(found.map(\.notRun) == [nil, "needs X", nil])
    #expect(found.map(\.text) == ["echo 1", "echo 2", "a = 1"])
    #expect(found.map(\.language) == ["sh", "sh", "toml"])
  }

  /// Every TOML example is a config file strivacity reads.
  @Test func everyTOMLBlockParses() throws {
    let toml = try Self.readmeBlocks().filter { $0.language == "toml" }
    #expect(toml.count >= 5)
    for block in toml {
      #expect(throws: Never.self, "README.md:\(block.line)") { try Config.parse(block.text, path: "README.md") }
    }
  }

  /// Every shell example runs against the local tenant and exits 0, in order, sharing one home.
  @Test func everyShellBlockRunsAgainstTheLocalTenant() throws {
    let blocks = try Self.readmeBlocks().filter { $0.language == "sh" }
    let run = blocks.filter { $0.notRun == nil }
    #expect(run.count >= 8, "most of the README's commands are run")
    let h = try Harness(journey: "password")
    let products = TestEnvironment.productsDirectory.path
    // The APIs the README's examples name, as a reader following it has them.
    let config = h.home.path + "/.config/strivacity"
    try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
    try """
    [profiles.default.apis.orders]
    url = "https://api.example.com/orders/"
    audience = "https://api.example.com/orders"
    resource = ["https://api.example.com/orders/"]
    scopes = ["orders:read"]

    """.write(toFile: config + "/config.toml", atomically: true, encoding: .utf8)
    h.extraEnvironment = [
      "PATH": products + ":/usr/local/bin:/usr/bin:/bin", "TENANT": h.emulator.issuer, "CLIENT": "strivacity-cli",
      "SMOKE_USER": "demo@example.com", "SMOKE_PASSWORD": "Demo-pass-1",
    ]
    for block in run {
      // In the home, where a block may write files (doctor.json).
      let script = "cd \"$HOME\"\n" + Self.substituted(block.text, issuer: h.emulator.issuer)
      let arguments = ["/bin/bash", "-euo", "pipefail", "-c", script]
      // Automation: no terminal, as in CI.
      guard !script.contains("--field") else {
        let result = try StrivacityTestSupport.run(arguments, environment: h.environment)
        #expect(result.status == 0, "README.md:\(block.line) exited \(result.status):\n\(result.stderr)")
        continue
      }
      let session = try PTYSession(arguments, environment: h.environment, columns: 120)
      do {
        if script.contains("strivacity login"), !script.contains("--field") { try session.typeDemoSignIn() }
        let status = try session.wait(timeout: 60)
        #expect(status == 0, "README.md:\(block.line) exited \(status):\n\(session.transcript)")
      } catch {
        Issue.record("README.md:\(block.line): \(error)")
        kill(session.pid, SIGKILL)
        _ = try? session.wait(timeout: 5)
      }
    }
  }
}

// strivacity-docs: the documents generated from the command definitions, a tool of the build
// (Scripts/generate-docs), not shipped. `strivacity-docs PAGE` (or `strivacity-docs man PAGE`)
// prints a man page.
import ArgumentParser

struct StrivacityDocs: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "strivacity-docs", abstract: "Print the documents generated from the command definitions.",
    subcommands: [GenerateMan.self], defaultSubcommand: GenerateMan.self)
}

StrivacityDocs.main()

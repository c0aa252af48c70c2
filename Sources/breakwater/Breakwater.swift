// The `breakwater` command: run (default), demo, validate, hash, advise (README.md, "Running it in front
// of your origin").

import ArgumentParser
import BreakwaterCore

@main
struct Breakwater: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "breakwater",
        abstract: "A caching edge proxy for GraphQL with Automatic Persisted Queries.",
        version: "breakwater \(BuildInfo.version)",
        subcommands: [Run.self, Demo.self, Validate.self, Hash.self, Advise.self],
        defaultSubcommand: Run.self)
}

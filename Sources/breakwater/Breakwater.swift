// The `breakwater` command: run (default), demo, validate, hash (SPEC section 1).

import ArgumentParser

@main
struct Breakwater: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "breakwater",
        abstract: "A caching edge proxy for GraphQL with Automatic Persisted Queries.",
        subcommands: [Run.self, Demo.self, Validate.self, Hash.self],
        defaultSubcommand: Run.self)
}

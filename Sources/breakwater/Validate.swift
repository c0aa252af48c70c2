// `breakwater validate`: check config.yaml and print the effective settings.

import ArgumentParser
import BreakwaterCore

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the configuration, print the effective settings; exit 2 with file:line errors.")

    @Option(help: "Path of the configuration file.")
    var config = "./config.yaml"

    @OptionGroup var overrides: OverrideOptions

    func run() throws {
        let settings = try overrides.apply(to: ConfigurationFile.load(config))
        print(settings.effectiveYAML, terminator: "")
    }
}

// `breakwater validate`: check config.yaml and the files it names, and print the effective
// settings. Its output is for people and CI logs: plain lines whatever `logging.format` says.

import ArgumentParser
import BreakwaterCore

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the configuration and the files it names, print the effective settings (secrets as ***); exit 2 with file:line errors.")

    @Option(help: "Path of the configuration file.")
    var config = "./config.yaml"

    @OptionGroup var overrides: OverrideOptions

    func run() throws {
        let loaded = try ConfigurationFile.load(config, logFormatted: false)
        let settings = try overrides.apply(to: loaded.configuration)
        let problems = FileCheck.problems(in: settings, source: loaded.source)
        guard problems.isEmpty else {
            for problem in problems { Console.error(problem.description) }
            throw ExitCode(2)
        }
        print(settings.maskingSecrets().effectiveYAML, terminator: "")
    }
}

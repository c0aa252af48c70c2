// `breakwater validate`: check config.yaml and print the effective settings.

import ArgumentParser
import BreakwaterCore

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the configuration and the files it names, print the effective settings (secrets as ***); exit 2 with file:line errors.")

    @Option(help: "Path of the configuration file.")
    var config = "./config.yaml"

    @OptionGroup var overrides: OverrideOptions

    func run() throws {
        let settings = try overrides.apply(to: ConfigurationFile.load(config))
        let problems = FileCheck.problems(in: settings)
        guard problems.isEmpty else {
            for problem in problems { Console.error("\(config): \(problem)") }
            throw ExitCode(2)
        }
        print(settings.maskingSecrets().effectiveYAML, terminator: "")
    }
}

// Loading config.yaml for the commands, with SPEC's exit code 2 on problems.

import ArgumentParser
import BreakwaterCore

enum ConfigurationFile {
    /// The configuration at `path`; prints each `file:line: message` and exits 2 on problems.
    static func load(_ path: String) throws -> Configuration {
        do {
            return try ConfigurationLoader.load(path: path)
        } catch {
            Console.error("\(error)")
            throw ExitCode(2)
        }
    }
}

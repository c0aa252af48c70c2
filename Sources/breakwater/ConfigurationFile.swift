// Loading config.yaml for the commands: each problem as `file:line: message` and exit code 2
// (README.md, "Running it in front of your origin").

import ArgumentParser
import BreakwaterCore
import Foundation

enum ConfigurationFile {
    static let defaultPath = "./config.yaml"

    /// The file `run` reads: the one given, else ./config.yaml; nil (built-in defaults) when
    /// there is no ./config.yaml and `--origin` says where the origin is.
    static func path(explicit: String?, originGiven: Bool) -> String? {
        if let explicit { return explicit }
        if originGiven && !FileManager.default.fileExists(atPath: defaultPath) { return nil }
        return defaultPath
    }

    /// What `run` serves with when there is no file: the built-in defaults with the registry in
    /// memory, so that nothing is written to whatever folder the command was started in.
    static func builtIn() -> LoadedConfiguration {
        var configuration = Configuration()
        configuration.persistedQueries.store = ""
        return LoadedConfiguration(configuration: configuration, source: ConfigurationSource(file: "(no config file)"))
    }

    /// The configuration at `path`; prints each problem and exits 2 when there are any. Warnings
    /// (`file:line: warning: message`) are printed and change nothing else. With `logFormatted`
    /// both are written in the file's `logging.format` (one JSON object per line for json), as
    /// `run`'s log pipeline reads them; else as plain lines, for people (`validate`).
    static func load(_ path: String, logFormatted: Bool) throws -> LoadedConfiguration {
        var warnings: [ConfigurationError.Problem] = []
        do {
            let loaded = try ConfigurationLoader.read(path: path) { warnings.append($0) }
            let format = logFormatted ? loaded.configuration.logging.format : .text
            for warning in warnings { Console.problem(warning, level: "warning", format: format) }
            return loaded
        } catch {
            for problem in error.problems {
                Console.problem(problem, level: "error", format: logFormatted ? error.logFormat : .text)
            }
            throw ExitCode(2)
        }
    }
}

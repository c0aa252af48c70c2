// Loading config.yaml for the commands, with SPEC's exit code 2 on problems.

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

    /// The configuration at `path`; prints each `file:line: message` and exits 2 on problems.
    /// Warnings go to stderr as `file:line: warning: message` and change nothing else.
    static func load(_ path: String) throws -> Configuration {
        do {
            return try ConfigurationLoader.load(path: path) { warning in Console.error("\(warning)") }
        } catch {
            Console.error("\(error)")
            throw ExitCode(2)
        }
    }
}

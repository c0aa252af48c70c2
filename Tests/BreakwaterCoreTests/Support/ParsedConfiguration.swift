// A config.yaml text loaded as `/etc/breakwater/config.yaml`, for the suites that check one
// section's keys: the configuration, or its problems as `file:line: message` lines.

import BreakwaterCore

enum ParsedConfiguration {
    static func parse(_ yaml: String) throws(ConfigurationError) -> Configuration {
        try ConfigurationLoader.parse(yaml: yaml, file: "config.yaml", baseDirectory: "/etc/breakwater")
    }

    /// The problems loading `yaml` reports, none when it loads.
    static func problems(_ yaml: String) -> [String] {
        do {
            _ = try parse(yaml)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }
}

// Where each key of a configuration file stands, so that problems found after loading (a file the
// configuration names cannot be opened) are reported as `file:line: message` like the loader's own.

/// The file a configuration was read from and the line of each key in it.
public struct ConfigurationSource: Sendable, Equatable {
    public var file: String
    /// The line of every key the file holds, by dotted name (`persisted_queries.store`).
    public var keyLines: [String: Int]

    public init(file: String, keyLines: [String: Int] = [:]) {
        self.file = file
        self.keyLines = keyLines
    }

    /// True when the file sets `key` itself (else its value is the default).
    public func sets(_ key: String) -> Bool { keyLines[key] != nil }

    /// The line of `key`; for a key the file leaves out, the line of its nearest section the file
    /// has; 0 (the whole file) when it has none.
    public func line(of key: String) -> Int {
        var name = Substring(key)
        while true {
            if let line = keyLines[String(name)] { return line }
            guard let dot = name.lastIndex(of: ".") else { return 0 }
            name = name[..<dot]
        }
    }

    /// A problem with `key`, at its line.
    public func problem(_ key: String, _ message: String) -> ConfigurationError.Problem {
        .init(file: file, line: line(of: key), message: "\(key): \(message)")
    }
}

/// A configuration with where it came from.
public struct LoadedConfiguration: Sendable {
    public var configuration: Configuration
    public var source: ConfigurationSource

    public init(configuration: Configuration, source: ConfigurationSource) {
        self.configuration = configuration
        self.source = source
    }
}

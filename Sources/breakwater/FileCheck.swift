// `breakwater validate` opens every file the configuration names (README.md, "Running it in front
// of your origin"): the manifest, the TLS certificate and key, the origin's SDL file, the registry
// store, the cache snapshot and an access-log file, so a deploy fails at validation, not at the first request. Each
// problem points at its key's line.

import BreakwaterCore
import BreakwaterServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The problems with the files a configuration names.
enum FileCheck {
    /// Every problem, in file order.
    static func problems(in configuration: Configuration, source: ConfigurationSource) -> [ConfigurationError.Problem] {
        var problems: [ConfigurationError.Problem] = []
        let registry = configuration.persistedQueries
        if !registry.manifest.isEmpty {
            do {
                _ = try PersistedQueryManifest(path: registry.manifest, hasher: OpenSSLSHA256())
            } catch {
                problems.append(source.problem("persisted_queries.manifest", "\(error)"))
            }
        }
        if let tls = configuration.server.tls {
            var readableFiles = true
            for (key, path) in [("server.tls.cert", tls.cert), ("server.tls.key", tls.key)] {
                if let problem = readable(path) {
                    problems.append(source.problem(key, problem))
                    readableFiles = false
                }
            }
            if readableFiles {
                do {
                    _ = try TLSServerContext(certificateFile: tls.cert, keyFile: tls.key)
                } catch {
                    problems.append(source.problem("server.tls", "\(error)"))
                }
            }
        }
        if case .file(let path) = configuration.origin.schema {
            if let problem = readable(path) {
                problems.append(source.problem("origin.schema", problem))
            } else {
                do {
                    _ = try KnownSchema(sdlFile: path)
                } catch {
                    problems.append(source.problem("origin.schema", "\(error)"))
                }
            }
        }
        problems += configuration.writtenFileProblems(in: source)
        return problems.sorted { $0.line < $1.line }
    }

    /// Nil when `path` is a file this process can read.
    private static func readable(_ path: String) -> String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            return "\(path) does not exist"
        }
        if isFolder.boolValue { return "\(path) is a folder, not a file" }
        return access(path, R_OK) == 0 ? nil : "cannot read \(path): \(String(cString: strerror(errno)))"
    }
}

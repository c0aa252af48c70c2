// `breakwater validate` opens every file the configuration names (SPEC section 1): the manifest,
// the TLS certificate and key, the origin's SDL file, and the folders the registry store and an
// access-log file are written to, so a deploy fails at validation, not at the first request.

import BreakwaterCore
import BreakwaterServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The problems with the files `configuration` names, as `key: message` lines.
enum FileCheck {
    static func problems(in configuration: Configuration) -> [String] {
        var problems: [String] = []
        let registry = configuration.persistedQueries
        if !registry.manifest.isEmpty {
            do {
                _ = try PersistedQueryManifest(path: registry.manifest, hasher: OpenSSLSHA256())
            } catch {
                problems.append("persisted_queries.manifest: \(error)")
            }
        }
        if !registry.store.isEmpty && registry.mode == .automatic {
            if let problem = writable(file: registry.store) { problems.append("persisted_queries.store: \(problem)") }
        }
        if let tls = configuration.server.tls {
            for (key, path) in [("server.tls.cert", tls.cert), ("server.tls.key", tls.key)] {
                if let problem = readable(path) { problems.append("\(key): \(problem)") }
            }
            if problems.allSatisfy({ !$0.hasPrefix("server.tls") }) {
                do {
                    _ = try TLSServerContext(certificateFile: tls.cert, keyFile: tls.key)
                } catch {
                    problems.append("server.tls: \(error)")
                }
            }
        }
        if case .file(let path) = configuration.origin.schema {
            if let problem = readable(path) {
                problems.append("origin.schema: \(problem)")
            } else {
                do {
                    _ = try KnownSchema(sdlFile: path)
                } catch {
                    problems.append("origin.schema: \(error)")
                }
            }
        }
        if case .file(let path) = configuration.logging.accessLog, let problem = writable(file: path) {
            problems.append("logging.access_log: \(problem)")
        }
        return problems
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

    /// Nil when `path` can be written: an existing file that is writable, or a new one in a
    /// folder that exists (or can be made) and is writable.
    private static func writable(file path: String) -> String? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue { return "\(path) is a folder, not a file" }
            return access(path, R_OK | W_OK) == 0 ? nil : "cannot write \(path): \(String(cString: strerror(errno)))"
        }
        // The nearest folder that exists must let us create what is missing below it.
        var folder = (path as NSString).deletingLastPathComponent
        if folder.isEmpty { folder = "." }
        while !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            let parent = (folder as NSString).deletingLastPathComponent
            if parent == folder || parent.isEmpty { break }
            folder = parent
        }
        guard isFolder.boolValue else { return "\(folder) is not a folder" }
        return access(folder, W_OK | X_OK) == 0
            ? nil : "cannot create files in \(folder): \(String(cString: strerror(errno)))"
    }
}

// Finds the built `breakwater` executable that integration tests start.
import Foundation

/// Locates the `breakwater` executable built alongside the tests.
public enum BreakwaterBinary {
    /// The executable's name in the build folder.
    public static let name = "breakwater"

    /// The path of the `breakwater` executable.
    ///
    /// Looks, in order, at `BREAKWATER_BIN`; the folder of the running test binary (`/proc/self/exe`, then
    /// `CommandLine.arguments[0]`, stepping out of a `.xctest` bundle), where `swift test` puts it; and
    /// `.build/debug/breakwater` under the current directory.
    public static func path() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["BREAKWATER_BIN"], !explicit.isEmpty {
            guard isExecutable(explicit) else { throw BreakwaterBinaryError(searched: [explicit], fromEnvironment: true) }
            return explicit
        }
        var searched: [String] = []
        for folder in candidateFolders() {
            let candidate = (folder as NSString).appendingPathComponent(name)
            if searched.contains(candidate) { continue }
            searched.append(candidate)
            if isExecutable(candidate) { return candidate }
        }
        throw BreakwaterBinaryError(searched: searched, fromEnvironment: false)
    }

    private static func candidateFolders() -> [String] {
        var executables: [String] = []
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            executables.append(resolved)
        }
        if let first = CommandLine.arguments.first, !first.isEmpty {
            executables.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().path)
        }
        var folders: [String] = []
        for executable in executables {
            var folder = (executable as NSString).deletingLastPathComponent
            folders.append(folder)
            // On macOS the test binary sits inside `<Package>PackageTests.xctest/Contents/MacOS/`.
            while folder != "/" && !folder.isEmpty {
                if folder.hasSuffix(".xctest") {
                    folders.append((folder as NSString).deletingLastPathComponent)
                    break
                }
                folder = (folder as NSString).deletingLastPathComponent
            }
        }
        let current = FileManager.default.currentDirectoryPath
        folders.append((current as NSString).appendingPathComponent(".build/debug"))
        return folders
    }

    private static func isExecutable(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}

/// The `breakwater` executable was not found where the tests look for it.
public struct BreakwaterBinaryError: Error, CustomStringConvertible {
    /// Every path that was tried.
    public let searched: [String]
    /// Whether the only path tried came from `BREAKWATER_BIN`.
    public let fromEnvironment: Bool

    public var description: String {
        if fromEnvironment {
            return "BREAKWATER_BIN is set to \(searched[0]), which is not an executable file"
        }
        return "the breakwater executable was not found; run `swift build` first (or set BREAKWATER_BIN). "
            + "Looked at: " + searched.joined(separator: ", ")
    }
}

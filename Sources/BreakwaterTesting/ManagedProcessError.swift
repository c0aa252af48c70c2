// Why a ManagedProcess operation failed, with the process's recent output for the failure message.

/// A failure to start a process or to see the output a test waited for.
public enum ManagedProcessError: Error, CustomStringConvertible {
    case alreadyStarted(executable: String)
    case notStarted(executable: String)
    case spawnFailed(executable: String, reason: String)
    /// No output line matched before the timeout.
    case timedOut(executable: String, timeout: Duration, output: [String])
    /// The process exited (status as `ManagedProcess.waitForExit` reports it) before any line matched.
    case exited(executable: String, status: Int32?, output: [String])

    /// How many trailing output lines a description shows.
    static let shownLines = 40

    public var description: String {
        switch self {
        case .alreadyStarted(let executable):
            return "\(executable) was already started"
        case .notStarted(let executable):
            return "\(executable) has not been started"
        case .spawnFailed(let executable, let reason):
            return "cannot start \(executable): \(reason)"
        case .timedOut(let executable, let timeout, let output):
            return "no output line of \(executable) matched within \(timeout)" + Self.tail(output)
        case .exited(let executable, let status, let output):
            let how = status.map { "with status \($0)" } ?? "with unknown status"
            return "\(executable) exited \(how) before any output line matched" + Self.tail(output)
        }
    }

    private static func tail(_ output: [String]) -> String {
        if output.isEmpty { return "; it printed nothing" }
        let skipped = output.count > shownLines ? "\n  … \(output.count - shownLines) earlier lines" : ""
        return "; output:" + skipped + output.suffix(shownLines).map { "\n  | " + $0 }.joined()
    }
}

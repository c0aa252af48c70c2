// The proxy's operator-facing log lines (docs/OPERATING.md, "Logs"): every origin failure at `warning`, with
// the reason (refused, reset, TLS, timeout, malformed) or the origin's status, and the operation. The
// request flow calls `originResult` once per fetch, whatever number of clients waited on it.

import BreakwaterCore
import Logging

/// Log lines about the origin, written through the process's log backend.
package enum ProxyLog {
    private static let logger = Logger(label: "breakwater.origin")

    /// Logs a failed fetch (no answer, or a 5xx); says nothing about a good one.
    package static func originResult(_ result: UpstreamResult, operation: String?, requestID: String?) {
        switch result {
        case .failure(let failure):
            originFailed(reason: failure.logReason, originStatus: nil, operation: operation, requestID: requestID)
        case .response(let response) where response.status >= 500:
            originFailed(reason: "status", originStatus: response.status, operation: operation, requestID: requestID)
        case .response:
            break
        }
    }

    /// One warning line: `origin failed operation=... origin_status=... reason=... request_id=...` (fields
    /// in name order).
    package static func originFailed(reason: String, originStatus: Int?, operation: String?, requestID: String?) {
        let operation = operation.map(RecordedName.cut) ?? "-"
        var metadata: Logger.Metadata = ["reason": "\(reason)", "operation": "\(operation)"]
        metadata["origin_status"] = .stringConvertible(originStatus.map(LogValue.init) ?? LogValue.null)
        if let requestID { metadata["request_id"] = "\(requestID)" }
        logger.warning("origin failed", metadata: metadata)
    }
}

extension ProxyLog {
    private static let purges = Logger(label: "breakwater.purge")
    /// Entities a line names before it says how many more there were.
    static let namedEntities = 10

    /// One notice line per mutation whose answer purged entities, as an admin purge has:
    /// `purge cause=mutation operation=... purged=<entries> what=<Type:id ...> (+n more)`.
    package static func mutationPurged(_ tags: [String], purged: Int, operation: String?) {
        var what = tags.prefix(namedEntities).joined(separator: " ")
        if tags.count > namedEntities { what += " (+\(tags.count - namedEntities) more)" }
        purges.notice(
            "purge",
            metadata: [
                "cause": "mutation", "operation": "\(operation.map(RecordedName.cut) ?? "-")",
                "purged": .stringConvertible(purged), "what": "\(what)",
            ])
    }
}

extension OriginFailure {
    /// `timeout`, or the transport's own words (`connection refused`, `reset`, `malformed: ...`).
    package var logReason: String {
        switch self {
        case .timeout: "timeout"
        case .refused(let reason), .unreachable(let reason), .tls(let reason): reason
        case .malformed(let reason): "malformed: \(reason)"
        }
    }
}

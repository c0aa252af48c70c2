// Answers by HTTP status, by the GraphQL error code Breakwater answered with, and by Apollo
// client name/version (docs/OPERATING.md): counted per loop, summed on read. Every dimension is
// bounded, whatever clients send: statuses are 100-599, codes and client pairs have a cap past
// which they count as "other".

/// Counters of answered requests along the status, error-code and client dimensions.
package struct ResponseCounters: Sendable, Equatable {
    /// Distinct error codes kept; Breakwater's own codes are far fewer.
    package static let maxErrorCodes = 64
    /// Distinct (client name, version) pairs kept.
    package static let maxClients = 50
    /// The label for whatever is past a bound, and for statuses outside 100-599.
    package static let other = "other"

    /// Index `status - 100` for 100...599; allocated on first use.
    private var statuses: [Int] = []
    private var otherStatuses = 0
    package private(set) var errorCodes: [String: Int] = [:]
    /// Client name, then version, then count; `clientPairs` counts the pairs held.
    package private(set) var clients: [String: [String: Int]] = [:]
    private var clientPairs = 0

    package init() {}

    /// Counts one answer.
    package mutating func record(status: Int, errorCode: String?, clientName: String?, clientVersion: String?) {
        if (100...599).contains(status) {
            if statuses.isEmpty { statuses = Array(repeating: 0, count: 500) }
            statuses[status - 100] += 1
        } else {
            otherStatuses += 1
        }
        if let errorCode { count(errorCode: errorCode, by: 1) }
        if clientName != nil || clientVersion != nil {
            count(client: clientName ?? "", version: clientVersion ?? "", by: 1)
        }
    }

    /// Status (as its decimal text, or "other") and count, in status order, non-zero only.
    package var byStatus: [(status: String, count: Int)] {
        var rows: [(status: String, count: Int)] = []
        for (index, count) in statuses.enumerated() where count > 0 { rows.append((String(index + 100), count)) }
        if otherStatuses > 0 { rows.append((Self.other, otherStatuses)) }
        return rows
    }

    /// (name, version, count) rows, busiest first then by name and version.
    package var byClient: [(name: String, version: String, count: Int)] {
        clients.flatMap { name, versions in versions.map { (name: name, version: $0.key, count: $0.value) } }
            .sorted { ($0.count, $1.name, $1.version) > ($1.count, $0.name, $0.version) }
    }

    /// Adds `other`'s counts to these, within the same bounds.
    package mutating func merge(_ other: Self) {
        if !other.statuses.isEmpty {
            if statuses.isEmpty { statuses = Array(repeating: 0, count: 500) }
            for index in other.statuses.indices { statuses[index] += other.statuses[index] }
        }
        otherStatuses += other.otherStatuses
        for (code, count) in other.errorCodes.sorted(by: { $0.key < $1.key }) { self.count(errorCode: code, by: count) }
        for row in other.byClient { self.count(client: row.name, version: row.version, by: row.count) }
    }

    private mutating func count(errorCode: String, by amount: Int) {
        if errorCodes[errorCode] != nil || errorCodes.count < Self.maxErrorCodes - 1 {
            errorCodes[errorCode, default: 0] += amount
        } else {
            errorCodes[Self.other, default: 0] += amount
        }
    }

    private mutating func count(client name: String, version: String, by amount: Int) {
        var name = RecordedName.cut(name), version = RecordedName.cut(version)
        if clients[name]?[version] == nil {
            // The last free pair is kept for "other".
            if clientPairs >= Self.maxClients - 1 { (name, version) = (Self.other, Self.other) }
            if clients[name]?[version] == nil { clientPairs += 1 }
        }
        clients[name, default: [:]][version, default: 0] += amount
    }
}

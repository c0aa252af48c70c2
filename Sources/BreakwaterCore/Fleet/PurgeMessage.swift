// A purge as it travels between the proxies of a fleet on the Redis purge channel: one line of
// text, so that an operator can watch the channel with `redis-cli SUBSCRIBE bw:purge`. The same
// line, without the log id, is what the purge log (a Redis stream) keeps.

/// A purge announced by one proxy: `v1 <sender>[@<log id>] <soft 0|1> <generation> <kind> <argument>`.
///
/// The log id rides on the sender field so that a proxy from before the purge log, which only
/// compares that field with its own id, still applies the purge during a rolling deploy.
package struct PurgeMessage: Sendable, Equatable {
    /// The announcing proxy's id (a proxy ignores its own messages).
    package var sender: String
    package var purge: PurgeRequest
    /// The purge-everything generation after this purge (for a hard `all`, the new one).
    package var generation: UInt64
    /// Where the purge sits in the purge log; nil when the log is off or on the log's own copy.
    package var logID: PurgeLogID?

    package init(sender: String, purge: PurgeRequest, generation: UInt64, logID: PurgeLogID? = nil) {
        (self.sender, self.purge, self.generation, self.logID) = (sender, purge, generation, logID)
    }

    package var encoded: [UInt8] {
        let (kind, argument): (String, String) =
            switch purge.selector {
            case .all: ("all", "")
            case .operation(let name): ("op", name)
            case .document(let digest): ("hash", digest.hex)
            case .tag(let tag): ("tag", tag)
            }
        let origin = logID.map { "\(sender)@\($0)" } ?? sender
        return Array("v1 \(origin) \(purge.soft ? 1 : 0) \(generation) \(kind) \(argument)".utf8)
    }

    /// The message `bytes` hold, or nil for anything else (another version, garbage).
    package init?(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let parts = text.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "v1", !parts[1].isEmpty, parts[2] == "0" || parts[2] == "1",
            let generation = UInt64(parts[3])
        else { return nil }
        let argument = String(parts[5])
        let selector: PurgeSelector
        switch parts[4] {
        case "all" where argument.isEmpty: selector = .all
        case "op" where !argument.isEmpty: selector = .operation(argument)
        case "hash": guard let digest = SHA256Digest(hex: argument) else { return nil }
            selector = .document(digest)
        case "tag" where !argument.isEmpty: selector = .tag(argument)
        default: return nil
        }
        var sender = parts[1]
        var logID: PurgeLogID?
        if let at = sender.lastIndex(of: "@") {
            guard let id = PurgeLogID(sender[sender.index(after: at)...]), at > sender.startIndex else { return nil }
            logID = id
            sender = sender[..<at]
        }
        self.init(
            sender: String(sender), purge: PurgeRequest(selector: selector, soft: parts[2] == "1"),
            generation: generation, logID: logID)
    }
}

// A purge as it travels between the proxies of a fleet on the Redis purge channel: one line of
// text, so that an operator can watch the channel with `redis-cli SUBSCRIBE bw:purge`.

/// A purge announced by one proxy: `v1 <sender> <soft 0|1> <generation> <kind> <argument>`.
package struct PurgeMessage: Sendable, Equatable {
    /// The announcing proxy's id (a proxy ignores its own messages).
    package var sender: String
    package var purge: PurgeRequest
    /// The purge-everything generation after this purge (for a hard `all`, the new one).
    package var generation: UInt64

    package init(sender: String, purge: PurgeRequest, generation: UInt64) {
        (self.sender, self.purge, self.generation) = (sender, purge, generation)
    }

    package var encoded: [UInt8] {
        let (kind, argument): (String, String) =
            switch purge.selector {
            case .all: ("all", "")
            case .operation(let name): ("op", name)
            case .document(let digest): ("hash", digest.hex)
            case .tag(let tag): ("tag", tag)
            }
        return Array("v1 \(sender) \(purge.soft ? 1 : 0) \(generation) \(kind) \(argument)".utf8)
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
        self.init(sender: String(parts[1]), purge: PurgeRequest(selector: selector, soft: parts[2] == "1"), generation: generation)
    }
}

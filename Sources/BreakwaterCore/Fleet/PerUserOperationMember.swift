// One member of the fleet's shared set of per-user operations (docs/FLEET.md, "What is shared" and
// "Trust boundary"): the operation's text form (`PerUserOperations.encode`), followed with
// `redis.signing_key` by its HMAC-SHA256 bound to the set's Redis key, as entries and documents are.
//
// What the set can do decides what a forged member could: a member only ever makes its operation
// bypass the cache (`CachePolicy.scope`, `BypassReason.perUserType`); nothing read from the set
// makes an answer shared, and a proxy never forgets a member because the set lost it, so neither
// a forged member nor a deleted one can make a per-user answer reach another user. A forged one
// costs caching (every request of that operation goes to the origin); signing closes that too.

/// Writes and reads the members of the shared per-user operations set.
package enum PerUserOperationMember {
    /// What a member read from the set holds.
    package enum Reading: Sendable, Equatable {
        /// An operation another proxy learned: adopt it.
        case operation(SHA256Digest, operationName: String?)
        /// The signature is missing or wrong (forged, altered, another key): ignored and counted.
        case rejected
        /// Correctly signed (or no key) but not an operation's text: ignored.
        case unreadable
    }

    /// The member for an operation, signed for `setKey` when there is a signer.
    package static func encode(
        _ digest: SHA256Digest, operationName: String?, signer: RedisValueSigner?, setKey: String
    ) -> [UInt8] {
        var member = Array(PerUserOperations.encode(digest, operationName: operationName).utf8)
        signer?.sign(&member, storedUnder: setKey)
        return member
    }

    /// The operation `member` names; with a signer, only when its code is right for `setKey`.
    package static func decode(_ member: [UInt8], signer: RedisValueSigner?, setKey: String) -> Reading {
        var text = member[...]
        if let signer {
            guard let count = signer.verifiedPayloadCount(of: member, storedUnder: setKey) else { return .rejected }
            text = member[..<count]
        }
        guard let (digest, name) = PerUserOperations.decode(String(decoding: text, as: UTF8.self)) else {
            return .unreadable
        }
        return .operation(digest, operationName: name)
    }
}

// The answer slots of one connection in request order, as bits: which answers are ready and how
// each is framed, without an allocation (a connection has at most a few dozen outstanding).

/// Up to 64 outstanding answers, oldest at bit 0.
struct HTTP1AnswerQueue {
    static let capacity = 64

    private(set) var count = 0
    private var ready: UInt64 = 0
    private var omitsBody: UInt64 = 0
    private var keepAlive: UInt64 = 0
    private var http10KeepAlive: UInt64 = 0

    var isEmpty: Bool { count == 0 }

    /// Appends a slot; false when the queue is full.
    mutating func append(_ framing: HTTP1AnswerFraming, isReady: Bool) -> Bool {
        guard count < Self.capacity else { return false }
        let bit: UInt64 = 1 << UInt64(count)
        if isReady { ready |= bit }
        if framing.omitsBody { omitsBody |= bit }
        if framing.keepAlive { keepAlive |= bit }
        if framing.http10KeepAlive { http10KeepAlive |= bit }
        count += 1
        return true
    }

    func isReady(_ index: Int) -> Bool { ready >> UInt64(index) & 1 == 1 }

    mutating func markReady(_ index: Int) { ready |= 1 << UInt64(index) }

    /// The first slot's framing, removed, when its answer is ready.
    mutating func popReady() -> HTTP1AnswerFraming? {
        guard count > 0, ready & 1 == 1 else { return nil }
        let framing = HTTP1AnswerFraming(
            omitsBody: omitsBody & 1 == 1, keepAlive: keepAlive & 1 == 1, http10KeepAlive: http10KeepAlive & 1 == 1)
        ready >>= 1
        omitsBody >>= 1
        keepAlive >>= 1
        http10KeepAlive >>= 1
        count -= 1
        return framing
    }

    /// The last slot's answer ends the connection (the server drains): `Connection: close`.
    mutating func closeLast() {
        guard count > 0 else { return }
        let bit: UInt64 = 1 << UInt64(count - 1)
        keepAlive &= ~bit
        http10KeepAlive &= ~bit
    }

    mutating func removeAll() { self = HTTP1AnswerQueue() }
}

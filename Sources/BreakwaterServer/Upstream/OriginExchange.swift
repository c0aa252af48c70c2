// One request to the origin from the moment it is sent to the pool until its answer or
// failure: the whole-exchange deadline (origin.timeout) runs from the start, waiting for a
// pooled connection included.

import BreakwaterCore

/// A request in flight to the origin; used on its pool's loop only.
final class OriginExchange: IOEventHandler {
    let request: UpstreamRequest
    private let completion: (OriginResult) -> Void
    private var timer: IOEvent?
    private unowned let pool: OriginPool
    /// The connection carrying it, once one was given.
    var connection: OriginConnection?
    /// Sent once on a reused connection that closed before answering: may go once more.
    var mayRetry = true
    private(set) var isFinished = false

    init(request: UpstreamRequest, pool: OriginPool, completion: @escaping (OriginResult) -> Void) {
        self.request = request
        self.pool = pool
        self.completion = completion
    }

    /// Starts the deadline of the whole exchange.
    func startDeadline(_ timeout: Duration) {
        timer = try? IOEvent(loop: pool.loop, fd: -1, kind: .timer, handler: self)
        timer?.add(timeout: timeout)
    }

    func ioEventFired(_ event: IOEvent, readable: Bool, writable: Bool, timedOut: Bool) {
        pool.exchangeTimedOut(self)
    }

    /// Delivers the result once.
    func finish(_ result: OriginResult) {
        guard !isFinished else { return }
        isFinished = true
        timer?.free()
        timer = nil
        connection = nil
        completion(result)
    }
}

// One request to the origin from the moment it is sent to the pool until its answer or
// failure: the whole-exchange deadline (origin.timeout) runs from the start, waiting for a
// pooled connection included.

import BreakwaterCore

/// A request in flight to the origin; used on its pool's loop only.
final class OriginExchange {
    let request: UpstreamRequest
    private var completion: OneShotCompletion<UpstreamResult>
    /// The deadline's timer, the pool's, while the exchange runs.
    private var timer: ExchangeTimer?
    private unowned let pool: OriginPool
    /// The connection carrying it, once one was given.
    var connection: OriginConnection?
    /// Sent once on a reused connection that closed before answering: may go once more.
    var mayRetry = true
    /// Whether the result was delivered.
    var isFinished: Bool { completion.isFinished }

    init(request: UpstreamRequest, pool: OriginPool, completion: @escaping (UpstreamResult) -> Void) {
        self.request = request
        self.pool = pool
        self.completion = OneShotCompletion(completion)
    }

    deinit { timer?.disarm() }

    /// Starts the deadline of the whole exchange on `timer`, which the pool gets back at the end.
    func startDeadline(_ timeout: Duration, on timer: ExchangeTimer) {
        self.timer = timer
        timer.arm(self, timeout: timeout)
    }

    /// Called by the timer: origin.timeout passed.
    func deadlinePassed() {
        pool.exchangeTimedOut(self)
    }

    /// Delivers the result once.
    func finish(_ result: UpstreamResult) {
        guard !completion.isFinished else { return }
        if let timer {
            timer.disarm()
            pool.recycle(timer)
            self.timer = nil
        }
        connection = nil
        completion.finish(result)
    }
}

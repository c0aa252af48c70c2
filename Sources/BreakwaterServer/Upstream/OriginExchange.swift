// One request to the origin from the moment it is sent to the pool until its answer or
// failure: the whole-exchange deadline (origin.timeout) runs from the start, waiting for a
// pooled connection included. The pool reuses an exchange once its answer was delivered, with
// its deadline timer (one libevent timer event made once per exchange object): making and
// freeing them per request cost allocations and an event_new/event_free on every miss.

import BreakwaterCore
import Foundation

/// A request in flight to the origin; used on its pool's loop only.
final class OriginExchange {
    private(set) var request: UpstreamRequest
    /// Who hears the result; nil once it was delivered.
    private var receiver: (any OriginReceiving)?
    /// The deadline's timer, armed while the exchange runs.
    private let timer: ExchangeTimer
    private unowned let pool: OriginPool
    /// The connection carrying it, once one was given.
    var connection: OriginConnection?
    /// Sent once on a reused connection that closed before answering: may go once more.
    var mayRetry = true
    /// Whether the result was delivered.
    var isFinished: Bool { receiver == nil }

    init(pool: OriginPool, loop: EventLoop) {
        self.request = Self.noRequest
        self.pool = pool
        self.timer = ExchangeTimer(loop: loop)
    }

    deinit { timer.disarm() }

    private static let noRequest = UpstreamRequest(method: "", target: "", headers: HTTPHeaders(), body: [])

    /// Starts the exchange of `request` for `receiver`, with the deadline of the whole exchange.
    func begin(_ request: consuming UpstreamRequest, for receiver: any OriginReceiving, timeout: timeval) {
        self.request = request
        self.receiver = receiver
        mayRetry = true
        timer.arm(self, timeout: timeout)
    }

    /// Called by the timer: origin.timeout passed.
    func deadlinePassed() {
        pool.exchangeTimedOut(self)
    }

    /// Delivers the result once.
    func finish(_ result: UpstreamResult) {
        guard let receiver else { return }
        self.receiver = nil
        timer.disarm()
        connection = nil
        request = Self.noRequest
        receiver.originAnswered(result)
    }
}

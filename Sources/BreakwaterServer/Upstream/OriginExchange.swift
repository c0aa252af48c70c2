// One request to the origin from the moment it is sent to the pool until its answer or
// failure: the whole-exchange deadline (origin.timeout) runs from the start, waiting for a
// pooled connection included (`ExchangeDeadlines`). The pool reuses an exchange once its answer
// was delivered: one allocation less per miss.

import BreakwaterCore

/// A request in flight to the origin; used on its pool's loop only.
final class OriginExchange {
    private(set) var request: UpstreamRequest
    /// Who hears the result; nil once it was delivered.
    private var receiver: (any OriginReceiving)?
    private unowned let pool: OriginPool
    /// The connection carrying it, once one was given.
    var connection: OriginConnection?
    /// Sent once on a reused connection that closed before answering: may go once more.
    var mayRetry = true
    /// When origin.timeout passes for it, and its neighbours in the pool's line of running
    /// exchanges (`ExchangeDeadlines`).
    var deadline = ContinuousClock.Instant.now
    var nextInLine: OriginExchange?
    unowned(unsafe) var previousInLine: OriginExchange?
    /// Whether the result was delivered.
    var isFinished: Bool { receiver == nil }

    init(pool: OriginPool) {
        self.request = Self.noRequest
        self.pool = pool
    }

    /// An empty request, made in place (empty literals and arrays): a stored one was read
    /// through a lazy global and its fields retained on every answer.
    @inline(__always)
    private static var noRequest: UpstreamRequest {
        UpstreamRequest(method: "", target: "", headers: HTTPHeaders(), body: [])
    }

    /// Starts a run: the exchange of `request` for `receiver`.
    func begin(_ request: consuming UpstreamRequest, for receiver: any OriginReceiving) {
        self.request = request
        self.receiver = receiver
        mayRetry = true
    }

    /// The exchange is on a connection that carried others before (`reused`) or on a new one.
    func startedOnConnection(reused: Bool) {
        receiver?.exchangeStarted(reusedConnection: reused, attempt: mayRetry ? 1 : 2)
    }

    /// Whether `receiver` hears this exchange's result.
    func isFor(_ receiver: any OriginReceiving) -> Bool { self.receiver === receiver }

    /// Ends the exchange without a result: nobody wants it any more.
    func cancel() {
        guard receiver != nil else { return }
        receiver = nil
        connection = nil
        request = Self.noRequest
        pool.exchangeFinished(self)
    }

    /// Delivers the result once.
    func finish(_ result: UpstreamResult) {
        guard let receiver else { return }
        self.receiver = nil
        connection = nil
        request = Self.noRequest
        pool.exchangeFinished(self)
        receiver.originAnswered(result)
    }
}

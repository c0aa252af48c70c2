// What the proxy needs of its loop's way to the origin: one request in, one result out. The pool
// of keep-alive connections is the one the proxy runs with; the server's in-process tests put a
// scripted origin in its place.

import BreakwaterCore

/// Hears the result of one origin exchange, on the loop that sent it.
package protocol OriginReceiving: AnyObject {
    func originAnswered(_ result: UpstreamResult)
    /// The exchange was put on a connection: a `reused` keep-alive one or a new one; `attempt` 2
    /// when it goes again after a reused connection closed before answering. Heard by a traced
    /// fetch (docs/TRACING.md); nothing by default.
    func exchangeStarted(reusedConnection reused: Bool, attempt: Int)
}

extension OriginReceiving {
    package func exchangeStarted(reusedConnection reused: Bool, attempt: Int) {}
}

/// Sends requests to the origin for one event loop. Called on that loop's thread.
package protocol OriginSending: AnyObject {
    /// Sends `request`; `completion` runs on the loop exactly once.
    func send(_ request: UpstreamRequest, completion: @escaping (UpstreamResult) -> Void)
    /// Sends `request`; `receiver` hears the result on the loop exactly once. The proxy's fetches
    /// go this way: the receiver is the fetch itself, so no closure is made per exchange.
    func send(_ request: consuming UpstreamRequest, to receiver: any OriginReceiving)
    /// `receiver` no longer wants its result (nobody waits on its fetch): the exchange stops,
    /// and `receiver` hears nothing.
    func cancel(_ receiver: any OriginReceiving)
}

extension OriginSending {
    /// A way to the origin that cannot stop an exchange lets it run; its result is dropped.
    package func cancel(_ receiver: any OriginReceiving) {}

    package func send(_ request: consuming UpstreamRequest, to receiver: any OriginReceiving) {
        send(request) { receiver.originAnswered($0) }
    }
}

extension OriginPool: OriginSending {}

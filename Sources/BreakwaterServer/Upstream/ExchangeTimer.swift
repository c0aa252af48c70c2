// The deadline timer of an origin exchange (origin.timeout): one libevent timer event made with
// the exchange object and armed each time the pool reuses it for a request.

import Foundation

/// A one-shot timer that tells the exchange it is armed for that its deadline passed.
final class ExchangeTimer: IOEventHandler {
    private var event: IOEvent?
    /// The exchange whose deadline runs. Not retained: the exchange holds this timer while it
    /// runs and disarms it when it finishes or goes away, so it is alive whenever the timer fires.
    private unowned(unsafe) var exchange: OriginExchange?

    init(loop: EventLoop) {
        event = try? IOEvent(loop: loop, fd: -1, kind: .timer, handler: self)
    }

    /// Starts `timeout` for `exchange` (a `timeval` the pool converted once).
    func arm(_ exchange: OriginExchange, timeout: timeval) {
        self.exchange = exchange
        event?.add(timeout: timeout)
    }

    /// Stops the timer; it may be armed again for another exchange.
    func disarm() {
        event?.remove()
        exchange = nil
    }

    func ioEventFired(_ event: IOEvent, readable: Bool, writable: Bool, timedOut: Bool) {
        guard let exchange else { return }
        self.exchange = nil
        exchange.deadlinePassed()
    }
}

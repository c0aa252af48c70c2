// The deadline timer of an origin exchange (origin.timeout), kept by the pool and reused: one
// libevent timer event made once and armed per exchange, where making and freeing one per
// exchange cost two allocations and an event_new/event_free on every miss.

/// A one-shot timer that tells the exchange it is armed for that its deadline passed.
final class ExchangeTimer: IOEventHandler {
    private var event: IOEvent?
    /// The exchange whose deadline runs. Not retained: the exchange holds this timer while it
    /// runs and disarms it when it finishes or goes away, so it is alive whenever the timer fires.
    private unowned(unsafe) var exchange: OriginExchange?

    init(loop: EventLoop) {
        event = try? IOEvent(loop: loop, fd: -1, kind: .timer, handler: self)
    }

    /// Starts `timeout` for `exchange`.
    func arm(_ exchange: OriginExchange, timeout: Duration) {
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

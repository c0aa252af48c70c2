// The deadlines (origin.timeout) of one pool's exchanges, on one libevent timer. Every exchange
// of a pool gets the same timeout, so deadlines come due in the order the exchanges began: the
// first one still running is always the next, and a timer for it serves them all. The running
// exchanges are linked through themselves in that order; an exchange costs a clock read and two
// links rather than a timer of its own added to and deleted from libevent's heap on every miss.

import BreakwaterCore

/// The running exchanges of a pool in the order they began.
final class ExchangeDeadlines: IOEventHandler {
    private let timeout: Duration
    private var event: IOEvent?
    /// The running exchange that began first, and the one that began last.
    private var first: OriginExchange?
    private unowned(unsafe) var last: OriginExchange?
    /// Called for each exchange whose deadline passed (set by the pool once it exists).
    var expired: (OriginExchange) -> Void = { _ in }

    init(loop: EventLoop, timeout: Duration) {
        self.timeout = timeout
        event = try? IOEvent(loop: loop, fd: -1, kind: .timer, handler: self)
    }

    /// Unlinked one by one: a long line released link by link would recurse once per exchange.
    deinit {
        var next = first
        first = nil
        while let exchange = next {
            next = exchange.nextInLine
            exchange.nextInLine = nil
        }
    }

    /// `exchange` began now: its deadline is origin.timeout from now, after every other's.
    func began(_ exchange: OriginExchange) {
        exchange.deadline = .now + timeout
        exchange.previousInLine = last
        exchange.nextInLine = nil
        if let last { last.nextInLine = exchange } else { first = exchange }
        last = exchange
        // A timer still pending fires at an earlier deadline and moves on to this one then.
        if event?.isPending == false { event?.add(timeout: timeout) }
    }

    /// `exchange` finished (answered, failed or timed out): out of the line.
    func finished(_ exchange: OriginExchange) {
        let previous = exchange.previousInLine
        let next = exchange.nextInLine
        if let previous { previous.nextInLine = next } else { first = next }
        if let next { next.previousInLine = previous } else { last = previous }
        exchange.nextInLine = nil
        exchange.previousInLine = nil
    }

    func ioEventFired(_ event: IOEvent, readable: Bool, writable: Bool, timedOut: Bool) {
        let now = ContinuousClock.now
        while let due = first, due.deadline <= now {
            // Finishes the exchange, which leaves the line (`finished`); its receiver may begin
            // others, at the end of the line.
            expired(due)
            if first === due { finished(due) }
        }
        if let first { event.add(timeout: first.deadline - now) }
    }
}

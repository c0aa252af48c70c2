// A libevent event on a file descriptor or a timer, owned by a Swift object: the only place
// the engine creates, arms and frees `struct event`s.

import CLibevent

/// Receives the events of an `IOEvent`; called on the owning loop's thread.
protocol IOEventHandler: AnyObject {
    func ioEventFired(_ event: IOEvent, readable: Bool, writable: Bool, timedOut: Bool)
}

/// One libevent event. Persistent read and write events stay registered until `remove()`,
/// so a connection is not re-armed per request.
final class IOEvent {
    enum Kind {
        case read
        case write
        /// The peer shut its side down or reset the connection (epoll's `EPOLLRDHUP`), whatever
        /// bytes are still unread: watched while reading is paused.
        case closed
        case timer
    }

    private var event: OpaquePointer?
    /// The loop whose base the event belongs to, held so that the base outlives the event: an
    /// owner released after its loop stopped (an origin pool's deadline timer, freed on the
    /// main thread at shutdown) still frees its event into a live base, not a freed one.
    private let loop: EventLoop
    let kind: Kind
    /// The handler owns this event: unowned, so the two do not keep each other alive.
    private unowned(unsafe) let handler: any IOEventHandler
    private(set) var isPending = false

    init(loop: EventLoop, fd: Int32, kind: Kind, handler: any IOEventHandler) throws(SystemError) {
        self.loop = loop
        self.kind = kind
        self.handler = handler
        let flags: Int16 = switch kind {
        case .read: CLibevent_read_persist()
        case .write: CLibevent_write_persist()
        case .closed: CLibevent_closed_persist()
        case .timer: 0
        }
        // Made unassigned first: the context must point at self, which exists only now.
        guard let made = event_new(loop.base, kind == .timer ? -1 : fd, flags, ioEventCallback, nil) else {
            throw SystemError("event_new", reason: "libevent could not allocate an event")
        }
        event = made
        event_assign(made, loop.base, kind == .timer ? -1 : fd, flags, ioEventCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { free() }

    /// Registers the event; a timer fires once after `timeout`.
    func add(timeout: Duration? = nil) {
        guard let timeout else {
            guard let event else { return }
            event_add(event, nil)
            isPending = true
            return
        }
        add(timeout: timeval(duration: timeout))
    }

    /// `add(timeout:)` with the timeout already a `timeval` (no `Duration` arithmetic).
    func add(timeout: timeval) {
        guard let event else { return }
        var tv = timeout
        event_add(event, &tv)
        isPending = true
    }

    /// Runs the handler as if the descriptor were readable, after the events due in this turn
    /// (bytes OpenSSL holds for a TLS connection that the socket will not announce).
    func activateRead() {
        guard let event else { return }
        event_active(event, Int32(EV_READ), 0)
    }

    func remove() {
        guard let event, isPending else { return }
        event_del(event)
        isPending = false
    }

    func free() {
        guard let event else { return }
        event_free(event)
        self.event = nil
        isPending = false
    }

    fileprivate func fire(_ what: Int16) {
        if kind == .timer { isPending = false }
        // A strong reference for the call: the handler may drop its last one inside it (a
        // connection that closes), and must outlive the call all the same.
        let handler: any IOEventHandler = self.handler
        handler.ioEventFired(
            self, readable: what & Int16(EV_READ) != 0, writable: what & Int16(EV_WRITE) != 0,
            timedOut: what & Int16(EV_TIMEOUT) != 0)
    }
}

private func ioEventCallback(_: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let event = Unmanaged<IOEvent>.fromOpaque(context).takeUnretainedValue()
    withExtendedLifetime(event) { event.fire(what) }
}

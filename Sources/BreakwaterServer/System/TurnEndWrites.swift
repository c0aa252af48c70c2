// Writes held to the end of an event-loop turn (the callbacks of one epoll wake-up). A socket
// write to a peer asleep in epoll wakes it: on this machine's virtual CPUs that wake-up (an
// inter-processor interrupt) was about a tenth of the proxy's CPU time on misses under load,
// once per origin request and once per answer. Written together after the turn's callbacks,
// the origin requests of one wake-up wake their origin once, and the answers the origin gave in
// it wake their clients once, each peer finding them all in one epoll_wait. A turn with a
// single event writes right after it. (An answer given while its client's request is read, a
// hit, is written at the end of that read: its client is the peer that woke the loop.)

import CLibevent

/// A connection with bytes queued that writes them when the turn ends.
protocol TurnEndWriting: AnyObject {
    /// Queued for the end of the current turn (kept by `TurnEndWrites`: a connection is queued once).
    var waitsForTurnEnd: Bool { get set }
    /// Writes what is queued (the connection checks that it is still open).
    func writeAtTurnEnd()
}

/// The connections waiting to write at the end of the current turn of one loop.
final class TurnEndWrites {
    private var waiting: [any TurnEndWriting] = []
    /// The other array, swapped in while the waiting ones write (a write may queue more).
    private var spare: [any TurnEndWriting] = []
    private var event: OpaquePointer?

    /// Made on `base`; runs on its loop only.
    init(base: OpaquePointer) {
        // Never added, only made active; persistent, so libevent does not delete it after each run.
        let flags = Int16(EV_PERSIST)
        event = event_new(base, -1, flags, turnEndWritesCallback, nil)
        guard let event else { preconditionFailure("event_new for the turn's writes failed: out of memory") }
        event_assign(event, base, -1, flags, turnEndWritesCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { free() }

    /// Frees the libevent event; before its base is freed.
    func free() {
        guard let event else { return }
        event_free(event)
        self.event = nil
    }

    /// `connection` writes once the callbacks already due in this turn have run: libevent runs
    /// an event made active during a turn after the ones active before it, in the same turn.
    /// A connection already waiting is not queued again.
    func add(_ connection: any TurnEndWriting) {
        guard !connection.waitsForTurnEnd else { return }
        connection.waitsForTurnEnd = true
        if waiting.isEmpty, let event { event_active(event, Int32(EV_WRITE), 0) }
        waiting.append(connection)
    }

    fileprivate func run() {
        swap(&waiting, &spare)
        for connection in spare {
            connection.waitsForTurnEnd = false
            connection.writeAtTurnEnd()
        }
        spare.removeAll(keepingCapacity: true)
    }
}

private func turnEndWritesCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<TurnEndWrites>.fromOpaque(context).takeUnretainedValue().run()
}

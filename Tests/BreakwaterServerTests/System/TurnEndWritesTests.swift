// The writes held to the end of a loop's turn, on a real event loop: they run after every
// callback already due in that turn, in the order queued, and a write that queues another gets
// it run too, in the same turn.

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BreakwaterServer

/// What happened, in order, from any thread.
private final class TurnLog: Sendable {
    private let entries = Mutex<[String]>([])

    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A writer that records when it wrote, and may queue another writer as it writes.
private final class RecordingWriter: TurnEndWriting, @unchecked Sendable {
    let name: String
    let log: TurnLog
    var then: (() -> Void)?
    var waitsForTurnEnd = false

    init(_ name: String, log: TurnLog) {
        self.name = name
        self.log = log
    }

    func writeAtTurnEnd() {
        log.add("\(name) wrote")
        then?()
    }
}

@Suite(.serialized) final class TurnEndWritesTests {
    let loop: EventLoop
    private let stopped = DispatchSemaphore(value: 0)

    /// A loop of its own that keeps running while it has nothing to wait for (a group's loop
    /// without listeners could end before the test hands it work).
    init() throws {
        loop = try EventLoop(index: 0)
        let thread = Thread { [loop, stopped] in
            loop.run(whileIdle: true)
            stopped.signal()
        }
        thread.start()
    }

    deinit {
        loop.stop()
        stopped.wait()
    }

    /// Runs `body` in one callback of the loop; returns the log once `last` wrote (within ten
    /// seconds: the loop's thread may wait for a busy machine's CPU).
    private func inOneTurn(
        _ log: TurnLog, until last: RecordingWriter, _ body: @escaping @Sendable (EventLoop) -> Void
    ) -> [String] {
        let loop = self.loop
        let wrote = DispatchSemaphore(value: 0)
        last.then = { [then = last.then] in
            then?()
            wrote.signal()
        }
        loop.enqueue { body(loop) }
        #expect(wrote.wait(timeout: .now() + 10) == .success)
        return log.all
    }

    @Test func theWritesRunAfterTheCallbackThatQueuedThemInTheOrderQueued() {
        let log = TurnLog()
        let first = RecordingWriter("first", log: log)
        let second = RecordingWriter("second", log: log)
        let entries = inOneTurn(log, until: second) { loop in
            loop.turnEndWrites.add(first)
            log.add("callback queued first")
            loop.turnEndWrites.add(second)
            log.add("callback returns")
        }
        #expect(entries == ["callback queued first", "callback returns", "first wrote", "second wrote"])
    }

    @Test func aWriterQueuedTwiceInATurnWritesOnce() {
        let log = TurnLog()
        let first = RecordingWriter("first", log: log)
        let last = RecordingWriter("last", log: log)
        let entries = inOneTurn(log, until: last) { loop in
            loop.turnEndWrites.add(first)
            loop.turnEndWrites.add(first)
            loop.turnEndWrites.add(last)
        }
        #expect(entries == ["first wrote", "last wrote"])
    }

    @Test func aWriteThatQueuesAnotherGetsItRun() {
        let log = TurnLog()
        let later = RecordingWriter("later", log: log)
        let first = RecordingWriter("first", log: log)
        let entries = inOneTurn(log, until: later) { loop in
            first.then = { loop.turnEndWrites.add(later) }
            loop.turnEndWrites.add(first)
        }
        #expect(entries == ["first wrote", "later wrote"])
    }
}

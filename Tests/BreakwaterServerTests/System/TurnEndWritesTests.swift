// The writes held to the end of a loop's turn, on a real event loop: they run after every
// callback already due in that turn, in the order queued, and a write that queues another gets
// it run too, in the same turn.

import Dispatch
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
    let group: EventLoopGroup

    init() throws {
        group = try EventLoopGroup(count: 1)
        group.start()
    }

    deinit { group.stopAndWait() }

    /// Runs `body` in one callback of the loop; returns the log once the loop ran a later turn.
    private func inOneTurn(_ log: TurnLog, _ body: @escaping @Sendable (EventLoop) -> Void) -> [String] {
        let loop = group.loops[0]
        let done = DispatchSemaphore(value: 0)
        loop.enqueue { body(loop) }
        // Queued after the first callback returned: runs in a later turn, after its writes.
        loop.enqueue { loop.enqueue { done.signal() } }
        #expect(done.wait(timeout: .now() + 5) == .success)
        return log.all
    }

    @Test func theWritesRunAfterTheCallbackThatQueuedThemInTheOrderQueued() {
        let log = TurnLog()
        let first = RecordingWriter("first", log: log)
        let second = RecordingWriter("second", log: log)
        let entries = inOneTurn(log) { loop in
            loop.turnEndWrites.add(first)
            log.add("callback queued first")
            loop.turnEndWrites.add(second)
            log.add("callback returns")
        }
        #expect(entries == ["callback queued first", "callback returns", "first wrote", "second wrote"])
    }

    @Test func aWriteThatQueuesAnotherGetsItRun() {
        let log = TurnLog()
        let later = RecordingWriter("later", log: log)
        let first = RecordingWriter("first", log: log)
        let entries = inOneTurn(log) { loop in
            first.then = { loop.turnEndWrites.add(later) }
            loop.turnEndWrites.add(first)
        }
        #expect(entries == ["first wrote", "later wrote"])
    }
}

// The shared in-flight table: one upstream fetch per key across threads, keys independent.

import BreakwaterCore
import Foundation
import Synchronization
import Testing

struct InFlightTableTests {
    /// Runs `body(thread)` on `threads` OS threads released together, and waits for all of them.
    func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let ready = Atomic<Int>(0)
        let finished = DispatchSemaphore(value: 0)
        for thread in 0..<threads {
            Thread {
                ready.add(1, ordering: .sequentiallyConsistent)
                while ready.load(ordering: .sequentiallyConsistent) < threads {}
                body(thread)
                finished.signal()
            }.start()
        }
        for _ in 0..<threads { finished.wait() }
    }

    @Test func fiftyConcurrentMissesSendOneFetch() {
        let table = InFlightTable<String, Int>()
        let actions = Mutex<[InFlightTable<String, Int>.JoinAction]>([])
        onThreads(4) { thread in
            for waiter in stride(from: thread, to: 50, by: 4) {
                let action = table.join("GetLaunches", waiter: waiter)
                actions.withLock { $0.append(action) }
            }
        }
        let all = actions.withLock { $0 }
        #expect(all.count == 50)
        #expect(all.filter { $0 == .startFetch }.count == 1)
        #expect(table.coalesced == 49)
        #expect(table.count == 1)

        let waiters = table.complete("GetLaunches")
        #expect(waiters.sorted() == Array(0..<50))
        #expect(table.count == 0)
        #expect(table.complete("GetLaunches") == [])
        #expect(table.join("GetLaunches", waiter: 50) == .startFetch)
    }

    @Test func keysDoNotInterfere() {
        let table = InFlightTable<String, Int>(shardCount: 2)
        let keys = (0..<20).map { "key\($0)" }
        for (index, key) in keys.enumerated() {
            #expect(table.join(key, waiter: index) == .startFetch)
            #expect(table.join(key, waiter: 100 + index) == .wait)
        }
        #expect(table.count == 20)
        #expect(table.coalesced == 20)
        #expect(table.complete("key3") == [3, 103])
        #expect(table.count == 19)
        #expect(table.join("key4", waiter: 204) == .wait)
        #expect(table.complete("key4") == [4, 104, 204])
        #expect(table.join("key3", waiter: 303) == .startFetch)
    }

    @Test func oneBackgroundRefreshPerKeyThatMissesJoin() {
        let table = InFlightTable<String, Int>()
        #expect(table.beginRefresh("Me") == .startRefresh)
        #expect(table.beginRefresh("Me") == .alreadyFetching)
        #expect(table.beginRefresh("Other") == .startRefresh)
        #expect(table.join("Me", waiter: 1) == .wait)
        #expect(table.coalesced == 1)
        #expect(table.complete("Me") == [1])
        #expect(table.complete("Other") == [])
        #expect(table.count == 0)
    }

    @Test func concurrentKeysEachGetOneLeader() {
        let table = InFlightTable<Int, Int>()
        let leaders = Mutex<[Int: Int]>([:])
        onThreads(4) { thread in
            for key in 0..<100 where table.join(key, waiter: thread) == .startFetch {
                leaders.withLock { $0[key, default: 0] += 1 }
            }
        }
        #expect(leaders.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<100).map { ($0, 1) }))
        #expect(table.coalesced == 300)
        for key in 0..<100 { #expect(table.complete(key).sorted() == [0, 1, 2, 3]) }
        #expect(table.count == 0)
    }
}

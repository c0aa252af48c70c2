// The shared in-flight table: one upstream fetch per key across threads, keys independent, and
// keys whose answers may not be shared remembered for a while, then forgotten.

import BreakwaterCore
import Foundation
import Synchronization
import Testing

struct InFlightTableTests {
    let now = ContinuousClock.now

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
        let now = self.now
        onThreads(4) { thread in
            for waiter in stride(from: thread, to: 50, by: 4) {
                let action = table.join("GetLaunches", waiter: waiter, now: now)
                actions.withLock { $0.append(action) }
            }
        }
        let all = actions.withLock { $0 }
        #expect(all.count == 50)
        #expect(all.filter { $0 == .startFetch }.count == 1)
        #expect(table.coalesced == 49)
        #expect(table.count == 1)

        let completion = table.complete("GetLaunches", sharing: .shared, now: now)
        #expect(completion.answered.sorted() == Array(0..<50) && completion.refetching.isEmpty)
        #expect(table.count == 0)
        #expect(table.complete("GetLaunches", sharing: .shared, now: now).answered == [])
        #expect(table.join("GetLaunches", waiter: 50, now: now) == .startFetch)
    }

    @Test func keysDoNotInterfere() {
        let table = InFlightTable<String, Int>(shardCount: 2)
        let keys = (0..<20).map { "key\($0)" }
        for (index, key) in keys.enumerated() {
            #expect(table.join(key, waiter: index, now: now) == .startFetch)
            #expect(table.join(key, waiter: 100 + index, now: now) == .wait)
        }
        #expect(table.count == 20)
        #expect(table.coalesced == 20)
        #expect(table.complete("key3", sharing: .shared, now: now).answered == [3, 103])
        #expect(table.count == 19)
        #expect(table.join("key4", waiter: 204, now: now) == .wait)
        let private4 = table.complete("key4", sharing: .fetcherOnly(remember: true), now: now)
        #expect(private4.answered == [4] && private4.refetching == [104, 204])
        #expect(table.join("key4", waiter: 404, now: now) == .fetchAlone)
        #expect(table.isPassing("key4", now: now) && !table.isPassing("key5", now: now))
        #expect(table.join("key3", waiter: 303, now: now) == .startFetch)
    }

    /// What the server walks: the leader (held apart from the others) first, then the others in
    /// the order they joined, each group answered or sent to fetch alone as the sharing says.
    @Test func completionVisitsWaitersInJoinOrder() {
        let table = InFlightTable<String, Int>()
        for waiter in 1...3 { _ = table.join("Me", waiter: waiter, now: now) }
        var answered: [Int] = []
        var refetching: [Int] = []
        let completion = table.complete("Me", sharing: .fetcherOnly(remember: false), now: now)
        completion.forEachAnswered { answered.append($0) }
        completion.forEachRefetching { refetching.append($0) }
        #expect(answered == [1] && refetching == [2, 3])

        #expect(table.beginRefresh("Me") == .startRefresh)
        for waiter in 4...5 { _ = table.join("Me", waiter: waiter, now: now) }
        answered = []
        refetching = []
        let refresh = table.complete("Me", sharing: .fetcherOnly(remember: false), now: now)
        refresh.forEachAnswered { answered.append($0) }
        refresh.forEachRefetching { refetching.append($0) }
        #expect(answered.isEmpty && refetching == [4, 5])

        for waiter in 6...8 { _ = table.join("Me", waiter: waiter, now: now) }
        answered = []
        table.complete("Me", sharing: .shared, now: now).forEachAnswered { answered.append($0) }
        #expect(answered == [6, 7, 8])
    }

    @Test func oneBackgroundRefreshPerKeyThatMissesJoin() {
        let table = InFlightTable<String, Int>()
        #expect(table.beginRefresh("Me") == .startRefresh)
        #expect(table.beginRefresh("Me") == .alreadyFetching)
        #expect(table.beginRefresh("Other") == .startRefresh)
        #expect(table.join("Me", waiter: 1, now: now) == .wait)
        #expect(table.coalesced == 1)
        #expect(table.complete("Me", sharing: .shared, now: now).answered == [1])
        #expect(table.complete("Other", sharing: .shared, now: now).answered == [])
        #expect(table.count == 0)
    }

    @Test func concurrentKeysEachGetOneLeader() {
        let table = InFlightTable<Int, Int>()
        let leaders = Mutex<[Int: Int]>([:])
        let now = self.now
        onThreads(4) { thread in
            for key in 0..<100 where table.join(key, waiter: thread, now: now) == .startFetch {
                leaders.withLock { $0[key, default: 0] += 1 }
            }
        }
        #expect(leaders.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<100).map { ($0, 1) }))
        #expect(table.coalesced == 300)
        for key in 0..<100 {
            #expect(table.complete(key, sharing: .shared, now: now).answered.sorted() == [0, 1, 2, 3])
        }
        #expect(table.count == 0)
    }

    /// Passing keys stay only for their time: a flood of distinct private keys is swept as the
    /// table grows, never kept for good.
    @Test func passingKeysAreSweptOnceSpent() {
        let table = InFlightTable<Int, Int>(shardCount: 1)
        for key in 0..<1_000 {
            #expect(table.join(key, waiter: key, now: now) == .startFetch)
            _ = table.complete(key, sharing: .fetcherOnly(remember: true), now: now)
        }
        #expect((0..<1_000).allSatisfy { table.isPassing($0, now: now) })
        #expect(table.heldCount == 1_000)
        let later = now + InFlightFetch<Int>.passDuration
        for key in 1_000..<1_030 {
            #expect(table.join(key, waiter: key, now: later) == .startFetch)
        }
        #expect(!table.isPassing(0, now: later))
        #expect(table.count == 30)
        #expect(table.heldCount == 30)
        // A spent pass is gone as a key joins again: it leads a fetch.
        #expect(table.join(5, waiter: 5, now: later) == .startFetch)
    }
}

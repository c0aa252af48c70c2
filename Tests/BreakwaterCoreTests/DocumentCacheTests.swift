// The parsed-document cache: one parse per distinct document, from any number of threads, within
// its bound.

import BreakwaterCore
import Foundation
import Synchronization
import Testing

struct DocumentCacheTests {
    static func digest(_ n: Int) -> SHA256Digest { SHA256Digest(bytes: [UInt8](repeating: UInt8(n), count: 32)) }

    /// Threads report through this, not through `#expect`, which belongs on the test's own task.
    final class Counter: Sendable { let value = Atomic<Int>(0) }

    /// Runs `body(thread)` on `count` threads at once and returns when all are done.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchSemaphore(value: 0)
        for index in 0..<count {
            Thread {
                body(index)
                done.signal()
            }.start()
        }
        for _ in 0..<count { done.wait() }
    }

    @Test func parsesOnceFor100LookupsFromFourThreads() {
        let cache = DocumentCache(capacity: 8)
        let document = "query Launches { launches { id site } }"
        let answered = Counter()
        Self.onThreads(4) { _ in
            for _ in 0..<25 where (try? cache.analysis(for: Self.digest(1), document: document)) != nil {
                answered.value.add(1, ordering: .relaxed)
            }
        }
        #expect(answered.value.load(ordering: .relaxed) == 100)
        #expect(cache.parses == 1)
        #expect(cache.count == 1)
    }

    @Test func keepsSyntaxErrorsSoGarbageIsParsedOnce() {
        let cache = DocumentCache(capacity: 8)
        let expected = DocumentError(
            kind: .syntax, message: "Syntax Error: Expected Name, found <EOF>.",
            locations: [SourceLocation(line: 1, column: 12)])
        for _ in 0..<3 {
            #expect(throws: expected) { try cache.analysis(for: Self.digest(2), document: "{ launches(") }
        }
        #expect(cache.parses == 1)
    }

    @Test(arguments: [(1, 5), (3, 10), (16, 10), (16, 100)])
    func holdsAtMostCapacityDocuments(capacity: Int, documents: Int) throws {
        let cache = DocumentCache(capacity: capacity)
        for n in 0..<documents {
            _ = try cache.analysis(for: Self.digest(n), document: "query Q\(n) { f }")
        }
        #expect(cache.count == min(capacity, documents))
        #expect(cache.parses == documents)
    }

    @Test func evictsTheOldestWhenFull() throws {
        let cache = DocumentCache(capacity: 3)
        for n in 0..<4 {  // the fourth evicts the first
            _ = try cache.analysis(for: Self.digest(n), document: "query Q\(n) { f }")
        }
        _ = try cache.analysis(for: Self.digest(3), document: "query Q3 { f }")
        _ = try cache.analysis(for: Self.digest(1), document: "query Q1 { f }")
        #expect(cache.parses == 4)
        let again = try cache.analysis(for: Self.digest(0), document: "query Q0 { f }")
        #expect(again.operations == [OperationAnalysis.Operation(name: "Q0", kind: .query)])
        #expect(cache.parses == 5)
        #expect(cache.count == 3)
    }

    @Test func boundHoldsUnderConcurrentMisses() {
        let cache = DocumentCache(capacity: 10)
        Self.onThreads(4) { thread in
            for n in 0..<50 {
                let id = thread * 50 + n
                _ = try? cache.analysis(for: Self.digest(id), document: "query Q\(id) { f }")
            }
        }
        #expect(cache.count == 10)
        #expect(cache.parses == 200)
    }
}

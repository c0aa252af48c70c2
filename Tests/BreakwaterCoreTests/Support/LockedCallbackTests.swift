// LockedCallback: a callback read from a lock thousands of times runs at the same stack depth as
// the first time (a closure kept in a Mutex itself gained a thunk per read, until a proxy's stack
// overflowed).

import BreakwaterCore
import Foundation
import Synchronization
import Testing

@Suite struct LockedCallbackTests {
    @Test func aCallbackReadManyTimesRunsAtTheSameDepth() {
        let callback = LockedCallback<@Sendable (Int) -> Void>()
        #expect(callback.current == nil)
        let depths = Mutex<[Int]>([])
        callback.set { _ in
            let depth = Thread.callStackReturnAddresses.count
            depths.withLock { $0.append(depth) }
        }
        for number in 0..<20_000 { callback.current?(number) }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 20_000)
        #expect(Set(seen).count == 1, "depth went from \(seen.first ?? 0) to \(seen.last ?? 0)")
    }

    @Test func theLastCallbackSetIsTheOneCalled() {
        let callback = LockedCallback<@Sendable () -> Int>()
        callback.set { 1 }
        callback.set { 2 }
        #expect(callback.current?() == 2)
    }
}

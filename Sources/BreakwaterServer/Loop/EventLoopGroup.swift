// N event loops, each on its own thread.

import Foundation

/// A fixed set of event loops, each run by a thread of its own.
package final class EventLoopGroup: @unchecked Sendable {
    package let loops: [EventLoop]
    private var threads: [Thread] = []
    private let finished = DispatchGroup()

    /// `count` loops; 0 means one per core.
    package init(count: Int) throws(SystemError) {
        let n = count > 0 ? count : max(1, ProcessInfo.processInfo.activeProcessorCount)
        var loops: [EventLoop] = []
        for index in 0..<n { loops.append(try EventLoop(index: index)) }
        self.loops = loops
    }

    /// Starts every loop's thread.
    package func start() {
        for loop in loops {
            finished.enter()
            let thread = Thread { [finished] in
                loop.run()
                finished.leave()
            }
            thread.name = "breakwater-loop-\(loop.index)"
            thread.stackSize = 1 << 20
            threads.append(thread)
            thread.start()
        }
    }

    /// Stops every loop and waits for their threads to end.
    package func stopAndWait() {
        for loop in loops { loop.stop() }
        finished.wait()
    }

    /// Waits for every loop's thread to end (after someone stopped them).
    package func wait() { finished.wait() }
}

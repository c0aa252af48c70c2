// An event loop of its own for work that never serves a client (the CDN purger, the span
// exporter): made first, so that its owner sets up its timers and connections on it, then run by
// a thread of its own, idle or not, until stopped.

import Foundation

/// One event loop on a thread of its own.
final class BackgroundLoop: @unchecked Sendable {
    let loop: EventLoop
    private let finished = DispatchGroup()

    /// `purpose` names the owner in the error when the loop cannot be made.
    init(purpose: String) throws(ServerError) {
        do {
            loop = try EventLoop(index: 0)
        } catch {
            throw .setup("\(purpose): cannot make its event loop: \(error)")
        }
    }

    /// Runs the loop on a thread called `name`.
    func start(name: String) {
        finished.enter()
        let thread = Thread { [loop, finished] in
            loop.run(whileIdle: true)
            finished.leave()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Stops the loop (work under way is dropped) and waits for its thread.
    func stop() {
        loop.stop()
        finished.wait()
    }
}

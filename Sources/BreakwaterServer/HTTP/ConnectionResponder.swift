// The answer side of one request on an HTTPConnection: exactly once, from any thread, handed
// to the connection's loop, written in request order.

import BreakwaterCore
import Synchronization

/// Answers request `sequence` of a connection. The first `respond` or `closeConnection` wins.
final class ConnectionResponder: HTTPResponder, @unchecked Sendable {
    private let connection: HTTPConnection
    private let sequence: Int
    private let answered = Atomic<Bool>(false)

    init(connection: HTTPConnection, sequence: Int) {
        self.connection = connection
        self.sequence = sequence
    }

    deinit {
        // A handler that dropped its responder without answering would hang the client and
        // every pipelined request behind it: answer for it.
        guard !answered.load(ordering: .acquiring) else { return }
        let connection = LoopBound(self.connection), sequence = self.sequence
        connection.value.loop.execute {
            connection.value.complete(sequence, with: HTTPResponse(status: 500, headers: ["Content-Type": "application/json"],
                body: GraphQLErrorResponse(status: 500, message: "The request was not answered.", code: "INTERNAL_SERVER_ERROR").body))
        }
    }

    func respond(_ response: HTTPResponse) {
        guard claim() else { return }
        // Inline on the loop's own thread (the hit path), without allocating a closure.
        if connection.loop.inEventLoop {
            connection.complete(sequence, with: response)
        } else {
            let connection = LoopBound(self.connection), sequence = self.sequence
            connection.value.loop.enqueue { connection.value.complete(sequence, with: response) }
        }
    }

    func closeConnection() {
        guard claim() else { return }
        let connection = LoopBound(self.connection), sequence = self.sequence
        // Never inline: the connection may be inside its own read handler.
        connection.value.loop.enqueue { connection.value.abort(sequence) }
    }

    func whenClientLeaves(_ body: @escaping @Sendable () -> Void) {
        if connection.loop.inEventLoop {
            connection.whenClientLeaves(sequence, body)
        } else {
            let connection = LoopBound(self.connection), sequence = self.sequence
            connection.value.loop.enqueue { connection.value.whenClientLeaves(sequence, body) }
        }
    }

    private func claim() -> Bool {
        answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}

// The output queue sends what it was given in order, whatever the socket takes at a time: heads
// written in place, small bodies copied, large ones referenced, more appended while earlier bytes
// are half sent (the block then slides its unsent bytes forward or grows), and a burst's memory
// given back once it is all sent.

@testable import BreakwaterServer
import BreakwaterCore
import BreakwaterFixtures
import Foundation
import Testing

struct OutputQueueTests {
    /// A socket pair whose sending side is non-blocking and takes little at a time.
    final class Pair {
        let sender: Int32
        let receiver: Int32
        private(set) var received: [UInt8] = []

        init() {
            var fds: [Int32] = [0, 0]
            precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            sender = fds[0]
            receiver = fds[1]
            var size: Int32 = 4096
            setsockopt(sender, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(receiver, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(sender, F_SETFL, fcntl(sender, F_GETFL) | O_NONBLOCK)
            _ = fcntl(receiver, F_SETFL, fcntl(receiver, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(sender)
            close(receiver)
        }

        /// Reads what has arrived.
        func drain() {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(receiver, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                received += chunk[0..<count]
            }
        }
    }

    /// Bytes of `count` that tell their position apart.
    static func bytes(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }
    }

    /// Writes and reads until the queue is empty, or a write moves nothing with room to spare.
    static func send(_ queue: inout OutputQueue, through pair: Pair) throws {
        while !queue.isEmpty {
            let result = try queue.write(to: .plain(pair.sender))
            let before = pair.received.count
            pair.drain()
            // Nothing sent and nothing left to read: the queue is stuck.
            if result == .done(0) || (result == .wouldBlock && pair.received.count == before) {
                Issue.record("the queue holds \(queue.unsentBytes) bytes it does not send")
                return
            }
        }
        pair.drain()
    }

    @Test(arguments: [1, 2, 3, 4])
    func everyPieceArrivesInOrderThroughPartialWrites(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let pair = Pair()
        var queue = OutputQueue()
        var expected: [UInt8] = []
        for step in 0..<300 {
            switch random.next() % 5 {
            case 0:
                let head = Self.bytes(Int(random.next() % 400) + 1, seed: step)
                queue.append(bound: head.count + 7) { output in head.withUnsafeBufferPointer { output.put($0) } }
                expected += head
            case 1:
                let body = Self.bytes(Int(random.next() % 3000), seed: step)
                queue.append(body: body)
                expected += body
            case 2:
                let body = Self.bytes(OutputQueue.referenceThreshold + Int(random.next() % 20_000), seed: step)
                queue.append(body: body)
                expected += body
            case 3:
                let body = Self.bytes(Int(random.next() % 9000) + 1, seed: step)
                let prebuilt = PrebuiltResponse(fields: [], body: body)
                queue.append(bodyOf: prebuilt)
                expected += body
            default:
                let bytes = Self.bytes(Int(random.next() % 100), seed: step)
                bytes.withUnsafeBufferPointer { queue.append(copying: $0) }
                expected += bytes
            }
            #expect(queue.unsentBytes == expected.count - pair.received.count)
            // Some steps write once and read some: later pieces join a half-sent queue.
            if random.next() % 3 == 0 {
                _ = try queue.write(to: .plain(pair.sender))
                pair.drain()
            }
        }
        try Self.send(&queue, through: pair)
        #expect(pair.received.count == expected.count)
        #expect(pair.received == expected)
    }

    @Test func aBurstsMemoryIsGivenBackOnceSent() throws {
        let pair = Pair()
        var queue = OutputQueue()
        var expected: [UInt8] = []
        // Small bodies are copied: 200 KB of them grow the block.
        for step in 0..<100 {
            let body = Self.bytes(2000, seed: step)
            queue.append(body: body)
            expected += body
        }
        #expect(queue.blockCapacity >= 200_000)
        try Self.send(&queue, through: pair)
        #expect(pair.received == expected)
        #expect(queue.blockCapacity == OutputQueue.initialCapacity)
    }
}

// One end of a takeover conversation over a Unix socket: whole lines of the handover protocol
// (BreakwaterCore's HandoverMessage) with the descriptors that came with them.

import BreakwaterCore
import Glibc

/// A connected Unix socket speaking the handover protocol; blocking, each call bounded.
final class HandoverConnection {
    let fd: Int32
    private var lines = HandoverLineBuffer()
    private var waiting: [String] = []
    private var descriptors: [Int32] = []

    init(fd: Int32) { self.fd = fd }

    deinit {
        for descriptor in descriptors { Socket.close(descriptor) }
        Socket.close(fd)
    }

    func send(_ message: HandoverMessage, descriptors: [Int32] = []) throws(SystemError) {
        try Socket.send(fd, message.encoded, descriptors: descriptors)
    }

    /// The next message within `timeout`, and the descriptors that arrived with it (taken by
    /// the caller); nil when the peer closed first.
    func receive(within timeout: Duration) throws(HandoverFailure) -> (HandoverMessage, [Int32])? {
        do {
            try Socket.setTimeout(fd, timeout)
        } catch {
            throw .system(error)
        }
        while waiting.isEmpty {
            let received: (bytes: [UInt8], descriptors: [Int32])
            do {
                received = try Socket.receive(fd)
            } catch {
                throw error.reason == "timed out" ? .timedOut : .system(error)
            }
            descriptors += received.descriptors
            if received.bytes.isEmpty { return nil }
            do {
                waiting += try lines.append(received.bytes)
            } catch {
                throw .protocolError(error)
            }
        }
        let line = waiting.removeFirst()
        let message: HandoverMessage
        do {
            message = try HandoverMessage.decode(line)
        } catch {
            throw .protocolError(error)
        }
        let taken = descriptors
        descriptors = []
        return (message, taken)
    }
}

/// Why one conversation failed.
enum HandoverFailure: Error, CustomStringConvertible {
    case timedOut
    case system(SystemError)
    case protocolError(HandoverProtocolError)

    var description: String {
        switch self {
        case .timedOut: "no answer in time"
        case .system(let error): "\(error)"
        case .protocolError(let error): "\(error)"
        }
    }
}

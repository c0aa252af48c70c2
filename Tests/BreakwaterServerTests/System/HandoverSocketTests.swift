// The system door of a takeover on real sockets: listening sockets passed with SCM_RIGHTS arrive
// as working, close-on-exec descriptors; an inherited socket is checked before it is served; and
// inherited sockets are spread so that every loop and every socket is covered.

import BreakwaterCore
import Foundation
import Glibc
import Testing

@testable import BreakwaterServer

struct HandoverSocketTests {
    @Test(arguments: [(1, 1), (1, 4), (4, 4), (4, 2), (3, 2), (2, 3), (8, 2)])
    func spreadCoversEveryLoopAndEverySocket(sockets: Int, loops: Int) {
        let pairs = HTTPServer.spread(sockets, over: loops)
        #expect(Set(pairs.map(\.loop)) == Set(0..<loops))
        #expect(Set(pairs.map(\.socket)) == Set(0..<sockets))
        #expect(pairs.count == max(sockets, loops), "no socket served twice on one loop beyond need")
    }

    @Test func listeningSocketsPassedWithAMessageArriveWorkingAndCloseOnExec() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { pair.forEach { Glibc.close($0) } }
        let listener = try Socket.listen(try SocketAddress(HostPort(host: "127.0.0.1", port: 0)))
        defer { Socket.close(listener) }
        let port = SocketAddress.boundPort(of: listener)
        try Socket.send(pair[0], HandoverMessage.ready(pid: 1).encoded, descriptors: [listener, listener])
        let (bytes, descriptors) = try Socket.receive(pair[1])
        #expect(try HandoverMessage.decode(String(decoding: bytes.dropLast(), as: UTF8.self)) == .ready(pid: 1))
        #expect(descriptors.count == 2)
        defer { descriptors.forEach { Glibc.close($0) } }
        for descriptor in descriptors {
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
            #expect(SocketAddress.boundPort(of: descriptor) == port)
            try Socket.adoptListener(descriptor)
            #expect(fcntl(descriptor, F_GETFL) & O_NONBLOCK != 0)
        }
        #expect(Socket.boundAddress(of: descriptors[0]) == "127.0.0.1:\(port)")
    }

    @Test func aSocketThatDoesNotListenIsNotAdopted() throws {
        let connected = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(connected) }
        #expect(throws: SystemError.self) { try Socket.adoptListener(connected) }
        let datagram = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { Glibc.close(datagram) }
        #expect(throws: SystemError.self) { try Socket.adoptListener(datagram) }
    }

    @Test func peerCredentialsNameThisProcess() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { pair.forEach { Glibc.close($0) } }
        let peer = try Socket.peerCredentials(pair[0])
        #expect(peer.pid == getpid())
        #expect(peer.uid == getuid())
    }
}

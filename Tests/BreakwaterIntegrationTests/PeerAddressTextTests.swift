// The client address the access log and X-Forwarded-For carry, formatted from what accept4
// returned: IPv4 digit by digit, IPv6 through inet_ntop, as inet_ntop would write both.

import BreakwaterServer
import Foundation
import Testing

@Suite struct PeerAddressTextTests {
    @Test(arguments: [
        "0.0.0.0", "127.0.0.1", "10.0.9.99", "192.168.100.254", "255.255.255.255", "1.22.133.4",
    ])
    func ipv4IsWrittenAsInetNtopWritesIt(_ text: String) throws {
        var address = in_addr()
        #expect(inet_pton(AF_INET, text, &address) == 1)
        #expect(Socket.dottedQuad(UInt32(bigEndian: address.s_addr)) == text)
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_addr = address
        #expect(Socket.numericAddress(Self.storage(socketAddress)) == text)
    }

    @Test(arguments: ["::1", "::ffff:127.0.0.1", "2001:db8::8a2e:370:7334", "fe80::1"])
    func ipv6IsWrittenByInetNtop(_ text: String) throws {
        var address = in6_addr()
        #expect(inet_pton(AF_INET6, text, &address) == 1)
        var socketAddress = sockaddr_in6()
        socketAddress.sin6_family = sa_family_t(AF_INET6)
        socketAddress.sin6_addr = address
        #expect(Socket.numericAddress(Self.storage(socketAddress)) == text)
    }

    /// `address` at the start of a `sockaddr_storage`, as accept4 fills one.
    static func storage<Address>(_ address: Address) -> sockaddr_storage {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            withUnsafeBytes(of: address) { raw.copyMemory(from: $0) }
        }
        return storage
    }

    @Test func anotherFamilyHasNoText() {
        var storage = sockaddr_storage()
        storage.ss_family = sa_family_t(AF_UNIX)
        #expect(Socket.numericAddress(storage) == "")
    }
}

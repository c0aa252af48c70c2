// A plain HTTP/1.1 GET to a proxy's admin listener, for `breakwater advise`: one request on one
// connection closed by the server, no TLS (the admin listener speaks plain HTTP on loopback).

import BreakwaterCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum AdminRequest {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The body of `GET path` at `baseURL` (`http://host:port`); a status other than 200 fails.
    static func get(_ baseURL: String, path: String) throws(Failure) -> [UInt8] {
        guard baseURL.hasPrefix("http://") else { throw Failure(description: "\(baseURL): only http:// admin URLs") }
        var authority = String(baseURL.dropFirst("http://".count))
        while authority.hasSuffix("/") { authority.removeLast() }
        guard let address = HostPort(parsing: authority) else {
            throw Failure(description: "\(baseURL): expected http://HOST:PORT")
        }
        let descriptor = try connect(address)
        defer { close(descriptor) }
        let request = "GET \(path) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\nAccept: application/json\r\n\r\n"
        var bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure(description: "\(baseURL): sending failed (errno \(errno))") }
            sent += count
        }
        bytes.removeAll()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw Failure(description: "\(baseURL): reading failed (errno \(errno))") }
            bytes.append(contentsOf: chunk[0..<count])
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.firstRange(of: separator) else {
            throw Failure(description: "\(baseURL): the answer has no HTTP head")
        }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        guard statusLine.split(separator: " ").dropFirst().first == "200" else {
            throw Failure(description: "\(baseURL)\(path) answered \(statusLine)")
        }
        return Array(bytes[end.upperBound...])
    }

    private static func connect(_ address: HostPort) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &found) == 0, let info = found else {
            throw Failure(description: "\(address): cannot resolve")
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard descriptor >= 0 else { throw Failure(description: "\(address): no socket (errno \(errno))") }
        guard Glibc.connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            close(descriptor)
            throw Failure(description: "\(address): cannot connect (errno \(errno)); is the proxy running?")
        }
        return descriptor
    }
}

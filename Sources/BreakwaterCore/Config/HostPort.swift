// A listen address: "HOST:PORT" (IPv6 hosts in brackets, "[::1]:8080").

/// A host and a TCP port, as written in `listen` settings and `--listen` flags.
public struct HostPort: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) { (self.host, self.port) = (host, port) }

    /// Parses "HOST:PORT" or "[V6]:PORT"; port 0 asks the system for a free port.
    public init?(parsing text: String) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") { return nil }
        }
        // Digits only: Int("+80") would succeed, and a host with spaces is a typo, not a name.
        guard !hostPart.isEmpty, !hostPart.contains(where: \.isWhitespace),
            !portPart.isEmpty, portPart.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(portPart), (0...65_535).contains(port)
        else { return nil }
        self.host = String(hostPart)
        self.port = port
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

// Who sent a request and under which id (README "GraphQL over HTTP rules" and "Watching it: the admin endpoints"): the client's `X-Request-Id` when
// it is sane (1 to 128 visible ASCII characters of a token-like set), else a new one; the
// address, user agent and Apollo client name/version the access log and metrics name.

/// The identity of one client request. A class: the request and whatever answers it later (a
/// coalesced waiter) hold one reference, not five strings each.
package final class RequestIdentity: Sendable {
    /// The id returned on the answer, forwarded to the origin and logged.
    package let id: RequestID
    /// `id` spelled out (a made one is spelled on each read).
    package var requestID: String { id.text }
    package let remoteAddress: String
    package let userAgent: String?
    /// `apollographql-client-name` / `-version`.
    package let clientName: String?
    package let clientVersion: String?
    /// The protocol it arrived over.
    package let version: HTTPVersion

    /// The identity of `request`; `generator` makes the id when the client sent none usable.
    package init(_ request: borrowing HTTPRequest, generator: inout RequestIDGenerator) {
        // One walk over the fields for the four names (the first of each counts).
        var offered: String?, userAgent: String?, clientName: String?, clientVersion: String?
        // Read in place: a `for field in` copy retained and released both strings of every field.
        request.headers.fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                switch fields[index].name.utf8.count {
                case 10 where userAgent == nil && fields[index].name.equalsIgnoringASCIICase("User-Agent"):
                    userAgent = fields[index].value
                case 12 where offered == nil && fields[index].name.equalsIgnoringASCIICase("X-Request-Id"):
                    offered = fields[index].value
                case 25 where clientName == nil && fields[index].name.equalsIgnoringASCIICase("apollographql-client-name"):
                    clientName = fields[index].value
                case 28 where clientVersion == nil && fields[index].name.equalsIgnoringASCIICase("apollographql-client-version"):
                    clientVersion = fields[index].value
                default:
                    break
                }
            }
        }
        id = offered.flatMap { Self.isAcceptable($0) ? RequestID($0) : nil } ?? generator.nextID()
        remoteAddress = request.remoteAddress
        self.userAgent = userAgent
        self.clientName = clientName
        self.clientVersion = clientVersion
        version = request.version
    }

    /// Longest client id kept; longer ones are replaced, as are ids with other characters.
    package static let maxRequestIDLength = 128

    /// Whether a client's id may be echoed, forwarded and logged as it is: letters, digits and
    /// `-_.:@/+=`, at most 128 of them (a UUID, a W3C trace id, a base64 token all fit).
    package static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maxRequestIDLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "@"),
                UInt8(ascii: "/"), UInt8(ascii: "+"), UInt8(ascii: "="):
                true
            default: false
            }
        }
    }
}

/// Makes request ids: 32 lower-case hex digits from a per-loop SplitMix64 stream, seeded from
/// the system's random source once, so making one costs no system call (`RequestID` spells them).
package struct RequestIDGenerator: Sendable {
    private var state: UInt64

    package init(seed: UInt64 = UInt64.random(in: .min ... .max)) {
        state = seed
    }

    /// A new id, spelled in hex only where it is written.
    package mutating func nextID() -> RequestID {
        let high = nextWord(), low = nextWord()
        return RequestID(high: high, low: low)
    }

    /// A new id as a String: 32 lower-case hex digits.
    package mutating func next() -> String { nextID().text }

    private mutating func nextWord() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// The origin's Cache-Control directives that decide whether, and for how long, a response may
// sit in Breakwater's shared cache (README "The response cache", RFC 9111 section 5.2).

/// The response directives of one or more `Cache-Control` field values that a shared cache acts on.
///
/// Parsing is lenient the way caches must be: names are case-insensitive, arguments may be
/// tokens or quoted strings, whitespace around `=` is tolerated, and a malformed or unknown
/// directive is skipped without spoiling its neighbours. `private` and `no-cache` count even in
/// their qualified forms (`private="Set-Cookie"`), because honouring them whole is the safe reading.
package struct CacheControl: Sendable, Equatable {
    /// The largest delta-seconds value kept; RFC 9111 section 1.2.2 says to cap larger ones at 2^31.
    package static let maximumDeltaSeconds = 2_147_483_648

    /// `max-age`, in seconds.
    package var maxAge: Int?
    /// `s-maxage`, in seconds: the lifetime for shared caches, which takes precedence over `max-age`.
    package var sharedMaxAge: Int?
    package var noStore = false
    package var isPrivate = false
    package var noCache = false
    package var isPublic = false

    package init() {}

    /// Parses every field line of `Cache-Control`, in order, as one comma-separated list.
    ///
    /// A lifetime directive given twice with different values makes the response stale
    /// (lifetime 0), as RFC 9111 section 4.2.1 allows: a confused origin gets no caching.
    package init(headerValues: [String]) {
        for value in headerValues {
            Self.forEachDirective(in: Array(value.utf8)) { name, argument in
                apply(name: name, argument: argument)
            }
        }
    }

    private mutating func apply(name: String, argument: String?) {
        switch name {
        case "max-age": Self.merge(Self.deltaSeconds(argument), into: &maxAge)
        case "s-maxage": Self.merge(Self.deltaSeconds(argument), into: &sharedMaxAge)
        case "no-store": noStore = true
        case "private": isPrivate = true
        case "no-cache": noCache = true
        case "public": isPublic = true
        default: break
        }
    }

    private static func merge(_ seconds: Int?, into lifetime: inout Int?) {
        guard let seconds else { return }
        if let existing = lifetime, existing != seconds {
            lifetime = 0
        } else {
            lifetime = seconds
        }
    }

    /// `1*DIGIT`, capped at `maximumDeltaSeconds`; nil for anything else (`abc`, `-1`, `""`).
    private static func deltaSeconds(_ argument: String?) -> Int? {
        guard let argument, !argument.isEmpty else { return nil }
        var value = 0
        for byte in argument.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), maximumDeltaSeconds)
        }
        return value
    }

    // MARK: - Scanning

    /// Calls `body` with the lower-cased name and unquoted argument of each well-formed directive.
    private static func forEachDirective(in bytes: [UInt8], _ body: (String, String?) -> Void) {
        var index = 0
        while index < bytes.count {
            skipWhitespace(bytes, &index)
            let nameStart = index
            while index < bytes.count, isTokenCharacter(bytes[index]) { index += 1 }
            let name = bytes[nameStart..<index]
            var isWellFormed = !name.isEmpty
            var argument: [UInt8]?
            skipWhitespace(bytes, &index)
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                skipWhitespace(bytes, &index)
                argument = scanArgument(bytes, &index)
                isWellFormed = isWellFormed && argument != nil
                skipWhitespace(bytes, &index)
            }
            if index < bytes.count, bytes[index] != UInt8(ascii: ",") {
                isWellFormed = false
                skipToNextElement(bytes, &index)
            }
            index += 1  // past the comma
            if isWellFormed {
                let lowered = name.map(\.asciiLowercased)
                body(String(decoding: lowered, as: UTF8.self), argument.map { String(decoding: $0, as: UTF8.self) })
            }
        }
    }

    /// A token or a quoted string (backslash escapes removed); nil when empty or unterminated.
    private static func scanArgument(_ bytes: [UInt8], _ index: inout Int) -> [UInt8]? {
        guard index < bytes.count else { return nil }
        if bytes[index] != UInt8(ascii: "\"") {
            let start = index
            while index < bytes.count, isTokenCharacter(bytes[index]) { index += 1 }
            return index > start ? Array(bytes[start..<index]) : nil
        }
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return value
            case UInt8(ascii: "\\") where index + 1 < bytes.count:
                value.append(bytes[index + 1])
                index += 2
            default:
                value.append(bytes[index])
                index += 1
            }
        }
        return nil
    }

    /// Moves to the next comma outside quotes, so a malformed part cannot smuggle a directive
    /// hidden in a quoted string into the list.
    private static func skipToNextElement(_ bytes: [UInt8], _ index: inout Int) {
        var isQuoted = false
        while index < bytes.count {
            let byte = bytes[index]
            if isQuoted, byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") { isQuoted.toggle() }
            if !isQuoted, byte == UInt8(ascii: ",") { return }
            index += 1
        }
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            index += 1
        }
    }

    /// RFC 9110 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
            UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}

// Strings for the pieces of a parsed head. Decoding a piece (`String(decoding:as:)`) validates
// and copies it, about 185 instructions for a ten-byte name; the common field names, the usual
// Content-Type and the usual target are matched byte for byte and answered with their literals
// instead (no validation, no allocation, no reference counting). Exact bytes only: a name keeps
// the spelling its sender chose.

import Foundation

/// Turns ranges of a head's bytes into Strings, literals where the bytes are a common piece.
enum FieldText {
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        string(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    /// `piece` as a String (an HTTP/2 field's name or value).
    static func string(_ piece: UnsafeBufferPointer<UInt8>) -> String {
        known(piece) ?? String(decoding: piece, as: UTF8.self)
    }

    /// The literal spelled by `piece`, if it is one of the usual ones.
    private static func known(_ piece: UnsafeBufferPointer<UInt8>) -> String? {
        guard let base = piece.baseAddress else { return nil }
        func spells(_ literal: StaticString) -> Bool { memcmp(base, literal.utf8Start, piece.count) == 0 }
        // Dispatched on length first: one or two comparisons of a few bytes at most.
        switch piece.count {
        case 3: return spells("*/*") ? "*/*" : spells("GET") ? "GET" : nil
        case 4: return spells("Host") ? "Host" : spells("host") ? "host" : spells("Date") ? "Date" : nil
        case 6: return spells("Accept") ? "Accept" : spells("accept") ? "accept" : spells("Server") ? "Server" : nil
        case 8: return spells("/graphql") ? "/graphql" : nil
        case 10:
            return spells("User-Agent") ? "User-Agent" : spells("user-agent") ? "user-agent"
                : spells("Connection") ? "Connection" : spells("keep-alive") ? "keep-alive" : nil
        case 12: return spells("Content-Type") ? "Content-Type" : spells("content-type") ? "content-type" : nil
        case 13: return spells("Cache-Control") ? "Cache-Control" : nil
        case 14: return spells("Content-Length") ? "Content-Length" : spells("content-length") ? "content-length" : nil
        case 15:
            return spells("Accept-Encoding") ? "Accept-Encoding" : spells("accept-encoding") ? "accept-encoding" : nil
        case 16: return spells("application/json") ? "application/json" : nil
        case 31: return spells("application/json; charset=utf-8") ? "application/json; charset=utf-8" : nil
        case 33: return spells("application/graphql-response+json") ? "application/graphql-response+json" : nil
        default: return nil
        }
    }
}

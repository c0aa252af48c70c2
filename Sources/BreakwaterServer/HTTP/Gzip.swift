// gzip content coding with zlib (README "The response cache", "Compression"): a cache entry's body compressed
// once, and an origin answer that came gzipped decoded before it is parsed or stored.

import BreakwaterCore
import CZlib

/// gzip in and out through zlib. A class without state (`BodyCompressing` says why).
package final class Gzip: BodyCompressing {
    package init() {}

    /// zlib's window bits plus 16: a gzip wrapper, not a zlib one. Plus 32 when inflating: either.
    private static let gzipWindow: Int32 = 15 + 16
    private static let anyWindow: Int32 = 15 + 32

    /// `body` as one gzip member at zlib's default level; nil when it does not get smaller.
    package func gzip(_ body: UnsafeRawBufferPointer) -> [UInt8]? {
        var stream = z_stream()
        guard CZlib_deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Self.gzipWindow, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
            return nil
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(body.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let status = output.withUnsafeMutableBufferPointer { out -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: body.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(body.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            return deflate(&stream, Z_FINISH)
        }
        guard status == Z_STREAM_END, Int(stream.total_out) < body.count else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// The decoded bytes of a gzip (or zlib) `body`, at most `limit` of them; nil when the body
    /// is not a whole, valid stream or decodes to more than `limit` (a decompression bomb).
    package static func gunzip(_ body: [UInt8], limit: Int) -> [UInt8]? {
        var stream = z_stream()
        guard CZlib_inflateInit2(&stream, anyWindow) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(4096, min(limit, body.count * 4)))
        return body.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                guard output.count + produced <= limit else { return nil }
                output.append(contentsOf: chunk[..<produced])
                switch status {
                case Z_STREAM_END:
                    // Bytes after the member are not part of a body we understand.
                    return stream.avail_in == 0 ? output : nil
                case Z_OK:
                    continue
                case Z_BUF_ERROR where produced > 0:
                    continue
                default:
                    return nil
                }
            }
        }
    }
}

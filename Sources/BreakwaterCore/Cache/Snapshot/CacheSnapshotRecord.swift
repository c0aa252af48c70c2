// One record of a cache snapshot (docs/OPERATING.md, "The cache across restarts"): a marker, the
// payload's length and a CRC-32, so that a damaged record is told apart and the reader can find
// the next one after it.

/// The framing of a snapshot record.
///
/// Layout (integers little-endian):
/// ```
/// 4   marker: 0x1E "BWR"
/// u32 payload length
/// u32 CRC-32 of the length's 4 bytes and the payload
/// ... payload: one entry as CacheEntryCodec encodes it
/// ```
/// Records follow the header most recently used first: the file's order is the recency order.
package enum CacheSnapshotRecord {
    package static let marker: [UInt8] = [0x1E, 0x42, 0x57, 0x52]
    /// Bytes before the payload.
    package static let overhead = 12

    /// Appends the record of `payload` to `out`.
    package static func append(_ payload: [UInt8], to out: inout [UInt8]) {
        out.append(contentsOf: marker)
        let length = UInt32(payload.count).littleEndian
        var crc = CRC32()
        withUnsafeBytes(of: length) { bytes in
            out.append(contentsOf: bytes)
            crc.update(bytes)
        }
        crc.update(payload)
        withUnsafeBytes(of: crc.value.littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: payload)
    }

    /// What the bytes at the start of `window` are.
    package enum Framing: Equatable {
        /// A whole record whose checksum holds: its payload is `window[overhead..<overhead + length]`.
        case record(length: Int)
        /// A record's start whose payload runs past the window: read `total` bytes, then ask again.
        case needs(total: Int)
        /// Not the start of an intact record.
        case damaged
    }

    /// Frames the record at the start of `window`; a length beyond `maxPayload` is damage.
    package static func frame(_ window: UnsafeRawBufferPointer, maxPayload: Int) -> Framing {
        guard window.count >= overhead else { return .needs(total: overhead) }
        guard window[0] == marker[0], window[1] == marker[1], window[2] == marker[2], window[3] == marker[3] else {
            return .damaged
        }
        let length = Int(integer(window, at: 4))
        guard length <= maxPayload else { return .damaged }
        guard window.count >= overhead + length else { return .needs(total: overhead + length) }
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(rebasing: window[4..<8]))
        crc.update(UnsafeRawBufferPointer(rebasing: window[overhead..<overhead + length]))
        return crc.value == integer(window, at: 8) ? .record(length: length) : .damaged
    }

    private static func integer(_ window: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(window[offset]) | UInt32(window[offset + 1]) << 8 | UInt32(window[offset + 2]) << 16
            | UInt32(window[offset + 3]) << 24
    }
}

// CRC-32 as zlib and PNG compute it (ISO 3309, reflected polynomial 0xEDB88320): the checksum of
// each record of the cache snapshot (docs/OPERATING.md, "The cache across restarts"). The core
// imports no C library, so it is written here: eight bytes a step with eight tables
// ("slicing-by-8", as zlib's braided CRC does in spirit), then one table lookup per byte left.

/// The CRC-32 of bytes, computed incrementally.
package struct CRC32: Sendable {
    /// `tables[k][b]`: the CRC of byte `b` followed by `k` zero bytes, the eight tables one after
    /// the other (256 entries each).
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
            tables[index] = value
        }
        for index in 0..<256 {
            for table in 1..<8 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    private var state: UInt32 = 0xFFFF_FFFF

    package init() {}

    /// The checksum of everything given so far.
    package var value: UInt32 { ~state }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        Self.tables.withUnsafeBufferPointer { tables in
            var state = self.state
            var index = 0
            let count = bytes.count
            while index + 8 <= count {
                let low = state ^ (UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
                    | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24)
                state = tables[7 * 256 + Int(low & 0xFF)] ^ tables[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ tables[5 * 256 + Int((low >> 16) & 0xFF)] ^ tables[4 * 256 + Int(low >> 24)]
                    ^ tables[3 * 256 + Int(bytes[index + 4])] ^ tables[2 * 256 + Int(bytes[index + 5])]
                    ^ tables[256 + Int(bytes[index + 6])] ^ tables[Int(bytes[index + 7])]
                index += 8
            }
            while index < count {
                state = tables[Int((state ^ UInt32(bytes[index])) & 0xFF)] ^ (state >> 8)
                index += 1
            }
            self.state = state
        }
    }

    package mutating func update(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// The checksum of `bytes` alone.
    package static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}

// CRC-32 as zlib and PNG compute it (ISO 3309, reflected polynomial 0xEDB88320): the checksum of
// each record of the cache snapshot (docs/OPERATING.md, "The cache across restarts"). The core
// imports no C library, so it is written here, one table lookup per byte.

/// The CRC-32 of bytes, computed incrementally.
package struct CRC32: Sendable {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    private var state: UInt32 = 0xFFFF_FFFF

    package init() {}

    /// The checksum of everything given so far.
    package var value: UInt32 { ~state }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        Self.table.withUnsafeBufferPointer { table in
            var state = self.state
            for byte in bytes { state = table[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8) }
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

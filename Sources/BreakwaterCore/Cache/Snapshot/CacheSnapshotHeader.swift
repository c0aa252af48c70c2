// The first bytes of a cache snapshot file (docs/OPERATING.md, "The cache across restarts"): what
// tells a snapshot from any other file, which layout follows, when it was written and, for a
// fleet, where in the purge log the proxy that wrote it was (docs/FLEET.md).

/// A snapshot's header.
///
/// Layout (48 bytes, integers little-endian):
/// ```
/// 8   magic: 0x89 "BWCS" \r \n 0x1A   (a binary file: text transfers and foreign files show)
/// u16 format version (1)              u16 flags: bit 0 a purge-log position follows
/// i64 written at, wall-clock ms since the epoch
/// u64 purge-log id, milliseconds      u64 purge-log id, sequence      u64 fleet generation
/// u32 CRC-32 of the 44 bytes before it
/// ```
package struct CacheSnapshotHeader: Sendable, Equatable {
    /// The bytes every snapshot starts with.
    package static let magic: [UInt8] = [0x89, 0x42, 0x57, 0x43, 0x53, 0x0D, 0x0A, 0x1A]
    /// The layout this build writes and reads.
    package static let currentVersion: UInt16 = 1
    package static let size = 48

    private static let positionFlag: UInt16 = 1

    /// When the snapshot was written, on the wall clock.
    package var writtenAt: WallClockTime
    /// The last purge-log entry the writing proxy had applied, with a fleet (nil without one, or
    /// when it had not reached the log).
    package var purgeLogPosition: PurgeLogID?
    /// The fleet's purge-everything generation the writing proxy was at (0 without a fleet).
    package var generation: UInt64

    package init(writtenAt: WallClockTime, purgeLogPosition: PurgeLogID? = nil, generation: UInt64 = 0) {
        self.writtenAt = writtenAt
        self.purgeLogPosition = purgeLogPosition
        self.generation = generation
    }

    package var encoded: [UInt8] {
        var out = Self.magic
        out.reserveCapacity(Self.size)
        append(Self.currentVersion, to: &out)
        append(purgeLogPosition == nil ? 0 : Self.positionFlag, to: &out)
        append(UInt64(bitPattern: writtenAt.millisecondsSinceEpoch), to: &out)
        append(purgeLogPosition?.milliseconds ?? 0, to: &out)
        append(purgeLogPosition?.sequence ?? 0, to: &out)
        append(generation, to: &out)
        append(CRC32.checksum(out), to: &out)
        return out
    }

    /// What the first bytes of a file say it is.
    package enum Kind: Sendable, Equatable {
        /// No bytes at all.
        case empty
        /// A snapshot of this layout (its header may still be damaged).
        case snapshot
        /// A snapshot of a layout this build does not know: refused, never overwritten.
        case unknownVersion(UInt16)
        /// Anything else: refused, never overwritten.
        case foreign
    }

    /// What a file starting with `prefix` (its first bytes, up to `size`) holds.
    package static func kind(of prefix: some Collection<UInt8>) -> Kind {
        if prefix.isEmpty { return .empty }
        let bytes = Array(prefix.prefix(size))
        guard bytes.starts(with: magic) || (bytes.count < magic.count && magic.starts(with: bytes)) else {
            return .foreign
        }
        // A torn header of our own (shorter than the version) is ours to replace.
        guard bytes.count >= magic.count + 2 else { return .snapshot }
        let version = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        return version == currentVersion ? .snapshot : .unknownVersion(version)
    }

    /// The header `bytes` (exactly `size` of them) hold; nil when they are not a whole, intact
    /// header of this version.
    package init?(decoding bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count == Self.size, Self.kind(of: bytes) == .snapshot else { return nil }
        func integer<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
            var value: T = 0
            for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
            return value
        }
        guard integer(UInt32.self, at: 44) == CRC32.checksum(bytes[0..<44]) else { return nil }
        let flags = integer(UInt16.self, at: 10)
        guard flags & ~Self.positionFlag == 0 else { return nil }
        writtenAt = WallClockTime(millisecondsSinceEpoch: Int64(bitPattern: integer(UInt64.self, at: 12)))
        purgeLogPosition =
            flags & Self.positionFlag == 0
            ? nil : PurgeLogID(milliseconds: integer(UInt64.self, at: 20), sequence: integer(UInt64.self, at: 28))
        generation = integer(UInt64.self, at: 36)
    }

    private func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }
}

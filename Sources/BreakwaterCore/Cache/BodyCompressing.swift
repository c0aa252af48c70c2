// The gzip coding the cache's answers use (README "The response cache", "Compression"), as the core sees it:
// the server layer implements it with zlib, tests with anything that round-trips.

/// Compresses a body into a gzip member. Implemented by a class: every request's `ClientView`
/// copies the optional compressor, and an existential of a struct was copied, assigned and
/// destroyed through generic value witnesses (about 500 instructions a hit); a class's is one
/// reference.
package protocol BodyCompressing: AnyObject, Sendable {
    /// `body` as gzip, or nil when compressing fails or does not make it smaller.
    func gzip(_ body: UnsafeRawBufferPointer) -> [UInt8]?
}

/// When an answer is worth compressing.
package enum Compression {
    /// Answers smaller than this go uncompressed (README "The response cache"): the gzip header and the CPU would
    /// cost more than the bytes saved.
    package static let minimumBytes = 1024
}

// A head's field lines up to the empty line: scanned, collected and their framing noted, for
// requests and responses alike.

/// Reads one header section into a head's field list, noting the framing fields on the way.
struct HTTP1HeaderSection {
    enum Step: Equatable {
        case needMore
        /// The empty line that ends the section was consumed.
        case end
        case error(HTTP1ParseError)
    }

    private var scanner = HTTP1FieldScanner()
    private(set) var framing = HTTP1FramingFields()
    /// Whether a second Host field refuses the head (requests: yes; responses have no Host rule).
    private let refusesDuplicateHost: Bool

    init(refusesDuplicateHost: Bool) { self.refusesDuplicateHost = refusesDuplicateHost }

    /// A new head starts.
    mutating func reset() {
        scanner.reset()
        framing = HTTP1FramingFields()
    }

    /// The buffer lost its first `count` bytes.
    mutating func shift(by count: Int) { scanner.shift(by: count) }

    /// Consumes `bytes[position..<end]`, appending each complete field to `fields`.
    mutating func read(
        _ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int, end: Int, into fields: inout [HTTP1Field]
    ) -> Step {
        while true {
            switch scanner.scan(bytes, at: &position, end: end) {
            case .needMore:
                return .needMore
            case .field(let field):
                if let reason = framing.note(field, in: bytes), refusesDuplicateHost || reason != .duplicateHost {
                    return .error(HTTP1ParseError(reason))
                }
                fields.append(field)
            case .end:
                return .end
            case .error(let reason):
                return .error(HTTP1ParseError(reason))
            }
        }
    }
}

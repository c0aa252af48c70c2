// The read loop of every connection (client, origin, lingering drain), written once: read into
// the buffer's free space until the socket is empty, the caller says stop, or the passes run out.

extension ReadBuffer {
    /// Why a read loop stopped.
    enum ReadEnd {
        /// The socket has nothing more now.
        case wouldBlock
        /// The peer closed its side.
        case closed
        /// The caller said stop, or the passes ran out.
        case stopped
        /// The buffer is full at its largest.
        case full
    }

    /// Reads from `transport` at most `passes` times; after each read, `received(count, space)`
    /// (bytes read, space offered) says whether to read again.
    func read(
        from transport: Transport, passes: Int, _ received: (_ count: Int, _ space: Int) -> Bool
    ) throws(SystemError) -> ReadEnd {
        for _ in 0..<passes {
            let space = freeSpace()
            if space.isEmpty { return .full }
            switch try transport.read(into: space) {
            case .done(let count):
                didFill(count)
                guard received(count, space.count) else { return .stopped }
            case .wouldBlock:
                return .wouldBlock
            case .closed:
                return .closed
            }
        }
        return .stopped
    }
}

// Which client headers reach the origin, and what a proxy adds (README "The origin side").

/// Builds the headers of an upstream request from the client's.
package struct UpstreamHeaders: Sendable {
    /// `origin.forward_headers`, compared case-insensitively.
    private let forwarded: [String]
    /// Bit n set when some forwarded name is n bytes long: most client fields are ruled out by
    /// their length alone, before any comparison.
    private let forwardedLengths: UInt64
    private let forwardsRequestID: Bool
    /// Names the origin fetch's span in a client's trace when no `FetchTrace` is given
    /// (tracing export off: the trace is passed on, nothing is recorded).
    package let ids: any TraceIDSource

    package init(forwardHeaders: [String], ids: any TraceIDSource = RandomTraceIDs.shared) {
        forwarded = forwardHeaders.map { $0.lowercased() }
        forwardedLengths = forwarded.reduce(0) { $0 | Self.lengthBit($1.utf8.count) }
        forwardsRequestID = forwarded.contains("x-request-id")
        self.ids = ids
    }

    /// The length's bit; every length from 63 up shares the last one.
    private static func lengthBit(_ length: Int) -> UInt64 { 1 << UInt64(min(length, 63)) }

    /// The client's listed headers (minus hop-by-hop ones and those the request's framing sets:
    /// `Host`, `Accept-Encoding`, `Content-Length`), then `Content-Type` (only when the
    /// upstream request carries a body: `sendsBody`; a GET to the origin has none), `Accept`,
    /// `X-Forwarded-For`, `X-Forwarded-Proto`, `Via`. `requestID`, when given, replaces the
    /// client's `X-Request-Id`. `traceparent` names the origin fetch as a child span
    /// (docs/TRACING.md, "Trace context"): `trace`'s when given (tracing export on), else, when the
    /// client's listed `traceparent` is valid, a new span in its trace with its flags, and the
    /// client's listed `tracestate` as received; an invalid one is dropped with its `tracestate`. The fields the client's `Connection` header names are gone
    /// already (`HTTPRequest.removeConnectionScopedFields`, as the request arrived), so what the
    /// key was built from is what goes.
    ///
    /// Every miss builds these: names are compared in place, without lowercased copies, in one
    /// pass over the client's fields, and the fields are written as the bytes the origin gets.
    package func make(
        from client: HTTPHeaders, requestID: RequestID? = nil, remoteAddress: String, isSecure: Bool,
        sendsBody: Bool = true, trace: SpanContext? = nil
    ) -> UpstreamHeaderBlock {
        client.fields.withUnsafeBufferPointer { fields in
            // Room for every client field twice (forwarded, and again in a chain), the request
            // id, the address and the fields added below: the block is allocated once.
            var bound = 192 + remoteAddress.utf8.count + (requestID?.utf8Count ?? 0)
            if let trace { bound += 96 + (trace.state?.utf8.count ?? 0) }
            for index in fields.indices { bound += 2 * (fields[index].name.utf8.count + fields[index].value.utf8.count + 4) }
            // Written on the stack, then appended to an empty array in one copy: the array's own
            // uninitialized initializers allocate through an unspecialized generic path here
            // (about 500 instructions), appending does not.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { buffer in
                var out = ByteCursor(buffer.baseAddress!)
                write(
                    fields, requestID: requestID, remoteAddress: remoteAddress, isSecure: isSecure, sendsBody: sendsBody,
                    trace: trace, to: &out)
                var bytes: [UInt8] = []
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<(out.position - buffer.baseAddress!)]))
                return UpstreamHeaderBlock(bytes: bytes)
            }
        }
    }

    private func write(
        _ fields: UnsafeBufferPointer<HTTPHeaderField>, requestID: RequestID?, remoteAddress: String, isSecure: Bool,
        sendsBody: Bool, trace: SpanContext?, to out: inout ByteCursor
    ) {
        var priorChain: [String] = []
        var priorVia: [String] = []
        var clientRequestID: String?
        // The client's listed trace context, written after the loop as a child's.
        var clientParent: String?
        var clientParents = 0
        var clientStates: [String] = []
        for index in fields.indices {
            let name = fields[index].name
            // Told apart by length first: one comparison at most per field.
            switch name.utf8.count {
            case 3 where name.equalsIgnoringASCIICase("Via"):
                priorVia.append(fields[index].value)
            case 12 where name.equalsIgnoringASCIICase("X-Request-Id"):
                if clientRequestID == nil { clientRequestID = fields[index].value }
                if requestID != nil { continue }
            case 15 where name.equalsIgnoringASCIICase("X-Forwarded-For"):
                priorChain.append(fields[index].value)
            case 11 where name.equalsIgnoringASCIICase("traceparent"):
                if trace == nil && isForwarded(name) {
                    clientParent = fields[index].value
                    clientParents += 1
                }
                continue
            case 10 where name.equalsIgnoringASCIICase("tracestate"):
                if trace == nil && isForwarded(name) && !fields[index].value.isEmpty {
                    clientStates.append(fields[index].value)
                }
                continue
            default:
                break
            }
            guard isForwarded(name), !HopByHopFields.contains(name), !Self.isFraming(name) else { continue }
            Self.write(name, fields[index].value, to: &out)
        }
        // README "The origin side": the request id is always passed on, listed or not.
        if let requestID {
            // Spelled straight into the block: a made id has no String of its own.
            out.writeLiteral("\r\nX-Request-Id: ")
            out.skip(requestID.write(at: out.position))
        } else if !forwardsRequestID, let clientRequestID {
            Self.write("X-Request-Id", clientRequestID, to: &out)
        }
        if let trace {
            writeTrace(trace, to: &out)
        } else if clientParents == 1, let clientParent, var parent = TraceParent.parse(clientParent) {
            parent.spanID = ids.nextSpanID()
            parent.state = clientStates.isEmpty ? nil : clientStates.joined(separator: ",")
            writeTrace(parent, to: &out)
        }
        if sendsBody { out.writeLiteral("\r\nContent-Type: application/json") }
        out.writeLiteral("\r\nAccept: application/json")
        if !priorChain.isEmpty || !remoteAddress.isEmpty {
            out.writeLiteral("\r\nX-Forwarded-For: ")
            for prior in priorChain {
                out.write(prior)
                out.writeLiteral(", ")
            }
            out.write(remoteAddress)
        }
        out.writeLiteral(isSecure ? "\r\nX-Forwarded-Proto: https" : "\r\nX-Forwarded-Proto: http")
        out.writeLiteral("\r\nVia: ")
        for prior in priorVia {
            out.write(prior)
            out.writeLiteral(", ")
        }
        out.writeLiteral("1.1 breakwater")
    }

    /// `traceparent` naming `context`'s span, and its `tracestate` when it has one.
    private func writeTrace(_ context: SpanContext, to out: inout ByteCursor) {
        out.writeLiteral("\r\ntraceparent: ")
        TraceParent.write(context, at: out.position)
        out.skip(TraceParent.length)
        if let state = context.state { Self.write("tracestate", state, to: &out) }
    }

    @inline(__always)
    private static func write(_ name: String, _ value: String, to out: inout ByteCursor) {
        out.writeLiteral("\r\n")
        out.write(name)
        out.writeLiteral(": ")
        out.write(value)
    }

    /// Fields the request's head writes itself (its `Host`, its own `Accept-Encoding` and
    /// `Content-Length`): a client's listed one is not passed on.
    private static func isFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: name.equalsIgnoringASCIICase("Host")
        case 14: name.equalsIgnoringASCIICase("Content-Length")
        case 15: name.equalsIgnoringASCIICase("Accept-Encoding")
        default: false
        }
    }

    /// Whether `origin.forward_headers` lists `name`.
    private func isForwarded(_ name: String) -> Bool {
        forwardedLengths & Self.lengthBit(name.utf8.count) != 0
            && forwarded.contains { $0.equalsIgnoringASCIICase(name) }
    }
}

// One client request from arrival to answer: what to count and log once the answer is sent
// (the access-log fields of docs/OPERATING.md). A value: a hit answers through it where it was
// made, without allocating; a fetch's waiters hold it in a `SharedRequestContext`.

import BreakwaterCore

/// What one request's answer is counted and logged with. Whom to answer and the loop's
/// statistics and log buffer are lent to `finish`, not kept: an answer given at once copied
/// them into the context and released them again (three atomic pairs a hit).
struct RequestContext: Sendable {
    /// When the request was handed to the proxy (whole nanoseconds: no 128-bit `Duration` maths
    /// on the way to the statistics).
    private let started: MonotonicTime
    private let method: HTTPMethod
    /// The resolved operation's name (one the document defines), and the name the client asked for.
    private let operationName: String?
    private let requestedOperationName: String?
    private let documentHash: SHA256Digest?
    /// Who asked (`HTTPRequest.identity`): the id stamped on the answer and what the log names.
    private let identity: RequestIdentity?

    init(
        started: MonotonicTime, method: HTTPMethod, operationName: String?, requestedOperationName: String?,
        documentHash: SHA256Digest?, identity: RequestIdentity?
    ) {
        self.started = started
        self.method = method
        self.operationName = operationName
        self.requestedOperationName = requestedOperationName
        self.documentHash = documentHash
        self.identity = identity
    }

    /// Counts the answer in `statistics`, logs it in `accessLog`, and sends it to `responder`.
    func finish(
        _ reply: consuming FlowReply, upstream: Duration? = nil, to responder: any HTTPResponder,
        statistics: LoopStatistics, accessLog: ProxyLogBuffer
    ) {
        var reply = reply
        let total = MonotonicTime.now.nanoseconds - started.nanoseconds
        let cache = reply.cache.map(RequestStatistics.CacheResult.init)
        let errorCode = reply.recordedErrorCode
        statistics.record {
            $0.recordRequest(
                operationName: RecordedName.operation(resolved: operationName), cache: cache,
                bypassReason: reply.bypassReason, nanoseconds: total, version: identity?.version ?? .http1)
            $0.recordResponse(
                status: reply.response.status, errorCode: errorCode, clientName: identity?.clientName,
                clientVersion: identity?.clientVersion)
            if let event = reply.apqEvent { $0.recordAPQ(event) }
        }
        if accessLog.isOn {
            log(reply, errorCode: errorCode, upstream: upstream, total: .nanoseconds(max(total, 0)), in: accessLog)
        }
        // Stamped here, on the answer this call owns (on one still shared with `reply` it would
        // copy the whole response).
        if let identity { reply.response.stamp(identity.id) }
        responder.respond(reply.response)
    }

    /// The client left before its answer (a reset stream, a closed connection): counted and
    /// logged with status 499, nginx's "client closed request", and no answer is sent (an
    /// HTTP/1.1 connection closes, an HTTP/2 stream is already reset).
    func abandon(_ responder: any HTTPResponder, statistics: LoopStatistics, accessLog: ProxyLogBuffer) {
        let reply = FlowReply(response: HTTPResponse(status: Self.clientClosedStatus))
        let total = MonotonicTime.now.nanoseconds - started.nanoseconds
        statistics.record {
            $0.recordRequest(
                operationName: RecordedName.operation(resolved: operationName), cache: nil, bypassReason: nil,
                nanoseconds: total, version: identity?.version ?? .http1)
            $0.recordResponse(
                status: Self.clientClosedStatus, errorCode: nil, clientName: identity?.clientName,
                clientVersion: identity?.clientVersion)
        }
        if accessLog.isOn {
            log(reply, errorCode: nil, upstream: nil, total: .nanoseconds(max(total, 0)), in: accessLog)
        }
        responder.closeConnection()
    }

    /// nginx's status for a request whose client closed the connection before the answer.
    static let clientClosedStatus = 499

    /// Packs this answer's access-log record into the loop's buffer (the log writer spells the
    /// line), from the values at hand. The identity's fields are read where they are stored: a
    /// copy of the whole identity retained and released its five strings on every line.
    private func log(
        _ reply: FlowReply, errorCode: String?, upstream: Duration?, total: Duration, in accessLog: ProxyLogBuffer
    ) {
        accessLog.append { buffer, format in
            AccessLogRecord.append(
                to: &buffer, format: format, time: .now, client: identity?.remoteAddress ?? "", method: method, version: identity?.version ?? .http1,
                status: reply.response.status, cache: reply.cache,
                operation: RecordedName.loggedOperation(resolved: operationName, requested: requestedOperationName),
                hash: documentHash, errorCode: errorCode,
                bypassReason: reply.bypassReason?.rawValue, duration: total, originStatus: reply.originStatus,
                originDuration: upstream, bytes: reply.response.bodyCount, requestID: identity?.requestID,
                userAgent: identity?.userAgent, clientName: identity?.clientName,
                clientVersion: identity?.clientVersion)
        }
    }
}

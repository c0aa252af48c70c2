// One client request from arrival to answer: whom to answer, how to dress the answer, and what
// to count and log once it is sent.

import BreakwaterCore
import Foundation
import Logging

/// The answering side of one request; also what a coalesced fetch's waiters are.
final class RequestContext: Sendable {
    let responder: any HTTPResponder
    let client: ClientView
    private let started: ContinuousClock.Instant
    private let method: String
    private let operationName: String?
    private let documentHash: SHA256Digest?
    private let statistics: LoopStatistics
    private let accessLog: Logger?

    init(
        responder: any HTTPResponder, client: ClientView, started: ContinuousClock.Instant, method: String,
        operationName: String?, documentHash: SHA256Digest?, statistics: LoopStatistics, accessLog: Logger?
    ) {
        self.responder = responder
        self.client = client
        self.started = started
        self.method = method
        self.operationName = operationName
        self.documentHash = documentHash
        self.statistics = statistics
        self.accessLog = accessLog
    }

    /// Counts the answer in this request's loop statistics, logs it, and sends it.
    func finish(_ reply: FlowReply, upstream: Duration? = nil) {
        let total = ContinuousClock.now - started
        let cache = reply.cache.map(RequestStatistics.CacheResult.init)
        statistics.record {
            $0.recordRequest(operationName: operationName, cache: cache, duration: total)
            if let event = reply.apqEvent { $0.recordAPQ(event) }
        }
        accessLog?.info("\(accessLine(reply.response, cache: cache, upstream: upstream, total: total))")
        responder.respond(reply.response)
    }

    /// One JSON line: time, method, operation, hash prefix, status, cache, upstream and total ms, bytes.
    private func accessLine(
        _ response: HTTPResponse, cache: RequestStatistics.CacheResult?, upstream: Duration?, total: Duration
    ) -> String {
        var line = "{\"time\":\"\(Date().formatted(.iso8601))\",\"method\":\(JSONText.quoted(method))"
        line += ",\"operation\":" + (operationName.map(JSONText.quoted) ?? "null")
        line += ",\"hash\":" + (documentHash.map { "\"\($0.hex.prefix(12))\"" } ?? "null")
        line += ",\"status\":\(response.status),\"cache\":" + (cache.map { "\"\($0.rawValue.uppercased())\"" } ?? "null")
        line += ",\"upstream_ms\":" + (upstream.map { DecimalText.string(Self.milliseconds($0), fractionDigits: 3) } ?? "null")
        line += ",\"total_ms\":" + DecimalText.string(Self.milliseconds(total), fractionDigits: 3)
        line += ",\"bytes\":\(response.body.count)}"
        return line
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) * 1e-15
    }
}

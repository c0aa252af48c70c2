// Batched POSTs (README "GraphQL over HTTP rules"): each element of a JSON-array body goes through the whole
// proxy path as a request of its own (APQ, safelist, cache, coalescing), and the answers come
// back as one JSON array in the same order. One bad element gets its own error object; X-Cache
// is HIT only when every element was a hit, else MISS.

import BreakwaterCore
import Synchronization

/// Splits batches in front of one loop's proxy handler; every other request passes through.
final class BatchHandler: HTTPHandler, Sendable {
    /// `server.graphql_path` and `server.max_batch`, replaced on reload.
    struct Settings: Sendable {
        var graphqlPath: String
        var maxBatch: Int
        var maxBodyBytes: Int

        init(_ configuration: Configuration) {
            graphqlPath = configuration.server.graphqlPath
            maxBatch = configuration.server.maxBatch
            maxBodyBytes = configuration.server.maxBodyBytes.bytes
        }
    }

    private let inner: any HTTPHandler
    private let settings: Mutex<Settings>

    init(_ inner: any HTTPHandler, settings: Settings) {
        self.inner = inner
        self.settings = Mutex(settings)
    }

    func update(_ settings: Settings) {
        self.settings.withLock { $0 = settings }
    }

    func refused(_ response: HTTPResponse, remoteAddress: String, version: HTTPVersion) {
        inner.refused(response, remoteAddress: remoteAddress, version: version)
    }

    func handle(_ request: consuming HTTPRequest, responder: any HTTPResponder) {
        // A body that is not JSON is refused whole by the endpoint (415), batch or not.
        guard request.method == .post, BatchBody.isBatch(request.body), MediaType.isJSON(request.headers["Content-Type"]) else {
            return inner.handle(request, responder: responder)
        }
        let settings = self.settings.withLock { $0 }
        // Another path gets its 404, a body over max_body_bytes its 413, from the endpoint.
        guard request.path == settings.graphqlPath, request.body.count <= settings.maxBodyBytes else {
            return inner.handle(request, responder: responder)
        }
        let elements: [[UInt8]]
        do {
            elements = try BatchBody.elements(of: request.body, maxElements: settings.maxBatch)
        } catch {
            var refusal = error.response
            refusal.requestID = request.requestID
            return responder.respond(refusal)
        }
        // Every element carries the batch's identity: one id for the batch and its elements.
        let batch = BatchAnswer(count: elements.count, requestID: request.requestID, responder: responder)
        for (index, element) in elements.enumerated() {
            var single = copy request
            single.body = element
            // An element's answer is a JSON object in the array: never a 304 or a gzip stream.
            single.headers.remove("If-None-Match")
            single.headers.remove("Accept-Encoding")
            inner.handle(single, responder: BatchSlot(batch: batch, index: index))
        }
    }
}

/// The answers of one batch as they arrive, from any thread (`BatchAnswers` decides); sends the
/// array once all are in.
private final class BatchAnswer: Sendable {
    private let answers: Mutex<BatchAnswers>
    private let requestID: String?
    private let responder: any HTTPResponder

    init(count: Int, requestID: String?, responder: any HTTPResponder) {
        answers = Mutex(BatchAnswers(count: count))
        self.requestID = requestID
        self.responder = responder
    }

    func deliver(_ response: HTTPResponse?, at index: Int) {
        guard var complete = answers.withLock({ $0.deliver(response, at: index) }) else { return }
        complete.requestID = requestID
        responder.respond(complete)
    }
}

/// One element's responder: hands its answer to the batch.
private final class BatchSlot: HTTPResponder, Sendable {
    private let batch: BatchAnswer
    private let index: Int

    init(batch: BatchAnswer, index: Int) {
        self.batch = batch
        self.index = index
    }

    func respond(_ response: HTTPResponse) { batch.deliver(response, at: index) }

    /// A dropped element still leaves an answer in its place.
    func closeConnection() { batch.deliver(nil, at: index) }
}

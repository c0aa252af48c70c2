// One HTTP/2 connection's protocol on nghttp2's callback API (RFC 9113): bytes in through
// `receive`, frames out through `send(into:)`; nghttp2 frames, decodes HPACK and keeps the
// streams' and windows' states, while the rules of Breakwater (the head limits, the flood
// bucket, the stream deadlines: BreakwaterHTTP2) decide what becomes a request, a refusal or a
// GOAWAY. The connection (`HTTPConnection`) performs what comes out: requests to the handler,
// bytes to the socket, its timer. No event loop of nghttp2's own.

import BreakwaterCore
import BreakwaterHTTP2
import CNghttp2

/// The settings one HTTP/2 connection runs with.
struct HTTP2Settings: Sendable, Equatable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: more open streams are refused (RST_STREAM REFUSED_STREAM).
    var maxStreams: Int
    var headLimits: HTTP2HeadLimits
    var deadlines: HTTP2StreamDeadlines.Configuration
}

/// The HTTP/2 side of one client connection; used only on its loop's thread.
final class HTTP2Session {
    /// What the connection must do after a `receive` or a timer.
    enum Event {
        /// A complete request on a stream, for the handler.
        case request(Int32, HTTPRequest)
        /// The engine answers the stream itself (a limit, a timeout), as HTTP/1.1 would.
        case refusal(Int32, HTTPResponse)
        /// The client reset a stream whose request was dispatched and not yet answered.
        case abandoned(Int32)
    }

    private let codec: OpaquePointer
    private var streams: [Int32: HTTP2Stream] = [:]
    /// The stream the last callback named: a head's fields and frames come one stream at a
    /// time, so most lookups are this one (no hashing).
    private var recent: HTTP2Stream?
    private var pending: [Event] = []
    private let settings: HTTP2Settings
    private let remoteAddress: String
    private let isSecure: Bool
    private var floodGuard: HTTP2FloodGuard
    /// Rapid reset (CVE-2023-44487): the stream limit counts the work of reset streams, and
    /// premature resets past a share end the connection.
    private var resetGuard: HTTP2ResetGuard
    /// Streams the client reset before their answers whose work still runs: their answer (into
    /// the void) or the handler's drop ends it.
    private var detachedStreams: Set<Int32> = []
    private(set) var deadlines: HTTP2StreamDeadlines
    /// The receive in progress's time, for the callbacks.
    private var now: Int64
    /// GOAWAY was sent (drain or a flood): no new stream is taken.
    private(set) var isGoingAway = false
    /// When the drain's first GOAWAY (the shutdown notice) went out and the final one is still
    /// due: the PING sent with the notice is acknowledged, or this plus `finalGoAwayBound` passes.
    private var noticeSince: Int64?
    /// How long the final GOAWAY waits for the notice's PING to come back.
    static let finalGoAwayBound: Int64 = 1_000_000_000
    /// The opaque data of the notice's PING, to know its acknowledgement.
    private static let noticePing: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x62, 0x77, 0x64, 0x72, 0x61, 0x69, 0x6e, 0x21)

    /// A server codec; the connection preface and `settings` go out with the first `send`.
    init(settings: HTTP2Settings, remoteAddress: String, isSecure: Bool, now: Int64) throws(SystemError) {
        self.settings = settings
        self.remoteAddress = remoteAddress
        self.isSecure = isSecure
        self.now = now
        floodGuard = HTTP2FloodGuard(now: now)
        resetGuard = HTTP2ResetGuard(maxStreams: settings.maxStreams)
        deadlines = HTTP2StreamDeadlines(configuration: settings.deadlines, now: now)
        var made: OpaquePointer?
        // Filled in below: the codec's user data is this object, unretained (it owns the codec).
        let result = nghttp2_session_server_new2(&made, Self.callbacks, nil, Self.options)
        guard result == 0, let made else { throw SystemError("nghttp2_session_server_new2", reason: Self.describe(result)) }
        codec = made
        nghttp2_session_set_user_data(codec, Unmanaged.passUnretained(self).toOpaque())
        var entries = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(settings.maxStreams)),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(clamping: settings.headLimits.maxHeadBytes)),
        ]
        _ = nghttp2_submit_settings(codec, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    deinit { nghttp2_session_del(codec) }

    // MARK: Bytes in

    /// Feeds what the client sent; returns the requests and refusals it completed, or nil when
    /// the connection is broken beyond a GOAWAY (nghttp2 queued one when it could: send, then close).
    func receive(_ bytes: UnsafeBufferPointer<UInt8>, now: Int64) -> [Event]? {
        self.now = now
        let read = nghttp2_session_mem_recv(codec, bytes.baseAddress, bytes.count)
        let events = pending
        pending.removeAll(keepingCapacity: true)
        guard read >= 0 else {
            // A connection error (RFC 9113 5.4.1): GOAWAY unless nghttp2 or a flood already sent
            // one. Past nghttp2's bound on acknowledgements waiting to go (a client that sends
            // SETTINGS or PING faster than it reads), it is a flood too.
            if !isGoingAway {
                terminate(read == NGHTTP2_ERR_FLOODED.rawValue ? NGHTTP2_ENHANCE_YOUR_CALM : NGHTTP2_PROTOCOL_ERROR)
            }
            return nil
        }
        return events
    }

    // MARK: Answers

    /// Sends `response` on `stream` (HEADERS, then DATA as the client's window allows); nothing
    /// when the client reset the stream meanwhile.
    func answer(_ stream: Int32, with response: HTTPResponse, date: String) {
        guard let state = self.stream(stream), state.response == nil else { return detachedWorkEnded(stream) }
        state.response = response
        let status = response.status
        let bodiless = status < 200 || status == 204 || status == 304 || state.isHead
        state.body = bodiless ? nil : HTTP2AnswerBody(response)
        HTTP2ResponseFields.withNameValues(
            of: response, date: date, bodiless: status < 200 || status == 204 || status == 304
        ) { nameValues in
            if state.body == nil {
                _ = nghttp2_submit_response(codec, stream, nameValues.baseAddress, nameValues.count, nil)
            } else {
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: Self.readBody)
                _ = nghttp2_submit_response(codec, stream, nameValues.baseAddress, nameValues.count, &provider)
            }
        }
    }

    /// Resets `stream` (the handler dropped it, or its window stayed shut).
    func reset(_ stream: Int32, code: nghttp2_error_code = NGHTTP2_INTERNAL_ERROR) {
        detachedWorkEnded(stream)
        // A stream the client reset is closed already: no RST_STREAM answers a RST_STREAM
        // (RFC 9113 5.4.2).
        guard self.stream(stream) != nil else { return }
        _ = nghttp2_submit_rst_stream(codec, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, code.rawValue)
    }

    /// The work of `stream`, reset by the client, ended: its place under the limit is free.
    private func detachedWorkEnded(_ stream: Int32) {
        if detachedStreams.remove(stream) != nil { resetGuard.detachedWorkEnded() }
    }

    /// Graceful shutdown in two steps, as nghttp2's servers do (RFC 9113 6.8): GOAWAY with the
    /// last stream id 2^31-1 and a PING; once the PING comes back (the client has then seen the
    /// notice, and every stream it opened before is read) or after `finalGoAwayBound`, the final
    /// GOAWAY names the last stream taken. Streams opened meanwhile are taken; open ones finish.
    func beginGoingAway(now: Int64) {
        guard !isGoingAway, noticeSince == nil else { return }
        noticeSince = now
        _ = nghttp2_submit_shutdown_notice(codec)
        var data = Self.noticePing
        _ = withUnsafeBytes(of: &data) { bytes in
            nghttp2_submit_ping(codec, UInt8(NGHTTP2_FLAG_NONE.rawValue), bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// When the final GOAWAY is due if the PING does not come back first; nil when it is not awaited.
    var finalGoAwayDeadline: Int64? { noticeSince.map { $0 + Self.finalGoAwayBound } }

    /// Sends the final GOAWAY when its bound passed at `now`.
    func goAwayIfDue(now: Int64) {
        guard let deadline = finalGoAwayDeadline, now >= deadline else { return }
        goAway()
    }

    /// GOAWAY naming the last stream taken; open streams finish.
    func goAway() {
        noticeSince = nil
        guard !isGoingAway else { return }
        isGoingAway = true
        _ = nghttp2_submit_goaway(
            codec, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(codec),
            NGHTTP2_NO_ERROR.rawValue, nil, 0)
    }

    /// GOAWAY with `code` and no new stream; the connection closes once it is sent.
    func terminate(_ code: nghttp2_error_code) {
        noticeSince = nil
        isGoingAway = true
        _ = nghttp2_session_terminate_session(codec, code.rawValue)
    }

    // MARK: Bytes out

    /// Appends the frames ready to go until `output` holds `bound` bytes.
    func send(into output: inout OutputQueue, bound: Int) -> Bool {
        while output.unsentBytes < bound {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(codec, &data)
            if count < 0 { return false }
            guard count > 0, let data else { break }
            let chunk = UnsafeBufferPointer(start: data, count: count)
            output.append(copying: chunk)
        }
        noteWindows()
        return true
    }

    /// Whether nghttp2 still reads or writes: false once a GOAWAY was sent and no stream is left.
    var isDone: Bool { nghttp2_session_want_read(codec) == 0 && nghttp2_session_want_write(codec) == 0 }

    /// Whether frames wait to be sent.
    var wantsWrite: Bool { nghttp2_session_want_write(codec) != 0 }

    /// Streams whose answer has bytes left are timed while the client's window is shut.
    private func noteWindows() {
        let connectionWindow = nghttp2_session_get_remote_window_size(codec)
        for state in streams.values {
            guard let body = state.body, body.remaining > 0 else { continue }
            if connectionWindow <= 0 || nghttp2_session_get_stream_remote_window_size(codec, state.id) <= 0 {
                deadlines.windowShut(state.id, now: now)
            } else {
                deadlines.windowOpened(state.id)
            }
        }
    }

    // MARK: Time

    /// Performs the deadlines due at `now`: resets, 408s (returned, for the handler's statistics),
    /// an idle GOAWAY.
    func deadlinePassed(now: Int64, timeout: () -> HTTPResponse) -> [Event] {
        self.now = now
        var events: [Event] = []
        for expiry in deadlines.expired(now: now) {
            switch expiry {
            case .resetStream(let stream):
                reset(stream, code: NGHTTP2_CANCEL)
            case .requestTimeout(let stream):
                guard let state = streams[stream] else { continue }
                state.isRefused = true
                events.append(.refusal(stream, timeout()))
            case .stopDiscarding(let stream):
                reset(stream, code: NGHTTP2_NO_ERROR)
            case .closeIdle:
                goAway()
            }
        }
        return events
    }

    // MARK: Callbacks (nghttp2 calls them inside mem_recv and mem_send)

    private func stream(_ id: Int32) -> HTTP2Stream? {
        if let recent, recent.id == id { return recent }
        let found = streams[id]
        recent = found
        return found
    }

    private static func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2Session {
        Unmanaged<HTTP2Session>.fromOpaque(userData!).takeUnretainedValue()
    }

    fileprivate func beginHeaders(_ frame: nghttp2_frame) {
        guard frame.headers.cat == NGHTTP2_HCAT_REQUEST else { return }
        let id = frame.hd.stream_id
        let state = HTTP2Stream(id: id)
        state.openedAt = now
        // RFC 9113 5.1.2: past the limit, counting the fetches reset streams left running.
        if resetGuard.streamOpened(open: streams.count) == .refuse {
            state.isRefused = true
            _ = nghttp2_submit_rst_stream(
                codec, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_REFUSED_STREAM.rawValue)
        }
        streams[id] = state
        recent = state
        deadlines.opened(id, now: now)
    }

    fileprivate func header(_ frame: nghttp2_frame, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let state = stream(frame.hd.stream_id), !state.isRefused, !state.headComplete else { return }
        state.headBytes += HTTP2HeadLimits.fieldBytes(nameCount: name.count, valueCount: value.count)
        // Past the head limit, the rest of the list is decoded (HPACK's table must follow) but kept
        // nowhere: the stream is answered 431 when its head ends.
        guard state.headBytes <= settings.headLimits.maxHeadBytes else { return }
        state.add(name: name, value: value)
    }

    fileprivate func frameReceived(_ frame: nghttp2_frame) -> Int32 {
        let type = nghttp2_frame_type(rawValue: UInt32(frame.hd.type))
        let endStream = frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch type {
        case NGHTTP2_HEADERS:
            guard let state = stream(frame.hd.stream_id) else { return 0 }
            if !state.headComplete {
                state.headComplete = true
                headComplete(state, endStream: endStream)
            } else if endStream {
                // Trailers end the request; their fields are not kept.
                requestComplete(state)
            }
        case NGHTTP2_DATA:
            if frame.hd.length == 0 && !endStream, isFlood(.emptyData) { return 0 }
            if endStream, let state = stream(frame.hd.stream_id) { requestComplete(state) }
        case NGHTTP2_SETTINGS:
            if frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { _ = isFlood(.settings) }
        case NGHTTP2_PING:
            if frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 {
                _ = isFlood(.ping)
            } else if noticeSince != nil, Self.isNoticePing(frame.ping.opaque_data) {
                goAway()
            }
        case NGHTTP2_PRIORITY:
            _ = isFlood(.priority)
        case NGHTTP2_RST_STREAM:
            if isFlood(.reset) { return 0 }
            clientReset(frame.hd.stream_id)
        default:
            break
        }
        return 0
    }

    private static func isNoticePing(_ data: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) -> Bool {
        var data = data, notice = noticePing
        return withUnsafeBytes(of: &data) { received in withUnsafeBytes(of: &notice) { received.elementsEqual($0) } }
    }

    /// Counts a frame against the flood bucket; past it, GOAWAY ENHANCE_YOUR_CALM.
    private func isFlood(_ frame: HTTP2FloodGuard.Frame) -> Bool {
        guard floodGuard.received(frame, now: now) == .enhanceYourCalm else { return false }
        if !isGoingAway { terminate(NGHTTP2_ENHANCE_YOUR_CALM) }
        return true
    }

    /// The client reset `id`: a stream reset before its answer counts under the rapid-reset rule,
    /// and one whose request was dispatched is abandoned (the handler stops its work when no
    /// one else waits on it) and holds its place under the limit until that work ends.
    private func clientReset(_ id: Int32) {
        guard let state = stream(id), state.response == nil else { return }
        let isDetached = state.isDispatched && !state.isRefused
        if isDetached {
            detachedStreams.insert(id)
            pending.append(.abandoned(id))
        }
        let verdict = resetGuard.resetBeforeAnswer(openedAt: state.openedAt, now: now, isDetached: isDetached)
        if verdict == .enhanceYourCalm, !isGoingAway { terminate(NGHTTP2_ENHANCE_YOUR_CALM) }
    }

    private func headComplete(_ state: HTTP2Stream, endStream: Bool) {
        let refusal =
            state.headBytes > settings.headLimits.maxHeadBytes
            ? .headTooLarge(length: state.headBytes, limit: settings.headLimits.maxHeadBytes)
            : settings.headLimits.check(
                targetBytes: state.path?.utf8.count ?? 0, headBytes: state.headBytes, declaredBodyBytes: state.declaredLength)
        deadlines.headComplete(state.id, expectsBody: !endStream, now: now)
        if let refusal { return refuse(state, refusal) }
        if endStream { requestComplete(state) }
    }

    private func requestComplete(_ state: HTTP2Stream) {
        deadlines.requestComplete(state.id)
        guard !state.isRefused, !state.isDispatched else { return }
        state.isDispatched = true
        pending.append(.request(state.id, state.request(remoteAddress: remoteAddress, isSecure: isSecure)))
    }

    private func refuse(_ state: HTTP2Stream, _ refusal: HTTP2HeadLimits.Refusal) {
        state.isRefused = true
        state.body = nil
        let answer: GraphQLErrorResponse =
            switch refusal {
            case .targetTooLong(let length, let limit): .uriTooLong(length: length, limit: limit)
            case .headTooLarge(let length, let limit): .headersTooLarge(length: length, limit: limit)
            case .bodyTooLarge(let length, let limit): .bodyTooLarge(length: length, limit: limit)
            }
        if case .bodyTooLarge = refusal { state.refusedBody = HTTP2RefusedBody() }
        pending.append(.refusal(state.id, answer.response))
    }

    fileprivate func dataReceived(stream: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let state = self.stream(stream) else { return }
        if state.isRefused {
            // The rest of a body refused with 413 is dropped, up to its bound.
            guard var refused = state.refusedBody else { return }
            let goesOn = refused.dropped(bytes.count)
            state.refusedBody = refused
            if !goesOn, state.answerEnded { reset(stream, code: NGHTTP2_NO_ERROR) }
            return
        }
        let total = state.requestBody.count + bytes.count
        if let refusal = settings.headLimits.check(bodyBytes: total) { return refuse(state, refusal) }
        state.requestBody.append(contentsOf: bytes)
    }

    fileprivate func streamClosed(_ stream: Int32) {
        if recent?.id == stream { recent = nil }
        streams.removeValue(forKey: stream)
        deadlines.closed(stream, now: now)
    }

    /// After the last frame of an answer to a request whose body still comes (a refusal): the
    /// rest is not wanted (RFC 9113 8.1, RST_STREAM NO_ERROR), but the rest of a body refused
    /// with 413 is read and dropped first, within its bounds (`HTTP2RefusedBody`), so that a
    /// client still sending reads its answer.
    fileprivate func frameSent(_ frame: nghttp2_frame) {
        guard frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
            let state = stream(frame.hd.stream_id), state.isRefused,
            nghttp2_session_get_stream_remote_close(codec, state.id) == 0
        else { return }
        state.answerEnded = true
        if let refused = state.refusedBody, refused.isWithinBound {
            deadlines.discarding(state.id, now: now)
            return
        }
        reset(state.id, code: NGHTTP2_NO_ERROR)
    }

    fileprivate func readBody(stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let body = self.stream(stream)?.body else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let copied = body.copy(into: buffer, length: length)
        if body.remaining == 0 { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return copied
    }

    // MARK: nghttp2's tables, made once

    private nonisolated(unsafe) static let callbacks: OpaquePointer = {
        var made: OpaquePointer?
        nghttp2_session_callbacks_new(&made)
        let callbacks = made!
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            owner(userData).beginHeaders(frame!.pointee)
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameCount, value, valueCount, _, userData in
            owner(userData).header(
                frame!.pointee, name: UnsafeBufferPointer(start: name, count: nameCount),
                value: UnsafeBufferPointer(start: value, count: valueCount))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            owner(userData).frameReceived(frame!.pointee)
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, count, userData in
            owner(userData).dataReceived(stream: stream, UnsafeBufferPointer(start: data, count: count))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, _, userData in
            owner(userData).streamClosed(stream)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            owner(userData).frameSent(frame!.pointee)
            return 0
        }
        return callbacks
    }()

    private static let readBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, userData in
        owner(userData).readBody(stream: stream, into: buffer!, length: length, flags: flags!)
    }

    private nonisolated(unsafe) static let options: OpaquePointer = {
        var made: OpaquePointer?
        nghttp2_option_new(&made)
        let options = made!
        // Closed streams are forgotten at once (no RFC 7540 priority tree to keep them for).
        nghttp2_option_set_no_closed_streams(options, 1)
        // Resets count in HTTP2FloodGuard's bucket (GOAWAY ENHANCE_YOUR_CALM past it); nghttp2's
        // own bound on them stays, looser, behind it.
        nghttp2_option_set_stream_reset_rate_limit(options, 4000, 400)
        return options
    }()

    private static func describe(_ code: Int32) -> String {
        String(cString: nghttp2_strerror(code))
    }
}

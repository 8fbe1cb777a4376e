import CNGHTTP2
import NIOCore

/// Receives what an nghttp2 session produces.
protocol NGHTTP2ConnectionDelegate: AnyObject {
    /// A request is complete (or broke a limit) and must be answered.
    func requestReady(_ stream: NGHTTP2Stream)
    /// A stream closed (answered, reset by either side, or refused).
    func streamClosed(_ streamID: Int32, errorCode: UInt32)
    /// nghttp2 refused a frame or a stream (counted, not lost).
    func invalidFrameReceived(_ streamID: Int32, error: Int32)
    /// A stream was refused with REFUSED_STREAM before any request existed (over the advertised
    /// concurrency, or after GOAWAY): the client may retry it.
    func streamRefused(_ streamID: Int32)
    /// A request broke a header-list or body limit (it is still dispatched and answered).
    func limitExceeded(_ limit: RequestLimit)
}

/// One nghttp2 server session. The transport's unsafe pointer code is here and in the types
/// it drives (`NGHTTP2Stream`, `RecentHeaderValues`, and `NGHTTP2Handler`'s handing of a read buffer to it): nghttp2's C
/// API needs it. `NGHTTP2ConnectionTests` covers its edge cases without NIO sockets.
///
/// nghttp2 calls back synchronously inside ``receive(_:)`` and ``drainOutput(into:)``; the
/// connection object travels as an unretained `user_data` pointer and is recovered without
/// retain/release. Streams are owned by `streams`, not by nghttp2.
final class NGHTTP2Connection {
    /// What ``receive(_:)`` found.
    enum ReceiveResult: Equatable {
        case ok
        /// The bytes did not start with the HTTP/2 client preface.
        case notHTTP2
        /// A flood (CONTINUATION, SETTINGS, PING, outbound queue); the session was terminated
        /// with ENHANCE_YOUR_CALM. (nghttp2 answers rapid resets itself with GOAWAY(INTERNAL_ERROR)
        /// and stops reading.)
        case flooded
        /// Any other fatal error; GOAWAY(PROTOCOL_ERROR) is queued unless nghttp2 queued its own.
        case fatal(Int32)
    }

    @exclusivity(unchecked) private var session: OpaquePointer?
    @exclusivity(unchecked) private var streams = StreamTable<NGHTTP2Stream>()
    /// The stream of the last lookup (header and data callbacks for one stream come in runs),
    /// unretained: `streams` owns it, and it is forgotten when its stream closes or the session does.
    @exclusivity(unchecked) private var recent: Unmanaged<NGHTTP2Stream>?
    @exclusivity(unchecked) private var pool: [NGHTTP2Stream] = []
    /// Closed streams kept for reuse: more than the 100 streams in flight that senders commonly
    /// keep per connection (at 64, a connection at 100 allocated a stream for 4 requests in 10).
    static let pooledStreams = 128
    /// Long header values repeated request after request share one `String`.
    private let recentValues = RecentHeaderValues()
    @exclusivity(unchecked) private var nvScratch: [nghttp2_nv] = []
    @exclusivity(unchecked) private var byteScratch: [UInt8] = []
    @exclusivity(unchecked) private var spanScratch: [(name: Range<Int>, value: Range<Int>, flags: UInt8)] = []
    private unowned(unsafe) let delegate: any NGHTTP2ConnectionDelegate
    let maxBodySize: Int
    let maxHeaderListSize: Int
    @exclusivity(unchecked) private(set) var maxConcurrentStreams: UInt32
    /// Bytes nghttp2 accepted so far (the first 24 are the client preface).
    @exclusivity(unchecked) private var received = 0

    /// Whether the client preface has been read and accepted.
    var prefaceSeen: Bool { received >= 24 }

    /// Creates a server session and queues the server's SETTINGS. `lenientFieldWhitespace` turns
    /// off nghttp2's RFC 9113 check of leading/trailing whitespace in field values, so that the
    /// responder answers such requests itself (APNs does).
    init(settings: HTTP2Settings, maxBodySize: Int, lenientFieldWhitespace: Bool = false, delegate: any NGHTTP2ConnectionDelegate) {
        self.delegate = delegate
        self.maxBodySize = maxBodySize
        self.maxHeaderListSize = Int(settings.maxHeaderListSize)
        self.maxConcurrentStreams = settings.maxConcurrentStreams
        var created: OpaquePointer?
        let rv = nghttp2_session_server_new2(
            &created,
            NGHTTP2Shared.callbacks,
            Unmanaged.passUnretained(self).toOpaque(),
            lenientFieldWhitespace ? NGHTTP2Shared.lenientOptions : NGHTTP2Shared.options
        )
        precondition(rv == 0 && created != nil, "nghttp2_session_server_new2 failed: \(rv)")
        self.session = created
        var entries: [nghttp2_settings_entry] = [
            .init(settings_id: Int32(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE.rawValue), value: settings.headerTableSize),
            .init(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: settings.maxConcurrentStreams),
            .init(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: settings.initialWindowSize),
            .init(settings_id: Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue), value: settings.maxFrameSize),
            .init(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: settings.maxHeaderListSize),
        ]
        _ = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    deinit {
        close()
    }

    /// Deletes the session (idempotent). Streams still open are dropped with it.
    func close() {
        if let session {
            nghttp2_session_del(session)
            self.session = nil
        }
        streams.removeAll()
        recent = nil
    }

    /// Whether the session was closed.
    var isClosed: Bool { session == nil }

    /// Streams opened and not yet closed.
    var openStreamCount: Int { streams.count }

    /// Whether `streamID` is open (not yet closed or reset).
    func isOpen(_ streamID: Int32) -> Bool { streams[streamID] != nil }

    /// True when nghttp2 wants neither to read nor to write: time to close the connection.
    var isFinished: Bool {
        guard let session else { return true }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// False once nghttp2 stopped reading (it terminated the session, or GOAWAY was sent and no
    /// stream is left).
    var wantsToRead: Bool {
        guard let session else { return false }
        return nghttp2_session_want_read(session) != 0
    }

    /// Feeds received bytes; callbacks run synchronously inside.
    func receive(_ bytes: UnsafeRawBufferPointer) -> ReceiveResult {
        guard let session, let base = bytes.baseAddress else { return .ok }
        var offset = 0
        var rv = 0
        while true {
            rv = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self) + offset, bytes.count - offset)
            guard rv >= 0 else { break }
            received &+= rv
            offset += rv
            if !pausedForAnswer, rv == 0 { return .ok }  // nothing consumed and no pause: never spin
            if pausedForAnswer {
                // A 431 was submitted: put it on the wire before the rest of the block resets the stream.
                pausedForAnswer = false
                produce(into: &earlyOutput)
            }
            if offset >= bytes.count { return .ok }
        }
        switch Int32(rv) {
        case NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue:
            return .notHTTP2
        case NGHTTP2_ERR_FLOODED.rawValue, NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue:
            _ = nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
            return .flooded
        default:
            // Tell the client why before the connection closes (a no-op if nghttp2 already
            // queued its own GOAWAY).
            _ = nghttp2_session_terminate_session(session, NGHTTP2_PROTOCOL_ERROR.rawValue)
            return .fatal(Int32(rv))
        }
    }

    /// Runs nghttp2's send loop into `bytes` (used while `mem_recv` is paused).
    private func produce(into bytes: inout [UInt8]) {
        guard let session else { return }
        while true {
            var pointer: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &pointer)
            guard count > 0, let pointer else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count))
        }
    }

    /// Appends everything nghttp2 has queued to `buffer`. Returns false on a fatal session error.
    func drainOutput(into buffer: inout ByteBuffer) -> Bool {
        if !earlyOutput.isEmpty {
            buffer.writeBytes(earlyOutput)
            earlyOutput.removeAll()
        }
        guard let session else { return true }
        while true {
            var pointer: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &pointer)
            if count < 0 { return false }
            guard count > 0, let pointer else { return true }
            buffer.writeBytes(UnsafeRawBufferPointer(start: pointer, count: count))
        }
    }

    /// Queues a response on `streamID`; header-only when `response.body` is nil.
    func submitResponse(streamID: Int32, response: HTTPServerResponse) {
        guard let session, let stream = streams[streamID], !stream.responded else { return }
        stream.responded = true
        let response = response.final
        let status = String(response.status)
        let contentLength = response.body.map { String($0.count) }
        // Names and values go into one scratch buffer; nghttp2 copies them during the call.
        byteScratch.removeAll(keepingCapacity: true)
        nvScratch.removeAll(keepingCapacity: true)
        spanScratch.removeAll(keepingCapacity: true)
        func add(_ name: String, _ value: String, _ flags: UInt8) {
            let nameStart = byteScratch.count
            byteScratch.appendUTF8(name)
            let valueStart = byteScratch.count
            byteScratch.appendUTF8(value)
            spanScratch.append((nameStart..<valueStart, valueStart..<byteScratch.count, flags))
        }
        add(":status", status, UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        for field in response.headers {
            add(field.name, field.value, UInt8(field.neverIndex ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        // After an aborted header block nghttp2 resets the stream: only HEADERS can still go out.
        let body = stream.headersAborted ? nil : response.body
        if stream.headersAborted, contentLength != nil {
            add("content-length", "0", UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        } else if let contentLength {
            add("content-length", contentLength, UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        byteScratch.withUnsafeMutableBufferPointer { bytes in
            let base = bytes.baseAddress!
            for span in spanScratch {
                nvScratch.append(
                    nghttp2_nv(
                        name: base + span.name.lowerBound,
                        value: base + span.value.lowerBound,
                        namelen: span.name.count,
                        valuelen: span.value.count,
                        flags: span.flags
                    ))
            }
            if let body {
                stream.responseBody = body
                stream.responseOffset = 0
                var provider = nghttp2_data_provider()
                provider.read_callback = NGHTTP2Shared.readResponseBody
                _ = nghttp2_submit_response(session, streamID, nvScratch, nvScratch.count, &provider)
            } else {
                _ = nghttp2_submit_response(session, streamID, nvScratch, nvScratch.count, nil)
            }
        }
    }

    /// Resets a stream.
    func submitReset(streamID: Int32, errorCode: UInt32) {
        guard let session else { return }
        streams[streamID]?.responded = true
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
    }

    /// Advertises a new SETTINGS_MAX_CONCURRENT_STREAMS.
    func submitMaxConcurrentStreams(_ value: UInt32) {
        guard let session, value != maxConcurrentStreams else { return }
        maxConcurrentStreams = value
        var entry = nghttp2_settings_entry(
            settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
            value: value
        )
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
    }

    /// Queues GOAWAY naming the last stream processed, so streams already accepted finish.
    func submitGoAway(errorCode: UInt32, debugData: [UInt8]) {
        guard let session else { return }
        let lastStreamID = nghttp2_session_get_last_proc_stream_id(session)
        _ = debugData.withUnsafeBufferPointer { data in
            nghttp2_submit_goaway(
                session,
                UInt8(NGHTTP2_FLAG_NONE.rawValue),
                lastStreamID,
                errorCode,
                data.baseAddress,
                data.count
            )
        }
    }

    // MARK: - Callback bodies (called through NGHTTP2Shared)

    fileprivate func beginHeaders(streamID: Int32) {
        let stream = pool.popLast() ?? NGHTTP2Stream()
        stream.id = streamID
        streams[streamID] = stream
        recent = Unmanaged.passUnretained(stream)
    }

    /// Lends the stream `streamID` to `body` without a retain and release (three callbacks or more
    /// per request find it); nil when there is no such stream.
    @inline(__always)
    private func withStream<Result>(_ streamID: Int32, _ body: (NGHTTP2Stream) -> Result) -> Result? {
        if let recent, recent._withUnsafeGuaranteedRef({ $0.id == streamID }) {
            return recent._withUnsafeGuaranteedRef(body)
        }
        guard let found = streams[streamID] else { return nil }
        recent = Unmanaged.passUnretained(found)
        return body(found)
    }

    /// What the header callback tells nghttp2.
    enum HeaderVerdict {
        case proceed
        /// Stop `mem_recv` here, so that the 431 just submitted goes out before the stream is reset.
        case pause
        /// Reset the stream and decode the rest of its block without checking or reporting the
        /// fields (TEMPORAL_CALLBACK_FAILURE): an HPACK bomb then costs little more than its bytes.
        case skipRest

        var rawValue: Int32 {
            switch self {
            case .proceed: 0
            case .pause: NGHTTP2_ERR_PAUSE.rawValue
            case .skipRest: NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
            }
        }
    }

    /// How far past the header-list limit a refused list is still read (in multiples of it)
    /// before the stream is reset instead.
    static let headerListReadLimit = 16

    /// Streams flagged `resetAfterResponse` (so that every other answer skips the lookup).
    @exclusivity(unchecked) private var pendingResets = 0
    /// Set when the header callback paused `mem_recv` to send a 431 first.
    @exclusivity(unchecked) private var pausedForAnswer = false
    /// Frames produced while `mem_recv` was paused, sent before anything else.
    @exclusivity(unchecked) private var earlyOutput: [UInt8] = []

    /// Takes one header field. Over the header-list limit the request is answered 431 at once
    /// (HEADERS only, END_STREAM), `mem_recv` pauses so that it is written, and the rest of the
    /// block is skipped.
    fileprivate func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> HeaderVerdict {
        withStream(streamID) { header(name: name, value: value, of: $0) } ?? .proceed
    }

    private func header(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, of stream: NGHTTP2Stream) -> HeaderVerdict {
        if stream.headersAborted {
            // The rest of an over-long list is read and dropped, so that the stream is not reset:
            // a reset (of any code) while the client is still sending made curl report
            // "stream was not closed cleanly" instead of the 431 in about half of the tries. An
            // HPACK bomb, far past the limit, is then reset without reading the rest
            // (TEMPORAL_CALLBACK_FAILURE), its 431 already on the wire.
            stream.headerListSize += name.count + value.count + 32
            return stream.headerListSize > maxHeaderListSize * Self.headerListReadLimit ? .skipRest : .proceed
        }
        guard !stream.dispatched else { return .proceed }
        stream.headerListSize += name.count + value.count + 32
        if stream.headerListSize > maxHeaderListSize {
            stream.limitExceeded = .headerListSize(limit: maxHeaderListSize)
            stream.headersAborted = true
            delegate.limitExceeded(.headerListSize(limit: maxHeaderListSize))
            dispatch(stream)
            pausedForAnswer = true
            return .pause
        }
        if name.first == UInt8(ascii: ":") {
            let text = recentValues.text(value)
            switch name.count {
            case 5 where name[1] == UInt8(ascii: "p"): stream.path = text
            case 7 where name[1] == UInt8(ascii: "m"): stream.method = text
            case 7 where name[1] == UInt8(ascii: "s"): stream.scheme = text
            case 10 where name[1] == UInt8(ascii: "a"): stream.authority = text
            default: break  // nghttp2's message checks refuse unknown pseudo-headers
            }
            return .proceed
        }
        stream.appendField(name: KnownFieldNames.text(name), value: recentValues.text(value))
        return .proceed
    }

    fileprivate func dataChunk(streamID: Int32, data: UnsafeBufferPointer<UInt8>) {
        withStream(streamID) { dataChunk(data, of: $0) }
    }

    private func dataChunk(_ data: UnsafeBufferPointer<UInt8>, of stream: NGHTTP2Stream) {
        guard !stream.dispatched else { return }
        if stream.body.count + data.count > maxBodySize {
            stream.limitExceeded = .bodySize(limit: maxBodySize)
            stream.resetAfterResponse = true
            pendingResets += 1
            delegate.limitExceeded(.bodySize(limit: maxBodySize))
            dispatch(stream)
            return
        }
        stream.body.append(contentsOf: data)
    }

    fileprivate func frameReceived(streamID: Int32, isHeaders: Bool, endStream: Bool) {
        withStream(streamID) { stream in
            if !stream.dispatched, endStream || (isHeaders && stream.limitExceeded != nil) {
                dispatch(stream)
            }
        }
    }

    fileprivate func streamClosed(streamID: Int32, errorCode: UInt32) {
        if let recent, recent._withUnsafeGuaranteedRef({ $0.id == streamID }) {
            self.recent = nil
        }
        if let stream = streams.removeValue(forKey: streamID) {
            if stream.resetAfterResponse {
                pendingResets -= 1
            }
            if pool.count < Self.pooledStreams {
                stream.reset()
                pool.append(stream)
            }
        }
        delegate.streamClosed(streamID, errorCode: errorCode)
    }

    fileprivate func refused(streamID: Int32) {
        delegate.streamRefused(streamID)
    }

    /// The last frame of an answer went out: a stream whose body broke the limit is reset with
    /// NO_ERROR if the client is still sending, so it stops and gets no more window.
    fileprivate func responseFinished(streamID: Int32) {
        guard pendingResets > 0, let session, let stream = streams[streamID], stream.resetAfterResponse else { return }
        stream.resetAfterResponse = false
        pendingResets -= 1
        if nghttp2_session_get_stream_remote_close(session, streamID) == 0 {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_NO_ERROR.rawValue)
        }
    }

    fileprivate func invalidFrame(streamID: Int32, error: Int32) {
        delegate.invalidFrameReceived(streamID, error: error)
    }

    fileprivate func readResponseBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int) -> (count: Int, eof: Bool) {
        guard let stream = streams[streamID] else { return (0, true) }
        let remaining = stream.responseBody.count - stream.responseOffset
        let count = min(remaining, length)
        stream.responseBody.withUnsafeBufferPointer { body in
            buffer.update(from: body.baseAddress! + stream.responseOffset, count: count)
        }
        stream.responseOffset += count
        return (count, stream.responseOffset == stream.responseBody.count)
    }

    /// Hands a complete request to the delegate, holding its stream strongly meanwhile: callers
    /// reach the stream unretained (``withStream(_:_:)``), and the answer may close the session,
    /// which lets go of every stream.
    private func dispatch(_ stream: NGHTTP2Stream) {
        guard let owned = streams[stream.id] else { return }
        withExtendedLifetime(owned) {
            owned.dispatched = true
            delegate.requestReady(owned)
        }
    }
}

/// The callbacks table and options, built once and shared by every session.
private enum NGHTTP2Shared {
    static func connection(_ userData: UnsafeMutableRawPointer?) -> Unmanaged<NGHTTP2Connection> {
        Unmanaged<NGHTTP2Connection>.fromOpaque(userData!)
    }

    nonisolated(unsafe) static let callbacks: OpaquePointer = {
        var callbacks: OpaquePointer?
        precondition(nghttp2_session_callbacks_new(&callbacks) == 0)
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
            else { return 0 }
            NGHTTP2Shared.connection(userData)._withUnsafeGuaranteedRef { $0.beginHeaders(streamID: frame.pointee.hd.stream_id) }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame else { return 0 }
            let proceed = NGHTTP2Shared.connection(userData)._withUnsafeGuaranteedRef {
                $0.header(
                    streamID: frame.pointee.hd.stream_id,
                    name: UnsafeBufferPointer(start: name, count: nameLength),
                    value: UnsafeBufferPointer(start: value, count: valueLength)
                )
            }
            return proceed.rawValue
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            NGHTTP2Shared.connection(userData)._withUnsafeGuaranteedRef {
                $0.dataChunk(streamID: streamID, data: UnsafeBufferPointer(start: data, count: length))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            let type = frame.pointee.hd.type
            let isHeaders = type == UInt8(NGHTTP2_HEADERS.rawValue)
            guard isHeaders || type == UInt8(NGHTTP2_DATA.rawValue) else { return 0 }
            let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            NGHTTP2Shared.connection(userData)._withUnsafeGuaranteedRef {
                $0.frameReceived(streamID: frame.pointee.hd.stream_id, isHeaders: isHeaders, endStream: endStream)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            NGHTTP2Shared.connection(userData)._withUnsafeGuaranteedRef { $0.streamClosed(streamID: streamID, errorCode: errorCode) }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            let type = frame.pointee.hd.type
            if type == UInt8(NGHTTP2_RST_STREAM.rawValue), frame.pointee.rst_stream.error_code == NGHTTP2_REFUSED_STREAM.rawValue {
                NGHTTP2Shared.connection(userData)._withUnsafeGuaranteedRef { $0.refused(streamID: frame.pointee.hd.stream_id) }
            } else if type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue),
                frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            {
                NGHTTP2Shared.connection(userData)._withUnsafeGuaranteedRef { $0.responseFinished(streamID: frame.pointee.hd.stream_id) }
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, error, userData in
            NGHTTP2Shared.connection(userData)._withUnsafeGuaranteedRef {
                $0.invalidFrame(streamID: frame?.pointee.hd.stream_id ?? 0, error: error)
            }
            return 0
        }
        return callbacks!
    }()

    nonisolated(unsafe) static let options: OpaquePointer = makeOptions(lenientFieldWhitespace: false)

    /// The same, without the RFC 9113 leading/trailing whitespace check of field values.
    nonisolated(unsafe) static let lenientOptions: OpaquePointer = makeOptions(lenientFieldWhitespace: true)

    private static func makeOptions(lenientFieldWhitespace: Bool) -> OpaquePointer {
        var options: OpaquePointer?
        precondition(nghttp2_option_new(&options) == 0)
        if lenientFieldWhitespace {
            nghttp2_option_set_no_rfc9113_leading_and_trailing_ws_validation(options, 1)
        }
        // The server answers every stream itself; it never needs closed streams for priority.
        nghttp2_option_set_no_closed_streams(options, 1)
        // Rapid-reset protection (CVE-2023-44487): nghttp2's own defaults, stated explicitly.
        nghttp2_option_set_stream_reset_rate_limit(options, 1000, 33)
        nghttp2_option_set_max_outbound_ack(options, 1000)
        nghttp2_option_set_max_settings(options, 32)
        return options!
    }

    static let readResponseBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, dataFlags, _, userData in
        let (count, eof) = NGHTTP2Shared.connection(userData)._withUnsafeGuaranteedRef {
            $0.readResponseBody(streamID: streamID, into: buffer!, length: length)
        }
        if eof {
            dataFlags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }
}

extension [UInt8] {
    /// Appends a string's UTF-8 by one copy (a native string's bytes are contiguous; the generic
    /// `append(contentsOf: string.utf8)` walks them one by one).
    mutating func appendUTF8(_ string: String) {
        if string.utf8.withContiguousStorageIfAvailable({ self.append(contentsOf: $0) }) == nil {
            var copy = string
            copy.withUTF8 { self.append(contentsOf: $0) }
        }
    }
}

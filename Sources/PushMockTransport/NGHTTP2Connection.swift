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

    @exclusivity(unchecked) var session: OpaquePointer?
    @exclusivity(unchecked) var streams = StreamTable<NGHTTP2Stream>()
    /// The stream of the last lookup (header and data callbacks for one stream come in runs),
    /// unretained: `streams` owns it, and it is forgotten when its stream closes or the session does.
    @exclusivity(unchecked) var recent: Unmanaged<NGHTTP2Stream>?
    @exclusivity(unchecked) var pool: [NGHTTP2Stream] = []
    /// Closed streams kept for reuse: more than the 100 streams in flight that senders commonly
    /// keep per connection (at 64, a connection at 100 allocated a stream for 4 requests in 10).
    static let pooledStreams = 128
    /// Long header values repeated request after request share one `String`.
    let recentValues = RecentHeaderValues()
    /// The response being submitted's header fields, in memory kept for the next.
    let headerBlock = ResponseHeaderBlock()
    unowned(unsafe) let delegate: any NGHTTP2ConnectionDelegate
    let maxBodySize: Int
    let maxHeaderListSize: Int
    /// Whether ``HTTPMessageRules`` checks requests (nghttp2's own checks are off).
    let checksMessages: Bool
    /// Whether a field value may start or end with whitespace.
    let lenientFieldWhitespace: Bool
    @exclusivity(unchecked) private(set) var maxConcurrentStreams: UInt32
    /// Bytes nghttp2 accepted so far (the first 24 are the client preface).
    @exclusivity(unchecked) var received = 0

    /// Whether the client preface has been read and accepted.
    var prefaceSeen: Bool { received >= 24 }

    /// Streams flagged `resetAfterResponse` (so that every other answer skips the lookup).
    @exclusivity(unchecked) var pendingResets = 0
    /// Set when the header callback paused `mem_recv` to send a 431 first.
    @exclusivity(unchecked) var pausedForAnswer = false
    /// Frames produced while `mem_recv` was paused, sent before anything else.
    @exclusivity(unchecked) var earlyOutput: [UInt8] = []

    /// Creates a server session and queues the server's SETTINGS. `lenientFieldWhitespace` turns
    /// off nghttp2's RFC 9113 check of leading/trailing whitespace in field values, so that the
    /// responder answers such requests itself (APNs does).
    ///
    /// `nghttp2ChecksMessages` leaves the HTTP messaging checks to nghttp2, as the reference the
    /// tests hold ``HTTPMessageRules`` to; otherwise they are made here.
    init(
        settings: HTTP2Settings, maxBodySize: Int, lenientFieldWhitespace: Bool = false, nghttp2ChecksMessages: Bool = false,
        delegate: any NGHTTP2ConnectionDelegate
    ) {
        self.delegate = delegate
        self.checksMessages = !nghttp2ChecksMessages
        self.lenientFieldWhitespace = lenientFieldWhitespace
        self.maxBodySize = maxBodySize
        self.maxHeaderListSize = Int(settings.maxHeaderListSize)
        self.maxConcurrentStreams = settings.maxConcurrentStreams
        var created: OpaquePointer?
        let rv = nghttp2_session_server_new2(
            &created,
            NGHTTP2Shared.callbacks,
            Unmanaged.passUnretained(self).toOpaque(),
            nghttp2ChecksMessages
                ? (lenientFieldWhitespace ? NGHTTP2Shared.lenientReferenceOptions : NGHTTP2Shared.referenceOptions)
                : (lenientFieldWhitespace ? NGHTTP2Shared.lenientOptions : NGHTTP2Shared.options)
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
        // After an aborted header block nghttp2 resets the stream: only HEADERS can still go out.
        let body = stream.headersAborted ? nil : response.body
        let block = headerBlock
        block.set(
            status: response.status, headers: response.headers, generatedID: response.generatedID,
            contentLength: response.body.map { stream.headersAborted ? 0 : $0.count })
        if let body {
            stream.responseBody = body
            stream.responseOffset = 0
            var provider = nghttp2_data_provider()
            provider.read_callback = NGHTTP2Shared.readResponseBody
            _ = nghttp2_submit_response(session, streamID, block.fields, block.count, &provider)
        } else {
            _ = nghttp2_submit_response(session, streamID, block.fields, block.count, nil)
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
}

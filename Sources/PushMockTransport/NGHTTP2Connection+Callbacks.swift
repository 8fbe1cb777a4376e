import CNGHTTP2
import NIOCore

/// The callbacks' bodies, called through ``NGHTTP2Shared``: a request's headers and data as they
/// arrive, its stream's end, and the response body as nghttp2 reads it.
extension NGHTTP2Connection {
    func beginHeaders(streamID: Int32) {
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

    /// Takes one header field. Over the header-list limit the request is answered 431 at once
    /// (HEADERS only, END_STREAM), `mem_recv` pauses so that it is written, and the rest of the
    /// block is skipped.
    @inline(__always)
    func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, trailer: Bool = false) -> HeaderVerdict {
        withStream(streamID) { header(name: name, value: value, trailer: trailer, of: $0) } ?? .proceed
    }

    @inline(__always)
    private func header(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, trailer: Bool, of stream: NGHTTP2Stream) -> HeaderVerdict
    {
        // The message rules come first, as nghttp2 applies its own before this callback: a
        // malformed request resets the stream, and the rest of its block is not read.
        var verdict = HTTPMessageRules.Verdict.regular
        if checksMessages {
            verdict = stream.rules.field(name: name, value: value, trailer: trailer, lenientWhitespace: lenientFieldWhitespace)
            if verdict == .malformed {
                resetMalformed(stream, error: NGHTTP2_ERR_HTTP_HEADER.rawValue)
                return .skipRest
            }
        }
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
        if case .pseudo(let field) = verdict {
            stream.receivePseudoField(field, value: value, recent: recentValues)
            return .proceed
        }
        if name.first == UInt8(ascii: ":") {
            // Only with nghttp2's own checks (the rules' reference), which refuse unknown pseudo-headers.
            if let field = HTTPMessageRules.pseudoName(name) {
                stream.receivePseudoField(field, value: value, recent: recentValues)
            }
            return .proceed
        }
        stream.receiveField(name: name, value: value, recent: recentValues)
        return .proceed
    }

    func dataChunk(streamID: Int32, data: UnsafeBufferPointer<UInt8>) {
        withStream(streamID) { dataChunk(data, of: $0) }
    }

    private func dataChunk(_ data: UnsafeBufferPointer<UInt8>, of stream: NGHTTP2Stream) {
        if checksMessages {
            guard !stream.malformed else { return }
            // DATA past `content-length` resets the stream (no invalid-frame report: nghttp2 makes none here).
            guard stream.rules.data(data.count) else {
                resetMalformed(stream, error: nil)
                return
            }
        }
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

    func frameReceived(streamID: Int32, isHeaders: Bool, trailer: Bool = false, endStream: Bool) {
        withStream(streamID) { stream in
            if checksMessages {
                guard !stream.malformed else { return }
                let wellFormed =
                    isHeaders ? stream.rules.headersEnded(trailer: trailer, endStream: endStream) : !endStream || stream.rules.streamEnded()
                guard wellFormed else {
                    // A header block is reported as an invalid frame; DATA is not (as nghttp2 does).
                    resetMalformed(stream, error: isHeaders ? NGHTTP2_ERR_HTTP_MESSAGING.rawValue : nil)
                    return
                }
            }
            if !stream.dispatched, endStream || (isHeaders && stream.limitExceeded != nil) {
                dispatch(stream)
            }
        }
    }

    func streamClosed(streamID: Int32, errorCode: UInt32) {
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

    func refused(streamID: Int32) {
        delegate.streamRefused(streamID)
    }

    /// The last frame of an answer went out: a stream whose body broke the limit is reset with
    /// NO_ERROR if the client is still sending, so it stops and gets no more window.
    func responseFinished(streamID: Int32) {
        guard pendingResets > 0, let session, let stream = streams[streamID], stream.resetAfterResponse else { return }
        stream.resetAfterResponse = false
        pendingResets -= 1
        if nghttp2_session_get_stream_remote_close(session, streamID) == 0 {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_NO_ERROR.rawValue)
        }
    }

    /// A request broke ``HTTPMessageRules``: its stream is reset with PROTOCOL_ERROR and nothing
    /// more of it is taken. `error` (nghttp2's library error, for a header block) is reported as
    /// nghttp2 reports an invalid frame.
    private func resetMalformed(_ stream: NGHTTP2Stream, error: Int32?) {
        stream.malformed = true
        if let session {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_PROTOCOL_ERROR.rawValue)
        }
        if let error {
            delegate.invalidFrameReceived(stream.id, error: error)
        }
    }

    func invalidFrame(streamID: Int32, error: Int32) {
        delegate.invalidFrameReceived(streamID, error: error)
    }

    func readResponseBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int) -> (count: Int, eof: Bool) {
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

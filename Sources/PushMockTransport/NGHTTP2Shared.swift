import CNGHTTP2

/// The callbacks table and options, built once and shared by every session.
enum NGHTTP2Shared {
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
                    value: UnsafeBufferPointer(start: value, count: valueLength),
                    trailer: isTrailer(frame)
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
                $0.frameReceived(streamID: frame.pointee.hd.stream_id, isHeaders: isHeaders, trailer: isTrailer(frame), endStream: endStream)
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

    /// Whether `frame` is HEADERS that carry a request's trailers (nghttp2's `HCAT_HEADERS`, to a server).
    @inline(__always)
    static func isTrailer(_ frame: UnsafePointer<nghttp2_frame>) -> Bool {
        frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) && frame.pointee.headers.cat == NGHTTP2_HCAT_HEADERS
    }

    /// The options: HTTP messaging checked by ``HTTPMessageRules``, not by nghttp2.
    nonisolated(unsafe) static let options: OpaquePointer = makeOptions(lenientFieldWhitespace: false, nghttp2ChecksMessages: false)

    /// The same, without the RFC 9113 leading/trailing whitespace check of field values.
    nonisolated(unsafe) static let lenientOptions: OpaquePointer = makeOptions(lenientFieldWhitespace: true, nghttp2ChecksMessages: false)

    /// With nghttp2's own HTTP messaging checks: the reference ``HTTPMessageRules`` is tested against.
    nonisolated(unsafe) static let referenceOptions: OpaquePointer = makeOptions(lenientFieldWhitespace: false, nghttp2ChecksMessages: true)
    nonisolated(unsafe) static let lenientReferenceOptions: OpaquePointer = makeOptions(lenientFieldWhitespace: true, nghttp2ChecksMessages: true)

    private static func makeOptions(lenientFieldWhitespace: Bool, nghttp2ChecksMessages: Bool) -> OpaquePointer {
        var options: OpaquePointer?
        precondition(nghttp2_option_new(&options) == 0)
        if lenientFieldWhitespace {
            nghttp2_option_set_no_rfc9113_leading_and_trailing_ws_validation(options, 1)
        }
        if !nghttp2ChecksMessages {
            // The same rules, checked in ``HTTPMessageRules`` at a fraction of the cost.
            nghttp2_option_set_no_http_messaging(options, 1)
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

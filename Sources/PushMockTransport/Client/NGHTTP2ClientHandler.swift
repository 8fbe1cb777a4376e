import CNGHTTP2
import NIOCore

/// One HTTP/2 client connection on an nghttp2 client session: requests are multiplexed as streams,
/// each answered whole (status, headers, body up to a limit). It runs on its channel's event loop;
/// ``submit(_:promise:)`` and ``cancel(streamID:)`` must be called there.
///
/// nghttp2 calls back synchronously inside `mem_recv` and `mem_send`; the handler travels as an
/// unretained `user_data` pointer, as the server session's does (`NGHTTP2Connection`).
final class NGHTTP2ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// One request under way.
    final class Stream {
        let promise: EventLoopPromise<ClientResponse>
        let body: [UInt8]
        var sent = 0
        var status = 0
        var headers: [(name: String, value: String)] = []
        var received: [UInt8] = []
        var tooLarge = false

        init(promise: EventLoopPromise<ClientResponse>, body: [UInt8]) {
            self.promise = promise
            self.body = body
        }
    }

    private var session: OpaquePointer?
    private var streams: [Int32: Stream] = [:]
    private var context: ChannelHandlerContext?
    private let authority: String
    private let scheme: String
    private let maxBodySize: Int
    /// False once the peer sent GOAWAY or the connection closed: no new stream goes on it.
    private(set) var acceptsStreams = true
    /// Why the connection ended, for the streams it ends.
    private var endReason = "the connection closed"

    init(authority: String, scheme: String, maxBodySize: Int) {
        self.authority = authority
        self.scheme = scheme
        self.maxBodySize = maxBodySize
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        var created: OpaquePointer?
        let rv = nghttp2_session_client_new2(&created, Self.callbacks, Unmanaged.passUnretained(self).toOpaque(), Self.options)
        precondition(rv == 0 && created != nil, "nghttp2_session_client_new2 failed: \(rv)")
        session = created
        var entries: [nghttp2_settings_entry] = [
            .init(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            .init(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        _ = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
        if context.channel.isActive { flush() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        end(reason: endReason)
        if let session { nghttp2_session_del(session) }
        session = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        flush()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard let session else { return }
        let rv = buffer.withUnsafeReadableBytes { bytes -> Int in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
            return nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        if rv < 0 {
            fail(reason: "the server broke HTTP/2: \(String(cString: nghttp2_strerror(Int32(rv))))", context: context)
            return
        }
        flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        acceptsStreams = false
        end(reason: endReason)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(reason: "the connection failed: \(error)", context: context)
    }

    /// Ends the connection and every stream on it with `reason`.
    private func fail(reason: String, context: ChannelHandlerContext) {
        acceptsStreams = false
        endReason = reason
        end(reason: reason)
        context.close(promise: nil)
    }

    /// Fails every stream still open with `reason`.
    private func end(reason: String) {
        let open = streams
        streams.removeAll()
        for stream in open.values { stream.promise.fail(HTTPClientFailure(reason)) }
    }

    /// Sends `request` as a new stream; `promise` gets its answer. Returns the stream's ID (for
    /// ``cancel(streamID:)``), or nil when the request was not sent (the promise is failed).
    func submit(_ request: ClientRequest, path: String, promise: EventLoopPromise<ClientResponse>) -> Int32? {
        guard let session, acceptsStreams else {
            promise.fail(HTTPClientFailure(endReason))
            return nil
        }
        var fields: [(name: [UInt8], value: [UInt8])] = [
            (Array(":method".utf8), Array(request.method.utf8)),
            (Array(":scheme".utf8), Array(scheme.utf8)),
            (Array(":authority".utf8), Array(authority.utf8)),
            (Array(":path".utf8), Array(path.utf8)),
        ]
        var hasLength = false
        for field in request.headers {
            let name = field.name.lowercased()
            // Connection-specific fields have no place in HTTP/2 (RFC 9113 §8.2.2); the authority
            // travels as :authority.
            if ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"].contains(name) { continue }
            if name == "content-length" { hasLength = true }
            fields.append((Array(name.utf8), Array(field.value.utf8)))
        }
        let body = request.body ?? []
        if request.body != nil && !hasLength { fields.append((Array("content-length".utf8), Array(String(body.count).utf8))) }
        let stream = Stream(promise: promise, body: body)
        let streamID = Self.withNameValues(fields) { nva in
            if request.body == nil {
                return nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, nil, nil)
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: Self.readRequestBody)
            return nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, &provider, nil)
        }
        guard streamID > 0 else {
            promise.fail(HTTPClientFailure("nghttp2 refused the request: \(String(cString: nghttp2_strerror(streamID)))"))
            return nil
        }
        streams[streamID] = stream
        flush()
        return streamID
    }

    /// Resets `streamID` (CANCEL) if it is still open; its promise is left to the caller.
    func cancel(streamID: Int32) {
        guard let session, streams.removeValue(forKey: streamID) != nil else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
        flush()
    }

    /// Writes whatever nghttp2 has to send, and closes the connection once nghttp2 wants neither
    /// to read nor to write (after a GOAWAY, say).
    private func flush() {
        guard let session, let context, context.channel.isActive else { return }
        var wrote = false
        while true {
            var pointer: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &pointer)
            if count < 0 {
                fail(reason: "HTTP/2 failed: \(String(cString: nghttp2_strerror(Int32(count))))", context: context)
                return
            }
            guard count > 0, let pointer else { break }
            var buffer = context.channel.allocator.buffer(capacity: count)
            buffer.writeBytes(UnsafeRawBufferPointer(start: pointer, count: count))
            context.write(wrapOutboundOut(buffer), promise: nil)
            wrote = true
        }
        if wrote { context.flush() }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            acceptsStreams = false
            context.close(promise: nil)
        }
    }

    // MARK: nghttp2's callbacks

    fileprivate func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        let name = String(decoding: name, as: UTF8.self)
        let value = String(decoding: value, as: UTF8.self)
        if name == ":status" {
            stream.status = Int(value) ?? 0
            // An interim answer (1xx) is followed by the final one, which alone counts.
            stream.headers.removeAll()
        } else if !name.hasPrefix(":") {
            stream.headers.append((name, value))
        }
    }

    fileprivate func data(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        if stream.received.count + bytes.count > maxBodySize {
            stream.tooLarge = true
        } else {
            stream.received.append(contentsOf: bytes)
        }
    }

    fileprivate func closed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        if stream.tooLarge {
            stream.promise.fail(HTTPClientFailure("the answer's body is over \(maxBodySize) bytes"))
        } else if errorCode != 0 || stream.status == 0 {
            stream.promise.fail(HTTPClientFailure("the server reset the stream (HTTP/2 error \(Self.errorName(errorCode)))"))
        } else {
            stream.promise.succeed(ClientResponse(status: stream.status, headers: stream.headers, body: stream.received))
        }
    }

    fileprivate func goAway(errorCode: UInt32) {
        acceptsStreams = false
        endReason = "the server sent GOAWAY (\(Self.errorName(errorCode)))"
    }

    fileprivate func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int) -> (count: Int, eof: Bool) {
        guard let stream = streams[streamID] else { return (0, true) }
        let count = min(length, stream.body.count - stream.sent)
        stream.body.withUnsafeBufferPointer { source in
            if count > 0 { buffer.update(from: source.baseAddress! + stream.sent, count: count) }
        }
        stream.sent += count
        return (count, stream.sent == stream.body.count)
    }

    static func errorName(_ code: UInt32) -> String {
        let names = [
            "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
            "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
            "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
        ]
        return code < names.count ? names[Int(code)] : "0x\(String(code, radix: 16))"
    }

    /// Calls `body` with `fields` as nghttp2 name-value pairs (valid only inside it).
    private static func withNameValues<R>(_ fields: [(name: [UInt8], value: [UInt8])], _ body: (UnsafeBufferPointer<nghttp2_nv>) -> R) -> R {
        var storage = [UInt8]()
        storage.reserveCapacity(fields.reduce(0) { $0 + $1.name.count + $1.value.count })
        for field in fields {
            storage.append(contentsOf: field.name)
            storage.append(contentsOf: field.value)
        }
        return storage.withUnsafeMutableBufferPointer { bytes in
            var offset = 0
            var nva: [nghttp2_nv] = []
            nva.reserveCapacity(fields.count)
            for field in fields {
                let name = bytes.baseAddress! + offset
                let value = name + field.name.count
                offset += field.name.count + field.value.count
                nva.append(
                    nghttp2_nv(
                        name: name, value: value, namelen: field.name.count, valuelen: field.value.count,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return nva.withUnsafeBufferPointer(body)
        }
    }

    private static func handler(_ userData: UnsafeMutableRawPointer?) -> NGHTTP2ClientHandler {
        Unmanaged<NGHTTP2ClientHandler>.fromOpaque(userData!).takeUnretainedValue()
    }

    private static let readRequestBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, dataFlags, _, userData in
        let (count, eof) = handler(userData).readBody(streamID: streamID, into: buffer!, length: length)
        if eof { dataFlags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    nonisolated(unsafe) private static let options: OpaquePointer = {
        var options: OpaquePointer?
        precondition(nghttp2_option_new(&options) == 0)
        nghttp2_option_set_no_closed_streams(options, 1)
        return options!
    }()

    nonisolated(unsafe) private static let callbacks: OpaquePointer = {
        var callbacks: OpaquePointer?
        precondition(nghttp2_session_callbacks_new(&callbacks) == 0)
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let name, let value else { return 0 }
            handler(userData).header(
                streamID: frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            handler(userData).data(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            handler(userData).closed(streamID: streamID, errorCode: errorCode)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) else { return 0 }
            handler(userData).goAway(errorCode: frame.pointee.goaway.error_code)
            return 0
        }
        return callbacks!
    }()
}

import NIOCore

/// The HTTP/2 side of a connection: bytes in through nghttp2, requests to the responder, responses
/// out, written and flushed once per read batch. One handler per connection; no child channels, no
/// tasks per stream (DESIGN.md: the synchronous hot path).
final class NGHTTP2Handler: ChannelDuplexHandler, NGHTTP2ConnectionDelegate, ConnectionControlTarget {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let responder: any HTTPResponder
    private let info: ConnectionInfo
    private let settings: HTTP2Settings
    private let maxBodySize: Int
    private let idleGoAwayDebugData: [UInt8]
    // Only the channel's event loop touches the handler, never with overlapping accesses, so its
    // fields skip the runtime's exclusivity checks (each check is a call on every stream).
    @exclusivity(unchecked) private var connection: NGHTTP2Connection?
    @exclusivity(unchecked) private var context: ChannelHandlerContext?
    @exclusivity(unchecked) private var inReadBatch = false
    @exclusivity(unchecked) private var pendingRead = false
    @exclusivity(unchecked) private var closing = false
    /// A GOAWAY asked for after a stream's answer (ConnectionControl.goAwayAfterAnswer): sent when
    /// that stream closes.
    @exclusivity(unchecked) private var goAwayAfterStream: (stream: Int32, errorCode: UInt32, debugData: [UInt8])?
    /// The first halves of resumed answers still running, by stream: cancelled when their stream
    /// closes first (the client reset it) or the connection goes, so no work outlives its sender.
    @exclusivity(unchecked) private var resumedWork: [Int32: Task<Void, Never>] = [:]
    private let lenientFieldWhitespace: Bool
    /// Called once, when the first bytes (the client preface) were accepted by nghttp2.
    @exclusivity(unchecked) private var prefaceReceived: (() -> Void)?
    let storage = ConnectionStorage()
    let afterAnswers: AfterAnswerQueue

    init(
        responder: any HTTPResponder, info: ConnectionInfo, settings: HTTP2Settings, maxBodySize: Int, idleGoAwayDebugData: [UInt8],
        lenientFieldWhitespace: Bool = false, lane: AnswerLane? = nil, prefaceReceived: (() -> Void)? = nil
    ) {
        afterAnswers = AfterAnswerQueue(lane: lane)
        self.responder = responder
        self.info = info
        self.settings = settings
        self.maxBodySize = maxBodySize
        self.idleGoAwayDebugData = idleGoAwayDebugData
        self.lenientFieldWhitespace = lenientFieldWhitespace
        self.prefaceReceived = prefaceReceived
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        connection = NGHTTP2Connection(settings: settings, maxBodySize: maxBodySize, lenientFieldWhitespace: lenientFieldWhitespace, delegate: self)
        responder.connectionOpened(info)
        if context.channel.isActive {
            flushOutput()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        teardown()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        flushOutput()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        teardown()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let connection else { return }
        let buffer = unwrapInboundIn(data)
        inReadBatch = true
        let result = buffer.withUnsafeReadableBytes { connection.receive($0) }
        switch result {
        case .ok:
            if let prefaceReceived, connection.prefaceSeen {
                self.prefaceReceived = nil
                prefaceReceived()
            }
            return
        case .notHTTP2:
            inReadBatch = false
            context.close(promise: nil)
        case .flooded:
            responder.transportEvent(.http2Flood, connection: info)
            closing = true
            inReadBatch = false
            flushOutput()
            context.close(promise: nil)
        case .fatal:
            responder.transportEvent(.http2ProtocolError, connection: info)
            closing = true
            inReadBatch = false
            flushOutput()
            context.close(promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        inReadBatch = false
        flushOutput()
    }

    func read(context: ChannelHandlerContext) {
        // Back-pressure: read no more while the client does not take what we write.
        if context.channel.isWritable {
            context.read()
        } else {
            pendingRead = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, pendingRead {
            pendingRead = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            goAway(errorCode: .noError, debugData: [], afterStream: nil)
        } else if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .all {
            if (connection?.openStreamCount ?? 0) == 0 {
                responder.transportEvent(.idleTimeout, connection: info)
                goAway(errorCode: .noError, debugData: idleGoAwayDebugData, afterStream: nil)
            }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: NGHTTP2ConnectionDelegate

    func requestReady(_ stream: NGHTTP2Stream) {
        guard let context, let connection else { return }
        let request = stream.takeRequest()
        let streamID = stream.id
        let requestContext = RequestContext(connection: info, control: ConnectionControl(target: self, stream: streamID))
        handle(responder.respond(to: request, context: requestContext), streamID: streamID, context: context, connection: connection)
        if !inReadBatch {
            flushOutput()
        }
    }

    /// What the responder answered for `streamID`, now or later.
    private func handle(_ result: ResponderResult, streamID: Int32, context: ChannelHandlerContext, connection: NGHTTP2Connection) {
        switch result {
        case .response(let response):
            connection.submitResponse(streamID: streamID, response: response)
        case .resetStream(let code):
            connection.submitReset(streamID: streamID, errorCode: code.rawValue)
        case .stream(_, let start):
            refuseStream(streamID: streamID, start: start, context: context)
        case .delayed(let response, let delay, let answered):
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            loop.scheduleTask(in: TimeAmount(delay)) {
                answered?()
                handler.value.submitLate(.response(response), streamID: streamID, loop: loop)
            }
        case .deferred(let deferred):
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            deferred.whenComplete { completion in
                loop.execute { handler.value.submitLate(completion, streamID: streamID, loop: loop) }
            }
        case .resumed(let resumption):
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            resumedWork[streamID] = Task {
                await resumption.work()
                loop.execute { handler.value.resume(resumption, streamID: streamID) }
            }
        }
    }

    /// The second half of a resumed answer, on the event loop.
    private func resume(_ resumption: ResponderResumption, streamID: Int32) {
        resumedWork[streamID] = nil
        guard let context, let connection else { return }
        let requestContext = RequestContext(connection: info, control: ConnectionControl(target: self, stream: streamID))
        handle(resumption.respond(requestContext), streamID: streamID, context: context, connection: connection)
        scheduleFlush()
    }

    /// A delayed or deferred answer, on the event loop.
    private func submitLate(_ completion: DeferredResponse.Completion, streamID: Int32, loop: any EventLoop) {
        guard let connection, let context else {
            // The connection is gone: a stream's producer still gets its (closed) writer.
            if case .stream(_, let start) = completion { start(.closed(on: loop)) }
            return
        }
        switch completion {
        case .response(let response):
            connection.submitResponse(streamID: streamID, response: response)
        case .stream(_, let start):
            refuseStream(streamID: streamID, start: start, context: context)
        case .failure:
            connection.submitReset(streamID: streamID, errorCode: HTTP2ErrorCode.internalError.rawValue)
        }
        scheduleFlush()
    }

    /// Streamed bodies are not served over HTTP/2: the producer starts on a closed writer, so it
    /// stops at once and gives back whatever it took (an event-stream subscriber slot).
    private func refuseStream(streamID: Int32, start: @Sendable (ResponseBodyWriter) -> Void, context: ChannelHandlerContext) {
        start(.closed(on: context.eventLoop))
        connection?.submitResponse(
            streamID: streamID,
            response: .json(
                status: 505,
                #"{"error":"this endpoint streams its answer over HTTP/1.1 only; connect with HTTP/1.1 (curl --http1.1, a browser's EventSource)"}"#
            ))
    }

    func streamClosed(_ streamID: Int32, errorCode: UInt32) {
        resumedWork.removeValue(forKey: streamID)?.cancel()
        // (Called while nghttp2 packs output: the GOAWAY queued here goes out in the same drain.)
        if let pending = goAwayAfterStream, pending.stream == streamID {
            goAwayAfterStream = nil
            connection?.submitGoAway(errorCode: pending.errorCode, debugData: pending.debugData)
        }
    }

    func limitExceeded(_ limit: RequestLimit) {
        switch limit {
        case .headerListSize: responder.transportEvent(.headerListTooLarge, connection: info)
        case .bodySize: responder.transportEvent(.bodyTooLarge, connection: info)
        }
    }

    func invalidFrameReceived(_ streamID: Int32, error: Int32) {
        responder.transportEvent(.http2InvalidStream, connection: info)
    }

    func streamRefused(_ streamID: Int32) {
        responder.transportEvent(.http2StreamRefused, connection: info)
    }

    // MARK: ConnectionControlTarget

    func setMaxConcurrentStreams(_ value: UInt32) {
        connection?.submitMaxConcurrentStreams(value)
        scheduleFlush()
    }

    var currentMaxConcurrentStreams: UInt32 {
        connection?.maxConcurrentStreams ?? settings.maxConcurrentStreams
    }

    func goAway(errorCode: HTTP2ErrorCode, debugData: [UInt8], afterStream stream: Int32?) {
        guard let connection, !closing else { return }
        closing = true
        if let stream, connection.isOpen(stream) {
            goAwayAfterStream = (stream, errorCode.rawValue, debugData)
            return
        }
        connection.submitGoAway(errorCode: errorCode.rawValue, debugData: debugData)
        scheduleFlush()
    }

    // MARK: Output

    private func scheduleFlush() {
        if !inReadBatch {
            flushOutput()
        }
    }

    /// Drains nghttp2's output into one buffer and writes it with one flush; closes the channel
    /// when the session is done (GOAWAY sent and no stream left). Then runs the work the answers
    /// left (ConnectionControl.afterAnswer): their client may already be reading them.
    private func flushOutput() {
        defer { afterAnswers.run() }
        guard let context, let connection, context.channel.isActive else { return }
        var buffer = context.channel.allocator.buffer(capacity: 4096)
        let healthy = connection.drainOutput(into: &buffer)
        if !closing, !connection.wantsToRead {
            // nghttp2 answered a connection error itself (GOAWAY sent, reading stopped).
            closing = true
            responder.transportEvent(.http2ProtocolError, connection: info)
        }
        let done = !healthy || connection.isFinished || (closing && connection.openStreamCount == 0)
        if buffer.readableBytes > 0 {
            if done {
                // Close only once the last frames (GOAWAY, final responses) are on the wire.
                context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
            } else {
                context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            }
        } else if done {
            context.close(promise: nil)
        }
    }

    private func teardown() {
        afterAnswers.run()
        for work in resumedWork.values { work.cancel() }
        resumedWork = [:]
        guard let connection else { return }
        connection.close()
        self.connection = nil
        responder.connectionClosed(info)
    }
}

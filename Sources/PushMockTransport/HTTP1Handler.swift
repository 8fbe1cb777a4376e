import NIOCore
import NIOHTTP1

/// The HTTP/1.1 side of a connection: aggregates a request (body up to the cap, the rest
/// discarded), asks the same responder, writes the response. Keep-alive and pipelining come from
/// NIOHTTP1's server pipeline.
final class HTTP1Handler: ChannelInboundHandler, ConnectionControlTarget {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let responder: any HTTPResponder
    private let info: ConnectionInfo
    private let maxBodySize: Int
    private let maxHeaderListSize: Int
    /// Called once, when the first request head is complete (the protocol deadline ends).
    private var firstHead: (() -> Void)?
    /// A limit was broken and answered: the rest of the connection's input is ignored and the
    /// connection closes after the answer.
    private var refusing = false
    private var request: HTTPServerRequest?
    private var keepAlive = true
    private var closeAfterResponse = false
    private var context: ChannelHandlerContext?
    private var streaming: ResponseBodyWriter?
    private var isHeadRequest = false
    /// A deferred answer (a long-poll wait, a delay) is pending: the connection is not idle.
    private var awaitingResponse = false
    /// The first half of a resumed answer still running: cancelled when the client goes first.
    private var resumedWork: Task<Void, Never>?
    let storage = ConnectionStorage()
    let afterAnswers: AfterAnswerQueue

    init(
        responder: any HTTPResponder, info: ConnectionInfo, maxBodySize: Int, maxHeaderListSize: Int = 8000, lane: AnswerLane? = nil,
        firstHead: (() -> Void)? = nil
    ) {
        afterAnswers = AfterAnswerQueue(lane: lane)
        self.responder = responder
        self.info = info
        self.maxBodySize = maxBodySize
        self.maxHeaderListSize = maxHeaderListSize
        self.firstHead = firstHead
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        responder.connectionOpened(info)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        afterAnswers.run()
        resumedWork?.cancel()
        resumedWork = nil
        streaming?.closed()
        streaming = nil
        responder.connectionClosed(info)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let firstHead {
                self.firstHead = nil
                firstHead()
            }
            // The same header-list limit as HTTP/2 (name + value + 32 per field, RFC 9113 §6.5.2).
            var size = 0
            for (name, value) in head.headers {
                size += name.utf8.count + value.utf8.count + 32
            }
            if size > maxHeaderListSize {
                refuse(.headerListSize(limit: maxHeaderListSize), head: head, context: context)
                return
            }
            var headers = HTTPHeaderList(capacity: head.headers.count)
            var authority: String?
            for (name, value) in head.headers {
                let lowered = name.lowercased()
                if lowered == "host", authority == nil {
                    authority = value
                }
                headers.append(lowered, value)
            }
            keepAlive = head.isKeepAlive
            isHeadRequest = head.method == .HEAD
            request = HTTPServerRequest(
                method: head.method.rawValue,
                scheme: info.isTLS ? "https" : "http",
                authority: authority,
                path: head.uri,
                headers: headers
            )
        case .body(let chunk):
            guard var pending = request else { return }
            if pending.body.count + chunk.readableBytes > maxBodySize {
                // Answered now, before the body ends, and the connection closes: an endless
                // chunked body is never read to its end (issue 10: 13.8 GB in 30 s).
                pending.limitExceeded = .bodySize(limit: maxBodySize)
                pending.body = []
                request = nil
                responder.transportEvent(.bodyTooLarge, connection: info)
                refusing = true
                closeAfterResponse = true
                respond(to: pending, context: context)
                return
            }
            request = nil  // keep the body uniquely referenced while appending
            pending.body.append(contentsOf: chunk.readableBytesView)
            request = pending
        case .end:
            guard let request, streaming == nil else { return }
            self.request = nil
            respond(to: request, context: context)
        }
    }

    /// Answers a request head that broke a limit without asking for its body, then closes.
    private func refuse(_ limit: RequestLimit, head: HTTPRequestHead, context: ChannelHandlerContext) {
        responder.transportEvent(.headerListTooLarge, connection: info)
        refusing = true
        closeAfterResponse = true
        request = nil
        var headers = HTTPHeaderList(capacity: 1)
        if let host = head.headers.first(name: "host") { headers.append("host", host) }
        let refused = HTTPServerRequest(
            method: head.method.rawValue, scheme: info.isTLS ? "https" : "http", authority: headers["host"], path: head.uri,
            headers: headers, limitExceeded: limit
        )
        respond(to: refused, context: context)
    }

    private func respond(to request: HTTPServerRequest, context: ChannelHandlerContext) {
        let requestContext = RequestContext(connection: info, control: ConnectionControl(target: self))
        handle(responder.respond(to: request, context: requestContext), context: context)
        afterAnswers.run()
    }

    /// What the responder answered, now or later.
    private func handle(_ result: ResponderResult, context: ChannelHandlerContext) {
        switch result {
        case .response(let response):
            write(response, context: context)
        case .resetStream:
            context.close(promise: nil)
        case .stream(let response, let start):
            startStream(response, start: start, context: context)
        case .delayed(let response, let delay, let answered):
            awaitingResponse = true
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            loop.scheduleTask(in: TimeAmount(delay)) {
                answered?()
                handler.value.finishLate(.response(response), loop: loop)
            }
        case .deferred(let deferred):
            awaitingResponse = true
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            deferred.whenComplete { completion in
                loop.execute { handler.value.finishLate(completion, loop: loop) }
            }
        case .resumed(let resumption):
            awaitingResponse = true
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            resumedWork = Task {
                await resumption.work()
                loop.execute { handler.value.resume(resumption) }
            }
        }
    }

    /// The second half of a resumed answer, on the event loop.
    private func resume(_ resumption: ResponderResumption) {
        awaitingResponse = false
        resumedWork = nil
        guard let context, context.channel.isActive else { return }
        let requestContext = RequestContext(connection: info, control: ConnectionControl(target: self))
        handle(resumption.respond(requestContext), context: context)
        afterAnswers.run()
    }

    /// A delayed or deferred answer, on the event loop.
    private func finishLate(_ completion: DeferredResponse.Completion, loop: any EventLoop) {
        awaitingResponse = false
        guard let context, context.channel.isActive else {
            // The client left first: a stream's producer still gets its (closed) writer.
            if case .stream(_, let start) = completion { start(.closed(on: loop)) }
            return
        }
        switch completion {
        case .response(let response): write(response, context: context)
        case .stream(let response, let start): startStream(response, start: start, context: context)
        case .failure: context.close(promise: nil)
        }
    }

    private func write(_ response: HTTPServerResponse, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let response = response.final
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status))
        for field in response.allHeaders {
            head.headers.add(name: field.name, value: field.value)
        }
        head.headers.replaceOrAdd(name: "content-length", value: String(response.body?.count ?? 0))
        let close = !keepAlive || closeAfterResponse
        if close {
            head.headers.replaceOrAdd(name: "connection", value: "close")
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body = response.body, !body.isEmpty, !isHeadRequest {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if close {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    /// Writes the head (chunked, no content-length), then hands a writer to `start`; the connection
    /// closes when the stream finishes.
    private func startStream(_ response: HTTPServerResponse, start: @Sendable (ResponseBodyWriter) -> Void, context: ChannelHandlerContext) {
        let response = response.final
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status))
        for field in response.allHeaders {
            head.headers.add(name: field.name, value: field.value)
        }
        head.headers.replaceOrAdd(name: "transfer-encoding", value: "chunked")
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body = response.body, !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.flush()
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let writer = ResponseBodyWriter(eventLoop: context.eventLoop) { chunk, written in
            let context = bound.value
            guard context.channel.isActive else { return written() }
            if let chunk {
                context.writeAndFlush(handler.value.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: chunk)))))
                    .whenComplete { _ in written() }
            } else {
                written()
                context.writeAndFlush(handler.value.wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
        }
        streaming = writer
        start(writer)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Idle past the idle timeout (a content-length larger than the body sent, a client that
        // went quiet): closed. A stream in progress (SSE) writes keep-alives, so it is not idle.
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .all, streaming == nil, !awaitingResponse {
            responder.transportEvent(.idleTimeout, connection: info)
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            responder.transportEvent(.http1ParseError, connection: info)
        }
        context.close(promise: nil)
    }

    // MARK: ConnectionControlTarget (HTTP/1.1 has no streams or GOAWAY)

    func setMaxConcurrentStreams(_ value: UInt32) {}

    var currentMaxConcurrentStreams: UInt32 { 1 }

    func goAway(errorCode: HTTP2ErrorCode, debugData: [UInt8], afterStream: Int32?) {
        closeAfterResponse = true
    }
}

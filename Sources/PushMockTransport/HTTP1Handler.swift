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
    private var request: HTTPServerRequest?
    private var keepAlive = true
    private var closeAfterResponse = false
    private var context: ChannelHandlerContext?
    private var streaming: ResponseBodyWriter?
    private var isHeadRequest = false
    let storage = ConnectionStorage()

    init(responder: any HTTPResponder, info: ConnectionInfo, maxBodySize: Int) {
        self.responder = responder
        self.info = info
        self.maxBodySize = maxBodySize
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        responder.connectionOpened(info)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        streaming?.closed()
        streaming = nil
        responder.connectionClosed(info)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
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
            guard request != nil, request?.limitExceeded == nil else { return }
            if request!.body.count + chunk.readableBytes > maxBodySize {
                request!.limitExceeded = .bodySize(limit: maxBodySize)
                request!.body = []
            } else {
                request!.body.append(contentsOf: chunk.readableBytesView)
            }
        case .end:
            guard let request, streaming == nil else { return }
            self.request = nil
            respond(to: request, context: context)
        }
    }

    private func respond(to request: HTTPServerRequest, context: ChannelHandlerContext) {
        let requestContext = RequestContext(connection: info, eventLoop: context.eventLoop, control: ConnectionControl(target: self))
        switch responder.respond(to: request, context: requestContext) {
        case .response(let response):
            write(response, context: context)
        case .resetStream:
            context.close(promise: nil)
        case .stream(let response, let start):
            startStream(response, start: start, context: context)
        case .deferred(let future):
            future.hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
                switch result {
                case .success(let response): self.write(response, context: context)
                case .failure: context.close(promise: nil)
                }
            }
        }
    }

    private func write(_ response: HTTPServerResponse, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status))
        for field in response.headers {
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
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status))
        for field in response.headers {
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
        let writer = ResponseBodyWriter(eventLoop: context.eventLoop) { chunk in
            let context = bound.value
            guard context.channel.isActive else { return }
            if let chunk {
                context.writeAndFlush(handler.value.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: chunk)))), promise: nil)
            } else {
                context.writeAndFlush(handler.value.wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
        }
        streaming = writer
        start(writer)
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

    func goAway(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {
        closeAfterResponse = true
    }
}

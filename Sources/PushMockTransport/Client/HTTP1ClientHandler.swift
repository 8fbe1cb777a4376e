import NIOCore
import NIOHTTP1

/// One HTTP/1.1 client connection: one request at a time, answered whole (status, headers, body
/// up to a limit). It runs on its channel's event loop; ``send(_:path:promise:)`` must be called
/// there, when no other request is under way.
final class HTTP1ClientHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private var context: ChannelHandlerContext?
    private let host: String
    private let maxBodySize: Int
    private var pending: EventLoopPromise<ClientResponse>?
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    /// Whether the connection may carry another request after this one.
    private(set) var reusable = true

    init(host: String, maxBodySize: Int) {
        self.host = host
        self.maxBodySize = maxBodySize
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(.failure(HTTPClientFailure("the connection closed")))
        self.context = nil
    }

    /// Sends `request`; `promise` gets its answer.
    func send(_ request: ClientRequest, path: String, promise: EventLoopPromise<ClientResponse>) {
        guard let context, context.channel.isActive, reusable, pending == nil else {
            promise.fail(HTTPClientFailure("the connection closed"))
            return
        }
        pending = promise
        head = nil
        body = []
        tooLarge = false
        var headers = HTTPHeaders()
        if !request.headers.contains(where: { $0.name.lowercased() == "host" }) { headers.add(name: "host", value: host) }
        for field in request.headers { headers.add(name: field.name, value: field.value) }
        if let body = request.body, !headers.contains(name: "content-length") {
            headers.add(name: "content-length", value: String(body.count))
        }
        let method = HTTPMethod(rawValue: request.method)
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers))), promise: nil)
        if let body = request.body, !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Gives up on the request under way (its promise is the caller's) and closes the connection.
    func cancel() {
        pending = nil
        reusable = false
        context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received):
            // An interim answer (1xx) is followed by the final one, which alone counts.
            guard received.status.code >= 200 else { return }
            head = received
            if !received.isKeepAlive { reusable = false }
        case .body(let chunk):
            if body.count + chunk.readableBytes > maxBodySize {
                tooLarge = true
            } else {
                body.append(contentsOf: chunk.readableBytesView)
            }
        case .end:
            guard let head else { return }
            if tooLarge {
                reusable = false
                finish(.failure(HTTPClientFailure("the answer's body is over \(maxBodySize) bytes")))
                context.close(promise: nil)
                return
            }
            let headers = head.headers.map { (name: $0.name.lowercased(), value: $0.value) }
            finish(.success(ClientResponse(status: Int(head.status.code), headers: headers, body: body)))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        reusable = false
        finish(.failure(HTTPClientFailure("the server closed the connection before it answered")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        reusable = false
        finish(.failure(HTTPClientFailure("the connection failed: \(error)")))
        context.close(promise: nil)
    }

    private func finish(_ result: Result<ClientResponse, any Error>) {
        guard let promise = pending else { return }
        pending = nil
        head = nil
        body = []
        promise.completeWith(result)
    }
}

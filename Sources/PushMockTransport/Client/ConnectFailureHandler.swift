import NIOCore

/// Fails a connection's `ready` promise with what went wrong before it was ready (TLS, a close).
final class ConnectFailureHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    private let ready: EventLoopPromise<HTTPClientPool.Connection>
    private let authority: String

    init(ready: EventLoopPromise<HTTPClientPool.Connection>, authority: String) {
        self.ready = ready
        self.authority = authority
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        ready.fail(HTTPClientFailure("TLS with \(authority) failed: \(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ready.fail(HTTPClientFailure("\(authority) closed the connection before it was ready"))
        context.fireChannelInactive()
    }
}

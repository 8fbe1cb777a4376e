import NIOCore
import NIOSSL

/// Sits right after the TLS handler: once the listener is shutting down, a close from the
/// handlers above (an idle HTTP/1.1 connection, an HTTP/2 connection whose GOAWAY is out and whose
/// last stream ended) skips TLS's `close_notify` exchange. NIOSSL waits up to 5 s for the client's
/// `close_notify`, and a client that is not reading (an idle pooled connection of requests or
/// httpx) never sends it: each such connection held a shutdown 5 s. The client sees the
/// connection end, as when a server drops an idle connection.
final class QuiescingCloseHandler: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    private var quiescing = false

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { quiescing = true }
        context.fireUserInboundEventTriggered(event)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard quiescing, mode == .all, let tls = try? context.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self) else {
            context.close(mode: mode, promise: promise)
            return
        }
        // The TLS handler's own context passes the close on below it.
        tls.close(mode: mode, promise: promise)
    }
}

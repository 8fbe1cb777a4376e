import NIOCore

/// Fires `IdleStateHandler.IdleStateEvent.all` when a connection has neither read nor sent
/// anything for `timeout`, as NIO's `IdleStateHandler(allTimeout:)` does, and again after every
/// further `timeout` of silence. Unlike that handler it makes no promise per write (it allocated one
/// on every response to learn when the write completed, with its future, its callback and their
/// release: about 2 500 instructions a response when one request is in flight at a time): what was
/// written counts as sent when it is flushed, once per read batch. Reads count when a read batch
/// ends, as there.
///
/// Times are the event loop's (`EventLoop.now`: the clock, or an embedded loop's own time in
/// tests). Only the channel's event loop touches the handler, never with overlapping accesses, so
/// its fields skip the runtime's exclusivity checks.
final class ConnectionIdleHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private let timeout: TimeAmount
    @exclusivity(unchecked) private var reading = false
    @exclusivity(unchecked) private var lastActivity = NIODeadline.distantPast
    @exclusivity(unchecked) private var check: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if reading {
            lastActivity = context.eventLoop.now
            reading = false
        }
        context.fireChannelReadComplete()
    }

    func flush(context: ChannelHandlerContext) {
        lastActivity = context.eventLoop.now
        context.flush()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard check == nil else { return }
        lastActivity = context.eventLoop.now
        schedule(context, at: lastActivity + timeout)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        check = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) { self.fire(context) }
    }

    /// The check at the deadline: silent for `timeout` (and not inside a read batch), the event
    /// and the next check a `timeout` later; otherwise the next check `timeout` after the last
    /// activity.
    private func fire(_ context: ChannelHandlerContext) {
        guard context.channel.isActive else {
            check = nil
            return
        }
        let now = context.eventLoop.now
        if reading {
            schedule(context, at: now + timeout)
        } else if now - lastActivity >= timeout {
            schedule(context, at: now + timeout)
            context.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.all)
        } else {
            schedule(context, at: lastActivity + timeout)
        }
    }
}

import NIOCore
import NIOEmbedded
import Testing

@testable import PushMockTransport

/// The idle handler fires NIO's `.all` idle event after a timeout without reads or flushes, on the
/// event loop's own time (an embedded loop here: time moves only when the test moves it).
@Suite("The connection idle handler")
struct ConnectionIdleHandlerTests {
    /// Counts the idle events that reach the end of the pipeline.
    final class IdleEvents: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var count = 0
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .all { count += 1 }
        }
    }

    static func channel(timeout: TimeAmount = .seconds(10)) throws -> (EmbeddedChannel, IdleEvents, ConnectionIdleHandler) {
        let events = IdleEvents()
        let idle = ConnectionIdleHandler(timeout: timeout)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([idle, events])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, events, idle)
    }

    @Test("silence for the timeout fires the event, and every further timeout of silence again")
    func silence() throws {
        let (channel, events, _) = try Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(events.count == 0)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(events.count == 1)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(events.count == 1)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(events.count == 2)
    }

    @Test("a read batch puts the event off until a timeout after it")
    func readPutsOff() throws {
        let (channel, events, _) = try Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(6))
        channel.pipeline.fireChannelRead(ByteBuffer(string: "x"))
        channel.pipeline.fireChannelReadComplete()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(events.count == 0, "15 s in, 9 s after the read")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(events.count == 1)
    }

    @Test("a read batch still going at the deadline is not silence")
    func readInProgress() throws {
        let (channel, events, _) = try Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        channel.pipeline.fireChannelRead(ByteBuffer(string: "x"))  // no read-complete yet
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(events.count == 0)
        channel.pipeline.fireChannelReadComplete()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(events.count == 0, "the batch ended 10 s in: silent since then")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(events.count == 1)
    }

    @Test("a flush counts as activity; a write not flushed does not")
    func flushPutsOff() throws {
        let (channel, events, _) = try Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        channel.write(ByteBuffer(string: "unflushed"), promise: nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(6))
        #expect(events.count == 1, "an unflushed write is not sent")
        channel.writeAndFlush(ByteBuffer(string: "y"), promise: nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(events.count == 1, "9 s after the flush")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(events.count == 2)
    }

    @Test("removed, or its channel closed, it fires no more")
    func stops() throws {
        let (channel, events, idle) = try Self.channel()
        try channel.pipeline.syncOperations.removeHandler(idle).wait()
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(events.count == 0)

        let (closing, closingEvents, _) = try Self.channel()
        _ = try closing.finish()
        closing.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(closingEvents.count == 0)
    }

    @Test("added to a channel not yet active, it starts counting when the channel becomes active")
    func startsWhenActive() throws {
        let events = IdleEvents()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([ConnectionIdleHandler(timeout: .seconds(10)), events])
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(events.count == 0, "not active: nothing counted")
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(events.count == 0)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(events.count == 1)
    }
}

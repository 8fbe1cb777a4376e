import Foundation
package import NIOCore
import NIOHPACK
package import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A frame-level HTTP/2 client built on swift-nio-http2 (an implementation independent of
/// nghttp2), for what a high-level client hides: SETTINGS, GOAWAY debug data, HEADERS-only
/// responses, stream concurrency.
package final class H2FrameClient: Sendable {
    package let channel: any Channel
    private let log: FrameLog

    private init(channel: any Channel, log: FrameLog) {
        self.channel = channel
        self.log = log
    }

    /// Connects over TLS (offering `alpn`; empty offers none) or cleartext h2c.
    package static func connect(port: Int, tls: Bool, alpn: [String] = ["h2"], serverName: String? = "localhost") async throws -> H2FrameClient {
        let log = FrameLog()
        let sslContext = tls ? try NIOSSLContext(configuration: TestTLS.clientConfiguration(alpn: alpn)) : nil
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let sslContext {
                        try sync.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                    }
                    try sync.addHandler(NIOHTTP2Handler(mode: .client))
                    try sync.addHandler(FrameRecorder(log: log))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return H2FrameClient(channel: channel, log: log)
    }

    /// Sends a request on `streamID` (odd, increasing).
    package func send(
        streamID: Int, method: String = "POST", path: String, authority: String = "localhost", headers: [(String, String)] = [], body: [UInt8]? = nil
    ) {
        var fields: [(String, String)] = [(":method", method), (":path", path), (":scheme", "https"), (":authority", authority)]
        fields += headers
        let id = HTTP2StreamID(streamID)
        channel.write(HTTP2Frame(streamID: id, payload: .headers(.init(headers: HPACKHeaders(fields), endStream: body == nil))), promise: nil)
        if let body {
            channel.write(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(ByteBuffer(bytes: body)), endStream: true))), promise: nil)
        }
        channel.flush()
    }

    /// Every frame received so far.
    package var frames: [HTTP2Frame] { log.frames }

    /// Waits for the first received frame matching `predicate`.
    package func waitFor(
        _ what: String, timeout: Duration = TestDeadline.hang, _ predicate: @Sendable (HTTP2Frame) -> Bool
    ) async throws -> HTTP2Frame {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let frame = log.frames.first(where: predicate) {
                return frame
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("timed out waiting for \(what); received: \(log.frames.map { "\($0.streamID):\($0.payload)" })")
    }

    /// Waits for the response HEADERS on `streamID` and returns its `:status`.
    package func status(of streamID: Int) async throws -> String? {
        let frame = try await waitFor("response headers on stream \(streamID)") {
            if case .headers = $0.payload { return $0.streamID == HTTP2StreamID(streamID) }
            return false
        }
        guard case .headers(let headers) = frame.payload else { return nil }
        return headers.headers.first(name: ":status")
    }

    /// Waits for the stream to end (END_STREAM or RST_STREAM) and returns its frames.
    package func completedStream(_ streamID: Int) async throws -> [HTTP2Frame] {
        _ = try await waitFor("end of stream \(streamID)") { frame in
            guard frame.streamID == HTTP2StreamID(streamID) else { return false }
            switch frame.payload {
            case .headers(let headers): return headers.endStream
            case .data(let data): return data.endStream
            case .rstStream: return true
            default: return false
            }
        }
        return log.frames.filter { $0.streamID == HTTP2StreamID(streamID) }
    }

    package func close() async {
        try? await channel.close()
    }
}

package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

package final class FrameLog: Sendable {
    private let storage = Mutex<[HTTP2Frame]>([])
    package var frames: [HTTP2Frame] { storage.withLock { $0 } }
    package func append(_ frame: HTTP2Frame) { storage.withLock { $0.append(frame) } }
}

private final class FrameRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    package let log: FrameLog
    package init(log: FrameLog) { self.log = log }
    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        log.append(unwrapInboundIn(data))
    }
    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Connection errors show up as GOAWAY frames or as the channel closing.
    }
}

/// Collects raw bytes from a plain TCP connection (for malformed-input tests).
package final class RawClient: Sendable {
    package let channel: any Channel
    private let received = Mutex<[UInt8]>([])

    private init(channel: any Channel) { self.channel = channel }

    package static func connect(port: Int) async throws -> RawClient {
        let box = Mutex<RawClient?>(nil)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawCollector { bytes in box.withLock { $0?.append(bytes) } })
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let client = RawClient(channel: channel)
        box.withLock { $0 = client }
        return client
    }

    package func append(_ bytes: [UInt8]) { received.withLock { $0 += bytes } }
    package var bytes: [UInt8] { received.withLock { $0 } }

    package func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Waits until the server closes the connection, returning all bytes it sent.
    package func waitForClose(timeout: Duration = TestDeadline.hang) async throws -> [UInt8] {
        // A future's get() ignores cancellation: the task group would wait for it forever if the
        // server never closed. So at the bound this side closes the channel (which completes the
        // future), and the wait fails instead of hanging the suite.
        let closed = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await self.channel.closeFuture.get()
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            let closed = try await group.next() ?? false
            group.cancelAll()
            if !closed { try? await self.channel.close() }
            return closed
        }
        guard closed else { throw TestFailure("server did not close the connection within \(timeout)") }
        return self.bytes
    }
}

private final class RawCollector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    package let sink: ([UInt8]) -> Void
    package init(sink: @escaping ([UInt8]) -> Void) { self.sink = sink }
    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sink(Array(unwrapInboundIn(data).readableBytesView))
    }
}

/// HTTP/2 frame bytes, built by hand for malformed-input tests.
package enum RawFrame {
    package static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    package static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, payload: [UInt8] = []) -> [UInt8] {
        let length = payload.count
        return [
            UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
            UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF),
        ] + payload
    }

    package static let emptySettings = frame(type: 0x4)

    /// Finds GOAWAY frames in server output and returns their error codes and debug data.
    package static func goAways(in bytes: [UInt8]) -> [(errorCode: UInt32, debug: [UInt8])] {
        var result: [(UInt32, [UInt8])] = []
        var index = 0
        while index + 9 <= bytes.count {
            let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            let type = bytes[index + 3]
            let end = index + 9 + length
            guard end <= bytes.count else { break }
            if type == 0x7, length >= 8 {
                let p = index + 9
                let code = UInt32(bytes[p + 4]) << 24 | UInt32(bytes[p + 5]) << 16 | UInt32(bytes[p + 6]) << 8 | UInt32(bytes[p + 7])
                result.append((code, Array(bytes[(p + 8)..<end])))
            }
            index = end
        }
        return result
    }
}

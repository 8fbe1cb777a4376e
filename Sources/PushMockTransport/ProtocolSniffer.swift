import NIOCore
import NIOSSL

/// Tells HTTP/2 from HTTP/1.1 by the first bytes: the HTTP/2 client connection preface means
/// HTTP/2 with prior knowledge (h2c, or TLS without ALPN as aioapns and Pushy do), anything else
/// HTTP/1.1. Buffers only until it can tell (at most 24 bytes), then removes itself.
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private var buffered: ByteBuffer?
    private let install: (ChannelHandlerContext, _ isHTTP2: Bool) throws -> Void

    init(install: @escaping (ChannelHandlerContext, _ isHTTP2: Bool) throws -> Void) {
        self.install = install
    }

    /// Whether `bytes` decide the protocol: `true` HTTP/2, `false` HTTP/1.1, `nil` not yet.
    static func classify(_ bytes: some Collection<UInt8>) -> Bool? {
        let count = min(bytes.count, preface.count)
        guard bytes.prefix(count).elementsEqual(preface.prefix(count)) else { return false }
        return count == preface.count ? true : nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        let bytes: ByteBuffer
        if var pending = buffered {
            pending.writeBuffer(&incoming)
            bytes = pending
        } else {
            bytes = incoming
        }
        guard let isHTTP2 = Self.classify(bytes.readableBytesView) else {
            buffered = bytes
            return
        }
        buffered = nil
        do {
            try install(context, isHTTP2)
        } catch {
            context.fireErrorCaught(error)
            return
        }
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// The last handler of every connection: closes it on any error nobody handled and reports TLS
/// handshake failures, so bad clients never linger.
final class ConnectionErrorHandler: ChannelInboundHandler {
    typealias InboundIn = Any

    private let onTLSFailure: () -> Void

    init(onTLSFailure: @escaping () -> Void) {
        self.onTLSFailure = onTLSFailure
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOSSLError || error is BoringSSLError {
            onTLSFailure()
        }
        context.close(promise: nil)
    }
}

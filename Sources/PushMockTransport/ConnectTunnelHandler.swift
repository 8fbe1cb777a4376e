import Logging
import NIOCore
import PushMockHTTP

/// Which CONNECT targets a proxy listener tunnels (``ListenerConfiguration/connectProxy``): the
/// tunnel ends at this listener's own TLS and HTTP stack, never at the target. Anything else gets
/// 403 and is logged; the proxy is never open.
public struct ConnectProxyPolicy: Sendable {
    /// Whether `host` (lowercased, without brackets) at `port` is tunnelled.
    public var allows: @Sendable (_ host: String, _ port: Int) -> Bool

    /// Creates a policy.
    public init(allows: @escaping @Sendable (_ host: String, _ port: Int) -> Bool) {
        self.allows = allows
    }
}

/// The first handler of a proxy listener's connection: reads one HTTP/1.1 `CONNECT host:port`
/// request; for an allowed target answers `200 Connection Established` and hands the connection to
/// `tunnel` (which installs TLS and HTTP as on the push port), passing on any bytes already read;
/// for anything else answers 403 (405 for a method other than CONNECT, 400 for garbage) and closes.
final class ConnectTunnelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The most a CONNECT head may take.
    static let maxHeadSize = 8192

    private let policy: ConnectProxyPolicy
    private let logger: Logger
    private let refused: () -> Void
    private let tunnel: (any Channel) throws -> Void
    private var buffered: ByteBuffer?
    private var done = false

    init(policy: ConnectProxyPolicy, logger: Logger, refused: @escaping () -> Void, tunnel: @escaping (any Channel) throws -> Void) {
        self.policy = policy
        self.logger = logger
        self.refused = refused
        self.tunnel = tunnel
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        var bytes = unwrapInboundIn(data)
        if buffered == nil {
            buffered = bytes
        } else {
            buffered!.writeBuffer(&bytes)
        }
        guard let head = buffered, let end = head.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) else {
            if (buffered?.readableBytes ?? 0) > Self.maxHeadSize {
                answer(context: context, status: "431 Request Header Fields Too Large", reason: "CONNECT head over \(Self.maxHeadSize) bytes")
            }
            return
        }
        let headLength = end.upperBound - head.readableBytesView.startIndex
        let text = String(decoding: head.readableBytesView.prefix(headLength), as: UTF8.self)
        let requestLine = text.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            return answer(context: context, status: "400 Bad Request", reason: "not an HTTP/1.1 CONNECT request")
        }
        guard parts[0] == "CONNECT" else {
            return answer(
                context: context, status: "405 Method Not Allowed",
                reason: "\(Self.printable(parts[0])) \(Self.printable(parts[1])): this port only tunnels (CONNECT) to the real push hosts")
        }
        let target = String(parts[1])
        guard let (host, port) = Self.split(target), policy.allows(host, port) else {
            return answer(
                context: context, status: "403 Forbidden",
                reason: "CONNECT \(Self.printable(target)): PushMock tunnels only to the real push hosts it stands in for, and never forwards")
        }
        done = true
        var rest = head
        rest.moveReaderIndex(forwardBy: headLength)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n")), promise: nil)
        let channel = context.channel
        do {
            try tunnel(channel)
        } catch {
            logger.warning("CONNECT tunnel could not be set up", metadata: ["target": "\(Self.printable(target))", "error": "\(error)"])
            context.close(promise: nil)
            return
        }
        buffered = nil
        if rest.readableBytes > 0 {
            // The TLS handlers come after this one: what the client sent with its CONNECT goes to them.
            context.fireChannelRead(wrapInboundOut(rest))
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func answer(context: ChannelHandlerContext, status: String, reason: String) {
        done = true
        buffered = nil
        refused()
        logger.notice(
            "proxy request refused",
            metadata: ["status": "\(status)", "reason": "\(reason)", "peer": "\(context.remoteAddress.map { "\($0)" } ?? "?")"])
        // The reason holds only printable ASCII (a client's bytes went through `printable`); quotes
        // and backslashes are escaped for JSON.
        let escaped = reason.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        let body = #"{"reason":"\#(escaped)"}"# + "\n"
        let response =
            "HTTP/1.1 \(status)\r\ncontent-type: application/json\r\ncontent-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n" + body
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// What a client sent, safe for a log line and a JSON string (`PrintableText`).
    static func printable(_ text: some StringProtocol) -> String { PrintableText.escaped(text) }

    /// `host:port` or `[v6]:port` → lowercased host without brackets and the port.
    static func split(_ target: String) -> (String, Int)? {
        guard let colon = target.lastIndex(of: ":"), let port = Int(target[target.index(after: colon)...]), (1...65535).contains(port) else {
            return nil
        }
        var host = target[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { return nil }
        return (host.lowercased(), port)
    }
}

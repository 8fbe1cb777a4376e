import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOTLS

/// Builds each accepted connection's pipeline:
///
/// - TLS: SNI sniffing → NIOSSL (ALPN `h2`, `http/1.1`) → on `h2` nghttp2, on `http/1.1` NIOHTTP1,
///   with no ALPN the preface sniffer decides.
/// - Cleartext: the preface sniffer decides between h2c (prior knowledge) and HTTP/1.1.
struct ConnectionPipeline: Sendable {
    let configuration: ListenerConfiguration
    let responder: any HTTPResponder
    let sslContext: NIOSSLContext?
    let logger: Logger
    /// Where connections count the work their answers leave, if anywhere.
    var lanes: AnswerLanes?

    /// Per-connection facts gathered before the protocol is known.
    private final class Setup {
        var serverName: String?
        /// Closes the connection unless a protocol handler is installed in time.
        var deadline: Scheduled<Void>?

        /// The protocol is known: the idle timeout takes over from the deadline.
        func protocolChosen() {
            deadline?.cancel()
            deadline = nil
        }
    }

    func configure(_ channel: any Channel) throws {
        guard let policy = configuration.connectProxy else {
            return try configureHTTP(channel)
        }
        // A proxy port: a CONNECT first (within the protocol deadline), then TLS and HTTP as on the push port.
        let deadline = configuration.protocolDeadline.map { limit in
            channel.eventLoop.scheduleTask(in: limit) { [responder] in
                Self.deadlinePassed(channel, responder: responder)
            }
        }
        if let deadline { channel.closeFuture.whenComplete { _ in deadline.cancel() } }
        let connect = ConnectTunnelHandler(
            policy: policy, logger: logger,
            refused: { [responder] in responder.transportEvent(.proxyRefused, connection: nil) },
            tunnel: { channel in
                deadline?.cancel()
                try self.configureHTTP(channel)
            }
        )
        try channel.pipeline.syncOperations.addHandler(connect)
    }

    /// The protocol deadline has passed: the connection is closed, active or not yet. (It can be
    /// not yet active when the event loop was held up past the deadline between accepting the socket
    /// and registering it, as on a loaded machine whose loops other connections keep busy; a
    /// deadline that let such a connection be once let it stay open for good. A connection that
    /// closed first has cancelled its deadline: its close cancels it on the same loop.)
    static func deadlinePassed(_ channel: any Channel, responder: any HTTPResponder) {
        responder.transportEvent(.protocolDeadline, connection: nil)
        channel.close(promise: nil)
    }

    /// TLS (or cleartext) and HTTP, from the first byte of the connection or of a tunnel.
    private func configureHTTP(_ channel: any Channel) throws {
        let sync = channel.pipeline.syncOperations
        let errorHandler = ConnectionErrorHandler { [responder] in
            responder.transportEvent(.tlsHandshakeFailed, connection: nil)
        }
        let setup = Setup()
        if let limit = configuration.protocolDeadline {
            // No ClientHello, a handshake that never ends, no ALPN and no preface: closed after
            // `limit` (issue 10: such sockets were kept forever, even with --idle-timeout).
            setup.deadline = channel.eventLoop.scheduleTask(in: limit) { [responder] in
                Self.deadlinePassed(channel, responder: responder)
            }
            // closeFuture completes on the channel's event loop, where `setup` lives.
            let bound = NIOLoopBound(setup, eventLoop: channel.eventLoop)
            channel.closeFuture.whenComplete { _ in bound.value.deadline?.cancel() }
        }
        guard let sslContext else {
            try sync.addHandler(makeSniffer(channel: channel, setup: setup, alpn: nil, tls: false, before: errorHandler))
            try sync.addHandler(errorHandler)
            return
        }
        let sni = ByteToMessageHandler(
            SNIHandler { result in
                if case .hostname(let name) = result {
                    setup.serverName = name
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            })
        let alpn = ApplicationProtocolNegotiationHandler { result, channel in
            channel.eventLoop.makeCompletedFuture {
                switch result {
                case .negotiated("h2"):
                    try self.installHTTP2(channel: channel, setup: setup, alpn: "h2", tls: true, before: errorHandler)
                case .negotiated(let other):
                    try self.installHTTP1(channel: channel, setup: setup, alpn: other, tls: true, before: errorHandler)
                case .fallback:
                    try channel.pipeline.syncOperations.addHandler(
                        self.makeSniffer(channel: channel, setup: setup, alpn: nil, tls: true, before: errorHandler),
                        position: .before(errorHandler)
                    )
                }
            }
        }
        try sync.addHandler(sni)
        if configuration.requestClientCertificates {
            // Accept whatever the client presents; the responder judges the chain.
            try sync.addHandler(
                NIOSSLServerHandler(
                    context: sslContext,
                    customVerificationCallback: { _, promise in
                        promise.succeed(.certificateVerified)
                    }))
        } else {
            try sync.addHandler(NIOSSLServerHandler(context: sslContext))
        }
        try sync.addHandler(QuiescingCloseHandler())
        try sync.addHandler(alpn)
        try sync.addHandler(errorHandler)
    }

    private func makeSniffer(
        channel: any Channel, setup: Setup, alpn: String?, tls: Bool, before errorHandler: ConnectionErrorHandler
    ) -> ProtocolSniffer {
        ProtocolSniffer { _, isHTTP2 in
            if isHTTP2 {
                try self.installHTTP2(channel: channel, setup: setup, alpn: alpn, tls: tls, before: errorHandler)
            } else {
                try self.installHTTP1(channel: channel, setup: setup, alpn: alpn, tls: tls, before: errorHandler)
            }
        }
    }

    private func installHTTP2(channel: any Channel, setup: Setup, alpn: String?, tls: Bool, before errorHandler: ConnectionErrorHandler) throws {
        // The deadline stays until the client's preface has been read (ALPN h2 alone proves nothing).
        let info = makeInfo(channel: channel, setup: setup, version: .http2, alpn: alpn, tls: tls)
        let sync = channel.pipeline.syncOperations
        if let idle = configuration.idleTimeout {
            try sync.addHandler(ConnectionIdleHandler(timeout: idle), position: .before(errorHandler))
        }
        let handler = NGHTTP2Handler(
            responder: responder,
            info: info,
            settings: responder.http2Settings(for: info, defaults: configuration.http2),
            maxBodySize: configuration.maxRequestBodySize,
            idleGoAwayDebugData: configuration.idleGoAwayDebugData,
            lenientFieldWhitespace: configuration.lenientFieldWhitespace,
            lane: lanes?.lane(for: channel.eventLoop),
            prefaceReceived: { setup.protocolChosen() }
        )
        try sync.addHandler(handler, position: .before(errorHandler))
    }

    private func installHTTP1(channel: any Channel, setup: Setup, alpn: String?, tls: Bool, before errorHandler: ConnectionErrorHandler) throws {
        // The HTTP/1.1 deadline stays until the first request head is complete (a client that
        // sends a request line and then nothing is closed like one that sends nothing at all).
        let info = makeInfo(channel: channel, setup: setup, version: .http1_1, alpn: alpn, tls: tls)
        let sync = channel.pipeline.syncOperations
        try sync.configureHTTPServerPipeline(position: .before(errorHandler), withErrorHandling: true)
        if let idle = configuration.idleTimeout {
            try sync.addHandler(ConnectionIdleHandler(timeout: idle), position: .before(errorHandler))
        }
        try sync.addHandler(
            HTTP1Handler(
                responder: responder, info: info, maxBodySize: configuration.maxRequestBodySize,
                maxHeaderListSize: Int(configuration.http2.maxHeaderListSize), lane: lanes?.lane(for: channel.eventLoop),
                firstHead: { setup.protocolChosen() }
            ),
            position: .before(errorHandler)
        )
    }

    private func makeInfo(channel: any Channel, setup: Setup, version: ConnectionInfo.HTTPVersion, alpn: String?, tls: Bool) -> ConnectionInfo {
        var chain: [[UInt8]] = []
        if tls, let ssl = try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self) {
            if let validated = ssl.peerValidatedCertificateChain {
                chain = validated.compactMap { try? $0.toDERBytes() }
            } else if let leaf = ssl.peerCertificate, let der = try? leaf.toDERBytes() {
                chain = [der]
            }
        }
        return ConnectionInfo(
            id: ConnectionRegistry.makeConnectionID(),
            httpVersion: version,
            isTLS: tls,
            alpnProtocol: alpn,
            serverName: setup.serverName,
            remoteAddress: channel.remoteAddress.map(Self.format),
            localPort: channel.localAddress?.port,
            clientCertificateChain: chain
        )
    }

    private static func format(_ address: SocketAddress) -> String {
        let ip = address.ipAddress ?? "?"
        let port = address.port.map(String.init) ?? "?"
        if case .v6 = address {
            return "[\(ip)]:\(port)"
        }
        return "\(ip):\(port)"
    }
}

public import Logging
public import NIOCore
import NIOHTTP1
public import NIOPosix
import NIOSSL
import NIOTLS
public import ServiceLifecycle
import Synchronization

/// A listening socket that serves HTTP/2 (nghttp2) and HTTP/1.1 (NIOHTTP1) to one responder,
/// over TLS with ALPN or in cleartext. Knows nothing about push.
///
/// ```swift
/// let listener = try await HTTPListener.bind(
///     configuration: ListenerConfiguration(host: "127.0.0.1", port: 0, tls: tls),
///     responder: MyResponder()
/// )
/// print(listener.port)
/// try await listener.run()   // until graceful shutdown (ServiceLifecycle) or cancellation
/// ```
public final class HTTPListener: Service, Sendable {
    /// The address actually bound (port 0 resolved).
    public let localAddress: SocketAddress
    /// The configuration it was bound with.
    public let configuration: ListenerConfiguration
    private let serverChannel: any Channel
    private let registry: ConnectionRegistry
    private let logger: Logger
    private let shutdownStarted = Atomic<Bool>(false)

    /// The port actually bound.
    public var port: Int { localAddress.port ?? configuration.port }

    /// Open connections right now.
    public var connectionCount: Int { registry.count }

    /// Whether the listening socket is still open (false once shutdown began).
    public var isListening: Bool { serverChannel.isActive }

    private init(
        localAddress: SocketAddress, configuration: ListenerConfiguration, serverChannel: any Channel, registry: ConnectionRegistry, logger: Logger
    ) {
        self.localAddress = localAddress
        self.configuration = configuration
        self.serverChannel = serverChannel
        self.registry = registry
        self.logger = logger
    }

    /// Binds the socket and starts accepting. Fails at once if the address is taken or the TLS
    /// configuration is unusable. Connections count the work their answers leave
    /// (``ConnectionControl/afterAnswer(_:)-(AfterAnswerWork)``) in `lanes`, if given.
    public static func bind(
        configuration: ListenerConfiguration,
        responder: any HTTPResponder,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        lanes: AnswerLanes? = nil,
        logger: Logger = Logger(label: "pushmock.transport")
    ) async throws -> HTTPListener {
        let sslContext: NIOSSLContext?
        if let material = configuration.tls {
            var tls = try material.serverConfiguration()
            tls.applicationProtocols = ["h2", "http/1.1"]
            if configuration.requestClientCertificates {
                tls.certificateVerification = .optionalVerification
                // The responder judges a client's chain against its own roots (the handler's callback
                // accepts whatever is presented): no system trust store is read, so a machine without
                // one (a bare Debian root, a FROM-scratch image) serves all the same.
                tls.trustRoots = .certificates([])
            }
            sslContext = try NIOSSLContext(configuration: tls)
        } else {
            sslContext = nil
        }
        let registry = ConnectionRegistry()
        let pipeline = ConnectionPipeline(configuration: configuration, responder: responder, sslContext: sslContext, logger: logger, lanes: lanes)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // At the TCP level: `.socketOption(.tcp_nodelay)` is SOL_SOCKET option 1, SO_DEBUG, which only
            // root may set (every connection of a non-root server was closed at accept).
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                // Over the cap: closed at once, before TLS, so that descriptors never run out and
                // the other port keeps answering (issue 10: 20 000 idle sockets took both down).
                let budget = configuration.sharedBudget
                if let budget, !budget.take() {
                    responder.transportEvent(.connectionOverCap, connection: nil)
                    return channel.eventLoop.makeFailedFuture(
                        TransportError(code: .overConnectionCap, message: "over \(budget.limit) connections (shared)"))
                }
                let admission = registry.register(
                    channel, limit: configuration.maxConnections, perClient: configuration.maxConnectionsPerClient
                ) {
                    budget?.giveBack()
                    responder.connectionReleased()
                }
                if admission != .admitted { budget?.giveBack() }
                switch admission {
                case .admitted:
                    break
                case .overCap:
                    responder.transportEvent(.connectionOverCap, connection: nil)
                    // A failed initializer makes NIO close the accepted socket without registering it.
                    return channel.eventLoop.makeFailedFuture(
                        TransportError(code: .overConnectionCap, message: "over \(configuration.maxConnections ?? 0) connections"))
                case .overClientCap:
                    responder.transportEvent(.connectionOverClientCap, connection: nil)
                    return channel.eventLoop.makeFailedFuture(
                        TransportError(
                            code: .overConnectionCap, message: "over \(configuration.maxConnectionsPerClient ?? 0) connections from one address"))
                case .closed:
                    return channel.eventLoop.makeFailedFuture(TransportError(code: .shuttingDown, message: "the listener is shutting down"))
                }
                responder.connectionAccepted()
                return channel.eventLoop.makeCompletedFuture {
                    try pipeline.configure(channel)
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        guard let address = channel.localAddress else {
            try? await channel.close()
            throw TransportError(code: .bindFailed, message: "no local address after binding \(configuration.host):\(configuration.port)")
        }
        logger.debug("listening", metadata: ["address": "\(address)", "tls": "\(sslContext != nil)"])
        return HTTPListener(localAddress: address, configuration: configuration, serverChannel: channel, registry: registry, logger: logger)
    }

    /// Serves until graceful shutdown or task cancellation, then shuts down gracefully.
    public func run() async throws {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                try? await serverChannel.closeFuture.get()
            } onGracefulShutdown: {
                self.stopAccepting()
            }
        } onCancel: {
            self.stopAccepting()
        }
        await shutdown()
    }

    /// Stops accepting, sends GOAWAY to every connection, lets streams in flight finish (up to the
    /// grace period), then closes what is left. Safe to call more than once.
    public func shutdown() async {
        stopAccepting()
        try? await serverChannel.closeFuture.get()
        // Closing the registry makes this list final: a connection the server channel accepted
        // just before it closed, and NIO initializes only now, is refused. Without that, such a
        // connection missed the quiesce; if the others had drained already it was never closed
        // (it outlived the shutdown), and registered after the grace period's list it kept the
        // wait for an empty registry from returning.
        let open = registry.close()
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        let grace = configuration.shutdownGracePeriod
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.registry.waitUntilEmpty()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .nanoseconds(grace.nanoseconds))
                return false
            }
            let drained = await group.next() ?? false
            group.cancelAll()
            if !drained {
                // Grace period over: close what is left; waitUntilEmpty returns once they close.
                for channel in open {
                    channel.close(promise: nil)
                }
                await group.waitForAll()
            }
        }
        logger.debug("listener stopped", metadata: ["address": "\(localAddress)"])
    }

    private func stopAccepting() {
        guard !shutdownStarted.exchange(true, ordering: .relaxed) else { return }
        serverChannel.close(promise: nil)
    }
}

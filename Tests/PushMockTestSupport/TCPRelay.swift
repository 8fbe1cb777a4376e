import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay in front of a server that can turn into a black hole: after ``swallow()`` every
/// connection open at that moment stays open but carries nothing more in either direction (what a
/// dead network path or a hung server looks like to a client), while connections made later are
/// relayed again. For tests of a client that must notice a peer that never answers.
///
/// It also stands for a server that is down: started with no target (``down()``), it closes
/// every connection at once, on a port of its own that no other test can take; ``connect(to:)``
/// brings the server "back" on that same port.
package final class TCPRelay: Sendable {
    package let port: Int
    private let channel: any Channel
    private let connections: Connections

    /// Every connection relayed so far.
    final class Connections: Sendable {
        let pairs = Mutex<[Pair]>([])
        /// New connections are swallowed too (``swallowAll()``).
        let blackHole = Atomic<Bool>(false)
        /// The server's port; 0 while it is down (each connection is closed at once).
        let target = Atomic<Int>(0)
    }

    /// One accepted connection and the one opened to the server for it.
    final class Pair: Sendable {
        let swallowed = Atomic<Bool>(false)
    }

    private init(port: Int, channel: any Channel, connections: Connections) {
        self.port = port
        self.channel = channel
        self.connections = connections
    }

    /// Listens on a free loopback port and relays each connection to `host:port`.
    package static func start(to host: String = "127.0.0.1", port targetPort: Int) async throws -> TCPRelay {
        let connections = Connections()
        connections.target.store(targetPort, ordering: .relaxed)
        let group = MultiThreadedEventLoopGroup.singleton
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                let pair = Pair()
                pair.swallowed.store(connections.blackHole.load(ordering: .relaxed), ordering: .relaxed)
                connections.pairs.withLock { $0.append(pair) }
                let targetPort = connections.target.load(ordering: .relaxed)
                guard targetPort != 0 else { return inbound.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
                return ClientBootstrap(group: inbound.eventLoop).connect(host: host, port: targetPort).flatMap { outbound in
                    let toServer = Forward(to: outbound, pair: pair)
                    let toClient = Forward(to: inbound, pair: pair)
                    return outbound.pipeline.addHandler(toClient).flatMap { inbound.pipeline.addHandler(toServer) }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TCPRelay(port: channel.localAddress!.port!, channel: channel, connections: connections)
    }

    /// A server that is down: every connection to the returned port is closed at once, until
    /// ``connect(to:)``.
    package static func down() async throws -> TCPRelay {
        try await start(port: 0)
    }

    /// From now on, new connections are relayed to `port` on the relay's host.
    package func connect(to port: Int) {
        connections.target.store(port, ordering: .relaxed)
    }

    /// From now on, the connections open now carry nothing; later ones are relayed.
    package func swallow() {
        connections.pairs.withLock { pairs in
            for pair in pairs { pair.swallowed.store(true, ordering: .relaxed) }
        }
    }

    /// The server is gone for good: the connections open now and every later one carry nothing.
    package func swallowAll() {
        connections.blackHole.store(true, ordering: .relaxed)
        swallow()
    }

    package func close() async {
        try? await channel.close()
    }

    /// Writes what one side reads to the other, unless the pair is swallowed.
    final class Forward: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let peer: any Channel
        let pair: Pair

        init(to peer: any Channel, pair: Pair) {
            self.peer = peer
            self.pair = pair
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !pair.swallowed.load(ordering: .relaxed) else { return }
            peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            if !pair.swallowed.load(ordering: .relaxed) { peer.close(promise: nil) }
        }
    }
}

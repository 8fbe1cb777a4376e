import Glibc
public import NIOCore
import NIOHTTP1
import NIOPosix
public import NIOSSL
import NIOTLS
import Synchronization

/// An HTTP client on the transport's own HTTP/2 (nghttp2) and SwiftNIO's HTTP/1.1: `https` URLs
/// speak HTTP/2 where the server offers it by ALPN and HTTP/1.1 otherwise; `http` URLs speak
/// HTTP/1.1. An HTTP/2 connection is shared by every request to its host and port; HTTP/1.1
/// connections are kept for reuse while the server keeps them open. What the relay, the loopback
/// sender and the command line send with.
public final class HTTPClientPool: Sendable {
    private let group: any EventLoopGroup
    /// What `https` connections use; its context is made at the first `https` request (or by
    /// ``prepareTLS()``): loading the system's trust roots fails where there are none (a bare
    /// root), which a client that only speaks `http` must not.
    private let tls: TLSConfiguration?
    private let connectTimeout: TimeAmount
    private let maxBodySize: Int
    private let state = Mutex(State())

    private struct State {
        /// The HTTP/2 connection (or the connection being opened) of each host, shared.
        var shared: [Origin: EventLoopFuture<Connection>] = [:]
        /// Hosts whose ALPN chose HTTP/1.1: their requests do not wait for a shared connection.
        var http1Only: Set<Origin> = []
        var idle: [Origin: [Connection]] = [:]
        var open: [ObjectIdentifier: any Channel] = [:]
        var closed = false
        var sslContext: NIOSSLContext?
    }

    /// An open connection, and the handler its requests go through (used on its event loop only).
    final class Connection: @unchecked Sendable {
        let channel: any Channel
        let http2: NGHTTP2ClientHandler?
        let http1: HTTP1ClientHandler?

        init(channel: any Channel, http2: NGHTTP2ClientHandler?, http1: HTTP1ClientHandler?) {
            self.channel = channel
            self.http2 = http2
            self.http1 = http1
        }
    }

    /// `tls` is used for `https` URLs (offering `h2` and `http/1.1` by ALPN unless it names its
    /// own protocols); nil makes a client for `http` URLs alone. `group` runs the connections
    /// (default: SwiftNIO's shared one). `connectTimeout` bounds opening a connection (TCP and
    /// TLS) within a request's deadline. Answers' bodies over `maxBodySize` bytes fail the request.
    public init(
        tls: TLSConfiguration?, connectTimeout: Duration = .seconds(10), maxBodySize: Int = 64 << 20, group: (any EventLoopGroup)? = nil
    ) {
        self.group = group ?? MultiThreadedEventLoopGroup.singleton
        if var tls, tls.applicationProtocols.isEmpty {
            tls.applicationProtocols = ["h2", "http/1.1"]
            self.tls = tls
        } else {
            self.tls = tls
        }
        self.connectTimeout = TimeAmount(connectTimeout)
        self.maxBodySize = maxBodySize
    }

    /// Sends `request` and returns its whole answer, or throws ``HTTPClientFailure`` when none
    /// came by `timeout`. Cancelling the task gives up on it at once.
    public func execute(_ request: ClientRequest, timeout: Duration) async throws -> ClientResponse {
        try await execute(request, deadline: .now() + TimeAmount(timeout))
    }

    /// The same, with an absolute deadline.
    public func execute(_ request: ClientRequest, deadline: NIODeadline) async throws -> ClientResponse {
        guard let target = Self.parse(request.url) else { throw HTTPClientFailure("not an http or https URL: \(request.url)") }
        try Task.checkCancellation()
        let connection = try await connection(to: target.origin, deadline: deadline)
        let response = try await exchange(request, path: target.path, on: connection, deadline: deadline)
        if connection.http1 != nil {
            let reusable = try? await connection.channel.eventLoop.submit { connection.http1?.reusable == true && connection.channel.isActive }.get()
            if reusable == true { release(connection, origin: target.origin) } else { connection.channel.close(promise: nil) }
        }
        return response
    }

    /// Makes the TLS context now, so that a certificate, key or trust store that cannot be used
    /// fails here rather than at the first `https` request.
    public func prepareTLS() throws(HTTPClientFailure) {
        _ = try sslContext()
    }

    private func sslContext() throws(HTTPClientFailure) -> NIOSSLContext {
        guard let tls else { throw HTTPClientFailure("this client has no TLS configuration: it sends to http URLs only") }
        return try state.withLock { state throws(HTTPClientFailure) in
            if let made = state.sslContext { return made }
            do {
                let made = try NIOSSLContext(configuration: tls)
                state.sslContext = made
                return made
            } catch {
                throw HTTPClientFailure("the TLS configuration is not usable: \(error)")
            }
        }
    }

    /// Closes every connection; requests under way fail, and new ones are refused.
    public func shutdown() async {
        let channels = state.withLock { state in
            state.closed = true
            state.shared = [:]
            state.idle = [:]
            return Array(state.open.values)
        }
        for channel in channels { try? await channel.close() }
    }

    /// A request's answer on `connection`, failed at `deadline` or when the task is cancelled.
    private func exchange(
        _ request: ClientRequest, path: String, on connection: Connection, deadline: NIODeadline
    ) async throws
        -> ClientResponse
    {
        let loop = connection.channel.eventLoop
        let promise = loop.makePromise(of: ClientResponse.self)
        // The stream's ID and whether the answer came, read and written on `loop` alone.
        let progress = NIOLoopBoundBox.makeBoxSendingValue((stream: Int32?.none, done: false), as: (stream: Int32?, done: Bool).self, eventLoop: loop)
        let giveUp: @Sendable (HTTPClientFailure) -> Void = { failure in
            loop.execute {
                guard !progress.value.done else { return }
                promise.fail(failure)
                if let http2 = connection.http2, let id = progress.value.stream { http2.cancel(streamID: id) }
                connection.http1?.cancel()
            }
        }
        let timer = loop.scheduleTask(deadline: deadline) { giveUp(HTTPClientFailure("no answer before the deadline")) }
        promise.futureResult.whenComplete { _ in
            progress.value.done = true
            timer.cancel()
        }
        loop.execute {
            if let http2 = connection.http2 {
                progress.value.stream = http2.submit(request, path: path, promise: promise)
            } else {
                connection.http1?.send(request, path: path, promise: promise)
            }
        }
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            giveUp(.cancelled)
        }
    }

    /// A connection to `origin`: the shared HTTP/2 one, an idle HTTP/1.1 one, or a new one.
    private func connection(to origin: Origin, deadline: NIODeadline) async throws -> Connection {
        enum Plan {
            case wait(EventLoopFuture<Connection>)
            case reuse(Connection)
            /// Open one; `shared` (an HTTP/2 candidate) is already where other requests find it.
            case open(shared: EventLoopPromise<Connection>?)
        }
        let sslContext = origin.secure ? try sslContext() : nil
        let plan = try state.withLock { state throws(HTTPClientFailure) -> Plan in
            guard !state.closed else { throw .shutDown }
            if origin.secure, !state.http1Only.contains(origin) {
                if let shared = state.shared[origin] { return .wait(shared) }
                // Registered before the lock is let go: requests at the same moment wait for
                // this one connection instead of each opening their own.
                let promise = group.next().makePromise(of: Connection.self)
                state.shared[origin] = promise.futureResult
                return .open(shared: promise)
            }
            while let idle = state.idle[origin]?.popLast() {
                if idle.channel.isActive { return .reuse(idle) }
            }
            return .open(shared: nil)
        }
        switch plan {
        case .reuse(let connection):
            return connection
        case .wait(let shared):
            // A connection that could not be opened fails every request that waited for it, as
            // it fails the one that opened it.
            let opened = try await shared.get()
            if try await opened.channel.eventLoop.submit({ opened.http2?.acceptsStreams == true }).get() {
                return opened
            }
            // It went away (GOAWAY, closed), or ALPN chose HTTP/1.1: a connection of its own.
            state.withLock { state in
                if state.shared[origin] === shared { state.shared[origin] = nil }
            }
            return try await connection(to: origin, deadline: deadline)
        case .open(let shared):
            let opening = open(origin, deadline: deadline, sslContext: sslContext)
            guard let shared else { return try await opening.get() }
            shared.completeWith(opening)
            do {
                let connection = try await opening.get()
                if connection.http2 == nil {
                    state.withLock { state in
                        if state.shared[origin] === shared.futureResult { state.shared[origin] = nil }
                        state.http1Only.insert(origin)
                    }
                }
                return connection
            } catch {
                state.withLock { state in if state.shared[origin] === shared.futureResult { state.shared[origin] = nil } }
                throw error
            }
        }
    }

    /// Keeps an HTTP/1.1 connection for the next request to `origin`.
    private func release(_ connection: Connection, origin: Origin) {
        let keep = state.withLock { state in
            guard !state.closed else { return false }
            state.idle[origin, default: []].append(connection)
            return true
        }
        if !keep { connection.channel.close(promise: nil) }
    }

    /// Opens a connection to `origin`: TCP, then TLS with ALPN for `https`, then the handler of
    /// the protocol chosen. It fails at the connect timeout or `deadline`, whichever is first.
    private func open(_ origin: Origin, deadline: NIODeadline, sslContext: NIOSSLContext?) -> EventLoopFuture<Connection> {
        let loop = group.next()
        let ready = loop.makePromise(of: Connection.self)
        let connectDeadline = min(deadline, .now() + connectTimeout)
        let authority = origin.port == (origin.secure ? 443 : 80) ? Self.bracketed(origin.host) : "\(Self.bracketed(origin.host)):\(origin.port)"
        let timer = loop.scheduleTask(deadline: connectDeadline) {
            ready.fail(HTTPClientFailure("could not connect to \(authority) in time (TCP and TLS)"))
        }
        ready.futureResult.whenComplete { _ in timer.cancel() }
        let maxBodySize = self.maxBodySize
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(max(.milliseconds(1), connectDeadline - .now()))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    let catcher = ConnectFailureHandler(ready: ready, authority: authority)
                    guard origin.secure, let sslContext else {
                        // Plain HTTP: ready once TCP is connected (below).
                        try Self.installHTTP1(on: channel, host: authority, maxBodySize: maxBodySize, before: nil)
                        try sync.addHandler(catcher)
                        return
                    }
                    let name = Self.isIPAddress(origin.host) ? nil : origin.host
                    try sync.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: name))
                    try sync.addHandler(
                        ApplicationProtocolNegotiationHandler { result, channel in
                            channel.eventLoop.makeCompletedFuture {
                                if case .negotiated("h2") = result {
                                    let http2 = NGHTTP2ClientHandler(authority: authority, scheme: "https", maxBodySize: maxBodySize)
                                    try channel.pipeline.syncOperations.addHandler(http2, position: .before(catcher))
                                    ready.succeed(Connection(channel: channel, http2: http2, http1: nil))
                                } else {
                                    let http1 = try Self.installHTTP1(on: channel, host: authority, maxBodySize: maxBodySize, before: catcher)
                                    ready.succeed(Connection(channel: channel, http2: nil, http1: http1))
                                }
                            }
                        })
                    try sync.addHandler(catcher)
                }
            }
        bootstrap.connect(host: origin.host, port: origin.port).whenComplete { result in
            switch result {
            case .success(let channel):
                let id = ObjectIdentifier(channel)
                let accepted = self.state.withLock { state in
                    guard !state.closed else { return false }
                    state.open[id] = channel
                    return true
                }
                guard accepted else {
                    ready.fail(HTTPClientFailure.shutDown)
                    channel.close(promise: nil)
                    return
                }
                channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.open.removeValue(forKey: id) } }
                ready.futureResult.whenFailure { _ in channel.close(promise: nil) }
                if !origin.secure, let http1 = try? channel.pipeline.syncOperations.handler(type: HTTP1ClientHandler.self) {
                    ready.succeed(Connection(channel: channel, http2: nil, http1: http1))
                }
            case .failure(let error):
                ready.fail(HTTPClientFailure("cannot connect to \(authority): \(Self.reason(error))"))
            }
        }
        return ready.futureResult
    }

    /// Why a connection could not be made, in a few words: the first address's socket error (a
    /// refused connection's "Connection refused (errno: 111)"), not NIO's list of every address
    /// it tried, each with its type names.
    static func reason(_ error: any Error) -> String {
        if let connection = error as? NIOConnectionError, let first = connection.connectionErrors.first?.error {
            if let io = first as? IOError { return "\(String(cString: strerror(io.errnoCode))) (errno \(io.errnoCode))" }
            return "\(first)"
        }
        return "\(error)"
    }

    /// Adds HTTP/1.1 to `channel` (before `catcher`, if given) and returns its handler.
    @discardableResult
    private static func installHTTP1(
        on channel: any Channel, host: String, maxBodySize: Int, before catcher: ConnectFailureHandler?
    ) throws -> HTTP1ClientHandler {
        let sync = channel.pipeline.syncOperations
        let http1 = HTTP1ClientHandler(host: host, maxBodySize: maxBodySize)
        let position: ChannelPipeline.SynchronousOperations.Position = catcher.map { .before($0) } ?? .last
        try sync.addHTTPClientHandlers(position: position, leftOverBytesStrategy: .fireError)
        try sync.addHandler(http1, position: position)
        return http1
    }
}

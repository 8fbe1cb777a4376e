import NIOCore
import NIOPosix
import NIOSSL
public import PushMockTransport
import Synchronization

/// What an upstream answered: its status, headers (names lowercased) and body.
public typealias UpstreamAnswer = ClientResponse

/// Why the outbound client refused.
public struct OutboundError: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// The client is shutting down: no new request is sent.
    public static let shuttingDown = OutboundError("the relay is shutting down")
}

/// The relay's HTTP client (the transport's `HTTPClientPool`): HTTP/2 over TLS with ALPN (HTTP/1.1
/// where the upstream has no h2), connections kept open, the system's trust roots plus any CA
/// given, and a client certificate for APNs' certificate auth.
public final class OutboundClient: Sendable {
    private let client: HTTPClientPool
    /// The client's own event loop, where a forward's TLS and HTTP/2 work is done, on a thread the
    /// caller may lower (the relay gives it the lowest priority). When it opens a connection it
    /// resolves the host on the global pool; a pool worker it starts then inherits that priority
    /// until it is idle for a few seconds and ends.
    private let group: MultiThreadedEventLoopGroup
    /// Requests under way, and whether the client is shutting down. The event loop is shut down
    /// only once the last request has ended: one still running would otherwise schedule on a loop
    /// that is gone, which SwiftNIO reports (and a promise left behind crashes a debug build).
    private let gate = Mutex(Gate())

    private struct Gate {
        var running = 0
        var closed = false
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    /// `connectTimeout` bounds opening a connection (TCP and TLS), part of an attempt;
    /// `loopSetup` runs first on the client's event loop thread (to lower its priority, say).
    public init(
        trustedCAsPEM: String?, clientCertificate: (chainPEM: String, keyPEM: String)?, connectTimeout: Duration,
        loopSetup: @escaping @Sendable () -> Void = {}
    ) throws(OutboundError) {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustedCAsPEM {
            do {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(trustedCAsPEM.utf8)))]
            } catch {
                throw OutboundError("the trusted CA file holds no PEM certificate: \(error)")
            }
        }
        if let clientCertificate {
            do {
                tls.certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(clientCertificate.chainPEM.utf8)).map { .certificate($0) }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(clientCertificate.keyPEM.utf8), format: .pem))
            } catch {
                throw OutboundError("the APNs client certificate or its key is not PEM: \(error)")
            }
        }
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        group.next().execute(loopSetup)
        // A refused connection fails the attempt at once: the relay's own attempts and backoff
        // apply. A certificate, key or trust store that cannot be used fails here, at start.
        client = HTTPClientPool(tls: tls, connectTimeout: connectTimeout, maxBodySize: 1 << 20, group: group)
        do {
            try client.prepareTLS()
        } catch {
            try? group.syncShutdownGracefully()
            throw OutboundError("the relay's TLS configuration is not usable: \(error)")
        }
    }

    /// One request and its whole answer (bodies up to 1 MiB).
    public func send(
        method: String, url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration
    ) async throws
        -> UpstreamAnswer
    {
        guard
            gate.withLock({ gate in
                guard !gate.closed else { return false }
                gate.running += 1
                return true
            })
        else { throw OutboundError.shuttingDown }
        defer {
            let waiting = gate.withLock { gate in
                gate.running -= 1
                guard gate.running == 0 else { return [CheckedContinuation<Void, Never>]() }
                defer { gate.drained = [] }
                return gate.drained
            }
            for waiter in waiting { waiter.resume() }
        }
        let request = ClientRequest(method: method, url: url, headers: headers, body: body.isEmpty ? nil : body)
        return try await client.execute(request, timeout: timeout)
    }

    /// Refuses new requests, shuts the client down (which cancels those under way), waits for
    /// them to end, then shuts the event loop down.
    public func shutdown() async {
        gate.withLock { $0.closed = true }
        await client.shutdown()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let idle = gate.withLock { gate in
                if gate.running == 0 { return true }
                gate.drained.append(done)
                return false
            }
            if idle { done.resume() }
        }
        try? await group.shutdownGracefully()
    }
}

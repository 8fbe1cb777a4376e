public import Logging
import NIOCore
import NIOPosix
import NIOSSL
public import PushMockTransport
public import ServiceLifecycle

/// The composition root: binds the push listeners for a configuration and runs them as one
/// `Service`.
///
/// ```swift
/// let server = try await PushMockServer.start(configuration: PushMockConfiguration())
/// print("push port", server.pushPort)
/// try await server.run()   // until graceful shutdown or cancellation
/// ```
public final class PushMockServer: Service, Sendable {
    /// The configuration the server started with.
    public let configuration: PushMockConfiguration
    /// The TLS push listener.
    public let pushListener: HTTPListener
    /// The cleartext (h2c + HTTP/1.1) listener, when configured.
    public let cleartextListener: HTTPListener?
    private let group: any EventLoopGroup
    private let ownsGroup: Bool

    /// The TLS push port actually bound.
    public var pushPort: Int { pushListener.port }
    /// The cleartext port actually bound, if any.
    public var cleartextPort: Int? { cleartextListener?.port }

    private init(configuration: PushMockConfiguration, pushListener: HTTPListener, cleartextListener: HTTPListener?, group: any EventLoopGroup, ownsGroup: Bool) {
        self.configuration = configuration
        self.pushListener = pushListener
        self.cleartextListener = cleartextListener
        self.group = group
        self.ownsGroup = ownsGroup
    }

    /// Loads TLS material and binds every listener; fails fast with a readable error.
    public static func start(configuration: PushMockConfiguration, logger: Logger = Logger(label: "pushmock")) async throws -> PushMockServer {
        let tls = try loadTLS(configuration.tls)
        let group: any EventLoopGroup
        let ownsGroup: Bool
        if let threads = configuration.threads {
            group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
            ownsGroup = true
        } else {
            group = MultiThreadedEventLoopGroup.singleton
            ownsGroup = false
        }
        let responder = PushResponder(mode: configuration.mode)
        var listenerConfiguration = ListenerConfiguration(
            host: configuration.host,
            port: configuration.pushPort,
            tls: tls,
            http2: configuration.http2,
            maxRequestBodySize: configuration.maxRequestBodySize,
            idleTimeout: configuration.idleTimeoutSeconds.map { .seconds($0) },
            idleGoAwayDebugData: Array(#"{"reason":"IdleTimeout"}"#.utf8),
            shutdownGracePeriod: .seconds(configuration.shutdownGracePeriodSeconds)
        )
        do {
            let push = try await HTTPListener.bind(configuration: listenerConfiguration, responder: responder, group: group, logger: logger)
            var cleartext: HTTPListener?
            if let port = configuration.cleartextPort {
                listenerConfiguration.port = port
                listenerConfiguration.tls = nil
                do {
                    cleartext = try await HTTPListener.bind(configuration: listenerConfiguration, responder: responder, group: group, logger: logger)
                } catch {
                    await push.shutdown()
                    throw error
                }
            }
            return PushMockServer(configuration: configuration, pushListener: push, cleartextListener: cleartext, group: group, ownsGroup: ownsGroup)
        } catch let error as IOError {
            if ownsGroup { try? await group.shutdownGracefully() }
            throw PushMockError(code: .listenFailed, message: "cannot listen on \(configuration.host): \(error.description)")
        }
    }

    /// Serves until graceful shutdown or cancellation, then drains every listener.
    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await self.pushListener.run() }
            if let cleartextListener {
                group.addTask { try? await cleartextListener.run() }
            }
        }
        if ownsGroup {
            try? await group.shutdownGracefully()
        }
    }

    /// Stops every listener gracefully (GOAWAY, in-flight streams finish).
    public func shutdown() async {
        await pushListener.shutdown()
        await cleartextListener?.shutdown()
    }

    static func loadTLS(_ source: PushMockConfiguration.TLSSource) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            switch source {
            case .files(let certificatePath, let keyPath):
                for path in [certificatePath, keyPath] where !FileCheck.exists(path) {
                    throw PushMockError(
                        code: .tlsMaterialMissing,
                        message: "\(path) not found. Run from the repository root, pass --cert and --key, or create a set with `pushmock certs generate --out DIR`."
                    )
                }
                chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
                key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            case .pem(let certificatePEM, let keyPEM):
                chain = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8))
                key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
            }
        } catch let error as PushMockError {
            throw error
        } catch {
            throw PushMockError(code: .tlsMaterialInvalid, message: "cannot load the TLS certificate or key: \(error)")
        }
        guard !chain.isEmpty else {
            throw PushMockError(code: .tlsMaterialInvalid, message: "the certificate file holds no certificate")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}

import Foundation
import Logging
import NIOCore
import NIOPosix
import PushMockInspection
import PushMockTransport

#if canImport(Glibc)
import Glibc
#endif

/// The composition root's one file that speaks NIO (scripts/check-imports holds it to that): the
/// event loops, the TLS the listeners serve, and binding the listeners by role (push, CONNECT
/// proxy, cleartext, inspection, metadata).
extension PushMockServer {
    /// The event loops and the TLS material of one server, prepared before anything is opened.
    struct Bootstrap: Sendable {
        let tls: ListenerTLS
        let group: any EventLoopGroup
        /// Whether the server made `group` (and shuts it down), or shares the process's.
        let ownsGroup: Bool

        /// Loads the TLS material (failing fast with a readable error) and picks the event loops.
        init(_ configuration: PushMockConfiguration) throws {
            tls = try PushMockServer.loadTLS(configuration.tls)
            if let threads = configuration.threads {
                group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
                ownsGroup = true
            } else {
                group = MultiThreadedEventLoopGroup.singleton
                ownsGroup = false
            }
        }

        /// Binds every configured listener.
        func bind(_ configuration: PushMockConfiguration, components: Components, logger: Logger) async throws -> Bound {
            do {
                return try await PushMockServer.bindListeners(configuration, tls: tls, components: components, group: group, logger: logger)
            } catch let error as IOError {
                throw PushMockError(code: .listenFailed, message: "cannot listen: \(error.description)")
            }
        }

        /// Shuts the event loops down, if they are the server's own.
        func shutdown() async {
            if ownsGroup { try? await group.shutdownGracefully() }
        }
    }

    /// Binds the push port and whichever of the proxy, cleartext and inspection ports are
    /// configured; on any failure the ones already bound are shut down and the error is thrown.
    static func bindListeners(
        _ configuration: PushMockConfiguration, tls: ListenerTLS, components: Components, group: any EventLoopGroup, logger: Logger
    ) async throws -> Bound {
        var listenerConfiguration = ListenerConfiguration(
            host: configuration.host,
            port: configuration.pushPort,
            tls: tls,
            http2: configuration.http2,
            maxRequestBodySize: configuration.maxRequestBodySize,
            idleTimeout: configuration.idleTimeoutSeconds.map { .seconds($0) },
            idleGoAwayDebugData: Array(#"{"reason":"IdleTimeout"}"#.utf8),
            shutdownGracePeriod: .seconds(configuration.shutdownGracePeriodSeconds),
            requestClientCertificates: configuration.mode == .push,
            protocolDeadline: configuration.protocolDeadlineSeconds.map { .seconds($0) },
            // APNs answers `authorization: bearer ` itself (MissingProviderToken), so nghttp2's
            // RFC 9113 whitespace check must not reset such streams first.
            lenientFieldWhitespace: true
        )
        let caps = DescriptorLimit.caps(descriptors: DescriptorLimit.raiseToHardLimit(), cleartext: configuration.cleartextPort != nil)
        listenerConfiguration.maxConnections = configuration.maxConnections ?? caps.tls
        listenerConfiguration.maxConnectionsPerClient = configuration.maxConnectionsPerClient
        if configuration.proxyPort != nil {
            listenerConfiguration.sharedBudget = ConnectionBudget(limit: configuration.maxConnections ?? caps.tls)
        }
        var bound = Bound()
        do {
            let push = try await bind(
                "port", listenerConfiguration, responder: components.push, group: group, lanes: components.lanes, logger: logger)
            bound.push = push
            components.pushAddress.port = push.port
            if let port = configuration.proxyPort {
                // The tunnel is served like the push port itself (same TLS, same responder), and
                // shares its cap: each tunnel holds a descriptor, and the two together must leave
                // the inspection port its own.
                var proxy = listenerConfiguration
                proxy.port = port
                proxy.connectProxy = ConnectProxyPolicy { host, port in
                    RealHost.names[host].map { RealHost.isRealPort(port, of: $0) } ?? false
                }
                bound.proxy = try await bind("proxy-port", proxy, responder: components.push, group: group, lanes: components.lanes, logger: logger)
            }
            if let port = configuration.cleartextPort {
                listenerConfiguration.port = port
                listenerConfiguration.tls = nil
                listenerConfiguration.sharedBudget = nil
                listenerConfiguration.maxConnections = configuration.maxConnections ?? caps.cleartext
                bound.cleartext = try await bind(
                    "cleartext-port", listenerConfiguration, responder: components.push, group: group, lanes: components.lanes, logger: logger)
            }
            if let port = configuration.inspectionPort {
                // Its own cap, so a flooded push port never takes the inspection port with it;
                // idle connections close after a minute (a long-poll in progress is not idle).
                let inspection = ListenerConfiguration(
                    host: configuration.inspectionHost, port: port, tls: nil, maxRequestBodySize: 1 << 20, idleTimeout: .seconds(60),
                    shutdownGracePeriod: .seconds(configuration.shutdownGracePeriodSeconds), maxConnections: caps.inspection,
                    protocolDeadline: configuration.protocolDeadlineSeconds.map { .seconds($0) }
                )
                bound.inspection = try await bind("inspection-port", inspection, responder: components.inspection, group: group, logger: logger)
            }
            if let port = configuration.metadataPort {
                let metadata = ListenerConfiguration(
                    host: configuration.inspectionHost, port: port, tls: nil, maxRequestBodySize: 1 << 16, idleTimeout: .seconds(60),
                    shutdownGracePeriod: .seconds(configuration.shutdownGracePeriodSeconds), maxConnections: 64,
                    protocolDeadline: configuration.protocolDeadlineSeconds.map { .seconds($0) }
                )
                bound.metadata = try await bind("metadata-port", metadata, responder: components.metadata, group: group, logger: logger)
            }
        } catch {
            for listener in bound.all { await listener.shutdown() }
            throw error
        }
        return bound
    }

    /// Binds one listener; a port in use or out of reach is an error that names the port, the flag
    /// and the environment variable that set it, and what to do.
    static func bind(
        _ flag: String, _ configuration: ListenerConfiguration, responder: some HTTPResponder, group: any EventLoopGroup,
        lanes: AnswerLanes? = nil, logger: Logger
    ) async throws -> HTTPListener {
        do {
            return try await HTTPListener.bind(configuration: configuration, responder: responder, group: group, lanes: lanes, logger: logger)
        } catch let error as IOError {
            let variable = "PUSHMOCK_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
            let setting = "--\(flag), \(variable)"
            switch error.errnoCode {
            case EADDRINUSE:
                throw PushMockError(
                    code: .listenFailed,
                    message: "port \(configuration.port) is in use (\(setting)); stop what holds it, or pass --\(flag) 0 for a free one")
            case EACCES:
                throw PushMockError(
                    code: .listenFailed,
                    message:
                        "port \(configuration.port) needs privileges to bind (\(setting)): run as root, grant CAP_NET_BIND_SERVICE, or pick a port above 1023"
                )
            case EADDRNOTAVAIL:
                throw PushMockError(
                    code: .listenFailed,
                    message: "cannot bind \(configuration.host):\(configuration.port): no such local address (\(setting) and its host option)")
            default:
                throw PushMockError(
                    code: .listenFailed, message: "cannot listen on \(configuration.host):\(configuration.port) (\(setting)): \(error.description)")
            }
        }
    }

    static func loadTLS(_ source: PushMockConfiguration.TLSSource) throws -> ListenerTLS {
        let tls: ListenerTLS
        switch source {
        case .files(let certificatePath, let keyPath):
            var contents: [[UInt8]] = []
            for path in [certificatePath, keyPath] {
                guard FileCheck.exists(path), let data = FileManager.default.contents(atPath: path) else {
                    throw PushMockError(
                        code: .tlsMaterialMissing,
                        message:
                            "\(path) not found. Run from the repository root, pass --cert and --key, or create a set with `pushmock certs generate --out DIR`."
                    )
                }
                contents.append(Array(data))
            }
            tls = ListenerTLS(certificateChainPEM: contents[0], privateKeyPEM: contents[1])
        case .pem(let certificatePEM, let keyPEM):
            tls = ListenerTLS(certificateChainPEM: Array(certificatePEM.utf8), privateKeyPEM: Array(keyPEM.utf8))
        }
        do {
            try tls.validate()
        } catch {
            throw PushMockError(code: .tlsMaterialInvalid, message: "cannot load the TLS certificate or key: \(error.message)")
        }
        return tls
    }
}
